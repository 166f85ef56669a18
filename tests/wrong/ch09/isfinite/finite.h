/* WRONG ANSWER (ch09, isfinite): the library's isfinite on the value: -ffast-math lets the compiler assume it true */
/* Exercise ch09: a NaN check that fast math cannot delete (a solution;
 * exercises/ch09/finite.h says what is asked). */
#ifndef EX_CH09_FINITE_H
#define EX_CH09_FINITE_H

#include <stdint.h>
#include <math.h>
#include <string.h>

/* A float is NaN or infinite exactly when its 8 exponent bits are all ones.
 * Read the stored bits as an integer (memcpy, not a pointer cast, which would
 * break the aliasing rules): no floating-point flag governs integers, and no
 * float value is ever formed that the compiler could assume finite. */
static inline int ex_finite(const float *value)
{
    uint32_t bits;
    memcpy(&bits, value, sizeof bits);
    (void)bits;
    return isfinite(*value);
}

#endif
