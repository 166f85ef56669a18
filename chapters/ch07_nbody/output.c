/* output.c - see output.h. */
#include "output.h"
#include "problem.h"

#include "../../common/nbody/nbody_gpu.h"

#include "../../common/cli.h"
#include "../../common/cuda_util.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- tracing (--timeline): no-ops unless o->spans is set */
static double host_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static void span_open(output_run *o, cudaStream_t stream)
{
    if (o->spans && o->span_count < o->span_cap) {
        if (stream)
            CUDA_CHECK(cudaEventRecord(o->spans[o->span_count].start, stream));
        else
            o->spans[o->span_count].host_start = host_ms() - o->origin_host_ms;
    }
}

/* Closes the span opened last on this lane (stream, or 0: the host). */
static void span_close(output_run *o, cudaStream_t stream, int lane, const char *what)
{
    if (!o->spans || o->span_count >= o->span_cap)
        return;
    output_span *sp = &o->spans[o->span_count++];
    sp->lane = lane, sp->what = what, sp->step = o->step;
    if (stream)
        CUDA_CHECK(cudaEventRecord(sp->end, stream));
    else
        sp->host_end = host_ms() - o->origin_host_ms;
}

/* What the host does with a step's positions: reads every one. */
static double read_frame(const body *f, int n)
{
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += f[i].x;
    return sum;
}

static void capture_step(output_run *o, const gpu_buffers *g, float dt)
{
    cudaGraph_t graph;
    CUDA_CHECK(cudaStreamBeginCapture(o->compute, cudaStreamCaptureModeThreadLocal));
    gpu_two_bodies_on(g->d_b, g->d_a, o->n, o->compute);
    nbody_integrate_gpu(g->d_b, g->d_v, g->d_a, o->n, dt, o->compute);
    CUDA_CHECK(cudaMemcpyAsync(o->frame[0], g->d_b, (size_t)o->n * sizeof(body), cudaMemcpyDeviceToHost,
                               o->compute));
    CUDA_CHECK(cudaStreamEndCapture(o->compute, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&o->graph, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));
}

void output_begin(output_run *o, int mode, const gpu_buffers *g, int n, int steps)
{
    memset(o, 0, sizeof *o);
    o->mode = mode, o->n = n, o->steps = steps;
    size_t bytes = (size_t)(n > 0 ? n : 1) * sizeof(body);
    o->sums = cli_alloc((size_t)(steps > 0 ? steps : 1) * sizeof(double), "the output sums");
    for (int k = 0; k < 2; k++) {
        if (mode == OUTPUT_PAGEABLE)
            o->frame[k] = cli_alloc(bytes, "an output frame");
        else
            CUDA_CHECK(cudaMallocHost((void **)&o->frame[k], bytes));
        CUDA_CHECK(cudaMalloc((void **)&o->d_snap[k], bytes));
        CUDA_CHECK(cudaEventCreateWithFlags(&o->ready[k], cudaEventDisableTiming));
        CUDA_CHECK(cudaEventCreateWithFlags(&o->copied[k], cudaEventDisableTiming));
    }
    CUDA_CHECK(cudaStreamCreateWithFlags(&o->compute, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&o->copy, cudaStreamNonBlocking));
    if (mode == OUTPUT_GRAPH && n > 0)
        capture_step(o, g, DT);
}

static void forces_and_integrate(output_run *o, const gpu_buffers *g, float dt)
{
    span_open(o, o->compute);
    gpu_two_bodies_on(g->d_b, g->d_a, o->n, o->compute);
    span_close(o, o->compute, 0, "forces");
    span_open(o, o->compute);
    nbody_integrate_gpu(g->d_b, g->d_v, g->d_a, o->n, dt, o->compute);
    span_close(o, o->compute, 0, "integrate");
}

/* The host reads step k's frame. */
static void host_read(output_run *o, int k, const body *frame)
{
    int step = o->step;
    o->step = k;
    span_open(o, 0);
    o->sums[k] = read_frame(frame, o->n);
    span_close(o, 0, 2, "read");
    o->step = step;
}

/* Step k's copy reads snapshot k % 2, written after step k's integration;
 * step k + 2's snapshot waits until that copy is done. The host reads step
 * k - 1's frame while step k runs. */
static void overlapped_steps(output_run *o, const gpu_buffers *g, float dt)
{
    size_t bytes = (size_t)o->n * sizeof(body);
    for (int k = 0; k < o->steps; k++) {
        int s = k % 2;
        o->step = k;
        forces_and_integrate(o, g, dt);
        if (k >= 2)
            CUDA_CHECK(cudaStreamWaitEvent(o->compute, o->copied[s], 0));
        span_open(o, o->compute);
        CUDA_CHECK(cudaMemcpyAsync(o->d_snap[s], g->d_b, bytes, cudaMemcpyDeviceToDevice, o->compute));
        span_close(o, o->compute, 0, "snapshot");
        CUDA_CHECK(cudaEventRecord(o->ready[s], o->compute));
        CUDA_CHECK(cudaStreamWaitEvent(o->copy, o->ready[s], 0));
        span_open(o, o->copy);
        CUDA_CHECK(cudaMemcpyAsync(o->frame[s], o->d_snap[s], bytes, cudaMemcpyDeviceToHost, o->copy));
        span_close(o, o->copy, 1, "copy");
        CUDA_CHECK(cudaEventRecord(o->copied[s], o->copy));
        if (k >= 1) {
            CUDA_CHECK(cudaEventSynchronize(o->copied[1 - s]));
            host_read(o, k - 1, o->frame[1 - s]);
        }
    }
    if (o->steps > 0) {
        int last = (o->steps - 1) % 2;
        CUDA_CHECK(cudaEventSynchronize(o->copied[last]));
        host_read(o, o->steps - 1, o->frame[last]);
    }
}

