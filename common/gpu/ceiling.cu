/* ceiling.cu - see ceiling.h. Each ceiling is a plain kernel, timed the same
 * way (run_long): a repetition of `passes` passes is sized from one pass's
 * time to last GPU_CEILING_MIN_MS with a margin, run once to warm up (its
 * time corrects the size), then GPU_CEILING_REPEAT times; a repetition shorter
 * than GPU_CEILING_MIN_MS (the clocks rose after the warm-up) makes all of
 * them run again, longer. The kernels' results are kept (a sink written only
 * on an impossible value), so the compiler cannot drop their work. */
#include "ceiling.h"

#include "../cuda_util.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIZE_MARGIN 1.1 /* a repetition is sized to 1.1 x GPU_CEILING_MIN_MS */

/* ---------------------------------------------------------------- timing */
static int current_device(void)
{
    int device;
    CUDA_CHECK(cudaGetDevice(&device));
    return device;
}

static int device_attribute(enum cudaDeviceAttr what)
{
    int v = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&v, what, current_device()));
    return v;
}

/* A result as the API returns it: with the driver's maximum SM clock. */
static gpu_ceiling with_clock(gpu_ceiling c)
{
    c.max_clock_mhz = device_attribute(cudaDevAttrClockRate) / 1000;
    return c;
}

/* Runs `passes` passes of a ceiling's kernel and returns one repetition's
 * result: rep_ms (CUDA events) and rate, and whatever else it measures. */
typedef gpu_ceiling run_fn(void *context, long long passes);

/* Passes for one repetition of GPU_CEILING_MIN_MS x SIZE_MARGIN at pass_ms a
 * pass, in [1, cap] (a zero or NaN estimate asks for the cap). */
static long long passes_for(double pass_ms, long long cap)
{
    double want = GPU_CEILING_MIN_MS * SIZE_MARGIN / pass_ms;
    if (!(want < (double)cap))
        return cap;
    return want < 1 ? 1 : (long long)ceil(want);
}

/* The protocol every ceiling follows (see the top of the file); the best
 * repetition by rate (lower_is_better for a latency) is returned, with the
 * passes and the repetitions filled in. Host logic only (tests run it on the
 * CPU with a stand-in for the GPU). */
static gpu_ceiling run_long(run_fn *run, void *context, double pass_ms, long long cap, int lower_is_better, int warm)
{
    long long passes = passes_for(pass_ms, cap);
    if (warm) {
        gpu_ceiling w = run(context, passes);
        passes = passes_for(w.rep_ms / (double)passes, cap);
    }
    gpu_ceiling best = {};
    for (int attempt = 0; attempt < 3; attempt++) {
        double shortest = 0;
        for (int r = 0; r < GPU_CEILING_REPEAT; r++) {
            gpu_ceiling c = run(context, passes);
            shortest = r == 0 || c.rep_ms < shortest ? c.rep_ms : shortest;
            if (r == 0 || (lower_is_better ? c.rate < best.rate : c.rate > best.rate))
                best = c;
        }
        if (shortest >= GPU_CEILING_MIN_MS || passes >= cap)
            break;
        passes = passes_for(shortest / (double)passes, cap);
    }
    best.passes = passes;
    best.repeats = GPU_CEILING_REPEAT;
    return best;
}

/* Milliseconds on the GPU's clock for `passes` calls of launch(context). */
static double timed_passes(cuda_launch_fn *launch, void *context, long long passes)
{
    cuda_timer t;
    cuda_timer_create(&t);
    cuda_timer_start(&t);
    for (long long p = 0; p < passes; p++)
        launch(context);
    double ms = cuda_timer_stop(&t);
    cuda_timer_destroy(&t);
    return ms;
}

/* The GPU's nanosecond timer and the SM's id, read inside a kernel. */
__device__ static unsigned long long global_ns(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__device__ static unsigned sm_id(void)
{
    unsigned id;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    return id;
}

/* ---------------------------------------------------------------- read stream
 * Every thread streams 16-byte loads, LOADS in flight, and keeps a running
 * xor; nothing is written unless the xor hits 0x7fffffff (never for data in
 * [-128, 127], whose xor stays there; harmless if it did), so the loads cannot
 * be optimised away and the kernel moves only the bytes a reduction reads. */
template <int LOADS>
__global__ static void read_stream_kernel(const int4 *__restrict__ in, size_t n4, int *sink)
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
    if (acc == 0x7fffffff)
        *sink = acc;
}

/* The same, with each block reading one contiguous chunk once (thread t's
 * LOADS loads at t, t + blockDim, ...) instead of loads a whole grid apart:
 * a layout the search must try too. */
