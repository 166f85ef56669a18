/* test_ex_ch07.c - exercise ch07, part 1: the AVX2 interaction, on the CPU.
 * 2000 random blocks of 8 bodies i and a body j (seed 7070), positions in
 * [-1, 1]^3, masses in [0.5, 1.5]; each lane's acceleration within 1e-5
 * relative of double precision (rsqrt + one Newton step is good to about
 * 2^-22; the rest is a few roundings). Counted as skipped on a CPU without
 * AVX2 + FMA. */
#include "harness.h"

#include "simd_interaction.h"

#include <math.h>

/* The vector work needs the AVX2 target, like the code under test. */
__attribute__((target("avx2,fma"))) static void check_blocks(void)
{
    test_rng r = {7070};
    for (int block = 0; block < 2000; block++) {
        float xi[8], yi[8], zi[8], out[3][8];
        for (int k = 0; k < 8; k++) {
            xi[k] = (float)test_rng_uniform(&r, -1, 1);
            yi[k] = (float)test_rng_uniform(&r, -1, 1);
            zi[k] = (float)test_rng_uniform(&r, -1, 1);
        }
        float xj = (float)test_rng_uniform(&r, -1, 1), yj = (float)test_rng_uniform(&r, -1, 1),
              zj = (float)test_rng_uniform(&r, -1, 1), mj = (float)test_rng_uniform(&r, 0.5, 1.5);
        __m256 ax = _mm256_setzero_ps(), ay = _mm256_setzero_ps(), az = _mm256_setzero_ps();
        ex_simd_accel(_mm256_loadu_ps(xi), _mm256_loadu_ps(yi), _mm256_loadu_ps(zi), xj, yj, zj, mj, &ax, &ay, &az);
        _mm256_storeu_ps(out[0], ax);
        _mm256_storeu_ps(out[1], ay);
        _mm256_storeu_ps(out[2], az);
        for (int k = 0; k < 8; k++) {
            double rx = (double)xj - xi[k], ry = (double)yj - yi[k], rz = (double)zj - zi[k];
            double d2 = rx * rx + ry * ry + rz * rz + 1e-4, s = mj / (d2 * sqrt(d2));
            double want[3] = {rx * s, ry * s, rz * s}, size = sqrt(d2 - 1e-4) * s;
            for (int c = 0; c < 3; c++)
                ck_assert_msg(fabs(out[c][k] - want[c]) <= 1e-5 * size + 1e-30,
                              "body i = (%.6g, %.6g, %.6g) in lane %d, body j = (%.6g, %.6g, %.6g), mass %.6g: the "
                              "acceleration's %c component: got %.9g, want %.9g within %.2g (double precision, "
                              "softening^2 = 1e-4)",
                              xi[k], yi[k], zi[k], k, xj, yj, zj, mj, "xyz"[c], out[c][k], want[c], 1e-5 * size);
        }
    }
}

START_TEST(simd_interaction_within_bound)
{
    check_blocks();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("exercise ch07 (AVX2)");
    TCase *tc = tcase_create("simd");
    int skipped = 0;
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        tcase_add_test(tc, simd_interaction_within_bound);
    else
        skipped = 1; /* this CPU cannot run the code under test */
    suite_add_tcase(s, tc);
    return harness_run(s, "exercise-ch07", skipped);
}
