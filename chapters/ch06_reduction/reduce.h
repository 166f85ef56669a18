/* reduce.h - ch06's stages: sum n int32 values into an int64, on the CPU and GPU.
 *
 * Every stage is a reduce_fn. CPU stages take host pointers and return when
 * done. GPU stages take device pointers, are launched on the default stream,
 * zero *sum (device memory) first, and return without synchronising, so the
 * caller times them with events and a stage's time covers everything it needs.
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
reduce_fn reduce_cpu_serial, reduce_cpu_threads;
reduce_fn reduce_atomic_global, reduce_interleaved_divergent, reduce_interleaved_strided, reduce_sequential,
    reduce_first_add_on_load, reduce_warp_unrolled_volatile, reduce_warp_unrolled_sync, reduce_fully_unrolled,
    reduce_many_per_thread, reduce_warp_shuffle, reduce_four_loads, reduce_read_only_path, reduce_vector_shuffle,
    reduce_cub;
size_t reduce_scratch_bytes(size_t n);

/* The input every stage sums (reduce_cpu.c): n int32 values in [-128, 127]
 * from xorshift64* with seed 0x5EED06; returns their exact sum. */
long long reduce_fill(int *in, size_t n);

enum { ON_CPU = 0, ON_GPU = 1 };

/* A stage (the table is stages.h). */
typedef struct {
    const char *name;
    const char *description;
    reduce_fn *run;
    int where; /* ON_CPU or ON_GPU */
} stage;

/* The ceilings, measured in the same run (bytes moved per second):
 * a read-only streaming kernel over `bytes` bytes of d_in, the best of 16
 * grid sizes and loads in flight (what a reduction can at most reach),
 * and a device-to-device cudaMemcpy (read + written), each the median of
 * `repeat` timed runs. */
double measure_read_bandwidth(const void *d_in, size_t bytes, int repeat);
double measure_copy_bandwidth(void *d_a, void *d_b, size_t bytes, int repeat);

#ifdef __cplusplus
}
#endif

#endif