template <int LOADS>
__global__ static void read_chunk_kernel(const int4 *__restrict__ in, size_t n4, int *sink)
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

typedef struct {
    void *dst;
    const void *src;
    size_t bytes;
    unsigned blocks, block; /* the grid and the threads per block */
    int loads;
    int *sink;
    int chunked; /* read_chunk_kernel: each block one contiguous chunk, the grid covering the input once */
} stream_job;

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

/* One repetition of a read or copy job: `passes` launches back to back, each
 * over the whole buffer (larger than L2: no pass finds the last one's bytes). */
static gpu_ceiling run_read(void *p, long long passes)
{
    stream_job *j = (stream_job *)p;
    gpu_ceiling c = {};
    c.rep_ms = timed_passes(launch_read, j, passes);
    c.rate = (double)j->bytes * (double)passes / (c.rep_ms * 1e-3) * 1e-9;
    return c;
}

static void launch_copy(void *p)
{
    stream_job *j = (stream_job *)p;
    CUDA_CHECK(cudaMemcpyAsync(j->dst, j->src, j->bytes, cudaMemcpyDeviceToDevice, 0));
}

static gpu_ceiling run_copy(void *p, long long passes)
{
    stream_job *j = (stream_job *)p;
    gpu_ceiling c = {};
    c.rep_ms = timed_passes(launch_copy, j, passes);
    c.rate = 2.0 * (double)j->bytes * (double)passes / (c.rep_ms * 1e-3) * 1e-9; /* read + written */
    return c;
}

#define STREAM_PASSES_MAX 100000LL

/* The search over loads in flight per thread (1 ... 16 int4), threads per
 * block (128 ... 1024) and grids (1 ... 32 blocks per SM, up to 4096 resident
 * threads' worth, and one that covers the input once with no grid-stride
 * loop, its loads a grid apart or each block reading one contiguous chunk).
 * A plain kernel outside the search must not read faster: the search is what
 * makes it a ceiling. Each configuration is screened by single launches (the
 * median of 3 after one), and the three fastest are timed as run_long says. */
gpu_ceiling gpu_read_ceiling(const void *d_buf, size_t bytes)
{
    enum { MAX_CONFIGS = 180, FINALISTS = 3 };
    int sms = device_attribute(cudaDevAttrMultiProcessorCount), *sink;
    size_t n4 = bytes / 16;
    if (n4 == 0) {
        fprintf(stderr, "%s:%d: a read ceiling over %zu bytes reads nothing\n", __FILE__, __LINE__, bytes);
        exit(EXIT_CHECK_FAIL);
    }
    CUDA_CHECK(cudaMalloc(&sink, sizeof(int)));
    stream_job jobs[MAX_CONFIGS];
    double screened[MAX_CONFIGS];
    int count = 0;
    const int loads[] = {1, 2, 4, 8, 16}, blocks[] = {128, 256, 512, 1024}, per_sm[] = {1, 2, 4, 8, 16, 32};
    for (int l = 0; l < 5; l++)
        for (int b = 0; b < 4; b++)
            for (int g = 0; g <= 7; g++) { /* g = 6: covering once, loads a grid apart; 7: in chunks */
                size_t cover = (n4 + (size_t)blocks[b] * loads[l] - 1) / ((size_t)blocks[b] * loads[l]);
                size_t grid = g < 6 ? (size_t)sms * per_sm[g] : cover;
                if ((g < 6 && blocks[b] * per_sm[g] > 4096) || grid > 0x7fffffffu || count == MAX_CONFIGS)
                    continue;
                jobs[count++] = (stream_job){NULL, d_buf, n4 * 16, (unsigned)grid, (unsigned)blocks[b], loads[l], sink,
                                             g == 7};
            }
    /* The GPU first kept busy for ~100 ms (its clocks rise under load: a
     * search started cold once crowned a configuration slower than a stage). */
    stream_job warm = {NULL, d_buf, n4 * 16, (unsigned)((n4 + 256 * 4 - 1) / (256 * 4)), 256, 4, sink, 1};
    double pass_ms = timed_passes(launch_read, &warm, 10) / 10;
    timed_passes(launch_read, &warm, 2 * passes_for(pass_ms, STREAM_PASSES_MAX)); /* two repetitions' worth */
    for (int c = 0; c < count; c++) {
        launch_read(&jobs[c]); /* warm-up */
        screened[c] = cuda_median_ms(launch_read, &jobs[c], 3);
    }
    gpu_ceiling best = {};
    for (int f = 0; f < FINALISTS && f < count; f++) {
        int top = 0;
        for (int c = 1; c < count; c++)
            top = screened[c] < screened[top] ? c : top;
        gpu_ceiling got = run_long(run_read, &jobs[top], screened[top], STREAM_PASSES_MAX, 0, f == 0);
        screened[top] = INFINITY; /* taken */
        if (got.rate > best.rate) {
            /* The same kernel timed as a stage is: one launch over the buffer,
             * so a stage's gap to the steady rate can be told apart from the
             * launch and the tail that every single launch pays. */
            got.one_launch = (double)(n4 * 16) / (cuda_median_ms(launch_read, &jobs[top], GPU_ONE_LAUNCH_REPEAT) * 1e6);
            best = got;
            snprintf(best.config, sizeof best.config, "%d int4 loads in flight x %u threads, %u blocks%s",
                     jobs[top].loads, jobs[top].block, jobs[top].blocks,
                     jobs[top].chunked ? ", each a contiguous chunk" : "");
        }
    }
    CUDA_CHECK(cudaFree(sink));
    return with_clock(best);
}

