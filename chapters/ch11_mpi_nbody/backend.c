/* backend.c - one rank's compute: ch07's gpu-two-bodies kernel on its GPU
 * (one stream: the block's copy, the kernel, the integration, in order), or
 * ch07's cpu-simd loop on its CPU. */
#include "ranks.h"
#include "../ch07_nbody/output.h"

#include "../../common/cuda_util.h"

#include <math.h>
#include <string.h>

static int own_count(const ranks_problem *p)
{
    return p->count[p->rank];
}

/* Room for at least one element: a rank may own no bodies. */
static size_t room(int count, size_t size)
{
    return (size_t)(count > 0 ? count : 1) * size;
}

void *backend_host_alloc(ranks_problem *p, size_t bytes, const char *what)
{
    if (p->gpu < 0 || p->s->memory != HOST_PINNED)
        return cli_alloc(bytes, what);
    void *ptr = NULL;
    CUDA_CHECK(cudaMallocHost(&ptr, bytes)); /* page-locked: the GPU copies it without staging */
    return ptr;
}

void backend_host_free(ranks_problem *p, void *ptr)
{
    if (p->gpu < 0 || p->s->memory != HOST_PINNED)
        free(ptr);
    else if (ptr)
        CUDA_CHECK(cudaFreeHost(ptr));
}

void backend_open(ranks_problem *p)
{
    int c = own_count(p), block = p->count[0]; /* rank 0 owns the most */
    int gathered = p->s->exchange == EXCHANGE_ALLGATHER;
    if (gathered && p->s->memory != DEVICE_BUFFERS)
        p->all = backend_host_alloc(p, room(p->n, sizeof(body)), "all positions");
    if (!gathered)
        for (int k = 0; k < 2; k++)
            p->ring[k] = backend_host_alloc(p, room(block, sizeof(body)), "a ring block");
    p->a = cli_alloc(room(c, sizeof(vec3)), "the own forces");
    p->v = cli_alloc(room(c, sizeof(vec3)), "the own velocities");
    p->own = cli_alloc(room(c, sizeof(body)), "the own bodies");
    if (p->gpu < 0)
        return;
    CUDA_CHECK(cudaSetDevice(p->gpu));
    CUDA_CHECK(cudaMalloc((void **)&p->d_src, room(gathered ? p->n : block, sizeof(body))));
    CUDA_CHECK(cudaMalloc((void **)&p->d_own, room(c, sizeof(body))));
    CUDA_CHECK(cudaMalloc((void **)&p->d_v, room(c, sizeof(vec3))));
    CUDA_CHECK(cudaMalloc((void **)&p->d_a, room(c, sizeof(vec3))));
    CUDA_CHECK(cudaStreamCreateWithFlags(&p->stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&p->copied, cudaEventDisableTiming));
}

void backend_close(ranks_problem *p)
{
    backend_host_free(p, p->all);
    backend_host_free(p, p->ring[0]);
    backend_host_free(p, p->ring[1]);
    free(p->a);
    free(p->v);
    free(p->own);
    p->all = p->ring[0] = p->ring[1] = p->own = NULL;
    p->a = p->v = NULL;
    if (p->gpu < 0)
        return;
    CUDA_CHECK(cudaFree(p->d_src));
    CUDA_CHECK(cudaFree(p->d_own));
    CUDA_CHECK(cudaFree(p->d_v));
    CUDA_CHECK(cudaFree(p->d_a));
    CUDA_CHECK(cudaStreamDestroy(p->stream));
    CUDA_CHECK(cudaEventDestroy(p->copied));
}

void backend_reset(ranks_problem *p, const body *all0)
{
    int c = own_count(p);
    const body *mine = all0 + p->first[p->rank];
    memcpy(p->own, mine, (size_t)c * sizeof(body));
    memset(p->v, 0, room(c, sizeof(vec3)));
    for (int i = 0; i < c; i++) /* poison: a stage that writes no forces fails its check */
        p->a[i] = (vec3){NAN, NAN, NAN};
    if (p->gpu < 0)
        return;
    /* On the rank's own stream, and waited for: that stream is non-blocking, so
     * work on the default stream (a cudaMemset returns before it is done) is not
     * ordered before the step's kernels on it. On the H100, make check-gpu saw
     * ch11's suite fail now and then under load (ring-overlap: a velocity 6000
     * bounds off; allgather-pinned: its own check), which this explains. */
    CUDA_CHECK(cudaMemcpyAsync(p->d_own, mine, (size_t)c * sizeof(body), cudaMemcpyHostToDevice, p->stream));
    CUDA_CHECK(cudaMemsetAsync(p->d_v, 0, room(c, sizeof(vec3)), p->stream));
    CUDA_CHECK(cudaMemsetAsync(p->d_a, 0xFF, room(c, sizeof(vec3)), p->stream));
    CUDA_CHECK(cudaStreamSynchronize(p->stream));
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

void backend_copy_to_device(ranks_problem *p, void *dst, const void *src, size_t bytes)
{
    CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, p->stream));
    CUDA_CHECK(cudaStreamSynchronize(p->stream));
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
    gpu_integrate_on(p->d_own, p->d_v, p->d_a, c, DT, p->stream);
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
