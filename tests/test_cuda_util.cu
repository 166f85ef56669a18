/* test_cuda_util.cu - common/cuda_util.h compiles everywhere and works on a GPU.
 *
 * Without a device (CI), the "no device" path is tested and the device tests
 * are counted as skipped. Run with CK_FORK=no (tools/run_tests.sh does): CUDA
 * cannot be used in a forked child once the parent has touched it.
 */
#include "harness.h"

#include "cuda_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef PROGRAM_DIR
#define PROGRAM_DIR "."
#endif

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

/* --device past the last GPU: exit status 2 and a line that says the range,
 * from every GPU chapter (a GPU stage named, so no CPU stage runs first). */
static const char *const out_of_range_runs[] = {
    "ch04 --stage loop --spp 1", "ch05 --stage loop --spp 1", "ch06 --stage cub --n 1025",
    "ch07 --stage gpu-naive --n 1025 --steps 1"};

START_TEST(device_out_of_range_is_refused)
{
    char cmd[512], line[512] = "";
    snprintf(cmd, sizeof cmd, "P=%s && cd /tmp && \"$P\"/%s --device 63 --quiet 2>&1 >/dev/null", harness_q(PROGRAM_DIR),
             out_of_range_runs[_i]);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    char *got = fgets(line, sizeof line, p);
    int status = pclose(p);
    ck_assert_msg(got != NULL, "%s: nothing on stderr", cmd);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 2, "%s: exit status %d", cmd, WEXITSTATUS(status));
    ck_assert_msg(strstr(line, "--device 63 is out of range") != NULL, "%s said: %s", cmd, line);
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
    skipped += harness_add_gpu_test(tc, device_out_of_range_is_refused,
                                    sizeof out_of_range_runs / sizeof out_of_range_runs[0]);
    suite_add_tcase(s, tc);
    return harness_run_gpu(s, "cuda_util", skipped);
}