gpu_ceiling gpu_copy_ceiling(void *d_dst, const void *d_src, size_t bytes)
{
    stream_job j = {d_dst, d_src, bytes, 0, 0, 0, NULL, 0};
    launch_copy(&j); /* warm-up */
    gpu_ceiling c = run_long(run_copy, &j, cuda_median_ms(launch_copy, &j, 3), STREAM_PASSES_MAX, 0, 1);
    snprintf(c.config, sizeof c.config, "%lld copies of %.0f MiB", c.passes, bytes / 1048576.0);
    return with_clock(c);
}

/* ---------------------------------------------------------------- latency
 * A thread follows a chain of indices through the buffer, from one 128-byte
 * line to a random other (one random cycle over every line: Sattolo's
 * shuffle, fixed seed), so no load can start before the one before it has
 * returned. Each run goes on from where the last one stopped, so a line is
 * read again only after every other line of the buffer has been: in a buffer
 * several times the size of L2, none can still be there from its last read
 * (a chase that began again at the same line would time L2 from its second
 * run). The runs may go round the cycle more than once (run_long repeats
 * repetitions that came out short); the note says which. */
#define CHASE_LINE_WORDS 32u /* unsigned words in a 128-byte line */
#define CHASE_CALIBRATE_HOPS (1LL << 14)
#define CHASE_HOPS_MAX (1LL << 24)

__global__ static void chase_scatter_kernel(unsigned *buf, const unsigned *next, unsigned lines)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < lines)
        buf[(size_t)i * CHASE_LINE_WORDS] = next[i] * CHASE_LINE_WORDS;
}

__global__ static void chase_kernel(const unsigned *buf, long long hops, unsigned *at)
{
    unsigned j = *at;
    for (long long k = 0; k < hops; k++)
        j = buf[j];
    *at = j;
}

/* The chain's lines in `bytes` (word indices must fit an unsigned). */
static unsigned chain_lines(size_t bytes)
{
    size_t lines = bytes / (CHASE_LINE_WORDS * sizeof(unsigned)), most = UINT_MAX / CHASE_LINE_WORDS;
    if (lines < 2) {
        fprintf(stderr, "%s:%d: %zu bytes hold no chain of lines\n", __FILE__, __LINE__, bytes);
        exit(EXIT_CHECK_FAIL);
    }
    return (unsigned)(lines < most ? lines : most);
}

/* next[i]: the line after line i on one random cycle through all `lines`
 * (Sattolo's shuffle of the visiting order, fixed seed); malloc'ed. Also
 * written into d_buf as word indices, each line's first word. */
static unsigned *build_chain(unsigned *d_buf, unsigned lines)
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
    unsigned *d_next;
    CUDA_CHECK(cudaMalloc(&d_next, lines * sizeof *next));
    CUDA_CHECK(cudaMemcpy(d_next, next, lines * sizeof *next, cudaMemcpyHostToDevice));
    chase_scatter_kernel<<<(lines + 255) / 256, 256>>>(d_buf, d_next, lines);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaFree(d_next));
    return next;
}

/* Where a walk of `hops` from line `from` ends (the host's copy of the chain). */
static unsigned walk(const unsigned *next, unsigned from, long long hops)
{
    for (long long k = 0; k < hops; k++)
        from = next[from];
    return from;
}

typedef struct {
    const unsigned *buf;
    unsigned *at; /* device: where the chase stands, word index */
    long long hops_total;
} chase_job;

