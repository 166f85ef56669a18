/* exchange.c - a step of the run, as the stage's row says (its `exchange` and
 * `memory`): the barrier; the positions to every rank, every block at once
 * (allgather) or one block at a time round a ring, the next block's transfer
 * overlapping the current block's forces; each block's forces on this
 * rank's compute (ch07's gpu-two-bodies kernel on its GPU, forces_gpu.cu, on
 * one stream: the block's copy, the kernel, the integration, in order; or
 * ch07's cpu-simd loop on its CPU, forces.h); then the core's leapfrog. And
 * the four functions the shared measure loop runs (common/measure.h),
 * collective: every rank calls them in the same order. */
#include "forces_gpu.h"
#include "ranks.h"

#include "../../common/cli.h"
#include "../../common/cuda_util.h"
#include "../../common/nbody/nbody_gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- a rank's compute, on its GPU or its CPU */

static void backend_forces(ranks_problem *p, const body *block, int ns, int add)
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

static void backend_block_released(ranks_problem *p)
{
    if (p->gpu >= 0 && p->s->memory != DEVICE_BUFFERS)
        CUDA_CHECK(cudaEventSynchronize(p->copied));
}

static void backend_integrate(ranks_problem *p, body *own_out)
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

static void backend_forces_out(ranks_problem *p, vec3 *a)
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

/* ---- the exchange: this step's positions to every rank, and the own
 * bodies' forces from all of them */

/* Every rank's positions to every rank, in place, then the forces from all n. */
static void allgather_forces(ranks_problem *p)
{
    body *all = p->s->memory == DEVICE_BUFFERS ? p->d_src : p->all;
    double t0 = MPI_Wtime();
    deadline_begin(p, "MPI_Allgatherv");
    MPI_CHECK(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, p->count, p->first, p->body_type,
                             MPI_COMM_WORLD));
    deadline_end();
    double t1 = MPI_Wtime();
    backend_forces(p, all, p->n, 0);
    p->t.exchange += t1 - t0;
    p->t.compute += MPI_Wtime() - t1;
}

/* P rounds: in round s a rank holds the block of rank (r - s) mod P. It
 * passes that block to its right neighbour and receives the next from its
 * left (MPI_Isend, MPI_Irecv) while its GPU computes that block's forces;
 * the block's buffer is reused only after the GPU has copied it. */
static void ring_forces(ranks_problem *p)
{
    int P = p->ranks, r = p->rank, right = (r + 1) % P, left = (r + P - 1) % P;
    for (int s = 0; s < P; s++) {
        int k = (r - s + P) % P, next_k = (r - s - 1 + 2 * P) % P, pending = 0;
        body *cur = p->ring[s % 2], *next = p->ring[(s + 1) % 2];
        MPI_Request req[2];
        double t0 = MPI_Wtime();
        if (s + 1 < P) {
            if (s > 0)
                backend_block_released(p); /* round s-1 copied `next` to the GPU */
            double t1 = MPI_Wtime();
            MPI_CHECK(MPI_Irecv(next, p->count[next_k], p->body_type, left, s, MPI_COMM_WORLD, &req[pending++]));
            MPI_CHECK(MPI_Isend(cur, p->count[k], p->body_type, right, s, MPI_COMM_WORLD, &req[pending++]));
            p->t.compute += t1 - t0;
            p->t.exchange += MPI_Wtime() - t1;
        }
        double t2 = MPI_Wtime();
        backend_forces(p, cur, p->count[k], s > 0);
        double t3 = MPI_Wtime();
        deadline_begin(p, "MPI_Waitall (the ring's block)");
        MPI_CHECK(MPI_Waitall(pending, req, MPI_STATUSES_IGNORE));
        deadline_end();
        p->t.compute += t3 - t2;
        p->t.exchange += MPI_Wtime() - t3;
    }
}

static void exchange_forces(ranks_problem *p)
{
    if (p->s->exchange == EXCHANGE_ALLGATHER)
        allgather_forces(p);
    else
        ring_forces(p);
}

/* ---- a step, and the measure loop's hooks */

