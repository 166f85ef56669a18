/* backend.c - one rank's compute: ch07's gpu-two-bodies kernel on its GPU
 * (one stream: the block's copy, the kernel, the integration, in order), or
 * ch07's cpu-simd loop on its CPU (forces.h), and the core's leapfrog. */
#include "forces_gpu.h"
#include "ranks.h"

#include "../../common/cuda_util.h"
#include "../../common/nbody/nbody_gpu.h"

#include <string.h>

static int own_count(const ranks_problem *p)
{
    return p->count[p->rank];
}

void backend_forces(ranks_problem *p, const body *block, int ns, int add)
{
    int c = own_count(p);
    if (p->gpu < 0) {
        cpu_simd_block_forces(p->own, c, block, ns, p->a, add);
        return;
    }
    const body *src = block;
    if (p->s->memory != DEVICE_BUFFERS) {
        CUDA_CHECK(cudaMemcpyAsync(p->d_src, block, (size_t)ns * sizeof(body), cudaMemcpyHostToDevice, p->stream));
        CUDA_CHECK(cudaEventRecord(p->copied, p->stream));
        src = p->d_src;
    }
    gpu_two_bodies_block_on(p->d_own, c, src, ns, p->d_a, add, p->stream);
}

void backend_block_released(ranks_problem *p)
{
    if (p->gpu >= 0 && p->s->memory != DEVICE_BUFFERS)
        CUDA_CHECK(cudaEventSynchronize(p->copied));
}

void backend_integrate(ranks_problem *p, body *own_out)
{
    int c = own_count(p);
    if (p->gpu < 0) {
        nbody_integrate_cpu(p->own, p->v, p->a, c, DT);
        memcpy(own_out, p->own, (size_t)c * sizeof(body));
        return;
    }
    nbody_integrate_gpu(p->d_own, p->d_v, p->d_a, c, DT, p->stream);
    CUDA_CHECK(cudaMemcpyAsync(own_out, p->d_own, (size_t)c * sizeof(body), cudaMemcpyDefault, p->stream));
    CUDA_CHECK(cudaStreamSynchronize(p->stream));
}

void backend_forces_out(ranks_problem *p, vec3 *a)
{
    int c = own_count(p);
    if (p->gpu < 0) {
        memcpy(a, p->a, (size_t)c * sizeof(vec3));
        return;
    }
    CUDA_CHECK(cudaStreamSynchronize(p->stream));
    CUDA_CHECK(cudaMemcpy(a, p->d_a, (size_t)c * sizeof(vec3), cudaMemcpyDeviceToHost));
}

void backend_state_out(ranks_problem *p, body *b, vec3 *v)
{
    int c = own_count(p);
    if (p->gpu < 0) {
        memcpy(b, p->own, (size_t)c * sizeof(body));
        memcpy(v, p->v, (size_t)c * sizeof(vec3));
        return;
    }
    CUDA_CHECK(cudaStreamSynchronize(p->stream));
    CUDA_CHECK(cudaMemcpy(b, p->d_own, (size_t)c * sizeof(body), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(v, p->d_v, (size_t)c * sizeof(vec3), cudaMemcpyDeviceToHost));
}
