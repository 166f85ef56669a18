/* gpu_multi.cu - ch07's multi-gpu stages: gpu-tiled-ftz's kernel on every
 * GPU of the machine, each on its slice of the bodies (gpu_tiled.cu's
 * gpu_tiled_ftz_slice), the host integrating between steps. */
#include "nbody.h"

#include "../../common/cuda_util.h"

#include <pthread.h>
#include <string.h>

/* Every step all positions go to every GPU, each computes the forces of its
 * slice of the bodies, the host integrates. Three ways to drive the GPUs:
 *   MULTI_THREADS         a host thread per GPU, copies from pageable memory
 *   MULTI_THREADS_PINNED  the same, the host's positions and forces in
 *                         page-locked memory that every GPU may use (portable)
 *   MULTI_ONE_THREAD      one host thread: each GPU a stream, its copies and
 *                         kernel queued asynchronously on it, all GPUs
 *                         started before any is waited for (the copies are
 *                         asynchronous only from page-locked memory).
 * The page-locked buffers are kept between runs (allocating them is slow);
 * a run copies the bodies in and out of them, about n * 28 bytes each way. */
typedef struct {
    int device, n, i_begin, i_end, steps;
    float dt;
    body *b; /* host: all bodies, shared; each thread writes only its slice */
    vec3 *v, *first, *a; /* a: page-locked forces (MULTI_THREADS_PINNED), or NULL */
    pthread_barrier_t *barrier;
} gpu_worker;

/* One GPU: all positions in, its slice's forces out, its slice integrated on
 * the host, then everyone waits for everyone before the next step. */
static void *multi_gpu_worker(void *p)
{
    gpu_worker *w = (gpu_worker *)p;
    int count = w->i_end - w->i_begin;
    body *d_b;
    vec3 *d_a;
    vec3 *a = w->a ? w->a + w->i_begin
                   : (vec3 *)cli_alloc((count > 0 ? count : 1) * sizeof(vec3), "one GPU's forces");
    CUDA_CHECK(cudaSetDevice(w->device));
    CUDA_CHECK(cudaMalloc(&d_b, (size_t)w->n * sizeof(body)));
    CUDA_CHECK(cudaMalloc(&d_a, (size_t)w->n * sizeof(vec3)));
    for (int s = 0; s < w->steps; s++) {
        CUDA_CHECK(cudaMemcpy(d_b, w->b, (size_t)w->n * sizeof(body), cudaMemcpyHostToDevice));
        if (count > 0) {
            gpu_tiled_ftz_slice(d_b, d_a, w->n, w->i_begin, w->i_end, 0);
            CUDA_CHECK(cudaMemcpy(a, d_a + w->i_begin, count * sizeof(vec3), cudaMemcpyDeviceToHost));
        }
        if (s == 0 && w->first)
            memcpy(w->first + w->i_begin, a, count * sizeof(vec3));
        pthread_barrier_wait(w->barrier); /* every GPU has read this step's positions */
        nbody_integrate_cpu(w->b + w->i_begin, w->v + w->i_begin, a, count, w->dt);
        pthread_barrier_wait(w->barrier); /* every slice has moved */
    }
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_a));
    if (!w->a)
        free(a);
    return NULL;
}

enum { MAX_GPUS = 16 };

static void run_threads(body *b, vec3 *v, vec3 *a, int n, int steps, float dt, int devices, vec3 *first)
{
    pthread_t tid[MAX_GPUS];
    gpu_worker w[MAX_GPUS];
    pthread_barrier_t barrier;
    pthread_barrier_init(&barrier, NULL, (unsigned)devices);
    for (int d = 0; d < devices; d++) {
        w[d] = gpu_worker{d, n, (int)((long)n * d / devices), (int)((long)n * (d + 1) / devices), steps, dt, b, v,
                          first, a, &barrier};
        if (pthread_create(&tid[d], NULL, multi_gpu_worker, &w[d]) != 0) {
            fprintf(stderr, "%s:%d: cannot start the thread for GPU %d\n", __FILE__, __LINE__, d);
            exit(EXIT_CHECK_FAIL);
        }
    }
    for (int d = 0; d < devices; d++)
        pthread_join(tid[d], NULL);
    pthread_barrier_destroy(&barrier);
}

