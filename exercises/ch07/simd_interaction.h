/* Exercise ch07, part 1: the body-body interaction with AVX2 + FMA.
 *
 * Eight bodies i sit in the lanes of (xi, yi, zi). Add to (ax, ay, az) the
 * acceleration body j gives each of them:
 *     r = p_j - p_i;  d2 = r.r + SOFTENING2;  s = m_j / d2^(3/2);  a += r s
 * With AVX2 and FMA only: no division and no square root instruction (the
 * hardware's reciprocal square root estimate is good to 12 bits; the test
 * wants each lane within 1e-5 relative of double precision, so refine it).
 * The test compiles this header at -O2 and reads the object's machine code
 * (objdump -d, so bytes written as .byte count too): a vsqrtps, vdivps (or
 * their scalar forms) or a call to sqrtf fails.
 * Then: make grade
 */
#ifndef EX_CH07_SIMD_INTERACTION_H
#define EX_CH07_SIMD_INTERACTION_H

#include <immintrin.h>

#define EX_SOFTENING2 1e-4f

__attribute__((target("avx2,fma"))) static inline void ex_simd_accel(__m256 xi, __m256 yi, __m256 zi, float xj,
                                                                      float yj, float zj, float mj, __m256 *ax,
                                                                      __m256 *ay, __m256 *az)
{
    (void)xi, (void)yi, (void)zi, (void)xj, (void)yj, (void)zj, (void)mj, (void)ax, (void)ay, (void)az;
    /* TODO */
}

#endif
