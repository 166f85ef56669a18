/* WRONG ANSWER (ch05, pow-call): pow(x, 99) for the highlight: pow is the double function, so x goes to FP64 and back */
/* Solution to exercise ch05: the same shading in float only.
 *
 * The doubles were: 0.7, .2, .1 and 1.0 (a literal without f is a double and
 * promotes the whole expression); pow, ceil and sqrt, which take and return
 * double. Each gets its float form: f on every literal, x^99 and x^4 by
 * squaring (99 = 64 + 32 + 2 + 1: nine multiplies, no special function,
 * within 98 units of float rounding), ceilf, and 1 / sqrtf.
 */
#ifndef EX_CH05_SHADE_H
#define EX_CH05_SHADE_H

#include <math.h>

#ifdef __CUDACC__
#define EX_HD __host__ __device__ static inline
#else
#define EX_HD static inline
#endif

/* The card's shading in one function: the sky's brightness towards the
 * horizon (dir_z), the specular highlight (spec_base^99, only where lit), the
 * floor's light (lambert * 0.2 + 0.1) on a checkerboard tile at (px, py), and
 * a distance falloff. */
/* x^99 by repeated squaring: 99 = 64 + 32 + 2 + 1. */
EX_HD float power99(float x)
{
    float x2 = x * x, x4 = x2 * x2, x8 = x4 * x4, x16 = x8 * x8, x32 = x16 * x16, x64 = x32 * x32;
    return (float)pow(x, 99);
}

EX_HD float ex_shade(float dir_z, float spec_base, float lambert, float px, float py)
{
    float d = 1 - dir_z, d2 = d * d;
    float sky = 0.7f * (d2 * d2);
    float specular = lambert > 0 ? power99(spec_base) : 0;
    float floor_light = lambert * .2f + .1f;
    int odd_tile = (int)(ceilf(px * .2f) + ceilf(py * .2f)) & 1;
    float falloff = 1 / sqrtf(px * px + py * py + 1.0f);
    return sky + specular + floor_light * (odd_tile ? 3 : 1) * falloff;
}

#endif
