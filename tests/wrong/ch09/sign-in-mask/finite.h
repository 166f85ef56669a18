/* WRONG ANSWER (ch09, sign-in-mask): the sign bit inside the mask (0xff800000): every negative NaN or infinity is called finite */
/* Exercise ch09: a NaN check that fast math cannot delete (a solution;
 * exercises/ch09/finite.h says what is asked). */
#ifndef EX_CH09_FINITE_H
#define EX_CH09_FINITE_H

#include <stdint.h>
#include <string.h>

/* A float is NaN or infinite exactly when its 8 exponent bits are all ones.
 * Read the stored bits as an integer (memcpy, not a pointer cast, which would
 * break the aliasing rules): no floating-point flag governs integers, and no
 * float value is ever formed that the compiler could assume finite. */
static inline int ex_finite(const float *value)
{
    uint32_t bits;
    memcpy(&bits, value, sizeof bits);
    return (bits & 0xff800000u) != 0x7f800000u;
}

#endif
