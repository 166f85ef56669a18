/* reduce_gpu.cu - ch06's GPU stages, from one atomic per element to the
 * memory-bandwidth limit. Each stage's comment says what it changes from the
 * one before and why that helps.
 *
 * The shared-memory tree stages launch one block per 256 or 512 elements: a
 * million blocks at 2^28. Each writes its block's sum to its own slot of a
 * partials array, and a second, small launch adds the partials (with a few
 * hundred atomics). A million atomics on one address would serialise in L2
 * and hide every difference between these stages. The grid-stride stages
 * launch only as many blocks as the GPU holds, so they add their block sums
 * straight into *d_sum with one atomic each.
 *
 * Values are int32 in [-128, 127]. A block of the tree stages sums at most
 * 2 * 256 of them, which fits int32; the grid-stride stages accumulate per
 * thread in int64, since one thread may sum millions.
 */
#include "reduce.h"

#include "../../common/cuda_util.h"
#include "../../common/timer.h"


#define BLOCK 256

/* 64-bit signed add through the unsigned atomic: two's complement makes them the same bits. */
__device__ static void add_to_sum(long long *d_sum, long long v)
{
    atomicAdd(reinterpret_cast<unsigned long long *>(d_sum), static_cast<unsigned long long>(v));
}

static unsigned blocks_for(size_t n, size_t per_block)
{
    return (unsigned)((n + per_block - 1) / per_block);
}

/* ---- atomic-global: every thread adds its element straight into the one
 * result. Correct, but 2^28 atomics on one address are serialised in L2. */
__global__ void atomic_global_kernel(const int *in, size_t n, long long *d_sum)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        add_to_sum(d_sum, in[i]);
}

/* ---- interleaved-divergent: a tree in shared memory. In step s, threads
 * whose index is a multiple of 2s add their neighbour s away. Half the
 * threads of every warp sit idle from the first step (divergence), and the
 * modulo is slow. */
__global__ void interleaved_divergent_kernel(const int *in, size_t n, long long *partial)
{
    __shared__ int s[BLOCK];
    unsigned t = threadIdx.x;
    size_t i = (size_t)blockIdx.x * BLOCK + t;
    s[t] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned step = 1; step < BLOCK; step *= 2) {
        if (t % (2 * step) == 0)
            s[t] += s[t + step];
        __syncthreads();
    }
    if (t == 0)
        partial[blockIdx.x] = s[0];
}

/* ---- interleaved-strided: the same tree, but the working threads are the
 * first ones (thread t works on element 2*step*t), so whole warps retire
 * together. Now the shared-memory addresses of a warp are 2*step apart:
 * several threads hit the same bank, and the accesses are replayed. */
__global__ void interleaved_strided_kernel(const int *in, size_t n, long long *partial)
{
    __shared__ int s[BLOCK];
    unsigned t = threadIdx.x;
    size_t i = (size_t)blockIdx.x * BLOCK + t;
    s[t] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned step = 1; step < BLOCK; step *= 2) {
        unsigned k = 2 * step * t;
        if (k < BLOCK)
            s[k] += s[k + step];
        __syncthreads();
    }
    if (t == 0)
        partial[blockIdx.x] = s[0];
}

/* ---- sequential: fold the upper half onto the lower half. Consecutive
 * threads touch consecutive words (no bank conflicts) and the active threads
 * stay packed in the first warps. But half the threads do nothing after the
 * load. */
__global__ void sequential_kernel(const int *in, size_t n, long long *partial)
{
    __shared__ int s[BLOCK];
    unsigned t = threadIdx.x;
    size_t i = (size_t)blockIdx.x * BLOCK + t;
    s[t] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned half = BLOCK / 2; half > 0; half /= 2) {
        if (t < half)
            s[t] += s[t + half];
        __syncthreads();
    }
    if (t == 0)
        partial[blockIdx.x] = s[0];
}

/* Loads two elements a block apart and adds them: the first step of the tree
 * done during the load, by every thread. */
__device__ static int load_pair(const int *in, size_t n, size_t i)
{
    int v = i < n ? in[i] : 0;
    if (i + BLOCK < n)
        v += in[i + BLOCK];
    return v;
}

/* ---- first-add-on-load: each block covers 2*BLOCK elements, so half as many
 * blocks, and no thread is idle after the load. */
