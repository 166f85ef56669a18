/* ch11 - ch07's N-body beyond one machine: MPI ranks, one GPU each.
 *
 *   make ch11 && ./ch11                     # one rank
 *   mpirun -np 2 ./ch11 --n 262144          # two ranks (one GPU each where there are GPUs)
 *
 * Each rank owns n/P bodies (ranks.h) and computes their forces with ch07's
 * gpu-two-bodies kernel, or ch07's cpu-simd loop where a rank has no GPU
 * (then every rank runs on its CPU, at n = min(n, 16384)), on the N-body
 * core's bodies (common/nbody/). The stages differ
 * in how positions travel (stages.h). Each is measured as every chapter's
 * are (common/measure.h), collectively: the time of a run is the slowest
 * rank's; the check gathers the first step's forces on rank 0 and holds them
 * to the core's bound against its double-precision reference. Rank 0 prints
 * the table; a rank that fails or waits past --timeout ends every rank.
 * A run's files, in the order it reads: ranks.h.
 */
#include "ranks.h"
#include "stages.h"

#include "../../common/cli.h"

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

/* How many ranks this run has, as the launcher tells each before MPI_Init
 * (Open MPI: OMPI_COMM_WORLD_SIZE; MPICH, Slurm's PMI: PMI_SIZE), or 1 run
 * alone. A launcher that says neither is checked after MPI_Init (main). */
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
        cli_require_output(&spec, "--state-out", state_path, &state_kind);
    if (phases_path)
        cli_require_output(&spec, "--phases", phases_path, &phases_kind);
    if (inject) {
        const char *at = strchr(inject, '@');
        *inject_kind = at && at - inject == 4 && !strncmp(inject, "fail", 4) ? 1
                       : at && at - inject == 5 && !strncmp(inject, "stall", 5) ? 2 : 0;
        if (!*inject_kind || cli_parse_long(at + 1, 0, 65535, inject_rank))
            cli_usage_error(&spec, "--inject '%s': give fail@R or stall@R, R a rank", inject);
        long long ranks = launched_ranks();
        if (*inject_rank >= ranks) /* a fault no rank injects: the test it serves would pass for nothing */
            cli_usage_error(&spec, "--inject '%s': there is no rank %lld: this run has %lld rank%s (0 to %lld)", inject,
                            *inject_rank, ranks, ranks == 1 ? "" : "s", ranks - 1);
    }
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
    ranks_setup(&p, opt.n, (int)opt.quiet);
    if (inject_rank >= p.ranks) { /* a launcher that did not say how many ranks (launched_ranks) */
        if (p.rank == 0)
            fprintf(stderr, "ch11: error: --inject '%s': there is no rank %lld: this run has %d ranks\n", inject,
                    inject_rank, p.ranks);
        ranks_teardown(&p);
        MPI_Finalize();
        return CLI_EXIT_USAGE;
    }
    p.inject = p.rank == inject_rank ? inject_kind : 0;
    char device[256];
    report rep;
    report_begin(&rep, &p, &opt, device, sizeof device);
    int all_ok = 1;
    const rank_stage *last = NULL;
    for (size_t i = 0; i < STAGE_COUNT; i++) {
        const char *why = stage_skipped(&p, &stages[i]);
        if (!cli_stage_selected(&opt, i))
            continue;
        if (why) {
            if (!opt.quiet && p.rank == 0)
                fprintf(stderr, "ch11: %s skipped: %s\n", stages[i].info.name, why);
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
    if (phases_path && p.rank == 0 && !write_phases(phases_path, all_ok))
        all_ok = 0;
    ranks_teardown(&p);
    MPI_CHECK(MPI_Finalize());
    return all_ok ? EXIT_OK : EXIT_CHECK_FAIL;
}