static gpu_ceiling run_chase(void *p, long long hops)
{
    chase_job *j = (chase_job *)p;
    cuda_timer t;
    cuda_timer_create(&t);
    cuda_timer_start(&t);
    chase_kernel<<<1, 1>>>(j->buf, hops, j->at);
    CUDA_CHECK_LAUNCH();
    gpu_ceiling c = {};
    c.rep_ms = cuda_timer_stop(&t);
    cuda_timer_destroy(&t);
    c.rate = c.rep_ms * 1e6 / (double)hops;
    j->hops_total += hops;
    return c;
}

gpu_ceiling gpu_latency_idle(void *d_scratch, size_t bytes)
{
    unsigned lines = chain_lines(bytes), *d_at, end = 0;
    unsigned *next = build_chain((unsigned *)d_scratch, lines);
    CUDA_CHECK(cudaMalloc(&d_at, sizeof *d_at));
    CUDA_CHECK(cudaMemset(d_at, 0, sizeof *d_at));
    chase_job j = {(const unsigned *)d_scratch, d_at, 0};
    /* the first run sizes the rest, and checks that the GPU walked the chain the host built */
    gpu_ceiling first = run_chase(&j, CHASE_CALIBRATE_HOPS);
    CUDA_CHECK(cudaMemcpy(&end, d_at, sizeof end, cudaMemcpyDeviceToHost));
    unsigned want = walk(next, 0, CHASE_CALIBRATE_HOPS) * CHASE_LINE_WORDS;
    if (end != want) {
        fprintf(stderr, "%s:%d: the latency chain ended at word %u, not %u\n", __FILE__, __LINE__, end, want);
        exit(EXIT_CHECK_FAIL);
    }
    gpu_ceiling c = run_long(run_chase, &j, first.rep_ms / CHASE_CALIBRATE_HOPS, CHASE_HOPS_MAX, 1, 1);
    double l2 = device_attribute(cudaDevAttrL2CacheSize);
    snprintf(c.config, sizeof c.config, "random 128-byte lines of %.0f MiB, %.1fx the L2, %s", bytes / 1048576.0,
             l2 > 0 ? (double)lines * CHASE_LINE_WORDS * sizeof(unsigned) / l2 : 0,
             j.hops_total <= (long long)lines ? "none read twice" : "each read again only after all the others");
    CUDA_CHECK(cudaFree(d_at));
    free(next);
    return with_clock(c);
}

/* ---------------------------------------------------------------- latency under load
 * One kernel that fills the GPU (every block resident at once). In each of
 * the first `chasers` blocks, lane 0 of warp 0 chases its own part of the
 * chain; every other warp reads the stream buffer, `passes` times over,
 * grid-stride, four int4 loads in flight. Each reader warp counts itself done
 * when its passes are; a chaser chases until all are (reading the count a
 * block of hops ahead, so the check costs the chain no wait), or max_hops. */
#define LOADED_THREADS 256
#define LOADED_HOP_BLOCK 64

typedef struct {
    unsigned *at;                  /* per chaser: where it stands, word index */
    unsigned long long *hops, *ns; /* per chaser: loads and nanoseconds of its last run */
    unsigned *sm;                  /* per chaser: the SM it ran on */
    unsigned *readers_done;        /* reader warps finished */
    unsigned long long *bytes;     /* bytes the readers read */
    int *sink;
} loaded_device;

__global__ static void loaded_latency_kernel(const unsigned *chain, loaded_device d, unsigned chasers,
                                             long long max_hops, const int4 *__restrict__ in, size_t n4, int passes,
                                             unsigned reader_warps)
{
    unsigned lane = threadIdx.x % 32;
    if (blockIdx.x < chasers && threadIdx.x < 32) {
        if (lane != 0)
            return;
        unsigned c = blockIdx.x, j = d.at[c], seen = 0;
        long long k = 0;
        unsigned long long t0 = global_ns();
        for (;;) {
            for (int q = 0; q < LOADED_HOP_BLOCK; q++)
                j = chain[j];
            k += LOADED_HOP_BLOCK;
            if (seen >= reader_warps || k >= max_hops)
                break;
            seen = *(volatile unsigned *)d.readers_done; /* used a block of hops from now */
        }
        d.ns[c] = global_ns() - t0;
        d.hops[c] = (unsigned long long)k;
        d.at[c] = j;
        d.sm[c] = sm_id();
        return;
    }
    size_t stride = (size_t)gridDim.x * blockDim.x, first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    int acc = 0;
    for (int p = 0; p < passes; p++) {
        size_t i = first;
        for (; i + 3 * stride < n4; i += 4 * stride) {
            int4 a = __ldg(in + i), b = __ldg(in + i + stride), e = __ldg(in + i + 2 * stride),
                 f = __ldg(in + i + 3 * stride);
            acc ^= a.x ^ a.y ^ a.z ^ a.w ^ b.x ^ b.y ^ b.z ^ b.w ^ e.x ^ e.y ^ e.z ^ e.w ^ f.x ^ f.y ^ f.z ^ f.w;
        }
        for (; i < n4; i += stride) {
            int4 a = __ldg(in + i);
            acc ^= a.x ^ a.y ^ a.z ^ a.w;
        }
        acc += p; /* each pass's result differs: no pass is the same computation as the last */
    }
    unsigned long long loads = first < n4 ? ((n4 - 1 - first) / stride + 1) * (unsigned long long)passes : 0;
    for (int k = 16; k > 0; k /= 2) /* the warp's loads, to lane 0: one atomic a warp */
        loads += __shfl_down_sync(0xffffffffu, loads, k);
    if (lane == 0) {
        atomicAdd(d.bytes, loads * 16);
        __threadfence();
        atomicAdd(d.readers_done, 1u);
    }
    if (acc == 0x7fffffff) /* never for data in [-128, 127] (see read_stream_kernel); harmless if so */
        *d.sink = acc;
}

