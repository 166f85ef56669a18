/* Exercise ch05: find every double in a float function, and take it out.
 *
 * ex_shade() is written as the card was before chapter 05: it looks like
 * float code, but C promotes to double wherever one operand is a double, and
 * a GPU runs FP64 at a fraction of its FP32 rate (on some GPUs 1/64). Find each
 * hidden double (literals, math functions that take and return double...)
 * and rewrite the function so it computes in float only, giving the same
 * values to float accuracy.
 *
 * Graded (tests/test_ex_ch05.cu): nvcc -ptx of a kernel that calls your
 * ex_shade (tests/ex_ch05_kernel.cu) contains no FP64 instruction; on the
 * CPU, 200000 fixed-seed inputs give values within 1e-4 (relative to the size
 * of the terms) of the same formula computed in double by the test; and on a
 * GPU (skipped without one) the same inputs through the same kernel, so the
 * code graded is the code the GPU runs (the host and device code must be one).
 * Then: make grade EX=ch05   (stuck? make hint EX=ch05)
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
EX_HD float ex_shade(float dir_z, float spec_base, float lambert, float px, float py)
{
    float sky = 0.7 * pow(1 - dir_z, 4);
    float specular = lambert > 0 ? pow(spec_base, 99) : 0;
    float floor_light = lambert * .2 + .1;
    int odd_tile = (int)(ceil(px * .2) + ceil(py * .2)) & 1;
    float falloff = 1 / sqrt(px * px + py * py + 1.0);
    return sky + specular + floor_light * (odd_tile ? 3 : 1) * falloff;
}

#endif
