/* gpu_bodies.cu - ch07's GPU stages with several bodies a thread: each body
 * j read from shared memory serves B interactions, the other bodies split Q
 * ways so enough warps remain (gpu-two-bodies, gpu-four-bodies), and three
 * ways to feed those threads: two tiles (gpu-double-buffered), a tile per
 * warp (gpu-warp-tiles), no tile (gpu-broadcast-loads). */
#include "gpu_interaction.h"

#include "../../common/cuda_util.h"

/* Body j's pull on each of a thread's B bodies: B independent chains. */
template <int B>
static __device__ __forceinline__ void pull_all(vec3 *acc, const body *bi, float4 bj)
{
    const int V = RSQRT | UNROLL | FTZ | SOFT_FMA;
#pragma unroll
    for (int k = 0; k < B; k++)
        body_body_accel_float4<V>(&acc[k], bi[k], bj);
}

/* The B bodies a thread owns, BLOCK apart from i0 (zero mass past n), and
 * their sums, zeroed. */
template <int B, int BLOCK>
static __device__ __forceinline__ void own_bodies(const body *b, int n, int i0, body *bi, vec3 *acc)
{
#pragma unroll
    for (int k = 0; k < B; k++) {
        int i = i0 + k * BLOCK;
        bi[k] = i < n ? b[i] : body{0, 0, 0, 0};
        acc[k] = vec3{0, 0, 0};
    }
}

/* Each body's Q partial sums (one per slice threadIdx.y), through shared
 * memory, added in slice order by slice 0 and written. */
template <int B, int Q, int BLOCK>
static __device__ __forceinline__ void add_slices(vec3 (*part)[B * BLOCK], const vec3 *acc, int i0, int n, vec3 *a)
{
#pragma unroll
    for (int k = 0; k < B; k++)
        part[threadIdx.y][k * BLOCK + threadIdx.x] = acc[k];
    __syncthreads();
    if (threadIdx.y == 0)
#pragma unroll
        for (int k = 0; k < B; k++) {
            vec3 sum = part[0][k * BLOCK + threadIdx.x];
            for (int q = 1; q < Q; q++) {
                vec3 p = part[q][k * BLOCK + threadIdx.x];
                sum.x += p.x;
                sum.y += p.y;
                sum.z += p.z;
            }
            int i = i0 + k * BLOCK;
            if (i < n)
                a[i] = sum;
        }
}

/* ---- gpu-two-bodies: gpu-softening-fma with B = 2 bodies per thread, so
 * each body j read from shared memory serves two interactions (12 FP32
 * instructions and the rsqrt each, and half a shared load instead of a whole
 * one). Alone that halves the threads, and 2^17 bodies would leave too few
 * warps to hide latency; so the bodies j are split too, into Q = 2 slices
 * (threadIdx.y): slice y takes tiles y, y + Q, ..., and the Q partial sums of
 * each body are added at the end, in slice order. */
template <int B, int Q, int BLOCK>
__global__ void __launch_bounds__(BLOCK * Q) several_bodies_kernel(const body *b, vec3 *a, int n)
{
    __shared__ float4 tile[Q][BLOCK];
    __shared__ vec3 part[Q][B * BLOCK];
    int i0 = blockIdx.x * B * BLOCK + threadIdx.x, y = threadIdx.y;
    body bi[B];
    vec3 acc[B];
    own_bodies<B, BLOCK>(b, n, i0, bi, acc);
    int tiles = (n + BLOCK - 1) / BLOCK;
    for (int t0 = 0; t0 < tiles; t0 += Q) {
        int j = (t0 + y) * BLOCK + threadIdx.x;
        tile[y][threadIdx.x] = j < n ? __ldg(reinterpret_cast<const float4 *>(b) + j) : make_float4(0, 0, 0, 0);
        __syncthreads();
#pragma unroll 8
        for (int jj = 0; jj < BLOCK; jj++) {
            float4 bj = tile[y][jj];
            pull_all<B>(acc, bi, bj);
        }
        __syncthreads();
    }
    add_slices<B, Q, BLOCK>(part, acc, i0, n, a);
}

