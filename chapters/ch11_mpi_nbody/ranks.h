/* ranks.h - ch11: the N-body core's problem (common/nbody/) split over MPI
 * ranks, one GPU each, or a SIMD loop on the CPU where a rank has no GPU.
 *
 * Rank r owns bodies [first[r], first[r] + count[r]): n / P each, the first
 * n % P ranks one more (any n >= 1, any P; a rank may own none). Each step,
 * every rank needs every position; it computes the forces on its own bodies
 * from one block of bodies at a time (forces.h: ch07's gpu-two-bodies kernel,
 * or cpu-simd's loop, taking their targets and sources apart), integrates
 * them (the core's leapfrog), and its new positions are what it sends the
 * next step. The stages differ only in how the positions travel (stages.h).
 *
 * A run reads one way, a file a part, each calling only the ones above it:
 *   deadline.c  every MPI wait under a deadline (--timeout)
 *   setup.c     the split, each rank's GPU, its buffers, the initial state
 *   backend.c   a rank's compute: a block's forces, the integration (forces.h)
 *   exchange.c  a step's positions to every rank, each block's forces computed
 *   step.c      a step (exchange, then integrate), and the measure loop's hooks
 *   report.c    each stage measured into its row; --phases and --state-out
 */
#ifndef CH11_RANKS_H
#define CH11_RANKS_H

#include "../../common/cli.h"
#include "../../common/nbody/nbody.h"
#include "../../common/report.h"
#include "../../common/stage.h"

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
    body *init;                     /* the initial state of all n bodies (the core's fixed seed) */
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

/* deadline.c: an MPI call that does not return within p->timeout seconds
 * ends this rank with a message, and mpirun then ends the others. */
void deadline_begin(const ranks_problem *p, const char *what);
void deadline_end(void);
void mpi_check(int code, const char *what, const char *file, int line);
#define MPI_CHECK(call) mpi_check((call), #call, __FILE__, __LINE__)

/* setup.c: MPI, the split (n / P each, the first n % P one more), this rank's
 * GPU (its rank on its host modulo the GPUs there, or -1 unless every rank
 * has one), the initial state and rank 0's reference; then, per stage, the
 * buffers it needs and the reset to the initial state. */
#define CPU_MAX_N 16384 /* ranks without a GPU: n at most this */
void ranks_setup(ranks_problem *p, long long n, int quiet); /* after MPI_Init */
void ranks_teardown(ranks_problem *p);
const char *stage_skipped(const ranks_problem *p, const rank_stage *s); /* why s cannot run here, or NULL */
void ranks_open(ranks_problem *p);
void ranks_close(ranks_problem *p);
void ranks_reset(void *problem); /* own bodies from the initial state, velocities 0, forces poisoned */

/* backend.c: one rank's compute, on its GPU or its CPU. Forces on the own
 * bodies from ns bodies `block` (host memory, or device memory for
 * DEVICE_BUFFERS), written (add = 0) or added: asynchronous on a GPU. */
void backend_forces(ranks_problem *p, const body *block, int ns, int add);
void backend_block_released(ranks_problem *p); /* block may be overwritten once this returns */
void backend_integrate(ranks_problem *p, body *own_out); /* integrates; own positions to own_out; waits */
void backend_forces_out(ranks_problem *p, vec3 *a);        /* the own bodies' forces, to the host */
void backend_state_out(ranks_problem *p, body *b, vec3 *v); /* own positions and velocities, to the host */

/* exchange.c: this step's positions to every rank, and the own bodies'
 * forces from all of them. */
void exchange_forces(ranks_problem *p);

/* step.c: a step, and the functions the shared measure loop runs
 * (common/measure.h), collective: every rank calls them in the same order. */
void step_forces(ranks_problem *p, int step);
void step_integrate(ranks_problem *p);
void ranks_run(void *problem);
int ranks_check(void *problem, char *note, size_t size);
double ranks_time_ms(void (*run)(void *), void *problem);

/* report.c: rank 0's table begun (its workload; this rank's device name into
 * device); stage s measured and (rank 0) its row added: ms per step,
 * GFLOP/s, the step split into phases; 1 if its check passed. --phases'
 * file from the rows measured (rank 0; 1: written), and --state-out's: the
 * last stage run once more, written by rank 0 (1: written). */
void report_begin(report *rep, const ranks_problem *p, const cli_options *opt, char *device, size_t size);
int measure_row(report *rep, ranks_problem *p, const rank_stage *s, int repeat, const char *device);
int write_phases(const char *path, int all_ok);
int write_state(ranks_problem *p, const char *state_path);
/* What those two files hold, checked before any work (main.c) and again at
 * the write: each replaces only a file of its own kind, never yours. */
extern const output_kind phases_kind, state_kind;

#endif
