/* ranks.h - ch11: ch07's N-body split over MPI ranks, one GPU each, or ch07's
 * SIMD loop on the CPU where a rank has no GPU.
 *
 * Rank r owns bodies [first[r], first[r] + count[r]): n / P each, the first
 * n % P ranks one more (any n >= 1, any P; a rank may own none). Each step,
 * every rank needs every position; it computes the forces on its own bodies
 * with ch07's gpu-two-bodies kernel (or cpu-simd's loop), integrates them
 * (ch07's leapfrog), and its new positions are what it sends the next step.
 * The stages differ only in how the positions travel (stages.h).
 */
#ifndef CH11_RANKS_H
#define CH11_RANKS_H

#include "../ch07_nbody/nbody.h"

#include <cuda_runtime_api.h>
#include <mpi.h>

enum { EXCHANGE_ALLGATHER, EXCHANGE_RING };
enum { HOST_PAGEABLE, HOST_PINNED, DEVICE_BUFFERS };

typedef struct {
    stage_info info;
    int exchange; /* EXCHANGE_*: every block at once, or one block at a time round a ring */
    int memory;   /* HOST_PAGEABLE, HOST_PINNED: where MPI reads and writes; DEVICE_BUFFERS: GPU memory */
} rank_stage;

/* Seconds a rank spent, summed over a run's steps: waiting for the slowest
 * rank (the barrier each step starts with), in MPI calls that move
 * positions, and computing (or waiting for its GPU to finish). */
typedef struct {
    double wait, exchange, compute;
} phases;

typedef struct {
    int rank, ranks, n, steps, gpu; /* gpu: this rank's device, -1 on the CPU */
    int *count, *first;             /* per rank, in bodies */
    int *count3, *first3;           /* the same in floats (3 per force) */
    MPI_Datatype body_type;         /* one body: 4 floats */
    body *init;                     /* the initial state of all n bodies (nbody.h's fixed seed) */
    const rank_stage *s;
    /* host: all positions (allgather) or two ring blocks; own bodies on the CPU */
    body *all, *ring[2], *own;
    vec3 *v, *a;
    /* device: the bodies that pull (all, or one block), own bodies, velocities, forces */
    body *d_src, *d_own;
    vec3 *d_v, *d_a;
    cudaStream_t stream;
    cudaEvent_t copied;
    phases t, timed; /* this run's so far; summed over the timed runs */
    int timed_runs;
    reference ref; /* rank 0 */
    double timeout; /* seconds any one MPI wait may take */
    int inject;     /* --inject, for the tests: 1 this rank fails at its first step, 2 it stalls there */
} ranks_problem;

/* backend.c: one rank's compute, on its GPU or its CPU. */
void backend_open(ranks_problem *p);
void backend_close(ranks_problem *p);
void backend_reset(ranks_problem *p, const body *all0); /* own bodies from the initial state, velocities 0 */
/* Forces on the own bodies from ns bodies `block` (host memory, or device
 * memory for DEVICE_BUFFERS), written (add = 0) or added: asynchronous on a GPU. */
void backend_forces(ranks_problem *p, const body *block, int ns, int add);
void backend_block_released(ranks_problem *p); /* block may be overwritten once this returns */
void backend_copy_to_device(ranks_problem *p, void *dst, const void *src, size_t bytes); /* on its stream, waited for */
void backend_integrate(ranks_problem *p, body *own_out); /* integrates; own positions to own_out; waits */
void backend_forces_out(ranks_problem *p, vec3 *a);        /* the own bodies' forces, to the host */
void backend_state_out(ranks_problem *p, body *b, vec3 *v); /* own positions and velocities, to the host */
void *backend_host_alloc(ranks_problem *p, size_t bytes, const char *what);
void backend_host_free(ranks_problem *p, void *ptr);

/* exchange.c: a step of each kind, and the measured loop's functions. */
void step_forces(ranks_problem *p, int step);
void step_integrate(ranks_problem *p);
void ranks_reset(void *problem);
void ranks_run(void *problem);
int ranks_check(void *problem, char *note, size_t size);
double ranks_time_ms(void (*run)(void *), void *problem);

/* setup.c: the split (n / P each, the first n % P one more); this rank's
 * GPU (its rank on its host modulo the GPUs there), or -1 unless every rank
 * has one; --state-out's file, written by rank 0 (1: written). */
#define CPU_MAX_N 16384 /* ranks without a GPU: n at most this */
void split(ranks_problem *p);
int choose_gpu(int quiet, const ranks_problem *p);
int write_state(ranks_problem *p, const char *state_path);

/* deadline.c: an MPI call that does not return within p->timeout seconds
 * ends this rank with a message, and mpirun then ends the others. */
void deadline_begin(const ranks_problem *p, const char *what);
void deadline_end(void);
void mpi_check(int code, const char *what, const char *file, int line);
#define MPI_CHECK(call) mpi_check((call), #call, __FILE__, __LINE__)

#endif
