/* nbody_gpu.h - the N-body core's GPU part: leapfrog on the GPU, as
 * nbody_integrate_cpu does it on the host (integrate.cu), and the
 * interaction as ch07's fastest kernels compute it (device code only). */
#ifndef COMMON_NBODY_GPU_H
#define COMMON_NBODY_GPU_H

#include "nbody.h"

#include <cuda_runtime_api.h>

#ifdef __CUDACC__
/* 1/sqrt(x) with the flush-to-zero form of the special-function instruction
 * (ch07's gpu-tiled-ftz). Plain rsqrtf must give the right answer for
 * subnormal x too, so (unless the whole file is built with -ftz=true) it
 * wraps the instruction in a test and two rescalings. Here x = r.r + eps^2
 * >= 1e-4 is never subnormal, so the flush-to-zero form gives the same
 * result without them. */
static __device__ __forceinline__ float rsqrt_ftz(float x)
{
    float y;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

/* body_body_accel as ch07's gpu-softening-fma and the kernels after it do it:
 * bj one float4 (a 16-byte load), r.r + eps^2 summed from eps^2 in three
 * multiply-adds, 1/sqrt by rsqrt_ftz. */
static __device__ __forceinline__ void body_body_accel_fma(vec3 *a, body bi, float4 bj)
{
    float rx = bj.x - bi.x, ry = bj.y - bi.y, rz = bj.z - bi.z;
    float d2 = fmaf(rz, rz, fmaf(ry, ry, fmaf(rx, rx, SOFTENING2)));
    float inv = rsqrt_ftz(d2);
    float s = bj.w * inv * inv * inv;
    a->x += rx * s;
    a->y += ry * s;
    a->z += rz * s;
}
#endif

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
