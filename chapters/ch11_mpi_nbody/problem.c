/* ch11 - ch07's N-body beyond one machine: MPI ranks, one GPU each.
 *
 *   make ch11 && ./ch11                     # one rank
 *   mpirun -np 2 ./ch11 --n 262144          # two ranks (one GPU each where there are GPUs)
 *
 * Each rank owns n/P bodies (ranks.h) and computes their forces with ch07's
 * gpu-two-bodies kernel, or ch07's cpu-simd loop where a rank has no GPU
 * (then every rank runs on its CPU, at n = min(n, 16384)), on the N-body
 * core's bodies (common/nbody/). The stages differ in how positions travel
 * (stages.h; exchange.c moves them). Each is measured as every chapter's are
 * (common/measure.h), collectively: the time of a run is the slowest rank's;
 * the check gathers the first step's forces on rank 0 and holds them to the
 * core's bound against its double-precision reference. Every rank runs
 * common/program.c's main(); rank 0 prints the table; a rank that fails or
 * waits past --timeout ends every rank.
 */
#include "ranks.h"
#include "stages.h"

#include "../../common/cli.h"
#include "../../common/cuda_util.h"
#include "../../common/image.h"
#include "../../common/measure.h"
#include "../../common/program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long timeout_s = 120;
static const char *state_path, *inject, *phases_path;
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

/* --phases: rank 0's rows, in the order measured, written at the end only if
 * every check passed; --state-out: six numbers a body. Each replaces only a
 * file of its own kind, never yours: checked before any work and at the write. */
#define PHASES_HEADER "stage,ranks,n,on,ms_per_step,wait_ms,exchange_ms,compute_ms,mb_per_step,device"
static const output_kind phases_kind = {KIND_CSV, PHASES_HEADER, 0}, state_kind = {KIND_NUMBERS, NULL, 6};
static char phase_rows[8192];
static size_t phase_used;

static ranks_problem problem;
static long long inject_rank = -1;
static int inject_kind, all_ok = 1; /* all_ok: this rank's checks and files */
static const rank_stage *last;      /* the last stage measured: --state-out's */

/* This rank's number as the launcher tells it before MPI_Init (Open MPI:
 * OMPI_COMM_WORLD_RANK; MPICH, Slurm's PMI: PMI_RANK), or NULL run alone. */
static const char *launched_rank(void)
{
    const char *r = getenv("OMPI_COMM_WORLD_RANK");
    return r ? r : getenv("PMI_RANK");
}

/* How many ranks this run has, as the launcher tells each before MPI_Init
 * (OMPI_COMM_WORLD_SIZE, PMI_SIZE), or 1 run alone. A launcher that says
 * neither is checked after MPI_Init (setup). */
static long long launched_ranks(void)
{
    const char *size = getenv("OMPI_COMM_WORLD_SIZE");
    if (!size)
        size = getenv("PMI_SIZE");
    long long ranks = 1;
    if (size && cli_parse_long(size, 1, 1 << 20, &ranks) != NULL)
        ranks = 1 << 20; /* unreadable: let MPI_Comm_size decide, after MPI_Init */
    return ranks;
}

/* Every rank refuses bad input with its error line and exit 2, before
 * MPI_Init: a rank cannot know whether a rank 0 shares its command line and
 * will say it (a rank number inherited from an outer mpirun, a launcher that
 * gives ranks different arguments), so none keeps quiet. Ranks other than 0
 * leave out the usage line, so mpirun -np 4 with a typo shows four error
 * lines and one usage (the program's .start: before the parse). */
static void usage_line_from_rank_0_only(void)
{
    const char *r = launched_rank();
    if (r && strcmp(r, "0") != 0)
        cli_omit_usage_line();
}

static void validate(program_run *r)
{
    if (r->opt.n > (1 << 24))
        cli_usage_error(&spec, "--n %lld is too large: an all-pairs step grows as n^2 (at most 16777216)", r->opt.n);
    if (state_path)
        cli_require_output(&spec, "--state-out", state_path, &state_kind);
    if (phases_path)
        cli_require_output(&spec, "--phases", phases_path, &phases_kind);
    if (!inject)
        return;
    const char *at = strchr(inject, '@');
    inject_kind = at && at - inject == 4 && !strncmp(inject, "fail", 4) ? 1
                  : at && at - inject == 5 && !strncmp(inject, "stall", 5) ? 2 : 0;
    if (!inject_kind || cli_parse_long(at + 1, 0, 65535, &inject_rank))
        cli_usage_error(&spec, "--inject '%s': give fail@R or stall@R, R a rank", inject);
    long long ranks = launched_ranks();
    if (inject_rank >= ranks) /* a fault no rank injects: the test it serves would pass for nothing */
        cli_usage_error(&spec, "--inject '%s': there is no rank %lld: this run has %lld rank%s (0 to %lld)", inject,
                        inject_rank, ranks, ranks == 1 ? "" : "s", ranks - 1);
}