typedef struct {
    const unsigned *chain;
    loaded_device d;
    unsigned chasers, blocks, reader_warps;
    const int4 *in;
    size_t n4;
    long long max_hops;  /* fixed for the calibration run; 0: from the two below */
    double ns_per_hop;   /* the calibration run's */
    double pass_ms;      /* the calibration run's */
    unsigned long long *hops, *ns; /* host copies */
    unsigned *sm;
    int capped; /* a chase reached max_hops before the readers were done */
} loaded_job;

static gpu_ceiling run_loaded(void *p, long long passes)
{
    loaded_job *j = (loaded_job *)p;
    unsigned n = j->chasers;
    /* The safety net, should the blocks not all be resident (the readers
     * could then wait for the chasers' blocks): ten times the hops expected. */
    double expected = 10 * (double)passes * j->pass_ms * 1e6 / (j->ns_per_hop > 1 ? j->ns_per_hop : 1);
    long long max_hops = j->max_hops ? j->max_hops : expected < 1e12 ? (long long)expected + 1024 : (long long)1e12;
    CUDA_CHECK(cudaMemset(j->d.readers_done, 0, sizeof *j->d.readers_done));
    CUDA_CHECK(cudaMemset(j->d.bytes, 0, sizeof *j->d.bytes));
    cuda_timer t;
    cuda_timer_create(&t);
    cuda_timer_start(&t);
    loaded_latency_kernel<<<j->blocks, LOADED_THREADS>>>(j->chain, j->d, n, max_hops, j->in, j->n4, (int)passes,
                                                         j->reader_warps);
    CUDA_CHECK_LAUNCH();
    gpu_ceiling c = {};
    c.rep_ms = cuda_timer_stop(&t);
    cuda_timer_destroy(&t);
    unsigned long long bytes = 0;
    CUDA_CHECK(cudaMemcpy(j->hops, j->d.hops, n * sizeof *j->hops, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(j->ns, j->d.ns, n * sizeof *j->ns, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(j->sm, j->d.sm, n * sizeof *j->sm, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&bytes, j->d.bytes, sizeof bytes, cudaMemcpyDeviceToHost));
    double hops = 0, ns = 0;
    for (unsigned c2 = 0; c2 < n; c2++) {
        hops += (double)j->hops[c2];
        ns += (double)j->ns[c2];
        j->capped |= (long long)j->hops[c2] >= max_hops;
    }
    c.rate = ns / hops; /* the mean time a load took */
    c.other = (double)bytes / (c.rep_ms * 1e-3) * 1e-9;
    int distinct = 0;
    for (unsigned a = 0; a < n; a++) {
        int again = 0;
        for (unsigned b = 0; b < a && !again; b++)
            again = j->sm[b] == j->sm[a];
        distinct += !again;
    }
    c.sms_used = distinct;
    return c;
}

gpu_ceiling gpu_latency_loaded(void *d_scratch, size_t bytes, const void *d_stream, size_t stream_bytes)
{
    int sms = device_attribute(cudaDevAttrMultiProcessorCount), per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, loaded_latency_kernel, LOADED_THREADS, 0));
    unsigned lines = chain_lines(bytes), blocks = (unsigned)(sms * (per_sm > 0 ? per_sm : 1));
    unsigned chasers = (unsigned)sms < blocks ? (unsigned)sms : blocks;
    if (stream_bytes < 16 || lines < chasers) {
        fprintf(stderr, "%s:%d: a loaded latency needs a stream (%zu bytes given) and %u lines (%u given)\n", __FILE__,
                __LINE__, stream_bytes, chasers, lines);
        exit(EXIT_CHECK_FAIL);
    }
    unsigned *next = build_chain((unsigned *)d_scratch, lines);
    /* the chasers start evenly spaced along the one cycle */
    unsigned *start = (unsigned *)malloc(chasers * sizeof *start);
    loaded_job j;
    memset(&j, 0, sizeof j);
    j.chain = (const unsigned *)d_scratch;
    j.chasers = chasers;
    j.blocks = blocks;
    j.reader_warps = blocks * (LOADED_THREADS / 32) - chasers;
    j.in = (const int4 *)d_stream;
    j.n4 = stream_bytes / 16;
    j.hops = (unsigned long long *)malloc(chasers * sizeof *j.hops);
    j.ns = (unsigned long long *)malloc(chasers * sizeof *j.ns);
    j.sm = (unsigned *)malloc(chasers * sizeof *j.sm);
    if (!start || !j.hops || !j.ns || !j.sm) {
        fprintf(stderr, "%s:%d: out of memory (%u chasers)\n", __FILE__, __LINE__, chasers);
        exit(EXIT_CHECK_FAIL);
    }
    for (unsigned c = 0, at = 0; c < chasers; c++) {
        start[c] = at * CHASE_LINE_WORDS;
        at = walk(next, at, lines / chasers);
    }
    CUDA_CHECK(cudaMalloc(&j.d.at, chasers * sizeof *j.d.at));
    CUDA_CHECK(cudaMalloc(&j.d.hops, chasers * sizeof *j.d.hops));
    CUDA_CHECK(cudaMalloc(&j.d.ns, chasers * sizeof *j.d.ns));
    CUDA_CHECK(cudaMalloc(&j.d.sm, chasers * sizeof *j.d.sm));
    CUDA_CHECK(cudaMalloc(&j.d.readers_done, sizeof *j.d.readers_done));
    CUDA_CHECK(cudaMalloc(&j.d.bytes, sizeof *j.d.bytes));
    CUDA_CHECK(cudaMalloc(&j.d.sink, sizeof *j.d.sink));
    CUDA_CHECK(cudaMemcpy(j.d.at, start, chasers * sizeof *start, cudaMemcpyHostToDevice));
    /* The first run (two passes: ~1 ms) sizes the rest, and checks that every
     * chaser walked the chain the host built. */
    enum { CALIBRATE_PASSES = 2 };
    j.max_hops = 1 << 16; /* ~1 ms expected: ample, and bounded should the readers never finish */
    gpu_ceiling first = run_loaded(&j, CALIBRATE_PASSES);
    unsigned *end = (unsigned *)malloc(chasers * sizeof *end);
    if (!end) {
        fprintf(stderr, "%s:%d: out of memory (%u chasers)\n", __FILE__, __LINE__, chasers);
        exit(EXIT_CHECK_FAIL);
    }
    CUDA_CHECK(cudaMemcpy(end, j.d.at, chasers * sizeof *end, cudaMemcpyDeviceToHost));
    for (unsigned c = 0; c < chasers; c++) {
        unsigned want = walk(next, start[c] / CHASE_LINE_WORDS, (long long)j.hops[c]) * CHASE_LINE_WORDS;
        if (end[c] != want) {
            fprintf(stderr, "%s:%d: chaser %u ended at word %u, not %u\n", __FILE__, __LINE__, c, end[c], want);
            exit(EXIT_CHECK_FAIL);
        }
    }
    j.max_hops = 0;
    j.ns_per_hop = first.rate;
    j.pass_ms = first.rep_ms / CALIBRATE_PASSES;
    j.capped = 0;
    gpu_ceiling c = run_long(run_loaded, &j, j.pass_ms, STREAM_PASSES_MAX, 1, 1);
    snprintf(c.config, sizeof c.config, "one thread chasing in each of %u blocks (%d SMs), %u reader warps%s", chasers,
             c.sms_used, j.reader_warps, j.capped ? "; a chase stopped at its cap, not with the readers" : "");
    CUDA_CHECK(cudaFree(j.d.at));
    CUDA_CHECK(cudaFree(j.d.hops));
    CUDA_CHECK(cudaFree(j.d.ns));
    CUDA_CHECK(cudaFree(j.d.sm));
    CUDA_CHECK(cudaFree(j.d.readers_done));
    CUDA_CHECK(cudaFree(j.d.bytes));
    CUDA_CHECK(cudaFree(j.d.sink));
    free(start), free(end), free(next), free(j.hops), free(j.ns), free(j.sm);
    return with_clock(c);
}

