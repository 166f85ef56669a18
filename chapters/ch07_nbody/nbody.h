/* nbody.h - what ch07's stage functions are, as its kernels and CPU code
 * define them. The bodies, the interaction, the integration and the check
 * are the N-body core's (common/nbody/nbody.h), which ch11 shares; the
 * stage type and one stage's problem are problem.h's, the rows stages.h's. */
#ifndef CH07_NBODY_H
#define CH07_NBODY_H

#include "../../common/nbody/nbody.h"
#include "../../common/stage.h"

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Every stage computes the accelerations a of all n bodies b. CPU stages take
 * host arrays and `threads`; GPU stages take device arrays, ignore `threads`
 * and return without synchronising. The stages' functions are declared with
 * their rows (stages.h); the gpu_*.cu files define theirs extern "C". */
typedef void forces_fn(const body *b, vec3 *a, int n, int threads);
int cpu_simd_supported(void); /* AVX2 and FMA at run time */

/* gpu-two-bodies' forces queued on a stream (the output stages, output.c). */
void gpu_two_bodies_on(const body *d_b, vec3 *d_a, int n, cudaStream_t stream);

/* gpu-tiled-ftz's forces on bodies [i_begin, i_end) of n, queued on a stream:
 * one GPU's slice of multi-gpu (gpu_tiled.cu). */
void gpu_tiled_ftz_slice(const body *d_b, vec3 *d_a, int n, int i_begin, int i_end, cudaStream_t stream);

/* multi-gpu: `steps` steps of gpu-tiled-ftz's kernel + integration, the bodies
 * split across `devices` GPUs, positions exchanged through the host every
 * step, the GPUs driven as `mode` says (gpu_multi.cu). Updates b and v, and writes
 * the first step's forces into first_forces. */
enum { MULTI_THREADS = 1, MULTI_THREADS_PINNED, MULTI_ONE_THREAD };
void multi_gpu_run(body *b, vec3 *v, int n, int steps, float dt, int devices, vec3 *first_forces, int mode);

#ifdef __cplusplus
}
#endif

#endif
