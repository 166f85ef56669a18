/* reduce.h - ch06's stages: sum n int32 values into an int64, on the CPU and GPU.
 *
 * Every stage is a reduce_fn. CPU stages take host pointers and return when
 * done. GPU stages take device pointers, are launched on the default stream,
 * zero *sum (device memory) first (one-launch writes it instead), and return
 * without synchronising, so the caller times them with events and a stage's
 * time covers everything it needs.
 */
#ifndef CH06_REDUCE_H
#define CH06_REDUCE_H

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
reduce_fn reduce_cpu_serial, reduce_cpu_threads, reduce_cpu_threads_simd, reduce_cpu_pieces, reduce_cpu_biased_lanes,
    reduce_cpu_prefetch;
reduce_fn reduce_cover_once, reduce_ceiling_shape, reduce_one_launch;
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

/* The ceilings (common/gpu/ceiling.h) run over buffers of this size where
 * the input is smaller: the copy between two of them, the latency chases
 * through one; the read ceiling and the stream beside the loaded chase read
 * the input itself when it is at least this large (so launch and tail costs
 * weigh as in the stages). Larger than L2, so every pass comes from DRAM. */
#define REDUCE_CEILING_BYTES ((size_t)256 << 20)

#ifdef __cplusplus
}
#endif

#endif
