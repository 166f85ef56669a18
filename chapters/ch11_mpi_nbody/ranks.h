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
 *   exchange.c  a step: the stage's exchange, each block's forces (forces.h),
 *               the integration; the measure loop's hooks
 *   problem.c   the program (common/program.h): MPI, each stage measured into
 *               its row (rank 0's table); --phases and --state-out
 */
#ifndef CH11_RANKS_H
#define CH11_RANKS_H

#include "../../common/nbody/nbody.h"
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

static inline int own_count(const ranks_problem *p)
{
    return p->count[p->rank];
}

/* Room for at least one element: a rank may own no bodies. */
static inline size_t room(int count, size_t size)
{
    return (size_t)(count > 0 ? count : 1) * size;
}

/* exchange.c: a step, and the functions the shared measure loop runs
 * (common/measure.h), collective: every rank calls them in the same order;
 * and the own positions and velocities, to the host (--state-out). */
void ranks_run(void *problem);
int ranks_check(void *problem, char *note, size_t size);
double ranks_time_ms(void (*run)(void *), void *problem);
void backend_state_out(ranks_problem *p, body *b, vec3 *v);

#endif
