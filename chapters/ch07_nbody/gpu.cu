/* gpu.cu - ch07's GPU stages. One thread per body i; each stage changes how
 * the other bodies j reach that thread. */
#include "nbody.h"

#include "../../common/cuda_util.h"
#include "../../common/nbody/nbody_gpu.h" /* rsqrt_ftz */

#include <pthread.h>
#include <string.h>

#define TILE 256

static __device__ body load_body(const body *b, int j)
{
    float4 v = __ldg(reinterpret_cast<const float4 *>(b) + j); /* one 16-byte load */
    return body{v.x, v.y, v.z, v.w};
}

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

/* rsqrt_ftz(x), 1/sqrt(x) by the flush-to-zero form of the special-function
 * instruction (rsqrt.approx.ftz.f32), is the N-body core's, which ch11's
 * kernel shares: common/nbody/nbody_gpu.h. */

/* The tiled stages after gpu-tiled differ by one change each, as bits of V:
 * the tile as float4 (all of them), then RSQRT, then UNROLL, then FTZ, then
 * SOFT_FMA. */
enum { RSQRT = 1, UNROLL = 2, FTZ = 4, SOFT_FMA = 8 };

/* 1/sqrt(d2): a square root and a division; with RSQRT the GPU's reciprocal
 * square root, one special-function instruction; with FTZ its flush-to-zero
 * form. */
template <int V>
static __device__ __forceinline__ float inverse_sqrt(float d2)
{
    if (V & FTZ)
        return rsqrt_ftz(d2);
    if (V & RSQRT)
        return rsqrtf(d2);
    return 1.0f / sqrtf(d2);
}

/* With SOFT_FMA, r.r + eps^2 is summed from eps^2 up, so every term is one
 * multiply-add (3 instructions); written r.r + eps^2, it is a multiply, two
 * multiply-adds and an add (4). */
template <int V>
static __device__ __forceinline__ float distance2(float rx, float ry, float rz)
{
    if (V & SOFT_FMA)
        return fmaf(rz, rz, fmaf(ry, ry, fmaf(rx, rx, SOFTENING2)));
    return rx * rx + ry * ry + rz * rz + SOFTENING2;
}