/* ---------------------------------------------------------------- FMA
 * Each thread runs FMA_CHAINS independent chains (enough to cover the FMA's
 * latency) for `trips` trips of FMA_UNROLL steps, and never touches memory in
 * the loop: 512 FMAs a trip against the loop's few integer instructions, so
 * issue slots go to FMAs. One wave: as many blocks as the GPU holds at once,
 * so none runs alone at the end. Thread 0 of block 0 reads its SM's cycle
 * counter and the GPU's nanosecond timer around the loop: the clock it ran at. */
#define FMA_CHAINS 8
#define FMA_UNROLL 64
#define FMA_THREADS 256
#define FMA_TRIPS_MAX (1LL << 18)

__global__ static void fma_kernel(float *sink, float a, float b, int trips, unsigned long long *cycles_ns)
{
    float x[FMA_CHAINS];
#pragma unroll
    for (int k = 0; k < FMA_CHAINS; k++)
        x[k] = (float)(threadIdx.x + k);
    int timer = blockIdx.x == 0 && threadIdx.x == 0;
    long long c0 = timer ? clock64() : 0;
    unsigned long long t0 = timer ? global_ns() : 0;
    for (int t = 0; t < trips; t++)
#pragma unroll
        for (int i = 0; i < FMA_UNROLL; i++)
#pragma unroll
            for (int k = 0; k < FMA_CHAINS; k++)
                x[k] = fmaf(x[k], a, b);
    if (timer) {
        cycles_ns[0] = (unsigned long long)(clock64() - c0);
        cycles_ns[1] = global_ns() - t0;
    }
    float sum = 0;
#pragma unroll
    for (int k = 0; k < FMA_CHAINS; k++)
        sum += x[k];
    if (sum == 1234.5f) /* never: keeps the chains from being removed */
        *sink = sum;
}

