/* talk.cu - see talk.h. What each compiler makes of them is in the PTX
 * (tests/test_ch09.c reads it; make ch09-ptx tabulates it), and ./ch09 times
 * them: each kernel is one line of arithmetic, so the difference between the
 * two builds is the compiler's.
 *   - 64-bit division. A 64-bit divide has no instruction: it is a routine
 *     of dozens. LLVM's NVPTX back end checks at run time whether both
 *     operands fit in 32 bits and then divides in 32 (bypassing the slow
 *     division); here they always do.
 *   - four adjacent float loads: the load-store vectorizer makes them one
 *     ld.global.v4.f32 when it knows the address is 16-byte aligned
 *     (__builtin_assume_aligned), four ld.global.f32 when it does not.
 *   - const __restrict__ promises in is not written through out, so a load
 *     may take the read-only path: ld.global.nc. */
#include "talk.h"

#include "../../common/cuda_util.h"

#define TALK_BLOCK 256

/* TALK_DIVISIONS divisions per element, so the division, not the memory,
 * sets the time: q = sum over k of (a + k) / b. */
__global__ void divide_kernel(const long long *a, const long long *b, long long *q, int n)
{
    int i = blockIdx.x * TALK_BLOCK + threadIdx.x;
    if (i < n) {
        long long x = a[i], y = b[i], sum = 0;
        for (int k = 0; k < TALK_DIVISIONS; k++)
            sum += (x + k) / y;
        q[i] = sum;
    }
}

/* ALIGNED: whether the compiler is told the four floats start on 16 bytes. */
template <int ALIGNED>
__global__ void sum_quads_kernel(const float *in, float *out, int n)
{
    int i = blockIdx.x * TALK_BLOCK + threadIdx.x;
    if (i < n) {
        const float *p = in + 4 * (size_t)i;
        if (ALIGNED)
            p = (const float *)__builtin_assume_aligned(p, 16);
        out[i] = p[0] + p[1] + p[2] + p[3];
    }
}

__global__ void scale_plain_kernel(const float *in, float *out, int n)
{
    int i = blockIdx.x * TALK_BLOCK + threadIdx.x;
    if (i < n)
        out[i] = TALK_SCALE * in[i];
}

__global__ void scale_restrict_kernel(const float *__restrict__ in, float *__restrict__ out, int n)
{
    int i = blockIdx.x * TALK_BLOCK + threadIdx.x;
    if (i < n)
        out[i] = TALK_SCALE * in[i];
}

static unsigned blocks(int n) { return (unsigned)((n + TALK_BLOCK - 1) / TALK_BLOCK); }

extern "C" {

void talk_divide(const void *in, const void *in2, void *out, int n)
{
    if (n > 0)
        divide_kernel<<<blocks(n), TALK_BLOCK>>>((const long long *)in, (const long long *)in2, (long long *)out, n);
    CUDA_CHECK_LAUNCH();
}

void talk_sum_quads_scalar(const void *in, const void *, void *out, int n)
{
    if (n > 0)
        sum_quads_kernel<0><<<blocks(n), TALK_BLOCK>>>((const float *)in, (float *)out, n);
    CUDA_CHECK_LAUNCH();
}

void talk_sum_quads(const void *in, const void *, void *out, int n)
{
    if (n > 0)
        sum_quads_kernel<1><<<blocks(n), TALK_BLOCK>>>((const float *)in, (float *)out, n);
    CUDA_CHECK_LAUNCH();
}

void talk_scale_plain(const void *in, const void *, void *out, int n)
{
    if (n > 0)
        scale_plain_kernel<<<blocks(n), TALK_BLOCK>>>((const float *)in, (float *)out, n);
    CUDA_CHECK_LAUNCH();
}

void talk_scale_restrict(const void *in, const void *, void *out, int n)
{
    if (n > 0)
        scale_restrict_kernel<<<blocks(n), TALK_BLOCK>>>((const float *)in, (float *)out, n);
    CUDA_CHECK_LAUNCH();
}

} /* extern "C" */
