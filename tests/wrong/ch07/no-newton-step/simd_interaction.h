/* WRONG ANSWER (ch07, no-newton-step): the 12-bit rsqrt without its Newton step: forces off by about 1e-3 relative */
/* Solution to exercise ch07, part 1: the AVX2 + FMA body-body interaction. */
#ifndef EX_CH07_SIMD_INTERACTION_H
#define EX_CH07_SIMD_INTERACTION_H

#include <immintrin.h>

#define EX_SOFTENING2 1e-4f

__attribute__((target("avx2,fma"))) static inline void ex_simd_accel(__m256 xi, __m256 yi, __m256 zi, float xj,
                                                                      float yj, float zj, float mj, __m256 *ax,
                                                                      __m256 *ay, __m256 *az)
{
    __m256 rx = _mm256_sub_ps(_mm256_set1_ps(xj), xi);
    __m256 ry = _mm256_sub_ps(_mm256_set1_ps(yj), yi);
    __m256 rz = _mm256_sub_ps(_mm256_set1_ps(zj), zi);
    __m256 d2 = _mm256_fmadd_ps(rz, rz, _mm256_fmadd_ps(ry, ry, _mm256_fmadd_ps(rx, rx, _mm256_set1_ps(EX_SOFTENING2))));
    __m256 inv = _mm256_rsqrt_ps(d2); /* 12 bits; one Newton step doubles them */
    __m256 s = _mm256_mul_ps(_mm256_set1_ps(mj), _mm256_mul_ps(inv, _mm256_mul_ps(inv, inv)));
    *ax = _mm256_fmadd_ps(rx, s, *ax);
    *ay = _mm256_fmadd_ps(ry, s, *ay);
    *az = _mm256_fmadd_ps(rz, s, *az);
}

#endif
