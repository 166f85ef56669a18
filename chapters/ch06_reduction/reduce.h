/* reduce.h - ch06's stages: sum n int32 values into an int64, on the CPU and GPU.
 *
 * Every stage is a reduce_fn. CPU stages take host pointers and return when
 * done. GPU stages take device pointers, are launched on the default stream,
 * zero *sum (device memory) first, and return without synchronising, so the
 * caller times them with events and a stage's time covers everything it needs.
 */
#ifndef CH06_REDUCE_H
#define CH06_REDUCE_H

#include "../../common/stage.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int threads;          /* CPU stages */
    void *scratch;        /* GPU stages: device memory of reduce_scratch_bytes(n) bytes */
    size_t scratch_bytes; /* (CUB's temporary storage, the tree stages' partial sums) */
} reduce_ctx;

typedef void reduce_fn(const int *in, size_t n, long long *sum, const reduce_ctx *ctx);
reduce_fn reduce_cpu_serial, reduce_cpu_threads, reduce_cpu_threads_simd;
reduce_fn reduce_cover_once;
reduce_fn reduce_atomic_global, reduce_interleaved_divergent, reduce_interleaved_strided, reduce_sequential,
    reduce_first_add_on_load, reduce_warp_unrolled_volatile, reduce_warp_unrolled_sync, reduce_fully_unrolled,
    reduce_chunk_per_thread, reduce_many_per_thread, reduce_warp_shuffle, reduce_four_loads, reduce_read_only_path,
    reduce_vector_shuffle;
reduce_fn reduce_cub; /* the yardstick, in a file of its own: reduce_cub.cu */
size_t reduce_scratch_bytes(size_t n);     /* the tree stages' partial sums */
size_t reduce_cub_scratch_bytes(size_t n); /* CUB's temporary storage */

/* Device scratch every GPU stage fits in. */
static inline size_t reduce_stage_scratch_bytes(size_t n)
{
    size_t tree = reduce_scratch_bytes(n), cub = reduce_cub_scratch_bytes(n);
    return tree > cub ? tree : cub;
}

/* The input every stage sums (reduce_cpu.c): n int32 values in [-128, 127]
 * from xorshift64* with seed 0x5EED06; returns their exact sum. */
long long reduce_fill(int *in, size_t n);

/* Host memory main.c keeps free besides the input (the program, the OS, the
 * page cache); what is available is report.h's host_available_bytes(). */
#define HOST_MARGIN_BYTES (1ULL << 30)

/* A stage (the table is stages.h). */
typedef struct {
    stage_info info;
    reduce_fn *run;
} stage;

/* The ceilings, measured in the same run (bytes moved per second):
 * a read-only streaming kernel over `bytes` bytes of d_in, the best of a
 * search over loads in flight, block sizes and grids (what a reduction can at
 * most reach; the winner described in best_config), and a device-to-device
 * cudaMemcpy (read + written), each the median of `repeat` timed runs. */
double measure_read_bandwidth(const void *d_in, size_t bytes, int repeat, char *best_config, size_t len);
double measure_copy_bandwidth(void *d_a, void *d_b, size_t bytes, int repeat);

/* DRAM's load latency in ns: one thread chasing indices through `bytes` of
 * d_scratch (overwritten) in random 128-byte lines, the median of `repeat`
 * timed chases (each checked against the chain the host built). */
double measure_dram_latency_ns(void *d_scratch, size_t bytes, int repeat);

/* Both ceilings in GB/s, as main.c reports them: the copy over two buffers of
 * REDUCE_CEILING_BYTES; the read over the input d_in (in_bytes), or over such
 * a buffer when the input is smaller; and DRAM's latency, chased through one
 * of those buffers. */
#define REDUCE_CEILING_BYTES ((size_t)256 << 20)
void reduce_ceilings(const void *d_in, size_t in_bytes, double *read_gbs, double *copy_gbs, double *latency_ns,
                     char *read_config, size_t len);

#ifdef __cplusplus
}
#endif

#endif
