/* nbody_gpu.h - the N-body core's GPU part (integrate.cu): leapfrog on the
 * GPU, as nbody_integrate_cpu does it on the host. */
#ifndef COMMON_NBODY_GPU_H
#define COMMON_NBODY_GPU_H

#include "nbody.h"

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One step for device bodies [0, n), queued on `stream` (0: the default
 * stream), not waited for. */
void nbody_integrate_gpu(body *d_b, vec3 *d_v, const vec3 *d_a, int n, float dt, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