template <int V>
static __device__ __forceinline__ void body_body_accel_float4(vec3 *a, body bi, float4 bj)
{
    float rx = bj.x - bi.x, ry = bj.y - bi.y, rz = bj.z - bi.z;
    float d2 = distance2<V>(rx, ry, rz);
    float inv = inverse_sqrt<V>(d2);
    float s = bj.w * inv * inv * inv;
    a->x += rx * s;
    a->y += ry * s;
    a->z += rz * s;
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

/* ---- gpu-atomic-symmetric (STAGGERED = BALANCED = false): f_ji = -f_ij, so
 * compute each pair once. Block b takes bodies of tile b against tiles b, b+1,
 * ...; a thread keeps its own body's sum in registers and subtracts the
 * reaction from the other body through shared-memory float atomics, flushed
 * to global memory with one atomic per body and tile. The 32 lanes of a warp
 * visit the tile in the same order, so all 32 add to the same rx_sum[k] at
 * once and those atomics are retried one lane at a time; and block 0 has all
 * the tiles to do, so the launch lasts as long as the unsymmetric one.
 * ---- gpu-symmetric-staggered (STAGGERED): + lane t visits body (k + t) mod
 * TILE at step k: at every step the block's threads add to TILE different
 * addresses, and no atomic waits for another.
 * ---- gpu-symmetric-balanced (+ BALANCED): + equal work per block: block b
 * does the next T/2 tiles round the ring (b, b+1, ... mod T), so every pair of
 * tiles is done once and every block does about half of them. */
template <bool STAGGERED, bool BALANCED>
__global__ void symmetric_kernel(const body *b, vec3 *a, int n)
{
    __shared__ float4 tile[TILE];
    __shared__ float rx_sum[TILE], ry_sum[TILE], rz_sum[TILE];
    int tiles = (n + TILE - 1) / TILE, I = blockIdx.x;
    int i = I * TILE + threadIdx.x;
    body bi = i < n ? b[i] : body{0, 0, 0, 0};
    vec3 acc = {0, 0, 0};
    int steps = BALANCED ? tiles / 2 + 1 : tiles - I;
    if (BALANCED && tiles % 2 == 0 && I >= tiles / 2)
        steps--; /* the opposite tile, tiles / 2 away, is done by the block opposite */
    if (BALANCED && tiles == 1)
        steps = 1;
    for (int step = 0; step < steps; step++) {
        int J = (I + step) % tiles, j0 = J * TILE, j = j0 + threadIdx.x;
        tile[threadIdx.x] = j < n ? __ldg(reinterpret_cast<const float4 *>(b) + j) : make_float4(0, 0, 0, 0);
        rx_sum[threadIdx.x] = ry_sum[threadIdx.x] = rz_sum[threadIdx.x] = 0;
        __syncthreads();
        for (int k = 0; k < TILE; k++) {
            int kk = STAGGERED ? (k + threadIdx.x) & (TILE - 1) : k;
            if (step == 0 && j0 + kk <= i) /* the block's own tile: each pair once, j > i */
                continue;
            float4 bj = tile[kk];
            float rx = bj.x - bi.x, ry = bj.y - bi.y, rz = bj.z - bi.z;
            float inv = rsqrtf(rx * rx + ry * ry + rz * rz + SOFTENING2);
            float inv3 = inv * inv * inv, si = bj.w * inv3, sj = bi.m * inv3;
            acc.x += rx * si;
            acc.y += ry * si;
            acc.z += rz * si;
            atomicAdd(&rx_sum[kk], -rx * sj);
            atomicAdd(&ry_sum[kk], -ry * sj);
            atomicAdd(&rz_sum[kk], -rz * sj);
        }
        __syncthreads();
        if (j < n) {
            atomicAdd(&a[j].x, rx_sum[threadIdx.x]);
            atomicAdd(&a[j].y, ry_sum[threadIdx.x]);
            atomicAdd(&a[j].z, rz_sum[threadIdx.x]);
        }
        __syncthreads();
    }
    if (i < n) {
        atomicAdd(&a[i].x, acc.x);
        atomicAdd(&a[i].y, acc.y);
        atomicAdd(&a[i].z, acc.z);
    }
}

static unsigned blocks(int n)
{
    return (unsigned)((n + TILE - 1) / TILE);
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

template <bool STAGGERED, bool BALANCED>
static void launch_symmetric(const body *d_b, vec3 *d_a, int n)
{
    if (n == 0)
        return;
    CUDA_CHECK(cudaMemsetAsync(d_a, 0, (size_t)n * sizeof(vec3)));
    symmetric_kernel<STAGGERED, BALANCED><<<blocks(n), TILE>>>(d_b, d_a, n);
    CUDA_CHECK_LAUNCH();
}

extern "C" void gpu_atomic_symmetric_forces(const body *d_b, vec3 *d_a, int n, int)
{
    launch_symmetric<false, false>(d_b, d_a, n);
}

extern "C" void gpu_symmetric_staggered_forces(const body *d_b, vec3 *d_a, int n, int)
{
    launch_symmetric<true, false>(d_b, d_a, n);
}

extern "C" void gpu_symmetric_balanced_forces(const body *d_b, vec3 *d_a, int n, int)
{
    launch_symmetric<true, true>(d_b, d_a, n);
}

/* ---------------------------------------------------------------- multi-gpu
 * Every step all positions go to every GPU, each computes the forces of its
 * slice of the bodies, the host integrates. Three ways to drive the GPUs:
 *   MULTI_THREADS         a host thread per GPU, copies from pageable memory
 *   MULTI_THREADS_PINNED  the same, the host's positions and forces in
 *                         page-locked memory that every GPU may use (portable)
 *   MULTI_ONE_THREAD      one host thread: each GPU a stream, its copies and
 *                         kernel queued asynchronously on it, all GPUs
 *                         started before any is waited for (the copies are
 *                         asynchronous only from page-locked memory).
 * The page-locked buffers are kept between runs (allocating them is slow);
 * a run copies the bodies in and out of them, about n * 28 bytes each way. */
typedef struct {
    int device, n, i_begin, i_end, steps;
    float dt;
    body *b; /* host: all bodies, shared; each thread writes only its slice */
    vec3 *v, *first, *a; /* a: page-locked forces (MULTI_THREADS_PINNED), or NULL */
    pthread_barrier_t *barrier;
} gpu_worker;

/* One GPU: all positions in, its slice's forces out, its slice integrated on
 * the host, then everyone waits for everyone before the next step. */
static void *multi_gpu_worker(void *p)
{
    gpu_worker *w = (gpu_worker *)p;
    int count = w->i_end - w->i_begin;
    body *d_b;
    vec3 *d_a;
    vec3 *a = w->a ? w->a + w->i_begin
                   : (vec3 *)cli_alloc((count > 0 ? count : 1) * sizeof(vec3), "one GPU's forces");
    CUDA_CHECK(cudaSetDevice(w->device));
    CUDA_CHECK(cudaMalloc(&d_b, (size_t)w->n * sizeof(body)));
    CUDA_CHECK(cudaMalloc(&d_a, (size_t)w->n * sizeof(vec3)));
    for (int s = 0; s < w->steps; s++) {
        CUDA_CHECK(cudaMemcpy(d_b, w->b, (size_t)w->n * sizeof(body), cudaMemcpyHostToDevice));
        if (count > 0) {
            tiled_float4_kernel<RSQRT | UNROLL | FTZ><<<blocks(count), TILE>>>(d_b, d_a, w->n, w->i_begin, w->i_end);
            CUDA_CHECK_LAUNCH();
            CUDA_CHECK(cudaMemcpy(a, d_a + w->i_begin, count * sizeof(vec3), cudaMemcpyDeviceToHost));
        }
        if (s == 0 && w->first)
            memcpy(w->first + w->i_begin, a, count * sizeof(vec3));
        pthread_barrier_wait(w->barrier); /* every GPU has read this step's positions */
        nbody_integrate_cpu(w->b + w->i_begin, w->v + w->i_begin, a, count, w->dt);
        pthread_barrier_wait(w->barrier); /* every slice has moved */
    }
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_a));
    if (!w->a)
        free(a);
    return NULL;
}