__global__ void first_add_on_load_kernel(const int *in, size_t n, long long *partial)
{
    __shared__ int s[BLOCK];
    unsigned t = threadIdx.x;
    s[t] = load_pair(in, n, (size_t)blockIdx.x * 2 * BLOCK + t);
    __syncthreads();
    for (unsigned half = BLOCK / 2; half > 0; half /= 2) {
        if (t < half)
            s[t] += s[t + half];
        __syncthreads();
    }
    if (t == 0)
        partial[blockIdx.x] = s[0];
}

/* Shared tree down to 64 elements, with barriers; the last 32 threads finish. */
__device__ static void tree_to_last_warp(int *s, unsigned t)
{
    for (unsigned half = BLOCK / 2; half > 32; half /= 2) {
        if (t < half)
            s[t] += s[t + half];
        __syncthreads();
    }
}

/* ---- warp-unrolled-volatile: the classic trick. Once 32 threads are left,
 * they are one warp, "so" they run in lockstep and need no barrier; volatile
 * stops the compiler from keeping s[] in registers. Since Volta, threads of
 * a warp are scheduled independently and nothing orders these reads after
 * the other lanes' writes: it is a data race. It usually gives the right sum
 * today; compute-sanitizer --tool racecheck reports it (make sanitize). */
__global__ void warp_unrolled_volatile_kernel(const int *in, size_t n, long long *partial)
{
    __shared__ int s[BLOCK];
    unsigned t = threadIdx.x;
    s[t] = load_pair(in, n, (size_t)blockIdx.x * 2 * BLOCK + t);
    __syncthreads();
    tree_to_last_warp(s, t);
    if (t < 32) {
        volatile int *v = s;
        v[t] += v[t + 32];
        v[t] += v[t + 16];
        v[t] += v[t + 8];
        v[t] += v[t + 4];
        v[t] += v[t + 2];
        v[t] += v[t + 1];
    }
    if (t == 0)
        partial[blockIdx.x] = s[0];
}

/* ---- warp-unrolled-sync: the same unrolled warp, made correct: each step
 * reads into a register, then __syncwarp() before anyone writes, and again
 * after, so every read sees the previous step's writes. */
__global__ void warp_unrolled_sync_kernel(const int *in, size_t n, long long *partial)
{
    __shared__ int s[BLOCK];
    unsigned t = threadIdx.x;
    s[t] = load_pair(in, n, (size_t)blockIdx.x * 2 * BLOCK + t);
    __syncthreads();
    tree_to_last_warp(s, t);
    if (t < 32) {
        int v = s[t];
        for (unsigned k = 32; k > 0; k /= 2) {
            v += s[t + k];
            __syncwarp();
            s[t] = v;
            __syncwarp();
        }
    }
    if (t == 0)
        partial[blockIdx.x] = s[0];
}

/* ---- fully-unrolled: the block size is a template parameter, so every loop
 * has a known trip count; the compiler unrolls them and drops the dead
 * branches. Saves loop and index arithmetic, which is all that is left. */
template <unsigned B>
__global__ void fully_unrolled_kernel(const int *in, size_t n, long long *partial)
{
    __shared__ int s[B];
    unsigned t = threadIdx.x;
    size_t i = (size_t)blockIdx.x * 2 * B + t;
    int v = i < n ? in[i] : 0;
    if (i + B < n)
        v += in[i + B];
    s[t] = v;
    __syncthreads();
#pragma unroll
    for (unsigned half = B / 2; half > 32; half /= 2) {
        if (t < half)
            s[t] = v = v + s[t + half];
        __syncthreads();
    }
    if (t < 32) {
#pragma unroll
        for (unsigned k = 32; k > 0; k /= 2) {
            v += s[t + k];
            __syncwarp();
            s[t] = v;
            __syncwarp();
        }
    }
    if (t == 0)
        partial[blockIdx.x] = v;
}

/* Blocks to keep every SM busy for the grid-stride stages. */
static unsigned resident_blocks(const void *kernel, int threads)
{
    int device, sms, per_sm;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0));
    return (unsigned)(sms * per_sm);
}

/* ---- many-per-thread: a grid just large enough to fill the GPU, each thread
 * walking the array with a grid-sized stride and summing in a register. Most
 * of the work is now loads and adds; the tree runs once per block instead of
 * once per 512 elements. */
