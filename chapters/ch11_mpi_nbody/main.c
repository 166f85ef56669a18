/* ch11 - ch07's N-body beyond one machine: MPI ranks, one GPU each.
 *
 *   make ch11 && ./ch11                     # one rank
 *   mpirun -np 2 ./ch11 --n 262144          # two ranks (one GPU each where there are GPUs)
 *
 * Each rank owns n/P bodies (ranks.h) and computes their forces with ch07's
 * gpu-two-bodies kernel, or ch07's cpu-simd loop where a rank has no GPU
 * (then every rank runs on its CPU, at n = min(n, 16384)). The stages differ
 * in how positions travel (stages.h). Each is measured as every chapter's
 * are (common/measure.h), collectively: the time of a run is the slowest
 * rank's; the check gathers the first step's forces on rank 0 and holds them
 * to ch07's bound against ch07's double-precision reference. Rank 0 prints
 * the table; a rank that fails or waits past --timeout ends every rank.
 */
#include "ranks.h"
#include "stages.h"

#include "../../common/cli.h"
#include "../../common/cuda_util.h"
#include "../../common/image.h"
#include "../../common/measure.h"
#include "../../common/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long timeout_s = 120;
static const char *state_path, *inject, *phases_path;
/* --phases: rank 0's rows, written at the end only if every check passed. */
static char phase_rows[STAGE_COUNT][512];
static const cli_option options[] = {
    {"timeout", "S", "seconds any one MPI wait may take before every rank is ended (default 120)", .min = 1,
     .max = 86400, .number = &timeout_s},
    {"state-out", "FILE", "after the stages, the last stage's final bodies as text: x y z vx vy vz per body",
     .text = &state_path},
    {"phases", "FILE", "each stage's step split into wait, exchange and compute, as CSV (written if every check "
     "passed)", .text = &phases_path},
    {"inject", "FAULT@RANK", "for the tests: fail@R, rank R exits with an error at its first step; stall@R, it "
     "stalls there past every --timeout", .text = &inject},
};

static const cli_spec spec = {
    .program = "ch11",
    .summary = "N-body over MPI ranks, one GPU each: allgather, pinned staging, a ring overlapped with the forces",
    .accepts = CLI_N | CLI_STEPS | CLI_REPEAT | CLI_STAGE | CLI_CSV | CLI_QUIET,
    CLI_STAGE_TABLE(stages),
    CLI_OPTION_TABLE(options),
    .notes = "Run it alone (one rank) or under mpirun: mpirun -np 4 ./ch11 (as root, mpirun also wants\n"
             "--allow-run-as-root; on fewer cores than ranks, --oversubscribe). --n default 2^17 (ranks\n"
             "without a GPU: min(n, 16384)), --steps 2, --repeat 3. Rates count 20 flops per interaction.",
};

/* The command line and every check of it, before cli_begin_work (MPI_Init
 * is work). Every rank refuses bad input with its error line and exit 2: a
 * rank cannot know, before MPI_Init, whether a rank 0 shares its command line
 * and will say it (a rank number inherited from an outer mpirun, a launcher
 * that gives ranks different arguments), so none keeps quiet. Ranks other
 * than 0 (as mpirun numbers them) leave out the usage line: mpirun -np 4 with
 * a typo shows four error lines and one usage. */
static void check_input(cli_options *opt, int argc, char **argv, long long *inject_rank, int *inject_kind)
{
    const char *r = getenv("OMPI_COMM_WORLD_RANK");
    if (!r)
        r = getenv("PMI_RANK");
    if (r && strcmp(r, "0") != 0)
        cli_omit_usage_line();
    cli_parse(&spec, opt, argc, argv);
    if (opt->n > (1 << 24))
        cli_usage_error(&spec, "--n %lld is too large: an all-pairs step grows as n^2 (at most 16777216)", opt->n);
    if (state_path)
        cli_require_writable(&spec, "--state-out", state_path);
    if (phases_path)
        cli_require_writable(&spec, "--phases", phases_path);
    if (inject) {
        const char *at = strchr(inject, '@');
        *inject_kind = at && at - inject == 4 && !strncmp(inject, "fail", 4) ? 1
                       : at && at - inject == 5 && !strncmp(inject, "stall", 5) ? 2 : 0;
        if (!*inject_kind || cli_parse_long(at + 1, 0, 65535, inject_rank))
            cli_usage_error(&spec, "--inject '%s': give fail@R or stall@R, R a rank", inject);
    }
}

/* Measures stage s and (rank 0) adds its row: ms per step, GFLOP/s, and the
 * step split into wait, exchange and compute (mean over ranks). */
