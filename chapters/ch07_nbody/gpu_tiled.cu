/* gpu_tiled.cu - ch07's first GPU stages: one thread per body i, and each
 * stage changes how the other bodies j reach that thread: from global memory
 * (gpu-naive), through a tile in shared memory (gpu-tiled), then the tile as
 * float4 and the interaction's instructions cut one change at a time
 * (gpu-tiled-float4 to gpu-softening-fma; the changes: gpu_interaction.h). */
#include "gpu_interaction.h"

#include "../../common/cuda_util.h"

/* ---- gpu-naive: every thread reads all n bodies from global memory. The
 * reads hit L1/L2 (every thread of a warp reads the same body), but each
 * interaction still costs a load instruction and its latency. */
__global__ void naive_kernel(const body *b, vec3 *a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    body bi = b[i];
    vec3 acc = {0, 0, 0};
    for (int j = 0; j < n; j++)
        body_body_accel(&acc, bi, b[j]);
    a[i] = acc;
}

/* Loads tile t (TILE bodies from t * TILE) into shared memory; bodies past n
 * get zero mass, which adds exactly nothing. */
static __device__ void load_tile(body *tile, const body *b, int n, int t)
{
    int j = t * TILE + threadIdx.x;
    tile[threadIdx.x] = j < n ? load_body(b, j) : body{0, 0, 0, 0};
}

/* ---- gpu-tiled: the block loads TILE bodies into shared memory once, and
 * all its threads use them: n/TILE times fewer global loads. */
__global__ void tiled_kernel(const body *b, vec3 *a, int n)
{
    __shared__ body tile[TILE];
    int i = blockIdx.x * TILE + threadIdx.x;
    body bi = i < n ? b[i] : body{0, 0, 0, 0};
    vec3 acc = {0, 0, 0};
    for (int t = 0; t * TILE < n; t++) {
        load_tile(tile, b, n, t);
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            body_body_accel(&acc, bi, tile[k]);
        __syncthreads();
    }
    if (i < n)
        a[i] = acc;
}

/* ---- gpu-tiled-float4 (V = 0): gpu-tiled with the tile read as float4, one
 * 16-byte shared load per body instead of the struct's four 4-byte loads.
 * ---- gpu-tiled-rsqrt (RSQRT): + rsqrtf.
 * ---- gpu-tiled-unrolled (RSQRT | UNROLL): + the inner loop unrolled 16
 * times, so loads and arithmetic of several bodies overlap and the loop's
 * counter and branch are paid once per 16 interactions (nvcc unrolls 4 by
 * itself).
 * ---- gpu-tiled-ftz (RSQRT | UNROLL | FTZ): + the flush-to-zero rsqrt.
 * i_begin, i_end: the bodies whose forces this launch computes (multi-gpu). */
template <int V>
__global__ void tiled_float4_kernel(const body *b, vec3 *a, int n, int i_begin, int i_end)
{
    __shared__ float4 tile[TILE];
    int i = i_begin + blockIdx.x * TILE + threadIdx.x;
    body bi = i < i_end ? b[i] : body{0, 0, 0, 0};
    vec3 acc = {0, 0, 0};
    for (int t = 0; t * TILE < n; t++) {
        int j = t * TILE + threadIdx.x;
        tile[threadIdx.x] = j < n ? __ldg(reinterpret_cast<const float4 *>(b) + j) : make_float4(0, 0, 0, 0);
        __syncthreads();
        if constexpr ((V & UNROLL) != 0) {
#pragma unroll 16
            for (int k = 0; k < TILE; k++)
                body_body_accel_float4<V>(&acc, bi, tile[k]);
        } else {
            for (int k = 0; k < TILE; k++)
                body_body_accel_float4<V>(&acc, bi, tile[k]);
        }
        __syncthreads();
    }
    if (i < i_end)
        a[i] = acc;
}

/* The stages' functions, extern "C": callable from C (stages.h declares them). */

extern "C" void gpu_naive_forces(const body *d_b, vec3 *d_a, int n, int)
{
    if (n > 0)
        naive_kernel<<<blocks(n), TILE>>>(d_b, d_a, n);
    CUDA_CHECK_LAUNCH();
}

extern "C" void gpu_tiled_forces(const body *d_b, vec3 *d_a, int n, int)
{
    if (n > 0)
        tiled_kernel<<<blocks(n), TILE>>>(d_b, d_a, n);
    CUDA_CHECK_LAUNCH();
}

template <int V>
static void launch_tiled_float4(const body *d_b, vec3 *d_a, int n)
{
    if (n > 0)
        tiled_float4_kernel<V><<<blocks(n), TILE>>>(d_b, d_a, n, 0, n);
    CUDA_CHECK_LAUNCH();
}

extern "C" void gpu_tiled_float4_forces(const body *d_b, vec3 *d_a, int n, int)
{
    launch_tiled_float4<0>(d_b, d_a, n);
}

extern "C" void gpu_tiled_rsqrt_forces(const body *d_b, vec3 *d_a, int n, int)
{
    launch_tiled_float4<RSQRT>(d_b, d_a, n);
}

extern "C" void gpu_tiled_unrolled_forces(const body *d_b, vec3 *d_a, int n, int)
{
    launch_tiled_float4<RSQRT | UNROLL>(d_b, d_a, n);
}

extern "C" void gpu_tiled_ftz_forces(const body *d_b, vec3 *d_a, int n, int)
{
    launch_tiled_float4<RSQRT | UNROLL | FTZ>(d_b, d_a, n);
}

extern "C" void gpu_softening_fma_forces(const body *d_b, vec3 *d_a, int n, int)
{
    launch_tiled_float4<RSQRT | UNROLL | FTZ | SOFT_FMA>(d_b, d_a, n);
}

/* gpu-tiled-ftz's kernel on bodies [i_begin, i_end) only, in `stream`: one
 * GPU's slice of multi-gpu (gpu_multi.cu). */
extern "C" void gpu_tiled_ftz_slice(const body *d_b, vec3 *d_a, int n, int i_begin, int i_end, cudaStream_t stream)
{
    if (i_end > i_begin)
        tiled_float4_kernel<RSQRT | UNROLL | FTZ><<<blocks(i_end - i_begin), TILE, 0, stream>>>(d_b, d_a, n, i_begin,
                                                                                              i_end);
    CUDA_CHECK_LAUNCH();
}
