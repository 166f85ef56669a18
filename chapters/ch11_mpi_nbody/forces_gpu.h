/* forces_gpu.h - forces.h's GPU half (forces_gpu.cu), apart so that the CPU
 * half builds without the CUDA headers (the exercise's driver, mpicc alone). */
#ifndef CH11_FORCES_GPU_H
#define CH11_FORCES_GPU_H

#include "forces.h"

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ch07's gpu-two-bodies kernel (two targets a thread, the sources split
 * between two halves of the block), queued on `stream`, not waited for. */
void gpu_two_bodies_block_on(const body *targets, int nt, const body *sources, int ns, vec3 *a, int add,
                             cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