typedef struct {
    unsigned blocks;
    float *sink;
    unsigned long long *cycles_ns; /* device: block 0's cycles and nanoseconds */
    int sms, lanes;
} fma_job;

static gpu_ceiling run_fma(void *p, long long trips)
{
    fma_job *j = (fma_job *)p;
    unsigned long long cycles_ns[2] = {0, 0};
    cuda_timer t;
    cuda_timer_create(&t);
    cuda_timer_start(&t);
    fma_kernel<<<j->blocks, FMA_THREADS>>>(j->sink, 0.9999999f, 1e-7f, (int)trips, j->cycles_ns);
    CUDA_CHECK_LAUNCH();
    gpu_ceiling c = {};
    c.rep_ms = cuda_timer_stop(&t);
    cuda_timer_destroy(&t);
    CUDA_CHECK(cudaMemcpy(cycles_ns, j->cycles_ns, sizeof cycles_ns, cudaMemcpyDeviceToHost));
    double flops = 2.0 * FMA_CHAINS * FMA_UNROLL * (double)trips * j->blocks * FMA_THREADS;
    c.rate = flops / (c.rep_ms * 1e-3) * 1e-9;
    c.ran_mhz = cycles_ns[1] ? (int)lround((double)cycles_ns[0] / (double)cycles_ns[1] * 1e3) : 0;
    c.other = 2.0 * j->lanes * j->sms * c.ran_mhz * 1e-3; /* the data sheet's GFLOP/s at that clock */
    return c;
}

gpu_ceiling gpu_fma_ceiling(void)
{
    fma_job j = {0, NULL, NULL, device_attribute(cudaDevAttrMultiProcessorCount),
                 cuda_fp32_lanes_per_sm(device_attribute(cudaDevAttrComputeCapabilityMajor),
                                        device_attribute(cudaDevAttrComputeCapabilityMinor))};
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fma_kernel, FMA_THREADS, 0));
    j.blocks = (unsigned)(j.sms * (per_sm > 0 ? per_sm : 1));
    CUDA_CHECK(cudaMalloc((void **)&j.sink, sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&j.cycles_ns, 2 * sizeof(unsigned long long)));
    enum { CALIBRATE_TRIPS = 64 };
    run_fma(&j, CALIBRATE_TRIPS); /* the module loaded, the GPU woken */
    gpu_ceiling first = run_fma(&j, CALIBRATE_TRIPS);
    gpu_ceiling c = run_long(run_fma, &j, first.rep_ms / CALIBRATE_TRIPS, FMA_TRIPS_MAX, 0, 1);
    snprintf(c.config, sizeof c.config, "%d independent FMA chains x %d threads x %u blocks, %lld x %d steps",
             FMA_CHAINS, FMA_THREADS, j.blocks, c.passes, FMA_UNROLL);
    CUDA_CHECK(cudaFree(j.sink));
    CUDA_CHECK(cudaFree(j.cycles_ns));
    return with_clock(c);
}

