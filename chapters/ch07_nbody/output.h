/* output.h - the output stages (output.c): a simulation that writes its
 * positions out every step, as a real one does. Each step computes forces
 * with gpu-two-bodies' kernel and integrates; then the step's positions
 * reach the host, which reads all of them (it sums their x coordinates: the
 * stand-in for writing a file). The stages differ only in how they get there:
 *   OUTPUT_PAGEABLE  cudaMemcpy into malloc'ed memory, after each step
 *   OUTPUT_PINNED    the same into page-locked memory (cudaMallocHost)
 *   OUTPUT_OVERLAP   pinned, the copy on a stream of its own from a snapshot
 *                    of the positions, while the next step's forces run and
 *                    the host reads the step before
 *   OUTPUT_GRAPH     pinned, each step's three launches (forces, integrate,
 *                    copy) captured once as a CUDA graph and launched as one */
#ifndef CH07_OUTPUT_H
#define CH07_OUTPUT_H

#include "nbody.h"

#include <cuda_runtime_api.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { OUTPUT_NONE, OUTPUT_PAGEABLE, OUTPUT_PINNED, OUTPUT_OVERLAP, OUTPUT_GRAPH };

/* A GPU stage's bodies, velocities and accelerations on the device. */
typedef struct {
    body *d_b;
    vec3 *d_v, *d_a;
} gpu_buffers;
struct problem; /* problem.h */

/* --timeline: a traced run records each operation's start and end (CUDA
 * events on its stream; the host's reads by its clock, from an origin event
 * it waited for), lane 0 the compute stream, 1 the copy stream, 2 the host. */
typedef struct {
    cudaEvent_t start, end;
    double host_start, host_end; /* ms from the origin (lane 2) */
    int step, lane;
    const char *what;
} output_span;

typedef struct output_run {
    int mode, n, steps;
    output_span *spans; /* NULL: not tracing */
    int span_count, span_cap, step;
    cudaEvent_t origin;
    double origin_host_ms;
    body *frame[2];  /* host frames (one unless overlapping) */
    body *d_snap[2]; /* device snapshots the overlapping copy reads */
    double *sums;    /* per step: the sum of the x coordinates the host read */
    cudaStream_t compute, copy;
    cudaEvent_t ready[2], copied[2];
    cudaGraphExec_t graph;
} output_run;

void output_begin(output_run *o, int mode, const gpu_buffers *g, int n, int steps);
void output_steps(output_run *o, const gpu_buffers *g, float dt); /* returns when the host has read every step */
/* 1 if o's sums are those of the same steps with plain copies, from p's
 * bodies as they are (the caller puts them back to the start first: problem.c
 * owns that, and this file calls nothing of it); the first wrong step in the note. */
int output_check(output_run *o, struct problem *p, char *note, size_t size);
void output_end(output_run *o);
/* One traced run of the steps (from the bodies as they are: the caller puts them back to the start), its
 * spans appended to csv as "stage,step,lane,what,start_ms,end_ms" rows. */
void output_trace(output_run *o, struct problem *p, const char *stage, FILE *csv);

#ifdef __cplusplus
}
#endif

#endif