void output_steps(output_run *o, const gpu_buffers *g, float dt)
{
    if (o->n == 0) {
        memset(o->sums, 0, (size_t)o->steps * sizeof(double));
        return;
    }
    if (o->mode == OUTPUT_OVERLAP) {
        overlapped_steps(o, g, dt);
        return;
    }
    for (int k = 0; k < o->steps; k++) {
        o->step = k;
        if (o->mode == OUTPUT_GRAPH) {
            span_open(o, o->compute);
            CUDA_CHECK(cudaGraphLaunch(o->graph, o->compute));
            span_close(o, o->compute, 0, "graph");
        } else {
            forces_and_integrate(o, g, dt);
            span_open(o, o->compute);
            CUDA_CHECK(cudaMemcpyAsync(o->frame[0], g->d_b, (size_t)o->n * sizeof(body), cudaMemcpyDeviceToHost,
                                       o->compute));
            span_close(o, o->compute, 0, "copy");
        }
        CUDA_CHECK(cudaStreamSynchronize(o->compute));
        host_read(o, k, o->frame[0]);
    }
}

int output_check(output_run *o, struct problem *p, char *note, size_t size)
{
    for (int k = 0; k < o->steps; k++) {
        gpu_two_bodies_on(p->g.d_b, p->g.d_a, p->n, 0);
        nbody_integrate_gpu(p->g.d_b, p->g.d_v, p->g.d_a, p->n, DT, 0);
        CUDA_CHECK(cudaMemcpy(p->b, p->g.d_b, (size_t)p->n * sizeof(body), cudaMemcpyDeviceToHost));
        double want = read_frame(p->b, p->n);
        if (memcmp(&want, &o->sums[k], sizeof want) != 0) {
            snprintf(note, size, "step %d's output differs from the plain run's (%.17g, want %.17g); ", k, o->sums[k],
                     want);
            return 0;
        }
    }
    snprintf(note, size, "every step's output as the plain run's; ");
    return 1;
}

void output_end(output_run *o)
{
    for (int k = 0; k < 2; k++) {
        if (o->mode == OUTPUT_PAGEABLE)
            free(o->frame[k]);
        else
            CUDA_CHECK(cudaFreeHost(o->frame[k]));
        CUDA_CHECK(cudaFree(o->d_snap[k]));
        CUDA_CHECK(cudaEventDestroy(o->ready[k]));
        CUDA_CHECK(cudaEventDestroy(o->copied[k]));
    }
    if (o->graph)
        CUDA_CHECK(cudaGraphExecDestroy(o->graph));
    CUDA_CHECK(cudaStreamDestroy(o->compute));
    CUDA_CHECK(cudaStreamDestroy(o->copy));
    free(o->sums);
}

void output_trace(output_run *o, struct problem *p, const char *stage, FILE *csv)
{
    o->span_cap = 5 * (o->steps > 0 ? o->steps : 1), o->span_count = 0;
    o->spans = calloc((size_t)o->span_cap, sizeof *o->spans);
    if (!o->spans) {
        fprintf(stderr, "ch07: out of memory (the timeline)\n");
        exit(EXIT_CHECK_FAIL);
    }
    for (int i = 0; i < o->span_cap; i++) {
        CUDA_CHECK(cudaEventCreate(&o->spans[i].start));
        CUDA_CHECK(cudaEventCreate(&o->spans[i].end));
    }
    CUDA_CHECK(cudaEventCreate(&o->origin));
    CUDA_CHECK(cudaEventRecord(o->origin, o->compute));
    CUDA_CHECK(cudaEventSynchronize(o->origin));
    o->origin_host_ms = host_ms();
    output_steps(o, &p->g, DT);
    CUDA_CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < o->span_count; i++) {
        output_span *sp = &o->spans[i];
        float a = 0, b = 0;
        if (sp->lane != 2) {
            CUDA_CHECK(cudaEventElapsedTime(&a, o->origin, sp->start));
            CUDA_CHECK(cudaEventElapsedTime(&b, o->origin, sp->end));
            sp->host_start = a, sp->host_end = b;
        }
        fprintf(csv, "%s,%d,%d,%s,%.4f,%.4f\n", stage, sp->step, sp->lane, sp->what, sp->host_start, sp->host_end);
    }
    for (int i = 0; i < o->span_cap; i++) {
        CUDA_CHECK(cudaEventDestroy(o->spans[i].start));
        CUDA_CHECK(cudaEventDestroy(o->spans[i].end));
    }
    CUDA_CHECK(cudaEventDestroy(o->origin));
    free(o->spans);
    o->spans = NULL;
}