/* The block's per-thread sums added by a shared-memory tree; one atomic. */
__device__ static void tree_sum_to(long long *d_sum, long long v)
{
    __shared__ long long s[BLOCK];
    unsigned t = threadIdx.x;
    s[t] = v;
    __syncthreads();
    for (unsigned half = BLOCK / 2; half > 0; half /= 2) {
        if (t < half)
            s[t] += s[t + half];
        __syncthreads();
    }
    if (t == 0)
        add_to_sum(d_sum, s[0]);
}

/* Each thread sums one contiguous chunk, as a CPU thread would: thread g
 * reads [g c, (g + 1) c). At each step the 32 lanes of a warp read 32
 * addresses c * 4 bytes apart, 32 separate 32-byte sectors for 128 useful
 * bytes: uncoalesced. */
__global__ void chunk_per_thread_kernel(const int *in, size_t n, long long *d_sum)
{
    size_t threads = (size_t)gridDim.x * BLOCK, g = (size_t)blockIdx.x * BLOCK + threadIdx.x;
    size_t chunk = (n + threads - 1) / threads, begin = g * chunk, end = begin + chunk < n ? begin + chunk : n;
    long long v = 0;
    for (size_t i = begin; i < end; i++)
        v += in[i];
    tree_sum_to(d_sum, v);
}

/* The same threads, the elements dealt out like cards (grid-stride): at each
 * step a warp reads 32 adjacent ints, 128 bytes in 4 sectors: coalesced. */
__global__ void many_per_thread_kernel(const int *in, size_t n, long long *d_sum)
{
    long long v = 0;
    for (size_t i = (size_t)blockIdx.x * BLOCK + threadIdx.x; i < n; i += (size_t)gridDim.x * BLOCK)
        v += in[i];
    tree_sum_to(d_sum, v);
}

/* Sum of v over the 32 lanes of a warp, in registers: lane 0 gets it. */
__device__ static long long warp_sum(long long v)
{
    for (int k = 16; k > 0; k /= 2)
        v += __shfl_down_sync(0xffffffffu, v, k);
    return v;
}

/* Warp sums through shared memory, then the first warp adds them; one atomic. */
__device__ static void block_sum_to(long long *d_sum, long long v)
{
    __shared__ long long warp_sums[BLOCK / 32];
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_sum(v);
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < BLOCK / 32 ? warp_sums[lane] : 0;
        v = warp_sum(v);
        if (lane == 0)
            add_to_sum(d_sum, v);
    }
}

/* ---- warp-shuffle: many-per-thread with one change: the block's sum goes
 * through warp shuffles in registers (block_sum_to) instead of a tree in
 * shared memory, one barrier instead of eight. */
__global__ void warp_shuffle_kernel(const int *in, size_t n, long long *d_sum)
{
    long long v = 0;
    for (size_t i = (size_t)blockIdx.x * BLOCK + threadIdx.x; i < n; i += (size_t)gridDim.x * BLOCK)
        v += in[i];
    block_sum_to(d_sum, v);
}

/* ---- four-loads: + four independent loads per trip: more bytes in flight
 * per thread, so fewer threads are needed to cover DRAM's latency. */
__global__ void four_loads_kernel(const int *in, size_t n, long long *d_sum)
{
    long long v = 0;
    size_t stride = (size_t)gridDim.x * BLOCK;
    size_t i = (size_t)blockIdx.x * BLOCK + threadIdx.x;
    for (; i + 3 * stride < n; i += 4 * stride)
        v += (long long)in[i] + in[i + stride] + in[i + 2 * stride] + in[i + 3 * stride];
    for (; i < n; i += stride)
        v += in[i];
    block_sum_to(d_sum, v);
}

/* ---- read-only-path: + the loads through the read-only data path (__ldg;
 * __restrict__ promises nothing else writes the input). */
__global__ void read_only_path_kernel(const int *__restrict__ in, size_t n, long long *d_sum)
{
    long long v = 0;
    size_t stride = (size_t)gridDim.x * BLOCK;
    size_t i = (size_t)blockIdx.x * BLOCK + threadIdx.x;
    for (; i + 3 * stride < n; i += 4 * stride)
        v += (long long)__ldg(in + i) + __ldg(in + i + stride) + __ldg(in + i + 2 * stride) +
             __ldg(in + i + 3 * stride);
    for (; i < n; i += stride)
        v += __ldg(in + i);
    block_sum_to(d_sum, v);
}