/* The skeleton's device is the ranks: every stage runs on them (their GPUs,
 * or, where a rank has none, every rank's CPU: only MPI_Init can tell), so
 * every stage's row says STAGE_ALL_GPUS and a run always opens this device. */
static int ranks_count(const cli_spec *s, long device, char *why, size_t whylen)
{
    (void)s, (void)device, (void)why, (void)whylen;
    return 1;
}

/* MPI_Init (work, so after cli_begin_work), the split, this rank's GPU;
 * returns what this rank computes on. */
static const char *ranks_device_open(program_run *r)
{
    static char device[256];
    MPI_CHECK(MPI_Init(NULL, NULL));
    MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)); /* errors reach MPI_CHECK's file:line */
    problem.steps = (int)r->opt.steps, problem.timeout = (double)timeout_s;
    ranks_setup(&problem, r->opt.n, (int)r->opt.quiet);
    cuda_device_info info;
    if (problem.gpu >= 0)
        cuda_describe_device(problem.gpu, &info);
    snprintf(device, sizeof device, "%s", problem.gpu >= 0 ? info.name : host_cpu_name());
    return device;
}

static const program_device ranks_device = {ranks_count, ranks_device_open};

static void teardown(program_run *r)
{
    (void)r;
    ranks_teardown(&problem);
    MPI_CHECK(MPI_Finalize());
}

/* The --inject check a launcher without a rank count left (launched_ranks);
 * then rank 0 speaks for the run: the others print no table, add no CSV row. */
static void setup(program_run *r)
{
    if (inject_rank >= problem.ranks) {
        if (problem.rank == 0)
            fprintf(stderr, "ch11: error: --inject '%s': there is no rank %lld: this run has %d ranks\n", inject,
                    inject_rank, problem.ranks);
        teardown(r);
        exit(CLI_EXIT_USAGE);
    }
    problem.inject = problem.rank == inject_rank ? inject_kind : 0;
    r->silent = problem.rank != 0; /* the table and the CSV rows are rank 0's */
}

static void workload(program_run *r, int table, char *buf, size_t size)
{
    (void)r, (void)table;
    snprintf(buf, size, "n=%d steps=%d ranks=%d %s", problem.n, problem.steps, problem.ranks,
             problem.gpu >= 0 ? "gpu" : "cpu");
}

/* Rank 0's row of stage s: ms per step, GFLOP/s, and the step split into
 * wait, exchange and compute (seconds summed over ranks, timed runs and
 * steps -> ms per step, the ranks' mean); its --phases line too. */
static void add_row(program_run *r, const rank_stage *s, measure_result *m, phases sum)
{
    const ranks_problem *p = &problem;
    m->times.median /= p->steps, m->times.lo /= p->steps, m->times.hi /= p->steps;
    double n2 = (double)p->n * p->n, per = 1e3 / ((double)p->ranks * p->timed_runs * p->steps);
    report_row *row = report_measured(r->rep, s->info.name, p->ranks, m,
                                      FLOPS_PER_INTERACTION * n2 / (m->times.median * 1e-3) * 1e-9, "GFLOP/s",
                                      r->device);
    double mb = 16.0 * p->n * (p->ranks - 1) * 1e-6;
    report_note(row, ", per step: wait %.3f + exchange %.3f + compute %.3f ms, %.4g MB moved", sum.wait * per,
                sum.exchange * per, sum.compute * per, mb);
    if (phase_used < sizeof phase_rows)
        phase_used += (size_t)snprintf(phase_rows + phase_used, sizeof phase_rows - phase_used,
                                       "%s,%d,%d,%s,%.6g,%.6g,%.6g,%.6g,%.6g,%s\n", s->info.name, p->ranks, p->n,
                                       p->gpu >= 0 ? "gpu" : "cpu", m->times.median, sum.wait * per,
                                       sum.exchange * per, sum.compute * per, mb, r->device);
}

/* Stage i, collectively: measured on every rank (exchange.c), its phases summed
 * on rank 0, which adds the row. A stage this MPI or these ranks cannot run
 * is left out with one line. */