/* One host thread, a stream per GPU: each step every GPU's copy in, kernel
 * and copy out are queued before the thread waits for any of them. */
static void run_one_thread(body *b, vec3 *v, vec3 *a, int n, int steps, float dt, int devices, vec3 *first)
{
    body *d_b[MAX_GPUS];
    vec3 *d_a[MAX_GPUS];
    cudaStream_t stream[MAX_GPUS];
    int lo[MAX_GPUS + 1];
    for (int d = 0; d <= devices; d++)
        lo[d] = (int)((long)n * d / devices);
    for (int d = 0; d < devices; d++) {
        CUDA_CHECK(cudaSetDevice(d));
        CUDA_CHECK(cudaMalloc(&d_b[d], (size_t)n * sizeof(body)));
        CUDA_CHECK(cudaMalloc(&d_a[d], (size_t)n * sizeof(vec3)));
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream[d], cudaStreamNonBlocking));
    }
    for (int s = 0; s < steps; s++) {
        for (int d = 0; d < devices; d++) {
            int count = lo[d + 1] - lo[d];
            CUDA_CHECK(cudaSetDevice(d));
            CUDA_CHECK(cudaMemcpyAsync(d_b[d], b, (size_t)n * sizeof(body), cudaMemcpyHostToDevice, stream[d]));
            if (count == 0)
                continue;
            gpu_tiled_ftz_slice(d_b[d], d_a[d], n, lo[d], lo[d + 1], stream[d]);
            CUDA_CHECK(cudaMemcpyAsync(a + lo[d], d_a[d] + lo[d], count * sizeof(vec3), cudaMemcpyDeviceToHost,
                                       stream[d]));
        }
        for (int d = 0; d < devices; d++) {
            CUDA_CHECK(cudaSetDevice(d));
            CUDA_CHECK(cudaStreamSynchronize(stream[d]));
        }
        if (s == 0 && first)
            memcpy(first, a, (size_t)n * sizeof(vec3));
        nbody_integrate_cpu(b, v, a, n, dt);
    }
    for (int d = 0; d < devices; d++) {
        CUDA_CHECK(cudaSetDevice(d));
        CUDA_CHECK(cudaFree(d_b[d]));
        CUDA_CHECK(cudaFree(d_a[d]));
        CUDA_CHECK(cudaStreamDestroy(stream[d]));
    }
    CUDA_CHECK(cudaSetDevice(0));
}

/* Page-locked, portable (every GPU may copy from it), kept for the next run. */
static void *pinned_buffer(void **buffer, size_t *capacity, size_t bytes)
{
    if (bytes > *capacity) {
        if (*buffer)
            CUDA_CHECK(cudaFreeHost(*buffer));
        CUDA_CHECK(cudaHostAlloc(buffer, bytes, cudaHostAllocPortable));
        *capacity = bytes;
    }
    return *buffer;
}

void multi_gpu_run(body *b, vec3 *v, int n, int steps, float dt, int devices, vec3 *first_forces, int mode)
{
    static void *pinned_b, *pinned_a;
    static size_t cap_b, cap_a;
    devices = devices < 1 ? 1 : devices > MAX_GPUS ? MAX_GPUS : devices;
    if (mode == MULTI_THREADS) {
        run_threads(b, v, NULL, n, steps, dt, devices, first_forces);
        return;
    }
    size_t bytes = (size_t)(n > 0 ? n : 1) * sizeof(body);
    body *hb = (body *)pinned_buffer(&pinned_b, &cap_b, bytes);
    vec3 *ha = (vec3 *)pinned_buffer(&pinned_a, &cap_a, (size_t)(n > 0 ? n : 1) * sizeof(vec3));
    memcpy(hb, b, (size_t)n * sizeof(body));
    if (mode == MULTI_THREADS_PINNED)
        run_threads(hb, v, ha, n, steps, dt, devices, first_forces);
    else
        run_one_thread(hb, v, ha, n, steps, dt, devices, first_forces);
    memcpy(b, hb, (size_t)n * sizeof(body));
}
