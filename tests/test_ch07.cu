/* test_ch07.cu - every ch07 stage against the double-precision reference at
 * n = 1, 31, 33, 1023, 1025 and 4097 (not multiples of the 8 lanes or the
 * 256-body tile), within check.c's bound; n = 1 must give exactly zero (a body
 * does not pull itself). CPU stages run everywhere (CI); GPU stages skip
 * without a device. */
#include "harness.h"

#include "nbody.h"
#include "stages.h"

#include "cuda_util.h"

#include <stdlib.h>
#include <string.h>

static const int sizes[] = {1, 31, 33, 1023, 1025, 4097};
#define SIZE_COUNT (int)(sizeof sizes / sizeof sizes[0])

static void setup(int n, body **b, vec3 **v, vec3 **a, reference *r)
{
    *b = (body *)malloc(n * sizeof(body));
    *v = (vec3 *)malloc(n * sizeof(vec3));
    *a = (vec3 *)malloc(n * sizeof(vec3));
    nbody_init(*b, *v, n);
    make_reference(r, *b, n);
}

START_TEST(cpu_stages_within_bound)
{
    int n = sizes[_i];
    body *b;
    vec3 *v, *a;
    static reference r;
    setup(n, &b, &v, &a, &r);
    for (size_t s = 0; s < STAGE_COUNT; s++) {
        if (stages[s].info.where != STAGE_CPU || (stages[s].run != cpu_scalar_forces && !cpu_simd_supported()))
            continue;
        for (int threads = 1; threads <= 5; threads += 4) {
            for (int i = 0; i < n; i++)
                a[i] = vec3{NAN, NAN, NAN};
            stages[s].run(b, a, n, threads);
            double e = force_error(&r, a);
            ck_assert_msg(e <= error_bound(n), "%s n=%d threads=%d: error %g > %g", stages[s].info.name, n, threads, e,
                          error_bound(n));
            if (n == 1)
                ck_assert(a[0].x == 0 && a[0].y == 0 && a[0].z == 0);
        }
    }
    free(b);
    free(v);
    free(a);
}
END_TEST

START_TEST(gpu_stages_within_bound)
{
    int n = sizes[_i];
    body *b, *d_b;
    vec3 *v, *a, *d_a;
    static reference r;
    setup(n, &b, &v, &a, &r);
    CUDA_CHECK(cudaMalloc(&d_b, n * sizeof(body)));
    CUDA_CHECK(cudaMalloc(&d_a, n * sizeof(vec3)));
    CUDA_CHECK(cudaMemcpy(d_b, b, n * sizeof(body), cudaMemcpyHostToDevice));
    for (size_t s = 0; s < STAGE_COUNT; s++) {
        if (stages[s].info.where == STAGE_CPU)
            continue;
        CUDA_CHECK(cudaMemset(d_a, 0xFF, n * sizeof(vec3))); /* NaN */
        if (stages[s].info.where == STAGE_ALL_GPUS) {
            vec3 *v2 = (vec3 *)calloc(n, sizeof(vec3));
            body *b2 = (body *)malloc(n * sizeof(body));
            memcpy(b2, b, n * sizeof(body));
            int devices = 0;
            CUDA_CHECK(cudaGetDeviceCount(&devices));
            multi_gpu_run(b2, v2, n, 1, 1e-4f, devices, a, stages[s].multi);
            free(v2);
            free(b2);
        } else {
            stages[s].run(d_b, d_a, n, 0);
            CUDA_CHECK(cudaDeviceSynchronize());
            CUDA_CHECK(cudaMemcpy(a, d_a, n * sizeof(vec3), cudaMemcpyDeviceToHost));
        }
        double e = force_error(&r, a);
        ck_assert_msg(e <= error_bound(n), "%s n=%d: error %g > %g", stages[s].info.name, n, e, error_bound(n));
    }
    CUDA_CHECK(cudaSetDevice(0));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_a));
    free(b);
    free(v);
    free(a);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ch07");
    TCase *tc = tcase_create("all");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, cpu_stages_within_bound, 0, SIZE_COUNT);
    int skipped = harness_add_gpu_test(tc, gpu_stages_within_bound, SIZE_COUNT);
    suite_add_tcase(s, tc);
    return harness_run_gpu(s, "ch07", skipped);
}
