/* test_ch06.cu - every stage of ch06 gives the exact sum at awkward sizes.
 *
 * Sizes: 0, 1, 31, 33, 1023, 1025, 2^20 - 1, 2^20 + 1, and 255257 (a multiple
 * of nothing the kernels use). Data: int32 in [-128, 127] from harness.h's
 * generator, seed 606. The CPU stages run everywhere (CI); the GPU stages need
 * a device and are counted as skipped without one. Every GPU run starts from a
 * poisoned result, and the input buffer is allocated to its exact size, so a
 * kernel reading past n is caught by compute-sanitizer (make sanitize).
 */
#include "harness.h"

#include "reduce.h"
#include "stages.h"

#include "cuda_util.h"

#include <stdint.h>
#include <stdlib.h>

static const size_t sizes[] = {0, 1, 31, 33, 1023, 1025, (1u << 20) - 1, (1u << 20) + 1, 255257};
#define SIZE_COUNT (sizeof sizes / sizeof sizes[0])

static int *make_input(size_t n, long long *sum)
{
    int *in = (int *)malloc(n ? n * sizeof(int) : 1);
    test_rng r = {606 + n};
    *sum = 0;
    for (size_t i = 0; i < n; i++) {
        in[i] = (int)(test_rng_next(&r) >> 56) - 128;
        *sum += in[i];
    }
    return in;
}

START_TEST(cpu_stages_exact)
{
    size_t n = sizes[_i];
    long long expected;
    int *in = make_input(n, &expected);
    for (size_t s = 0; s < STAGE_COUNT; s++)
        if (stages[s].info.where == STAGE_CPU)
            for (int threads = 1; threads <= 7; threads += 3) {
                reduce_ctx ctx = {threads, NULL, 0};
                long long got = 0x5A5A5A5A;
                stages[s].run(in, n, &got, &ctx);
                ck_assert_msg(got == expected, "%s, n=%zu, %d threads", stages[s].info.name, n, threads);
            }
    free(in);
}
END_TEST

/* Every vector path (CPU_ISA caps the ISA; one this CPU lacks falls back) at
 * int32's extremes: 2^20 + 1 values of INT32_MAX, or of INT32_MIN, sum far
 * past 32 bits, so a lane that adds in 32 bits is caught; then int32s from
 * the whole range, both signs mixed (cpu-biased-lanes splits each into a high
 * and a low half: a slip in either shows here). */
static const char *isas[] = {"scalar", "avx2", "avx512"};
START_TEST(cpu_stages_exact_at_extremes_on_every_isa)
{
    size_t n = (1u << 20) + 1;
    int *in = (int *)malloc(n * sizeof(int));
    for (int pattern = 0; pattern < 3; pattern++) {
        test_rng r = {6060};
        long long expected = 0;
        for (size_t i = 0; i < n; i++) {
            in[i] = pattern == 0 ? INT32_MAX : pattern == 1 ? INT32_MIN : (int)(uint32_t)(test_rng_next(&r) >> 32);
            expected += in[i];
        }
        for (size_t s = 0; s < STAGE_COUNT; s++)
            if (stages[s].info.where == STAGE_CPU) {
                setenv("CPU_ISA", isas[_i], 1);
                reduce_ctx ctx = {3, NULL, 0};
                long long got = 0x5A5A5A5A;
                stages[s].run(in, n, &got, &ctx);
                unsetenv("CPU_ISA");
                ck_assert_msg(got == expected, "%s with CPU_ISA=%s: %lld, not %lld", stages[s].info.name, isas[_i], got,
                              expected);
            }
    }
    free(in);
}
END_TEST

START_TEST(gpu_stages_exact)
{
    size_t n = sizes[_i];
    long long expected, got;
    int *in = make_input(n, &expected), *d_in;
    long long *d_sum;
    reduce_ctx ctx = {0, NULL, reduce_stage_scratch_bytes(n)};
    CUDA_CHECK(cudaMalloc(&d_in, n ? n * sizeof(int) : 1));
    CUDA_CHECK(cudaMalloc(&d_sum, sizeof(long long)));
    CUDA_CHECK(cudaMalloc(&ctx.scratch, ctx.scratch_bytes ? ctx.scratch_bytes : 1));
    CUDA_CHECK(cudaMemcpy(d_in, in, n * sizeof(int), cudaMemcpyHostToDevice));
    for (size_t s = 0; s < STAGE_COUNT; s++) {
        if (stages[s].info.where != STAGE_GPU)
            continue;
        for (int run = 1; run <= 3; run++) { /* state a stage keeps between launches must not leak into the next */
            CUDA_CHECK(cudaMemset(d_sum, 0x5A, sizeof(long long)));
            stages[s].run(d_in, n, d_sum, &ctx);
            CUDA_CHECK(cudaDeviceSynchronize());
            CUDA_CHECK(cudaMemcpy(&got, d_sum, sizeof got, cudaMemcpyDeviceToHost));
            ck_assert_msg(got == expected, "%s, n=%zu, run %d: %lld, expected %lld", stages[s].info.name, n, run, got,
                          expected);
        }
    }
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_sum));
    CUDA_CHECK(cudaFree(ctx.scratch));
    free(in);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ch06");
    TCase *tc = tcase_create("all");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, cpu_stages_exact, 0, SIZE_COUNT);
    tcase_add_loop_test(tc, cpu_stages_exact_at_extremes_on_every_isa, 0, 3);
    int skipped = harness_add_gpu_test(tc, gpu_stages_exact, SIZE_COUNT);
    suite_add_tcase(s, tc);
    return harness_run_gpu(s, "ch06", skipped);
}