/* ---- gpu-double-buffered: gpu-four-bodies with two tiles in shared memory
 * instead of one. Each thread loads its body of the next tile into a register
 * before the interactions with this tile begin (the load's latency hidden
 * behind them) and stores it into the other tile after; one barrier a tile
 * then says both "the next tile is written" and "nobody still reads this
 * one", where gpu-four-bodies needed one barrier for each. Warps wait at a
 * barrier for the block's slowest warp: half the barriers, half the waits. */
template <int B, int Q, int BLOCK>
__global__ void __launch_bounds__(BLOCK * Q) double_buffered_kernel(const body *b, vec3 *a, int n)
{
    __shared__ float4 tile[2][Q][BLOCK];
    __shared__ vec3 part[Q][B * BLOCK];
    const float4 *b4 = reinterpret_cast<const float4 *>(b);
    int i0 = blockIdx.x * B * BLOCK + threadIdx.x, y = threadIdx.y;
    body bi[B];
    vec3 acc[B];
    own_bodies<B, BLOCK>(b, n, i0, bi, acc);
    int tiles = (n + BLOCK - 1) / BLOCK, j = y * BLOCK + threadIdx.x, now = 0;
    tile[0][y][threadIdx.x] = j < n ? __ldg(b4 + j) : make_float4(0, 0, 0, 0);
    __syncthreads();
    for (int t0 = 0; t0 < tiles; t0 += Q) {
        j = (t0 + Q + y) * BLOCK + threadIdx.x; /* this thread's body of the next tile */
        float4 next = j < n ? __ldg(b4 + j) : make_float4(0, 0, 0, 0);
#pragma unroll 8
        for (int jj = 0; jj < BLOCK; jj++) {
            float4 bj = tile[now][y][jj];
            pull_all<B>(acc, bi, bj);
        }
        tile[now ^ 1][y][threadIdx.x] = next;
        now ^= 1;
        __syncthreads();
    }
    add_slices<B, Q, BLOCK>(part, acc, i0, n, a);
}

/* ---- gpu-warp-tiles: gpu-four-bodies' grid with a tile per warp instead of
 * one per block slice. Slice y is the y-th contiguous quarter of the bodies;
 * each warp stages its next 32 of them in its own corner of shared memory
 * (loaded into a register first, as gpu-double-buffered does) and orders
 * that with __syncwarp: no warp waits at a block barrier between tiles (one
 * remains, once, in add_slices), at the price of a tile a quarter as long: a
 * __syncwarp pair, a load and a store every 32 bodies. */
template <int B, int Q, int BLOCK>
__global__ void __launch_bounds__(BLOCK * Q) warp_tiles_kernel(const body *b, vec3 *a, int n)
{
    __shared__ float4 tile[Q][BLOCK];
    __shared__ vec3 part[Q][B * BLOCK];
    const float4 *b4 = reinterpret_cast<const float4 *>(b);
    int i0 = blockIdx.x * B * BLOCK + threadIdx.x, y = threadIdx.y, lane = threadIdx.x % 32;
    body bi[B];
    vec3 acc[B];
    own_bodies<B, BLOCK>(b, n, i0, bi, acc);
    float4 *mine = &tile[y][threadIdx.x - lane]; /* this warp's 32 bodies */
    int per = ((n + Q - 1) / Q + 31) / 32 * 32, j0 = y * per, j1 = min(n, j0 + per);
    float4 next = j0 + lane < j1 ? __ldg(b4 + j0 + lane) : make_float4(0, 0, 0, 0);
    for (int j = j0; j < j1; j += 32) {
        __syncwarp(); /* every lane is done with the last 32 */
        mine[lane] = next;
        __syncwarp(); /* and these 32 are written */
        next = j + 32 + lane < j1 ? __ldg(b4 + j + 32 + lane) : make_float4(0, 0, 0, 0);
#pragma unroll 8
        for (int jj = 0; jj < 32; jj++) {
            float4 bj = mine[jj];
            pull_all<B>(acc, bi, bj);
        }
    }
    add_slices<B, Q, BLOCK>(part, acc, i0, n, a);
}

/* ---- gpu-broadcast-loads: gpu-four-bodies' grid without the shared tile.
 * Every lane of a warp loads the same body j from global memory through the
 * read-only cache (one broadcast load per B interactions); slice y takes the
 * y-th quarter of the bodies. No tile and no barrier between tiles (the
 * slices' sums still meet in shared memory once, in add_slices): the
 * question is whether L1 serves a broadcast as cheaply as shared memory. */