/* ---------------------------------------------------------------- the memory set */
gpu_memory_ceilings gpu_memory_ceilings_measure(const char *program, const void *d_in, size_t in_bytes,
                                                size_t buf_bytes, double peak_bw_gbs, int quiet)
{
    gpu_memory_ceilings c;
    void *a, *b;
    CUDA_CHECK(cudaMalloc(&a, buf_bytes));
    CUDA_CHECK(cudaMalloc(&b, buf_bytes));
    CUDA_CHECK(cudaMemset(a, 1, buf_bytes));
    c.copy = gpu_copy_ceiling(b, a, buf_bytes);
    const void *stream = in_bytes >= buf_bytes ? d_in : b;
    size_t stream_bytes = in_bytes >= buf_bytes ? in_bytes : buf_bytes;
    c.read = gpu_read_ceiling(stream, stream_bytes);
    c.idle = gpu_latency_idle(a, buf_bytes);
    c.loaded = gpu_latency_loaded(a, buf_bytes, stream, stream_bytes);
    CUDA_CHECK(cudaFree(a));
    CUDA_CHECK(cudaFree(b));
    if (!quiet)
        fprintf(stderr, "%s: measured read-only streaming %.0f GB/s, device-to-device copy %.0f GB/s "
                        "(peak from clocks %.0f GB/s); DRAM latency %.0f ns, %.0f ns under load\n", program,
                c.read.rate, c.copy.rate, peak_bw_gbs, c.idle.rate, c.loaded.rate);
    return c;
}

void gpu_memory_ceilings_note(report_row *row, double gbs, const gpu_memory_ceilings *c)
{
    report_note(row, "%s%.1f%% of the read ceiling (%.1f%% of its kernel timed as a stage), %.1f%% of copy",
                row->note[0] ? "; " : "", 100 * gbs / c->read.rate, 100 * gbs / c->read.one_launch,
                100 * gbs / c->copy.rate);
}

void gpu_memory_ceiling_rows(report *rep, const gpu_memory_ceilings *c, double bytes, const char *device, int sms)
{
    const gpu_ceiling *r = &c->read, *k = &c->copy, *i = &c->idle, *l = &c->loaded;
    report_entry e = {};
    e.threads = REPORT_ON_GPU, e.unit = "GB/s", e.ok = REPORT_NO_CHECK, e.device = device;
    e.stage = "ceiling-read-stream", e.value = r->rate, e.ms = bytes / (r->rate * 1e6);
    report_note(report_add(rep, e), "read-only streaming kernel, the best configuration searched: %s; best of %d "
                "repetitions of %lld passes (%.0f ms each); SM clock at most %d MHz; timed as a stage is (one launch, the "
                "median of %d), the same kernel reads at %.1f GB/s (%.1f%%): the launch and the tail", r->config,
                r->repeats, r->passes, r->rep_ms, r->max_clock_mhz, GPU_ONE_LAUNCH_REPEAT, r->one_launch,
                100 * r->one_launch / r->rate);
    e.stage = "ceiling-copy", e.value = k->rate, e.ms = 2 * bytes / (k->rate * 1e6);
    report_note(report_add(rep, e), "cudaMemcpy device to device, read + written: a second reference; best of %d "
                "repetitions of %s (%.0f ms each)", k->repeats, k->config, k->rep_ms);
    /* Little's law: to stream at the read ceiling, bandwidth x latency bytes
     * must be in flight; the latency that holds is the loaded one. */
    double idle_flight = r->rate * i->rate, loaded_flight = r->rate * l->rate; /* GB/s x ns = bytes */
    e.unit = "ns";
    e.stage = "dram-latency", e.value = i->rate, e.ms = i->rate * 1e-6;
    report_note(report_add(rep, e), "one load at a time, %s; best of %d chases of %lld loads (%.0f ms each); with "
                "this idle latency Little's law would ask %.2f MB in flight, %.1f KiB per SM", i->config, i->repeats,
                i->passes, i->rep_ms, idle_flight * 1e-6, idle_flight / 1024 / sms);
    e.stage = "dram-latency-loaded", e.value = l->rate, e.ms = l->rate * 1e-6;
    report_note(report_add(rep, e), "the same chase under load: %s, reading %.0f GB/s (%.1f%% of the read ceiling) "
                "meanwhile; best of %d repetitions (%.0f ms each); Little's law: read ceiling x loaded latency = %.2f "
                "MB in flight, %.1f KiB per SM", l->config, l->other, 100 * l->other / r->rate, l->repeats, l->rep_ms,
                loaded_flight * 1e-6, loaded_flight / 1024 / sms);
}
