/* ch06 - parallel reduction: sum 2^28 int32 values, from a CPU loop to the
 * GPU's memory-bandwidth limit.
 *
 *   make ch06 && ./ch06                   # all stages, n = 2^28 (1 GiB of input)
 *   ./ch06 --n 1000003 --stage vector-shuffle   # one stage, another size
 *
 * Input: int32 values in [-128, 127] from a fixed-seed generator (xorshift64*,
 * seed 0x5EED06), so every stage's int64 sum is exact and must equal the one
 * computed while generating the data. Each stage is measured as every
 * chapter's are (common/measure.h): a checked warm-up, --repeat timed runs
 * (CUDA events on the GPU; median and spread), a checked run after. The rate
 * is GB/s of input read. Its ceiling, measured in the same run, only reads: a
 * streaming kernel over the stages' own input (at least 256 MiB), 16-byte
 * loads, the best of ~130 loads-in-flight, block and grid configurations (its
 * row's note names the winner). The % is of that ceiling;
 * device-to-device cudaMemcpy (read plus written) is a second reference. Both
 * are CSV rows (check n/a): the book draws them as lines. Two more rows give
 * DRAM's latency, idle and under load (a pointer chase on each SM while the
 * rest of the GPU streams reads): Little's law with the loaded one says how
 * many bytes a kernel must keep in flight. The ceilings are common/gpu/'s,
 * each timed repetition at least 50 ms. The CPU stages have the host's own
 * read ceiling (common/cpu_ceiling.h), and each of their timed runs is
 * followed by one pass of that ceiling's kernel: the share that pairs give
 * sees one host, not one that drifted since the ceiling was measured.
 * Without a CUDA device the CPU stages
 * run, one line says the GPU ones did not; exit status 3.
 */
#include "run.h"
#include "stages.h"

#include "../../common/cli.h"
#include "../../common/cpu_ceiling.h"
#include "../../common/gpu/ceiling.h"
#include "../../common/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HOST_REPEAT 5 /* the host's read ceiling: the best of 5 runs */

/* --ceiling no: no ceilings' search (seconds; minutes under make sanitize). */
static const char *ceiling = "yes";
static const cli_option options[] = {
    {"ceiling", "yes|no", "measure the ceilings: read, copy, latency idle and loaded (default yes; no: the notes "
                          "give no %)",
     .text = &ceiling, .choices = cli_yes_no, .choice_count = 2},
};

static const cli_spec spec = {
    .program = "ch06",
    .summary = "parallel reduction: sum n int32 values into int64, CPU and GPU, against the read bandwidth",
    .accepts = CLI_N | CLI_THREADS | CLI_REPEAT | CLI_DEVICE | CLI_STAGE | CLI_CSV | CLI_QUIET,
    CLI_STAGE_TABLE(stages),
    CLI_OPTION_TABLE(options),
    .notes = "--n is the number of int32 elements: default 2^28 (268435456, 1 GiB); --threads is for\n"
             "cpu-threads (default: all cores); --repeat defaults to 20 timed runs per GPU stage\n"
             "(5 per CPU stage). GPU stages' % is of a read-only streaming kernel measured in the\n"
             "same run; without a CUDA device the CPU stages run and the exit status is 3.",
};

int main(int argc, char **argv)
{
    cli_options opt = {.n = 1LL << 28, .repeat = 0, .threads = cli_online_cpus()};
    cli_parse(&spec, &opt, argc, argv);
    size_t n = (size_t)opt.n;
    char needs[64];
    snprintf(needs, sizeof needs, "--n %lld", opt.n);
    cli_check_host_memory(&spec, n * sizeof(int), needs);
    int want_gpu = cli_selected_where(&spec, &opt, STAGE_GPU) > 0;
    gpu_state g = {.ceilings = strcmp(ceiling, "yes") == 0};
    int found_gpu = want_gpu && gpu_check(&g, &spec, n, opt.device);
    cli_begin_work(&spec);
    int *in = cli_alloc(n * sizeof(int), "the input");
    long long expected = reduce_fill(in, n);
    int have_gpu = want_gpu && gpu_setup(&g, &spec, &opt, in, n, found_gpu);

    /* The host's own read ceiling, over the same input, on the same threads. */
    cpu_ceiling host = {0};
    if (cli_selected_where(&spec, &opt, STAGE_CPU) && g.ceilings && n > 0)
        host = cpu_read_ceiling_said(spec.program, in, n * sizeof(int), (int)opt.threads, HOST_REPEAT, opt.quiet);

    char workload[64];
    snprintf(workload, sizeof workload, "n=%lld", opt.n);
    report rep;
    report_init(&rep, spec.program, workload, opt.csv, opt.quiet);
    for (size_t i = 0; i < STAGE_COUNT; i++) {
        const stage *s = &stages[i];
        if (!cli_stage_selected(&opt, i) || (s->info.where == STAGE_GPU && !have_gpu))
            continue;
        run r = {&s->info, s->run, &g, in, n, expected, 0, {.threads = s->info.all_cores ? (int)opt.threads : 1}, &host};
        run_measure(&rep, &r, (int)opt.repeat);
    }
    if (host.rate > 0)
        cpu_read_ceiling_row(&rep, &host, HOST_REPEAT);
    if (have_gpu && g.ceilings)
        gpu_memory_ceiling_rows(&rep, &g.ceil, (double)n * sizeof(int), g.info.name, g.info.sms);
    report_print(&rep, stdout);
    free(in);
    if (!report_all_ok(&rep))
        return EXIT_CHECK_FAIL;
    return want_gpu && !have_gpu ? EXIT_NO_GPU : EXIT_OK;
}