/* ---- vector-shuffle: + 16-byte loads (int4: four elements per instruction),
 * two in flight per trip. The n % 4 elements past the last int4 are added by
 * the first threads. */
__global__ void vector_shuffle_kernel(const int *__restrict__ in, size_t n, long long *d_sum)
{
    const int4 *in4 = reinterpret_cast<const int4 *>(in);
    size_t n4 = n / 4, stride = (size_t)gridDim.x * BLOCK;
    size_t i = (size_t)blockIdx.x * BLOCK + threadIdx.x;
    long long v = 0;
    for (; i + stride < n4; i += 2 * stride) {
        int4 a = __ldg(in4 + i), b = __ldg(in4 + i + stride);
        v += (long long)(a.x + a.y + a.z + a.w) + (b.x + b.y + b.z + b.w);
    }
    if (i < n4) {
        int4 a = __ldg(in4 + i);
        v += a.x + a.y + a.z + a.w;
    }
    size_t tail = 4 * n4 + (size_t)blockIdx.x * BLOCK + threadIdx.x;
    if (tail < n)
        v += __ldg(in + tail);
    block_sum_to(d_sum, v);
}

/* ---- cover-once: vector-shuffle with a grid that covers the input once:
 * each thread issues its COVER_LOADS int4 loads at once, adds them, and its
 * block adds its sum to the total (one atomic per block, as before); no
 * grid-stride loop, so no trip count, no loop-carried address and no blocks
 * left running alone at the end. The read ceiling's search finds this shape
 * its fastest (its row's note). */
#define COVER_LOADS 8
__global__ void cover_once_kernel(const int *__restrict__ in, size_t n, long long *d_sum)
{
    const int4 *in4 = reinterpret_cast<const int4 *>(in);
    size_t n4 = n / 4, first = (size_t)blockIdx.x * BLOCK * COVER_LOADS + threadIdx.x;
    int4 v[COVER_LOADS];
#pragma unroll
    for (int k = 0; k < COVER_LOADS; k++) { /* all loads first: COVER_LOADS x 16 bytes in flight */
        size_t i = first + (size_t)k * BLOCK;
        v[k] = i < n4 ? __ldg(in4 + i) : make_int4(0, 0, 0, 0);
    }
    long long sum = 0;
#pragma unroll
    for (int k = 0; k < COVER_LOADS; k++)
        sum += (long long)v[k].x + v[k].y + v[k].z + v[k].w;
    size_t tail = 4 * n4 + (size_t)blockIdx.x * BLOCK + threadIdx.x; /* the n % 4 past the last int4 */
    if (tail < n)
        sum += __ldg(in + tail);
    block_sum_to(d_sum, sum);
}

/* The second pass of the tree stages: the per-block partial sums, added by a
 * grid-stride loop and one atomic per block. */
__global__ void sum_partials_kernel(const long long *partial, size_t count, long long *d_sum)
{
    long long v = 0;
    for (size_t i = (size_t)blockIdx.x * BLOCK + threadIdx.x; i < count; i += (size_t)gridDim.x * BLOCK)
        v += partial[i];
    block_sum_to(d_sum, v);
}

/* ---- the read-only ceiling: every thread streams 16-byte loads, LOADS in
 * flight, and keeps a running xor; nothing is written unless the xor hits a
 * value the data cannot produce, so the loads cannot be optimised away and the
 * kernel moves only the bytes a reduction must read. */
template <int LOADS>
__global__ void read_stream_kernel(const int4 *__restrict__ in, size_t n4, int *sink)
{
    size_t stride = (size_t)gridDim.x * blockDim.x, i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    int acc = 0;
    for (; i + (LOADS - 1) * stride < n4; i += LOADS * stride) {
        int4 v[LOADS];
#pragma unroll
        for (int k = 0; k < LOADS; k++)
            v[k] = __ldg(in + i + k * stride);
#pragma unroll
        for (int k = 0; k < LOADS; k++)
            acc ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
    }
    for (; i < n4; i += stride) {
        int4 v = __ldg(in + i);
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x7fffffff) /* never true for data in [-128, 127]: xor stays in [-256, 255] */
        *sink = acc;
}

/* The same, with each block reading one contiguous chunk once (thread t's
 * LOADS loads at t, t + blockDim, ...: the layout cover-once uses) instead of
 * loads a whole grid apart: a layout the search must try too. */
