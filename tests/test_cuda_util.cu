/* test_cuda_util.cu - common/cuda_util.h compiles everywhere and works on a GPU.
 *
 * Without a device (CI), the "no device" path is tested and the device tests
 * are counted as skipped. Run with CK_FORK=no (tools/run_tests.sh does): CUDA
 * cannot be used in a forked child once the parent has touched it.
 */
#include "harness.h"

#include "cuda_util.h"

#include <string.h>

__global__ void fill_indices(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = 3 * i + 1;
}

START_TEST(lanes_per_sm_table)
{
    ck_assert_int_eq(cuda_fp32_lanes_per_sm(9, 0), 128); /* H100 */
    ck_assert_int_eq(cuda_fp32_lanes_per_sm(8, 0), 64);  /* A100 */
    ck_assert_int_eq(cuda_fp32_lanes_per_sm(7, 5), 64);  /* Turing */
}
END_TEST

START_TEST(device_count_gives_a_reason_when_zero)
{
    char why[256] = "";
    int n = cuda_device_count(why, sizeof why);
    ck_assert_int_ge(n, 0);
    if (n == 0)
        ck_assert_msg(strlen(why) > 0, "no device and no reason");
}
END_TEST

START_TEST(device_description_is_sane)
{
    cuda_device_info info;
    cuda_describe_device(0, &info);
    ck_assert(strlen(info.name) > 0);
    ck_assert_int_gt(info.sms, 0);
    ck_assert_int_ge(info.major, 7);
    ck_assert(info.clock_ghz > 0.3 && info.clock_ghz < 5);
    ck_assert(info.peak_bw_gbs > 100);
    ck_assert(info.fp32_peak_gflops > 1000);
}
END_TEST

START_TEST(kernel_runs_and_event_timer_measures)
{
    const int n = 1000003; /* odd, not a multiple of the block */
    int *d, *h = (int *)malloc(n * sizeof(int));
    CUDA_CHECK(cudaSetDevice(0));
    CUDA_CHECK(cudaMalloc(&d, n * sizeof(int)));
    CUDA_CHECK(cudaMemset(d, 0xFF, n * sizeof(int)));
    cuda_timer t;
    cuda_timer_create(&t);
    cuda_timer_start(&t);
    fill_indices<<<(n + 255) / 256, 256>>>(d, n);
    CUDA_CHECK_LAUNCH();
    float ms = cuda_timer_stop(&t);
    cuda_timer_destroy(&t);
    ck_assert(ms > 0 && ms < 1000);
    CUDA_CHECK(cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(h[i], 3 * i + 1);
    CUDA_CHECK(cudaFree(d));
    free(h);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cuda_util");
    TCase *tc = tcase_create("all");
    tcase_add_test(tc, lanes_per_sm_table);
    tcase_add_test(tc, device_count_gives_a_reason_when_zero);
    int skipped = harness_add_gpu_test(tc, device_description_is_sane, 1);
    skipped += harness_add_gpu_test(tc, kernel_runs_and_event_timer_measures, 1);
    suite_add_tcase(s, tc);
    return harness_run_gpu(s, "cuda_util", skipped);
}
