/* test_ex_ch06.cu - exercise ch06: a grid-stride block reduction built on the
 * student's warp sum must give exact sums at n = 0, 1, 31, 33, 1023, 1025,
 * 2^20 - 1, 2^20 + 1 (int32 in [-128, 127], seed 6060). Needs a GPU: without
 * one the tests are counted as skipped. */
#include "harness.h"

#include "warp_sum.cuh"

#include "cuda_util.h"

#define BLOCK 256

__global__ void block_sums(const int *in, size_t n, long long *sum)
{
    __shared__ long long warp_sums[BLOCK / 32];
    long long v = 0;
    for (size_t i = (size_t)blockIdx.x * BLOCK + threadIdx.x; i < n; i += (size_t)gridDim.x * BLOCK)
        v += in[i];
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = exercise_warp_sum(v);
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = exercise_warp_sum(lane < BLOCK / 32 ? warp_sums[lane] : 0);
        if (lane == 0)
            atomicAdd((unsigned long long *)sum, (unsigned long long)v);
    }
}

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
    block_sums<<<64, BLOCK>>>(d_in, n, d_sum);
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
    TCase *tc = tcase_create("warp sum");
    int skipped = harness_add_gpu_test(tc, exact_sums, SIZE_COUNT);
    suite_add_tcase(s, tc);
    return harness_run_gpu(s, "exercise-ch06", skipped);
}