template <int LOADS>
__global__ void read_chunk_kernel(const int4 *__restrict__ in, size_t n4, int *sink)
{
    size_t first = (size_t)blockIdx.x * blockDim.x * LOADS + threadIdx.x;
    int4 v[LOADS];
#pragma unroll
    for (int k = 0; k < LOADS; k++) {
        size_t i = first + (size_t)k * blockDim.x;
        v[k] = i < n4 ? __ldg(in + i) : make_int4(0, 0, 0, 0);
    }
    int acc = 0;
#pragma unroll
    for (int k = 0; k < LOADS; k++)
        acc ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
    if (acc == 0x7fffffff) /* never (see read_stream_kernel) */
        *sink = acc;
}

/* ---------------------------------------------------------------- launchers */
/* (reduce.h declared the functions below extern "C", so they keep C linkage.) */

size_t reduce_scratch_bytes(size_t n)
{
    return blocks_for(n, BLOCK) * sizeof(long long);
}

static void start(long long *d_sum)
{
    CUDA_CHECK(cudaMemsetAsync(d_sum, 0, sizeof(long long)));
}

/* Blocks for the second pass: enough to read the partials at full speed, at
 * most what the GPU holds at once. */
static unsigned partial_pass_blocks(unsigned partials)
{
    static unsigned most = 0;
    if (!most)
        most = resident_blocks((const void *)sum_partials_kernel, BLOCK);
    unsigned want = blocks_for(partials, (size_t)BLOCK * 8);
    return want < 1 ? 1 : want < most ? want : most;
}

void reduce_atomic_global(const int *in, size_t n, long long *d_sum, const reduce_ctx *)
{
    start(d_sum);
    if (n)
        atomic_global_kernel<<<blocks_for(n, BLOCK), BLOCK>>>(in, n, d_sum);
    CUDA_CHECK_LAUNCH();
}

typedef void stage_kernel(const int *, size_t, long long *);

/* The shared-memory tree stages launch the same way: one block per
 * PER_BLOCK elements writing partials into scratch, then the second pass. */
template <stage_kernel KERNEL, size_t PER_BLOCK>
static void launch_tree(const int *in, size_t n, long long *d_sum, const reduce_ctx *ctx)
{
    long long *partial = (long long *)ctx->scratch;
    unsigned blocks = blocks_for(n, PER_BLOCK);
    start(d_sum);
    if (n) {
        KERNEL<<<blocks, BLOCK>>>(in, n, partial);
        CUDA_CHECK_LAUNCH();
        sum_partials_kernel<<<partial_pass_blocks(blocks), BLOCK>>>(partial, blocks, d_sum);
    }
    CUDA_CHECK_LAUNCH();
}

void reduce_interleaved_divergent(const int *in, size_t n, long long *d_sum, const reduce_ctx *ctx)
{
    launch_tree<interleaved_divergent_kernel, BLOCK>(in, n, d_sum, ctx);
}
void reduce_interleaved_strided(const int *in, size_t n, long long *d_sum, const reduce_ctx *ctx)
{
    launch_tree<interleaved_strided_kernel, BLOCK>(in, n, d_sum, ctx);
}
void reduce_sequential(const int *in, size_t n, long long *d_sum, const reduce_ctx *ctx)
{
    launch_tree<sequential_kernel, BLOCK>(in, n, d_sum, ctx);
}
void reduce_first_add_on_load(const int *in, size_t n, long long *d_sum, const reduce_ctx *ctx)
{
    launch_tree<first_add_on_load_kernel, 2 * BLOCK>(in, n, d_sum, ctx);
}
void reduce_warp_unrolled_volatile(const int *in, size_t n, long long *d_sum, const reduce_ctx *ctx)
{
    launch_tree<warp_unrolled_volatile_kernel, 2 * BLOCK>(in, n, d_sum, ctx);
}
void reduce_warp_unrolled_sync(const int *in, size_t n, long long *d_sum, const reduce_ctx *ctx)
{
    launch_tree<warp_unrolled_sync_kernel, 2 * BLOCK>(in, n, d_sum, ctx);
}
void reduce_fully_unrolled(const int *in, size_t n, long long *d_sum, const reduce_ctx *ctx)
{
    launch_tree<fully_unrolled_kernel<BLOCK>, 2 * BLOCK>(in, n, d_sum, ctx);
}