template <int B, int Q, int BLOCK>
__global__ void __launch_bounds__(BLOCK * Q) broadcast_loads_kernel(const body *b, vec3 *a, int n)
{
    __shared__ vec3 part[Q][B * BLOCK];
    const float4 *b4 = reinterpret_cast<const float4 *>(b);
    int i0 = blockIdx.x * B * BLOCK + threadIdx.x, y = threadIdx.y;
    body bi[B];
    vec3 acc[B];
    own_bodies<B, BLOCK>(b, n, i0, bi, acc);
    int per = (n + Q - 1) / Q, j0 = y * per, j1 = min(n, j0 + per), j = j0;
    for (; j + 8 <= j1; j += 8) /* unrolled by hand: clang does not unroll a loop with a run-time end */
#pragma unroll
        for (int u = 0; u < 8; u++) {
            float4 bj = __ldg(b4 + j + u);
            pull_all<B>(acc, bi, bj);
        }
    for (; j < j1; j++) {
        float4 bj = __ldg(b4 + j);
        pull_all<B>(acc, bi, bj);
    }
    add_slices<B, Q, BLOCK>(part, acc, i0, n, a);
}

/* several_bodies_kernel launched in `stream`: B bodies a thread, the other
 * bodies split Q ways, blocks of BLOCK x Q threads. */
template <int B, int Q, int BLOCK>
static void launch_several(const body *d_b, vec3 *d_a, int n, cudaStream_t stream)
{
    dim3 grid((unsigned)((n + B * BLOCK - 1) / (B * BLOCK))), block(BLOCK, Q);
    if (n > 0)
        several_bodies_kernel<B, Q, BLOCK><<<grid, block, 0, stream>>>(d_b, d_a, n);
    CUDA_CHECK_LAUNCH();
}

/* gpu-two-bodies-unsplit: two bodies per thread and nothing else, every
 * thread of a block on every tile (Q = 1): half gpu-softening-fma's threads. */
extern "C" void gpu_two_bodies_unsplit_forces(const body *d_b, vec3 *d_a, int n, int)
{
    launch_several<2, 1, 256>(d_b, d_a, n, 0);
}

/* gpu-four-bodies: the same pattern at four, four bodies per thread and the
 * other bodies split four ways, in blocks of 128 x 4 threads: as many threads a
 * block and blocks a grid as gpu-two-bodies, a quarter of a shared load per
 * interaction, four independent chains in each thread. */
extern "C" void gpu_four_bodies_forces(const body *d_b, vec3 *d_a, int n, int)
{
    launch_several<4, 4, 128>(d_b, d_a, n, 0);
}

/* gpu-double-buffered: gpu-four-bodies' grid and blocks, two tiles a slice. */
/* gpu-four-bodies' grid and blocks (128 x 4 threads, 512 bodies a block)
 * for the kernels that keep them. */
static void launch_four_bodies(void (*kernel)(const body *, vec3 *, int), const body *d_b, vec3 *d_a, int n)
{
    dim3 grid((unsigned)((n + 4 * 128 - 1) / (4 * 128))), block(128, 4);
    if (n > 0)
        kernel<<<grid, block>>>(d_b, d_a, n);
    CUDA_CHECK_LAUNCH();
}

extern "C" void gpu_double_buffered_forces(const body *d_b, vec3 *d_a, int n, int)
{
    launch_four_bodies(double_buffered_kernel<4, 4, 128>, d_b, d_a, n);
}

extern "C" void gpu_warp_tiles_forces(const body *d_b, vec3 *d_a, int n, int)
{
    launch_four_bodies(warp_tiles_kernel<4, 4, 128>, d_b, d_a, n);
}

extern "C" void gpu_broadcast_loads_forces(const body *d_b, vec3 *d_a, int n, int)
{
    launch_four_bodies(broadcast_loads_kernel<4, 4, 128>, d_b, d_a, n);
}

extern "C" void gpu_two_bodies_on(const body *d_b, vec3 *d_a, int n, cudaStream_t stream)
{
    launch_several<2, 2, 256>(d_b, d_a, n, stream);
}

extern "C" void gpu_two_bodies_forces(const body *d_b, vec3 *d_a, int n, int)
{
    gpu_two_bodies_on(d_b, d_a, n, 0);
}
