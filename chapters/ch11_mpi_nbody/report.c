/* report.c - each stage measured into its row (rank 0's table), and the
 * run's two optional files: --phases (each row's step split into wait,
 * exchange and compute) and --state-out (the last stage's final bodies). */
#include "ranks.h"

#include "../../common/cli.h"
#include "../../common/cuda_util.h"
#include "../../common/image.h"
#include "../../common/measure.h"

#include <stdio.h>
#include <stdlib.h>

/* --phases: rank 0's rows, in the order measured, written at the end only if
 * every check passed; --state-out: six numbers a body. */
#define PHASES_HEADER "stage,ranks,n,on,ms_per_step,wait_ms,exchange_ms,compute_ms,mb_per_step,device"
const output_kind phases_kind = {KIND_CSV, PHASES_HEADER, 0}, state_kind = {KIND_NUMBERS, NULL, 6};
static char phase_rows[8192];
static size_t phase_used;

void report_begin(report *rep, const ranks_problem *p, const cli_options *opt, char *device, size_t size)
{
    char workload[96];
    cuda_device_info info;
    if (p->gpu >= 0)
        cuda_describe_device(p->gpu, &info);
    snprintf(device, size, "%s", p->gpu >= 0 ? info.name : host_cpu_name());
    snprintf(workload, sizeof workload, "n=%d steps=%d ranks=%d %s", p->n, p->steps, p->ranks,
             p->gpu >= 0 ? "gpu" : "cpu");
    if (p->rank == 0)
        report_init(rep, "ch11", workload, opt->csv, opt->quiet);
}

/* Measures stage s and (rank 0) adds its row: ms per step, GFLOP/s, and the
 * step split into wait, exchange and compute (mean over ranks). */
int measure_row(report *rep, ranks_problem *p, const rank_stage *s, int repeat, const char *device)
{
    p->s = s;
    p->timed = (phases){0, 0, 0}, p->timed_runs = 0;
    ranks_open(p);
    measure_result m;
    measure_stage(&(measure_plan){.name = s->info.name, .reset = ranks_reset, .run = ranks_run, .check = ranks_check,
                                  .timer = ranks_time_ms, .context = p, .repeat = repeat}, &m);
    phases sum = {0, 0, 0};
    deadline_begin(p, "MPI_Reduce (the phases)");
    MPI_CHECK(MPI_Reduce(&p->timed, &sum, 3, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD));
    deadline_end();
    ranks_close(p);
    if (p->rank != 0)
        return m.ok == REPORT_OK;
    m.times.median /= p->steps, m.times.lo /= p->steps, m.times.hi /= p->steps;
    /* seconds summed over ranks, timed runs and steps -> ms per step, the ranks' mean */
    double n2 = (double)p->n * p->n, per = 1e3 / ((double)p->ranks * p->timed_runs * p->steps);
    report_row *row = report_measured(rep, s->info.name, p->ranks, &m,
                                      FLOPS_PER_INTERACTION * n2 / (m.times.median * 1e-3) * 1e-9, "GFLOP/s", device);
    double mb = 16.0 * p->n * (p->ranks - 1) * 1e-6;
    report_note(row, ", per step: wait %.3f + exchange %.3f + compute %.3f ms, %.4g MB moved", sum.wait * per,
                sum.exchange * per, sum.compute * per, mb);
    if (phase_used < sizeof phase_rows)
        phase_used += (size_t)snprintf(phase_rows + phase_used, sizeof phase_rows - phase_used,
                                       "%s,%d,%d,%s,%.6g,%.6g,%.6g,%.6g,%.6g,%s\n", s->info.name, p->ranks, p->n,
                                       p->gpu >= 0 ? "gpu" : "cpu", m.times.median, sum.wait * per,
                                       sum.exchange * per, sum.compute * per, mb, device);
    return m.ok == REPORT_OK;
}

/* --phases FILE: a header and a row per stage measured (temporary file, then renamed). */
int write_phases(const char *phases_path, int all_ok)
{
    char err[IMAGE_ERROR_SIZE];
    FILE *f = file_write_begin(phases_path, &phases_kind, err, sizeof err);
    if (f)
        fputs(PHASES_HEADER "\n", f);
    if (f)
        fputs(phase_rows, f);
    if (!f || file_write_end(f, all_ok && !ferror(f), phases_path, err, sizeof err) != 0) {
        if (all_ok) /* err: the path and why (image.c's message) */
            fprintf(stderr, "ch11: --phases not written: %s\n", err);
        else
            fprintf(stderr, "ch11: --phases %s not written (a check failed)\n", phases_path);
        return 0;
    }
    return 1;
}

/* --state-out: the last stage once more, every rank's bodies to rank 0, as text. */
int write_state(ranks_problem *p, const char *state_path)
{
    ranks_open(p);
    ranks_reset(p);
    ranks_run(p);
    int c = p->count[p->rank], ok = 1;
    body *b = cli_alloc((size_t)(p->rank == 0 ? p->n : c > 0 ? c : 1) * sizeof(body), "the final bodies");
    vec3 *v = cli_alloc((size_t)(p->rank == 0 ? p->n : c > 0 ? c : 1) * sizeof(vec3), "their velocities");
    backend_state_out(p, b + (p->rank == 0 ? p->first[0] : 0), v);
    ranks_close(p);
    int *count4 = cli_alloc(2 * (size_t)p->ranks * sizeof(int), "counts"), *first4 = count4 + p->ranks;
    for (int r = 0; r < p->ranks; r++)
        count4[r] = 4 * p->count[r], first4[r] = 4 * p->first[r];
    deadline_begin(p, "MPI_Gatherv (the final state)");
    MPI_CHECK(MPI_Gatherv(p->rank == 0 ? MPI_IN_PLACE : (void *)b, 4 * c, MPI_FLOAT, b, count4, first4, MPI_FLOAT, 0,
                          MPI_COMM_WORLD));
    MPI_CHECK(MPI_Gatherv(p->rank == 0 ? MPI_IN_PLACE : (void *)v, 3 * c, MPI_FLOAT, v, p->count3, p->first3,
                          MPI_FLOAT, 0, MPI_COMM_WORLD));
    deadline_end();
    if (p->rank == 0) {
        char err[IMAGE_ERROR_SIZE];
        FILE *f = file_write_begin(state_path, &state_kind, err, sizeof err);
        for (int i = 0; f && i < p->n; i++)
            fprintf(f, "%.9g %.9g %.9g %.9g %.9g %.9g\n", b[i].x, b[i].y, b[i].z, v[i].x, v[i].y, v[i].z);
        if (!f || file_write_end(f, !ferror(f), state_path, err, sizeof err) != 0) {
            fprintf(stderr, "ch11: --state-out not written: %s\n", err); /* err: the path and why */
            ok = 0;
        }
    }
    free(b);
    free(v);
    free(count4);
    return ok;
}