/* The grid-stride stages: as many blocks as fit on the GPU at once (fewer if
 * n is small, so no block is empty). */
template <stage_kernel KERNEL, size_t PER_THREAD>
static void launch_grid_stride(const int *in, size_t n, long long *d_sum)
{
    static unsigned most = 0;
    if (!most)
        most = resident_blocks((const void *)KERNEL, BLOCK);
    start(d_sum);
    unsigned blocks = blocks_for(n, (size_t)BLOCK * PER_THREAD);
    if (n)
        KERNEL<<<blocks < most ? blocks : most, BLOCK>>>(in, n, d_sum);
    CUDA_CHECK_LAUNCH();
}

void reduce_chunk_per_thread(const int *in, size_t n, long long *d_sum, const reduce_ctx *)
{
    launch_grid_stride<chunk_per_thread_kernel, 1>(in, n, d_sum);
}
void reduce_many_per_thread(const int *in, size_t n, long long *d_sum, const reduce_ctx *)
{
    launch_grid_stride<many_per_thread_kernel, 1>(in, n, d_sum);
}
void reduce_warp_shuffle(const int *in, size_t n, long long *d_sum, const reduce_ctx *)
{
    launch_grid_stride<warp_shuffle_kernel, 1>(in, n, d_sum);
}
void reduce_four_loads(const int *in, size_t n, long long *d_sum, const reduce_ctx *)
{
    launch_grid_stride<four_loads_kernel, 4>(in, n, d_sum);
}
void reduce_read_only_path(const int *in, size_t n, long long *d_sum, const reduce_ctx *)
{
    launch_grid_stride<read_only_path_kernel, 4>(in, n, d_sum);
}
void reduce_vector_shuffle(const int *in, size_t n, long long *d_sum, const reduce_ctx *)
{
    launch_grid_stride<vector_shuffle_kernel, 8>(in, n, d_sum);
}
void reduce_cover_once(const int *in, size_t n, long long *d_sum, const reduce_ctx *)
{
    start(d_sum);
    if (n)
        cover_once_kernel<<<blocks_for(n, (size_t)BLOCK * 4 * COVER_LOADS), BLOCK>>>(in, n, d_sum);
    CUDA_CHECK_LAUNCH();
}


typedef struct {
    void *dst;
    const void *src;
    size_t bytes;
    unsigned blocks, block; /* the grid and the threads per block */
    int loads;
    int *sink;
    int chunked; /* read_chunk_kernel: each block one contiguous chunk, the grid covering the input once */
} stream_job;

static void launch_copy(void *p)
{
    stream_job *j = (stream_job *)p;
    CUDA_CHECK(cudaMemcpyAsync(j->dst, j->src, j->bytes, cudaMemcpyDeviceToDevice, 0));
}

/* One configuration's read kernel, its loads in flight per thread L a
 * template argument: the grid-stride layout, or each block one chunk. */
template <int L>
static void launch_read_loads(const stream_job *j, const int4 *in, size_t n4)
{
    if (j->chunked)
        read_chunk_kernel<L><<<j->blocks, j->block>>>(in, n4, j->sink);
    else
        read_stream_kernel<L><<<j->blocks, j->block>>>(in, n4, j->sink);
}

static void launch_read(void *p)
{
    stream_job *j = (stream_job *)p;
    const int4 *in = (const int4 *)j->src;
    size_t n4 = j->bytes / 16;
    switch (j->loads) {
    case 1: launch_read_loads<1>(j, in, n4); break;
    case 2: launch_read_loads<2>(j, in, n4); break;
    case 4: launch_read_loads<4>(j, in, n4); break;
    case 8: launch_read_loads<8>(j, in, n4); break;
    default: launch_read_loads<16>(j, in, n4); break;
    }
    CUDA_CHECK_LAUNCH();
}

double measure_copy_bandwidth(void *d_a, void *d_b, size_t bytes, int repeat)
{
    stream_job j = {d_b, d_a, bytes, 0, 0, 0, NULL, 0};
    launch_copy(&j); /* warm-up */
    return 2.0 * (double)bytes / (cuda_median_ms(launch_copy, &j, repeat) * 1e-3); /* read + written */
}

