/* reduce.h - ch06's stages: sum n int32 values into an int64, on the CPU and GPU.
 *
 * The GPU functions take device pointers, are launched on the default stream,
 * and leave the sum in *d_sum (device memory), which they zero first, so a
 * stage's time covers everything it needs and nothing else. They return
 * without synchronising; the caller times them with events.
 */
#ifndef CH06_REDUCE_H
#define CH06_REDUCE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* CPU stages: return the sum. */
long long reduce_cpu_serial(const int *in, size_t n, int threads);
long long reduce_cpu_threads(const int *in, size_t n, int threads);

/* GPU stages. scratch: device memory of reduce_scratch_bytes(n) bytes (CUB's
 * temporary storage; the others do not use it). */
typedef void reduce_gpu_fn(const int *d_in, size_t n, long long *d_sum, void *scratch, size_t scratch_bytes);
reduce_gpu_fn reduce_atomic_global, reduce_interleaved_divergent, reduce_interleaved_strided, reduce_sequential,
    reduce_first_add_on_load, reduce_warp_unrolled_volatile, reduce_warp_unrolled_sync, reduce_fully_unrolled,
    reduce_many_per_thread, reduce_shuffle, reduce_vector_shuffle, reduce_cub;
size_t reduce_scratch_bytes(size_t n);

/* The stage table, in order: main.c runs it, tests/test_ch06.cu tests every entry. */
#define STAGE_COUNT 14
typedef struct {
    const char *name;
    const char *description;
    long long (*cpu)(const int *in, size_t n, int threads);
    reduce_gpu_fn *gpu;
} stage;

extern const stage stages[STAGE_COUNT];

/* Device-to-device copy bandwidth (bytes read + written per second), measured
 * with cudaMemcpy over `bytes` bytes, median of `repeat`. */
double measure_copy_bandwidth(void *d_a, void *d_b, size_t bytes, int repeat);

#ifdef __cplusplus
}
#endif

#endif
