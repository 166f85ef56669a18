/* ex_ch07_probe.c - exercise ch07, part 1: the one function through which
 * tests/test_ex_ch07.c calls the answer, built in a file of its own beside it.
 * Its machine code is what the test grades (no division, no square root): in
 * a grading, the object the probe was built with (gcc -save-temps keeps it),
 * so the code read is the code whose values were checked.
 * p: xi[8], yi[8], zi[8], then xj, yj, zj, mj; a: ax[8], ay[8], az[8], added to. */
#include "simd_interaction.h"

void ex_probe(const float *p, float *a);

__attribute__((target("avx2,fma"))) void ex_probe(const float *p, float *a)
{
    __m256 ax = _mm256_loadu_ps(a), ay = _mm256_loadu_ps(a + 8), az = _mm256_loadu_ps(a + 16);
    ex_simd_accel(_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8), _mm256_loadu_ps(p + 16), p[24], p[25], p[26], p[27], &ax,
                  &ay, &az);
    _mm256_storeu_ps(a, ax);
    _mm256_storeu_ps(a + 8, ay);
    _mm256_storeu_ps(a + 16, az);
}
