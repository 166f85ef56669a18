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

/* Warp sums through shared memory, then the first warp adds them: thread 0
 * gets the block's sum. THREADS: the block's size (BLOCK for every stage but
 * ceiling-shape and one-launch). */
template <int THREADS = BLOCK>
__device__ static long long block_sum(long long v)
{
    __shared__ long long warp_sums[THREADS / 32];
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_sum(v);
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < THREADS / 32 ? warp_sums[lane] : 0;
        v = warp_sum(v);
    }
    return v;
}

/* The block's sum added to the total: one atomic per block. */
template <int THREADS = BLOCK>
__device__ static void block_sum_to(long long *d_sum, long long v)
{
    v = block_sum<THREADS>(v);
    if (threadIdx.x == 0)
        add_to_sum(d_sum, v);
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
 * each thread issues its LOADS int4 loads at once, adds them, and its
 * block adds its sum to the total (one atomic per block, as before); no
 * grid-stride loop, so no trip count, no loop-carried address and no blocks
 * left running alone at the end. cover-once runs it as 256 threads of eight
 * loads; ceiling-shape, with one change, as 512 threads of two. */
template <int THREADS, int LOADS>
__device__ static long long cover_once_sum(const int *__restrict__ in, size_t n)
{
    const int4 *in4 = reinterpret_cast<const int4 *>(in);
    size_t n4 = n / 4, first = (size_t)blockIdx.x * THREADS * LOADS + threadIdx.x;
    int4 v[LOADS];
#pragma unroll
    for (int k = 0; k < LOADS; k++) { /* all loads first: LOADS x 16 bytes in flight */
        size_t i = first + (size_t)k * THREADS;
        v[k] = i < n4 ? __ldg(in4 + i) : make_int4(0, 0, 0, 0);
    }
    long long sum = 0;
#pragma unroll
    for (int k = 0; k < LOADS; k++)
        sum += (long long)v[k].x + v[k].y + v[k].z + v[k].w;
    size_t tail = 4 * n4 + (size_t)blockIdx.x * THREADS + threadIdx.x; /* the n % 4 past the last int4 */
    if (tail < n)
        sum += __ldg(in + tail);
    return sum;
}

template <int THREADS, int LOADS>
__global__ void cover_once_kernel(const int *__restrict__ in, size_t n, long long *d_sum)
{
    block_sum_to<THREADS>(d_sum, cover_once_sum<THREADS, LOADS>(in, n));
}

/* ---- ceiling-shape: cover-once with one change, the launch's shape: 512
 * threads of two 16-byte loads instead of 256 of eight, the shape the read
 * ceiling's search (common/gpu/ceiling.cu) picked on the H100. The adding
 * costs nothing here: the plain read kernel in cover-once's shape is no
 * faster than cover-once; more, lighter threads finish the grid sooner. */
enum { SHAPE_THREADS = 512, SHAPE_LOADS = 2 };

/* ---- one-launch: ceiling-shape with one change: no memset launched before
 * it. The stages before zero *d_sum with a memset (a launch of its own, which
 * the timer counts) and then add into it. Here the blocks add into a total
 * the kernel keeps in device memory, zero between launches; each block then
 * takes a ticket, and the block holding the last one (the grid's last to add:
 * the fence puts every block's add before its ticket) moves the total to
 * *d_sum and leaves zero behind; its own fence, after the ticket, puts its
 * read of the total after every add the other tickets stand for. atomicInc
 * wraps the ticket counter back to 0 at the grid's size, so the next launch
 * finds both at zero (a launch stopped midway would leave them behind; an
 * error stops the program). */
__device__ static unsigned long long one_launch_total;
__device__ static unsigned one_launch_tickets;

template <int THREADS, int LOADS>
__global__ void one_launch_kernel(const int *__restrict__ in, size_t n, long long *d_sum)
{
    long long sum = block_sum<THREADS>(cover_once_sum<THREADS, LOADS>(in, n));
    if (threadIdx.x == 0) {
        atomicAdd(&one_launch_total, (unsigned long long)sum);
        __threadfence();
        if (atomicInc(&one_launch_tickets, gridDim.x - 1) == gridDim.x - 1) {
            __threadfence();
            *d_sum = (long long)atomicExch(&one_launch_total, 0ULL);
        }
    }
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
        cover_once_kernel<BLOCK, 8><<<blocks_for(n, (size_t)BLOCK * 4 * 8), BLOCK>>>(in, n, d_sum);
    CUDA_CHECK_LAUNCH();
}
void reduce_one_launch(const int *in, size_t n, long long *d_sum, const reduce_ctx *)
{
    if (n == 0) /* no grid to publish a total: the sum of nothing, written as the stages before do */
        start(d_sum);
    else
        one_launch_kernel<SHAPE_THREADS, SHAPE_LOADS>
            <<<blocks_for(n, (size_t)SHAPE_THREADS * 4 * SHAPE_LOADS), SHAPE_THREADS>>>(in, n, d_sum);
    CUDA_CHECK_LAUNCH();
}
void reduce_ceiling_shape(const int *in, size_t n, long long *d_sum, const reduce_ctx *)
{
    start(d_sum);
    if (n)
        cover_once_kernel<SHAPE_THREADS, SHAPE_LOADS>
            <<<blocks_for(n, (size_t)SHAPE_THREADS * 4 * SHAPE_LOADS), SHAPE_THREADS>>>(in, n, d_sum);
    CUDA_CHECK_LAUNCH();
}
