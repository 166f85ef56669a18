/* test_ex_ch06.cu - exercise ch06: the last warp of the reduction, race-free.
 *
 * 1. From the machine code (no GPU): tests/ex_ch06_kernel.cu compiled to PTX
 *    with the exercise's last_warp.cuh; the warp step must synchronise its
 *    lanes: bar.warp.sync (__syncwarp) or shfl.sync (__shfl_*_sync). The
 *    racy classic has neither: only volatile loads and stores.
 * 2. On a GPU: block_sums (that kernel) gives exact int64 sums at n = 0, 1,
 *    31, 33, 1023, 1025, 2^20 - 1, 2^20 + 1 (int32 in [-128, 127], seed 6060).
 *    Without a GPU these are counted as skipped.
 */
#include "harness.h"

#include "ex_ch06_kernel.cu"

#include "cuda_util.h"

#include <unistd.h>

START_TEST(warp_step_synchronises_its_lanes)
{
    char *ptx = harness_nvcc(NVCC, CUDA_ARCH, "-I" EX_DIR, PROJECT_DIR "/tests/ex_ch06_kernel.cu", "ptx");
    ck_assert_msg(ptx != NULL, "your last_warp.cuh does not compile (nvcc -ptx)");
    int syncs = (strstr(ptx, "bar.warp.sync") != NULL) + (strstr(ptx, "shfl.sync") != NULL);
    ck_assert_msg(syncs > 0, "got: no bar.warp.sync and no shfl.sync in the PTX; want: a warp step whose lanes "
                             "synchronise (volatile orders nothing between lanes)");
    free(ptx);
}
END_TEST

static const size_t sizes[] = {0, 1, 31, 33, 1023, 1025, (1u << 20) - 1, (1u << 20) + 1};
#define SIZE_COUNT (sizeof sizes / sizeof sizes[0])

START_TEST(exact_sums)
{
    size_t n = sizes[_i];
    int *in = (int *)malloc(n * sizeof(int) + 1), *d_in;
    long long want = 0, got, *d_sum;
    test_rng r = {6060 + n};
    for (size_t i = 0; i < n; i++) {
        in[i] = (int)(test_rng_next(&r) >> 56) - 128;
        want += in[i];
    }
    CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(int) + 1));
    CUDA_CHECK(cudaMalloc(&d_sum, sizeof(long long)));
    CUDA_CHECK(cudaMemcpy(d_in, in, n * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_sum, 0, sizeof(long long)));
    block_sums<<<64, EX_BLOCK>>>(d_in, n, d_sum);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(&got, d_sum, sizeof got, cudaMemcpyDeviceToHost));
    ck_assert_msg(got == want, "n=%zu: got %lld, want %lld", n, got, want);
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_sum));
    free(in);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("exercise ch06");
    TCase *tc = tcase_create("last warp");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, warp_step_synchronises_its_lanes);
    int skipped = harness_add_gpu_test(tc, exact_sums, SIZE_COUNT);
    suite_add_tcase(s, tc);
    return harness_run_gpu(s, "exercise-ch06", skipped);
}
