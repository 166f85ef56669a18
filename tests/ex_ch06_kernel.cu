/* ex_ch06_kernel.cu - a block reduction whose last warp is exercise ch06's:
 * tests/test_ex_ch06.cu runs it, and compiles it alone to PTX to read the
 * warp step's synchronisation. */
#include "last_warp.cuh"

#define EX_BLOCK 256

__global__ void block_sums(const int *in, size_t n, long long *sum)
{
    __shared__ long long s[EX_BLOCK];
    unsigned t = threadIdx.x;
    long long v = 0;
    for (size_t i = (size_t)blockIdx.x * EX_BLOCK + t; i < n; i += (size_t)gridDim.x * EX_BLOCK)
        v += in[i];
    s[t] = v;
    __syncthreads();
    for (unsigned half = EX_BLOCK / 2; half > 32; half /= 2) {
        if (t < half)
            s[t] += s[t + half];
        __syncthreads();
    }
    if (t < 32)
        exercise_last_warp(s, t);
    /* s[0] holds the sum once the warp has run, whichever lane wrote it (a
     * sum shuffled up ends in lane 31): thread 0 reads it after a barrier.
     * bar.sync, not a warp instruction: the PTX test looks for the answer's. */
    __syncthreads();
    if (t == 0)
        atomicAdd((unsigned long long *)sum, (unsigned long long)s[0]);
}