static int stage(program_run *r, size_t i)
{
    const rank_stage *s = &stages[i];
    const char *why = stage_skipped(&problem, s);
    if (why) {
        if (!r->opt.quiet && problem.rank == 0)
            fprintf(stderr, "ch11: %s skipped: %s\n", s->info.name, why);
        return 0;
    }
    ranks_problem *p = &problem;
    p->s = s;
    p->timed = (phases){0, 0, 0}, p->timed_runs = 0;
    ranks_open(p);
    measure_result m;
    measure_stage(&(measure_plan){.name = s->info.name, .reset = ranks_reset, .run = ranks_run, .check = ranks_check,
                                  .timer = ranks_time_ms, .context = p, .repeat = (int)r->opt.repeat}, &m);
    phases sum = {0, 0, 0};
    deadline_begin(p, "MPI_Reduce (the phases)");
    MPI_CHECK(MPI_Reduce(&p->timed, &sum, 3, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD));
    deadline_end();
    ranks_close(p);
    if (p->rank == 0)
        add_row(r, s, &m, sum);
    all_ok &= m.ok == REPORT_OK; /* the check's verdict is every rank's (exchange.c) */
    last = s;
    return 0;
}

/* --phases FILE: a header and a row per stage measured (temporary file, then renamed). */
static int write_phases(int ok)
{
    char err[IMAGE_ERROR_SIZE];
    FILE *f = file_write_begin(phases_path, &phases_kind, err, sizeof err);
    if (f)
        fputs(PHASES_HEADER "\n", f);
    if (f)
        fputs(phase_rows, f);
    if (!f || file_write_end(f, ok && !ferror(f), phases_path, err, sizeof err) != 0) {
        if (ok) /* err: the path and why (image.c's message) */
            fprintf(stderr, "ch11: --phases not written: %s\n", err);
        else
            fprintf(stderr, "ch11: --phases %s not written (a check failed)\n", phases_path);
        return 0;
    }
    return 1;
}

/* Rank 0 writes the n final bodies, six numbers each. */
static int write_bodies(const body *b, const vec3 *v)
{
    char err[IMAGE_ERROR_SIZE];
    FILE *f = file_write_begin(state_path, &state_kind, err, sizeof err);
    for (int i = 0; f && i < problem.n; i++)
        fprintf(f, "%.9g %.9g %.9g %.9g %.9g %.9g\n", b[i].x, b[i].y, b[i].z, v[i].x, v[i].y, v[i].z);
    if (!f || file_write_end(f, !ferror(f), state_path, err, sizeof err) != 0) {
        fprintf(stderr, "ch11: --state-out not written: %s\n", err); /* err: the path and why */
        return 0;
    }
    return 1;
}

/* --state-out: the last stage once more, every rank's bodies to rank 0. */
static int write_state(void)
{
    ranks_problem *p = &problem;
    p->s = last;
    ranks_open(p);
    ranks_reset(p);
    ranks_run(p);
    int c = own_count(p), ok = 1, n = p->rank == 0 ? p->n : c;
    body *b = cli_alloc(room(n, sizeof(body)), "the final bodies");
    vec3 *v = cli_alloc(room(n, sizeof(vec3)), "their velocities");
    backend_state_out(p, b + (p->rank == 0 ? p->first[0] : 0), v);
    ranks_close(p);
    int *count4 = cli_alloc(2 * (size_t)p->ranks * sizeof(int), "counts"), *first4 = count4 + p->ranks;
    for (int k = 0; k < p->ranks; k++)
        count4[k] = 4 * p->count[k], first4[k] = 4 * p->first[k];
    deadline_begin(p, "MPI_Gatherv (the final state)");
    MPI_CHECK(MPI_Gatherv(p->rank == 0 ? MPI_IN_PLACE : (void *)b, 4 * c, MPI_FLOAT, b, count4, first4, MPI_FLOAT, 0,
                          MPI_COMM_WORLD));
    MPI_CHECK(MPI_Gatherv(p->rank == 0 ? MPI_IN_PLACE : (void *)v, 3 * c, MPI_FLOAT, v, p->count3, p->first3,
                          MPI_FLOAT, 0, MPI_COMM_WORLD));
    deadline_end();
    if (p->rank == 0)
        ok = write_bodies(b, v);
    free(b);
    free(v);
    free(count4);
    return ok;
}

/* After the table: --state-out (collective), then --phases (rank 0). The
 * status is this rank's: its checks (every rank's verdict) and its files. */
static int finish(program_run *r, int status)
{
    (void)r;
    if (state_path && last)
        all_ok &= write_state();
    if (phases_path && problem.rank == 0 && !write_phases(all_ok))
        all_ok = 0;
    return all_ok ? status : EXIT_CHECK_FAIL;
}

const program chapter_program = {
    .spec = &spec,
    .defaults = {.n = 1 << 17, .steps = 2, .repeat = 3},
    .start = usage_line_from_rank_0_only,
    .gpu = PROGRAM_GPU_IF_ANY,
    .device = &ranks_device,
    .validate = validate,
    .setup = setup,
    .workload = workload,
    .stage = stage,
    .finish = finish,
    .teardown = teardown,
};
