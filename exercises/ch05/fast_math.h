/* Exercise ch05: two of chapter 05's speed-ups, written by hand.
 *
 * 1. ex_pow99(x): x^99 by repeated squaring (99 = 64 + 32 + 2 + 1), with
 *    multiplications only. Must stay within 98 units in the last place of
 *    pow() (see tests/test_ex_ch05.cu for why 98), and keep the sign of a
 *    negative x (99 is odd).
 * 2. ex_inverse_sqrt(x): 1/sqrt(x) without sqrt or division, as the GPU's
 *    rsqrtf does: a first guess from the float's bits (the exponent halved
 *    and negated: 0x5f3759df - (bits >> 1)), then Newton steps
 *    y = y * (1.5 - 0.5 * x * y * y). Each step roughly squares the error;
 *    the test wants 1e-6 relative. ex_normalize(a) must use it: one inverse
 *    square root and three multiplies, no division.
 * Then: make grade
 */
#ifndef EX_CH05_FAST_MATH_H
#define EX_CH05_FAST_MATH_H

#include <stdint.h>
#include <string.h>

typedef struct {
    float x, y, z;
} ex_vec;

static inline float ex_pow99(float x)
{
    return x; /* TODO */
}

static inline float ex_inverse_sqrt(float x)
{
    return x; /* TODO */
}

static inline ex_vec ex_normalize(ex_vec a)
{
    return a; /* TODO */
}

#endif