enum { MAX_GPUS = 16 };

static void run_threads(body *b, vec3 *v, vec3 *a, int n, int steps, float dt, int devices, vec3 *first)
{
    pthread_t tid[MAX_GPUS];
    gpu_worker w[MAX_GPUS];
    pthread_barrier_t barrier;
    pthread_barrier_init(&barrier, NULL, (unsigned)devices);
    for (int d = 0; d < devices; d++) {
        w[d] = gpu_worker{d, n, (int)((long)n * d / devices), (int)((long)n * (d + 1) / devices), steps, dt, b, v,
                          first, a, &barrier};
        if (pthread_create(&tid[d], NULL, multi_gpu_worker, &w[d]) != 0) {
            fprintf(stderr, "%s:%d: cannot start the thread for GPU %d\n", __FILE__, __LINE__, d);
            exit(EXIT_CHECK_FAIL);
        }
    }
    for (int d = 0; d < devices; d++)
        pthread_join(tid[d], NULL);
    pthread_barrier_destroy(&barrier);
}

/* One host thread, a stream per GPU: each step every GPU's copy in, kernel
 * and copy out are queued before the thread waits for any of them. */
static void run_one_thread(body *b, vec3 *v, vec3 *a, int n, int steps, float dt, int devices, vec3 *first)
{
    body *d_b[MAX_GPUS];
    vec3 *d_a[MAX_GPUS];
    cudaStream_t stream[MAX_GPUS];
    int lo[MAX_GPUS + 1];
    for (int d = 0; d <= devices; d++)
        lo[d] = (int)((long)n * d / devices);
    for (int d = 0; d < devices; d++) {
        CUDA_CHECK(cudaSetDevice(d));
        CUDA_CHECK(cudaMalloc(&d_b[d], (size_t)n * sizeof(body)));
        CUDA_CHECK(cudaMalloc(&d_a[d], (size_t)n * sizeof(vec3)));
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream[d], cudaStreamNonBlocking));
    }
    for (int s = 0; s < steps; s++) {
        for (int d = 0; d < devices; d++) {
            int count = lo[d + 1] - lo[d];
            CUDA_CHECK(cudaSetDevice(d));
            CUDA_CHECK(cudaMemcpyAsync(d_b[d], b, (size_t)n * sizeof(body), cudaMemcpyHostToDevice, stream[d]));
            if (count == 0)
                continue;
            tiled_float4_kernel<RSQRT | UNROLL | FTZ>
                <<<blocks(count), TILE, 0, stream[d]>>>(d_b[d], d_a[d], n, lo[d], lo[d + 1]);
            CUDA_CHECK_LAUNCH();
            CUDA_CHECK(cudaMemcpyAsync(a + lo[d], d_a[d] + lo[d], count * sizeof(vec3), cudaMemcpyDeviceToHost,
                                       stream[d]));
        }
        for (int d = 0; d < devices; d++) {
            CUDA_CHECK(cudaSetDevice(d));
            CUDA_CHECK(cudaStreamSynchronize(stream[d]));
        }
        if (s == 0 && first)
            memcpy(first, a, (size_t)n * sizeof(vec3));
        nbody_integrate_cpu(b, v, a, n, dt);
    }
    for (int d = 0; d < devices; d++) {
        CUDA_CHECK(cudaSetDevice(d));
        CUDA_CHECK(cudaFree(d_b[d]));
        CUDA_CHECK(cudaFree(d_a[d]));
        CUDA_CHECK(cudaStreamDestroy(stream[d]));
    }
    CUDA_CHECK(cudaSetDevice(0));
}