/* DRAM's latency, for Little's law: one thread follows a chain of indices
 * through the buffer, from one 128-byte line to a random other (a single
 * random cycle over every line: Sattolo's shuffle, fixed seed), so no load
 * can start before the one before it has returned. Each run goes on from
 * where the last one stopped, so in a buffer of more lines than all the runs'
 * hops no line is read twice, and none can be in L2 from an earlier read (a
 * chase that began again at the same line would time L2 from its second run). */
#define CHASE_LINE_WORDS 32 /* unsigned words in a 128-byte line */
#define CHASE_HOPS (1 << 17)

__global__ void chase_scatter_kernel(unsigned *buf, const unsigned *next, unsigned lines)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < lines)
        buf[(size_t)i * CHASE_LINE_WORDS] = next[i] * CHASE_LINE_WORDS;
}

__global__ void chase_kernel(const unsigned *buf, int hops, unsigned *at)
{
    unsigned j = *at;
    for (int k = 0; k < hops; k++)
        j = buf[j];
    *at = j;
}

typedef struct {
    const unsigned *buf;
    unsigned *at; /* device: where the chase stands, word index */
    int hops;
} chase_job;

static void launch_chase(void *p)
{
    chase_job *j = (chase_job *)p;
    chase_kernel<<<1, 1>>>(j->buf, j->hops, j->at);
    CUDA_CHECK(cudaGetLastError());
}

/* next[i]: the line after line i on one random cycle through all `lines`
 * (Sattolo's shuffle of the visiting order, fixed seed); malloc'ed. */
static unsigned *random_cycle(unsigned lines)
{
    unsigned *order = (unsigned *)malloc(lines * sizeof *order), *next = (unsigned *)malloc(lines * sizeof *next);
    if (!order || !next) {
        fprintf(stderr, "%s:%d: out of memory (a latency chain of %u lines)\n", __FILE__, __LINE__, lines);
        exit(EXIT_CHECK_FAIL);
    }
    for (unsigned i = 0; i < lines; i++)
        order[i] = i;
    unsigned long long seed = 606;
    for (unsigned i = lines - 1; i > 0; i--) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        unsigned k = (unsigned)((seed >> 33) % i), t = order[i];
        order[i] = order[k], order[k] = t;
    }
    for (unsigned k = 0; k < lines; k++)
        next[order[k]] = order[(k + 1) % lines];
    free(order);
    return next;
}

double measure_dram_latency_ns(void *d_scratch, size_t bytes, int repeat)
{
    unsigned lines = (unsigned)(bytes / (CHASE_LINE_WORDS * sizeof(unsigned))), *d_next, *d_at, end = 0;
    if (lines < 2) {
        fprintf(stderr, "%s:%d: %zu bytes hold no chain of lines\n", __FILE__, __LINE__, bytes);
        exit(EXIT_CHECK_FAIL);
    }
    unsigned *next = random_cycle(lines);
    CUDA_CHECK(cudaMalloc(&d_next, lines * sizeof *next));
    CUDA_CHECK(cudaMalloc(&d_at, sizeof *d_at));
    CUDA_CHECK(cudaMemset(d_at, 0, sizeof *d_at));
    CUDA_CHECK(cudaMemcpy(d_next, next, lines * sizeof *next, cudaMemcpyHostToDevice));
    chase_scatter_kernel<<<(lines + 255) / 256, 256>>>((unsigned *)d_scratch, d_next, lines);
    CUDA_CHECK(cudaGetLastError());
    chase_job j = {(const unsigned *)d_scratch, d_at, CHASE_HOPS};
    launch_chase(&j); /* warm-up, and the check: the GPU walked the chain the host built */
    CUDA_CHECK(cudaMemcpy(&end, d_at, sizeof end, cudaMemcpyDeviceToHost));
    unsigned at = 0;
    for (int k = 0; k < CHASE_HOPS; k++)
        at = next[at];
    if (end != at * CHASE_LINE_WORDS) {
        fprintf(stderr, "%s:%d: the latency chain ended at word %u, not %u\n", __FILE__, __LINE__, end,
                at * CHASE_LINE_WORDS);
        exit(EXIT_CHECK_FAIL);
    }
    double ns = cuda_median_ms(launch_chase, &j, repeat) * 1e6 / CHASE_HOPS;
    CUDA_CHECK(cudaFree(d_next));
    CUDA_CHECK(cudaFree(d_at));
    free(next);
    return ns;
}