static int measure_row(report *rep, ranks_problem *p, const rank_stage *s, int repeat, const char *device)
{
    p->s = s;
    p->timed = (phases){0, 0, 0}, p->timed_runs = 0;
    backend_open(p);
    measure_result m;
    measure_stage(&(measure_plan){.reset = ranks_reset, .run = ranks_run, .check = ranks_check,
                                  .timer = ranks_time_ms, .context = p, .repeat = repeat}, &m);
    phases sum = {0, 0, 0};
    deadline_begin(p, "MPI_Reduce (the phases)");
    MPI_CHECK(MPI_Reduce(&p->timed, &sum, 3, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD));
    deadline_end();
    backend_close(p);
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
    snprintf(phase_rows[s - stages], sizeof phase_rows[0], "%s,%d,%d,%s,%.6g,%.6g,%.6g,%.6g,%.6g,%s\n",
             s->info.name, p->ranks, p->n, p->gpu >= 0 ? "gpu" : "cpu", m.times.median, sum.wait * per,
             sum.exchange * per, sum.compute * per, mb, device);
    return m.ok == REPORT_OK;
}

/* --phases FILE: a header and a row per stage measured (temporary file, then renamed). */
static int write_phases(int all_ok)
{
    char err[IMAGE_ERROR_SIZE];
    FILE *f = file_write_begin(phases_path, err, sizeof err);
    if (f)
        fputs("stage,ranks,n,on,ms_per_step,wait_ms,exchange_ms,compute_ms,mb_per_step,device\n", f);
    for (size_t i = 0; f && i < STAGE_COUNT; i++)
        fputs(phase_rows[i], f);
    if (!f || file_write_end(f, all_ok && !ferror(f), phases_path, err, sizeof err) != 0) {
        if (all_ok) /* err: the path and why (image.c's message) */
            fprintf(stderr, "ch11: --phases not written: %s\n", err);
        else
            fprintf(stderr, "ch11: --phases %s not written (a check failed)\n", phases_path);
        return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    cli_options opt = {.n = 1 << 17, .steps = 2, .repeat = 3};
    long long inject_rank = -1;
    int inject_kind = 0;
    check_input(&opt, argc, argv, &inject_rank, &inject_kind);
    cli_begin_work(&spec);
    MPI_CHECK(MPI_Init(&argc, &argv));
    MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)); /* errors reach MPI_CHECK's file:line */
    ranks_problem p = {.steps = (int)opt.steps, .timeout = (double)timeout_s};
    MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &p.rank));
    MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &p.ranks));
    p.inject = p.rank == inject_rank ? inject_kind : 0;
    int quiet = opt.quiet || p.rank != 0;
    p.gpu = choose_gpu(opt.quiet, &p);
    p.n = (int)(p.gpu < 0 && opt.n > CPU_MAX_N ? CPU_MAX_N : opt.n);
    split(&p);
    MPI_CHECK(MPI_Type_contiguous(4, MPI_FLOAT, &p.body_type));
    MPI_CHECK(MPI_Type_commit(&p.body_type));
    p.init = cli_alloc((size_t)p.n * sizeof(body), "the initial bodies");
    vec3 *v0 = cli_alloc((size_t)p.n * sizeof(vec3), "the initial velocities");
    nbody_init(p.init, v0, p.n); /* every rank the same fixed-seed state */
    free(v0);
    if (p.rank == 0)
        make_reference(&p.ref, p.init, p.n);
    char device[256], workload[96];
    cuda_device_info info;
    if (p.gpu >= 0)
        cuda_describe_device(p.gpu, &info);
    snprintf(device, sizeof device, "%s", p.gpu >= 0 ? info.name : host_cpu_name());
    snprintf(workload, sizeof workload, "n=%d steps=%d ranks=%d %s", p.n, p.steps, p.ranks, p.gpu >= 0 ? "gpu" : "cpu");
    report rep;
    if (p.rank == 0)
        report_init(&rep, "ch11", workload, opt.csv, opt.quiet);
    int all_ok = 1;
    const rank_stage *last = NULL;
    for (size_t i = 0; i < STAGE_COUNT; i++) {
        if (!cli_stage_selected(&opt, i))
            continue;
        if (stages[i].memory == DEVICE_BUFFERS && (!CUDA_AWARE_MPI || p.gpu < 0)) {
            if (!quiet)
                fprintf(stderr, "ch11: %s skipped: %s\n", stages[i].info.name,
                        p.gpu < 0 ? "the ranks have no GPU"
                                  : "this MPI is not CUDA-aware (mpi-ext.h: MPIX_CUDA_AWARE_SUPPORT is not 1), and "
                                    "NCCL is not used");
            continue;
        }
        all_ok &= measure_row(&rep, &p, &stages[i], (int)opt.repeat, device);
        last = &stages[i];
    }
    if (p.rank == 0)
        report_print(&rep, stdout);
    if (state_path && last) {
        p.s = last;
        all_ok &= write_state(&p, state_path);
    }
    if (phases_path && p.rank == 0 && !write_phases(all_ok))
        all_ok = 0;
    MPI_CHECK(MPI_Type_free(&p.body_type));
    free(p.init);
    free(p.count);
    free_reference(&p.ref); /* rank 0's; the others' is empty */
    MPI_CHECK(MPI_Finalize());
    return all_ok ? EXIT_OK : EXIT_CHECK_FAIL;
}
