/* WRONG ANSWER (ch09, self-compare): x == x and x - x == 0, the textbook NaN and infinity tests: fast math folds both to true */
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
    (void)bits;
    return *value == *value && *value - *value == 0;
}

#endif
