/* step.c - a step of the run (the barrier, the exchange and the forces,
 * then the integration), and the four functions the shared measure loop
 * runs (common/measure.h), collective: every rank calls them in the same
 * order. */
#include "ranks.h"

#include "../../common/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

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

void step_forces(ranks_problem *p, int step)
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
void step_integrate(ranks_problem *p)
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
    int c = p->count[p->rank];
    body *moved = cli_alloc((size_t)(c > 0 ? c : 1) * sizeof(body), "the moved bodies");
    vec3 *moved_v = cli_alloc((size_t)(c > 0 ? c : 1) * sizeof(vec3), "their velocities");
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