/* The read ceiling: the best of a search over loads in flight per thread
 * (1 ... 16 int4), threads per block (128 ... 1024) and grids (1 ... 32
 * blocks per SM, up to 4096 resident threads' worth, and one that covers the
 * input once with no grid-stride loop, its loads a grid apart or each block
 * reading one contiguous chunk): after 200 launches to warm the GPU
 * up, every configuration timed 5 times, the six fastest again `repeat`
 * times; the best median wins. */
double measure_read_bandwidth(const void *d_in, size_t bytes, int repeat, char *best_config, size_t len)
{
    enum { MAX_CONFIGS = 180, FINALISTS = 6 };
    int device, sms, *sink;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaMalloc(&sink, sizeof(int)));
    stream_job jobs[MAX_CONFIGS];
    double gbs[MAX_CONFIGS];
    int count = 0;
    const int loads[] = {1, 2, 4, 8, 16}, blocks[] = {128, 256, 512, 1024}, per_sm[] = {1, 2, 4, 8, 16, 32};
    size_t n4 = bytes / 16;
    for (int l = 0; l < 5; l++)
        for (int b = 0; b < 4; b++)
            for (int g = 0; g <= 7; g++) { /* g = 6: covering once, loads a grid apart; 7: in chunks */
                size_t cover = (n4 + (size_t)blocks[b] * loads[l] - 1) / ((size_t)blocks[b] * loads[l]);
                size_t grid = g < 6 ? (size_t)sms * per_sm[g] : cover < 1 ? 1 : cover;
                if ((g < 6 && blocks[b] * per_sm[g] > 4096) || grid > 0x7fffffffu || count == MAX_CONFIGS)
                    continue;
                jobs[count++] = (stream_job){NULL, d_in, bytes & ~(size_t)15, (unsigned)grid, (unsigned)blocks[b],
                                             loads[l], sink, g == 7};
            }
    /* The GPU first kept busy for a while (its clocks rise under load: a
     * search started cold once crowned a configuration slower than a stage). */
    for (int w = 0; w < 200; w++)
        launch_read(&jobs[0]);
    for (int c = 0; c < count; c++) {
        launch_read(&jobs[c]); /* warm-up */
        gbs[c] = (double)jobs[c].bytes / (cuda_median_ms(launch_read, &jobs[c], 5) * 1e-3);
    }
    double best = 0;
    for (int f = 0; f < FINALISTS && f < count; f++) {
        int top = 0;
        for (int c = 1; c < count; c++)
            top = gbs[c] > gbs[top] ? c : top;
        gbs[top] = -1; /* taken */
        double rate = (double)jobs[top].bytes / (cuda_median_ms(launch_read, &jobs[top], repeat) * 1e-3);
        if (rate > best) {
            best = rate;
            snprintf(best_config, len, "%d int4 loads in flight x %u threads, %u blocks%s", jobs[top].loads,
                     jobs[top].block, jobs[top].blocks, jobs[top].chunked ? ", each a contiguous chunk" : "");
        }
    }
    CUDA_CHECK(cudaFree(sink));
    return best;
}

void reduce_ceilings(const void *d_in, size_t in_bytes, double *read_gbs, double *copy_gbs, double *latency_ns,
                     char *read_config, size_t len)
{
    void *a, *b;
    CUDA_CHECK(cudaMalloc(&a, REDUCE_CEILING_BYTES));
    CUDA_CHECK(cudaMalloc(&b, REDUCE_CEILING_BYTES));
    CUDA_CHECK(cudaMemset(a, 1, REDUCE_CEILING_BYTES));
    *copy_gbs = measure_copy_bandwidth(a, b, REDUCE_CEILING_BYTES, 21) * 1e-9;
    /* The read ceiling over the stages' own input, so launch and tail costs
     * weigh the same (at least 256 MiB: a small n would measure only those). */
    if (in_bytes >= REDUCE_CEILING_BYTES)
        *read_gbs = measure_read_bandwidth(d_in, in_bytes, 21, read_config, len) * 1e-9;
    else
        *read_gbs = measure_read_bandwidth(a, REDUCE_CEILING_BYTES, 21, read_config, len) * 1e-9;
    *latency_ns = measure_dram_latency_ns(a, REDUCE_CEILING_BYTES, 5); /* a is scratch now */
    CUDA_CHECK(cudaFree(a));
    CUDA_CHECK(cudaFree(b));
}