/* Page-locked, portable (every GPU may copy from it), kept for the next run. */
static void *pinned_buffer(void **buffer, size_t *capacity, size_t bytes)
{
    if (bytes > *capacity) {
        if (*buffer)
            CUDA_CHECK(cudaFreeHost(*buffer));
        CUDA_CHECK(cudaHostAlloc(buffer, bytes, cudaHostAllocPortable));
        *capacity = bytes;
    }
    return *buffer;
}

void multi_gpu_run(body *b, vec3 *v, int n, int steps, float dt, int devices, vec3 *first_forces, int mode)
{
    static void *pinned_b, *pinned_a;
    static size_t cap_b, cap_a;
    devices = devices < 1 ? 1 : devices > MAX_GPUS ? MAX_GPUS : devices;
    if (mode == MULTI_THREADS) {
        run_threads(b, v, NULL, n, steps, dt, devices, first_forces);
        return;
    }
    size_t bytes = (size_t)(n > 0 ? n : 1) * sizeof(body);
    body *hb = (body *)pinned_buffer(&pinned_b, &cap_b, bytes);
    vec3 *ha = (vec3 *)pinned_buffer(&pinned_a, &cap_a, (size_t)(n > 0 ? n : 1) * sizeof(vec3));
    memcpy(hb, b, (size_t)n * sizeof(body));
    if (mode == MULTI_THREADS_PINNED)
        run_threads(hb, v, ha, n, steps, dt, devices, first_forces);
    else
        run_one_thread(hb, v, ha, n, steps, dt, devices, first_forces);
    memcpy(b, hb, (size_t)n * sizeof(body));
}
