/* Solution to exercise ch05: x^99 by squaring, an rsqrt-style inverse square root. */
#ifndef EX_CH05_FAST_MATH_H
#define EX_CH05_FAST_MATH_H

#include <stdint.h>
#include <string.h>

typedef struct {
    float x, y, z;
} ex_vec;

static inline float ex_pow99(float x)
{
    float x2 = x * x, x4 = x2 * x2, x8 = x4 * x4, x16 = x8 * x8, x32 = x16 * x16, x64 = x32 * x32;
    return x64 * x32 * x2 * x;
}

static inline float ex_inverse_sqrt(float x)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits); /* the float's bits, without breaking aliasing rules */
    bits = 0x5f3759dfu - (bits >> 1);
    float y;
    memcpy(&y, &bits, sizeof y);
    for (int i = 0; i < 3; i++) /* 3.4e-2, 1.8e-3, 4.7e-6, then float rounding */
        y = y * (1.5f - 0.5f * x * y * y);
    return y;
}

static inline ex_vec ex_normalize(ex_vec a)
{
    float k = ex_inverse_sqrt(a.x * a.x + a.y * a.y + a.z * a.z);
    ex_vec r = {a.x * k, a.y * k, a.z * k};
    return r;
}

#endif
