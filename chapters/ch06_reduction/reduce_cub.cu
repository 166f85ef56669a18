/* reduce_cub.cu - the yardstick: CUB's DeviceReduce::Sum, called as CUB's
 * documentation says, with its temporary storage allocated once outside the
 * timing (reduce_stage_scratch_bytes). A file of its own: the stages that are
 * the lesson (reduce_gpu.cu) do not depend on it. */
#include "reduce.h"

#include "../../common/cuda_util.h"

#include <cub/cub.cuh>

/* (reduce.h declared these extern "C", so they keep C linkage.) */

size_t reduce_cub_scratch_bytes(size_t n)
{
    size_t bytes = 0;
    CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, (const int *)nullptr, (long long *)nullptr, (long long)n));
    return bytes;
}

void reduce_cub(const int *in, size_t n, long long *d_sum, const reduce_ctx *ctx)
{
    /* CUB accumulates in the output's type, int64 here. */
    size_t bytes = ctx->scratch_bytes;
    CUDA_CHECK(cub::DeviceReduce::Sum(ctx->scratch, bytes, in, d_sum, (long long)n));
}