/* The tests' faults: the chosen rank fails, or stalls past every deadline. */
static void inject_fault(ranks_problem *p)
{
    if (p->inject == 1) {
        fprintf(stderr, "ch11: rank %d fails on purpose (--inject fail@R)\n", p->rank);
        exit(EXIT_CHECK_FAIL);
    }
    if (p->inject == 2)
        sleep((unsigned)(3 * p->timeout + 1));
}

static void step_forces(ranks_problem *p, int step)
{
    if (step == 0 && p->inject)
        inject_fault(p);
    double t0 = MPI_Wtime();
    deadline_begin(p, "MPI_Barrier (the step's start)");
    MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    deadline_end();
    p->t.wait += MPI_Wtime() - t0;
    exchange_forces(p);
}

/* Integrates the own bodies; their new positions go where the next step's
 * exchange sends them from. */
static void step_integrate(ranks_problem *p)
{
    body *out = p->s->exchange == EXCHANGE_RING       ? p->ring[0]
                : p->s->memory == DEVICE_BUFFERS      ? p->d_src + p->first[p->rank]
                                                      : p->all + p->first[p->rank];
    double t0 = MPI_Wtime();
    backend_integrate(p, out);
    p->t.compute += MPI_Wtime() - t0;
}

void ranks_run(void *problem)
{
    ranks_problem *p = problem;
    for (int k = 0; k < p->steps; k++) {
        step_forces(p, k);
        step_integrate(p);
    }
}

/* Collective: MPI_MIN of one flag over the ranks. */
static int all_ranks(const ranks_problem *p, int flag)
{
    int all = 0;
    deadline_begin(p, "MPI_Allreduce (the check)");
    MPI_CHECK(MPI_Allreduce(&flag, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    deadline_end();
    return all;
}

/* The run's bodies stayed finite on every rank, and the first step's forces,
 * gathered on rank 0, are within ch07's bound of its double reference. */
int ranks_check(void *problem, char *note, size_t size)
{
    ranks_problem *p = problem;
    int c = own_count(p);
    body *moved = cli_alloc(room(c, sizeof(body)), "the moved bodies");
    vec3 *moved_v = cli_alloc(room(c, sizeof(vec3)), "their velocities");
    backend_state_out(p, moved, moved_v);
    int finite = all_ranks(p, positions_finite(moved, c));
    free(moved);
    free(moved_v);
    ranks_reset(p);
    step_forces(p, 1);
    backend_forces_out(p, p->a);
    vec3 *a_all = p->rank == 0 ? cli_alloc((size_t)p->n * sizeof(vec3), "the gathered forces") : NULL;
    deadline_begin(p, "MPI_Gatherv (the forces for the check)");
    MPI_CHECK(MPI_Gatherv(p->a, p->count3[p->rank], MPI_FLOAT, a_all, p->count3, p->first3, MPI_FLOAT, 0,
                          MPI_COMM_WORLD));
    deadline_end();
    int ok = 0;
    if (p->rank == 0) {
        double err = force_error(&p->ref, a_all);
        ok = finite && err <= error_bound(p->n);
        snprintf(note, size, "error %.2g (bound %.2g)%s", err, error_bound(p->n),
                 finite ? "" : ", positions not finite");
        free(a_all);
    }
    deadline_begin(p, "MPI_Bcast (the check's verdict)");
    MPI_CHECK(MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD));
    deadline_end();
    return ok;
}

/* Milliseconds of one run, from the barrier before it to the barrier after,
 * the slowest rank's: every rank returns the same number. The run's phases
 * are added to the timed runs' sums. */
double ranks_time_ms(void (*run)(void *), void *problem)
{
    ranks_problem *p = problem;
    deadline_begin(p, "MPI_Barrier (before a timed run)");
    MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    deadline_end();
    double t0 = MPI_Wtime();
    run(problem);
    deadline_begin(p, "MPI_Barrier (after a timed run)");
    MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    double ms = (MPI_Wtime() - t0) * 1e3, slowest = 0;
    MPI_CHECK(MPI_Allreduce(&ms, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    deadline_end();
    p->timed.wait += p->t.wait, p->timed.exchange += p->t.exchange, p->timed.compute += p->t.compute;
    p->timed_runs++;
    return slowest;
}
