/* kernel_info.h - what the CUDA runtime says about a compiled kernel at one
 * block size: registers and local memory (the static frame) per thread, and
 * how many of its blocks an SM holds at once, as a share of the SM's threads
 * (theoretical occupancy). The GPU chapters put it in each row's note; the
 * profiler (make profile) measures what a launch then achieves. */
#ifndef COMMON_GPU_KERNEL_INFO_H
#define COMMON_GPU_KERNEL_INFO_H

typedef struct {
    int registers, local_bytes, blocks_per_sm; /* per thread; per thread; at this block size */
    double occupancy;                          /* resident threads / the SM's maximum */
} kernel_info;

#ifdef __cplusplus
extern "C" {
#endif

/* `kernel` (a __global__ function's address) in blocks of threads_per_block,
 * on the current device. Every CUDA call checked (file:line, exit 1). */
void gpu_describe_kernel(const void *kernel, int threads_per_block, kernel_info *out);

#ifdef __cplusplus
}
#endif

#endif
