/* ch07 - all-pairs N-body: from scalar CPU code to tiled GPU kernels and
 * several GPUs. The compute-bound counterpart of ch06.
 *
 *   make ch07 && ./ch07                        # n = 2^17 on the GPU, 2 steps
 *   ./ch07 --n 65537 --stage gpu-tiled-unrolled
 *
 * Every stage computes the accelerations of the same fixed-seed bodies
 * (the N-body core, common/nbody/nbody.h), checked against a double-precision
 * reference (common/nbody/check.c derives the bound).
 *
 * Each stage is measured as every chapter's are (common/measure.h): --steps
 * steps of leapfrog (forces, then v += a dt, p += v dt) from the initial
 * state, a checked warm-up, --repeat timed runs (median, spread), a checked
 * run after; each check recomputes the forces on the initial bodies (steps.c).
 * Rates: GFLOP/s at 20 flops per interaction, n^2 interactions a step (the
 * symmetric stage does half and is credited with n^2: same work done).
 * CPU stages run at n = min(n, 16384) to keep them to seconds (--cpu-n sets
 * it: make bench runs cpu-simd-threads at the GPU's n too, so the headline
 * compares the two at one n where the GPU is full).
 * The shares are of ceilings measured in the same run: the host's FMA ceiling
 * (common/cpu_ceiling.h) for the CPU stages, with their share of its kernel's
 * runs taken in turn with theirs (rows.c), the GPU's (common/gpu/ceiling.h:
 * independent FMA chains, each timed run at least 50 ms, the SM clock it ran
 * at measured) for the GPU stages; --ceiling no skips them.
 * Without a CUDA device the CPU stages run and the exit status is 3.
 * The rows are run by rows.c; this file parses and decides what runs.
 */
#include "stages.h"

#include "../../common/cuda_util.h"
#include "../../common/image.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define CPU_MAX_N 16384

/* --timeline FILE: each output stage's steps once more, traced (output.h),
 * as CSV; written (temporary file, then renamed) only if every check passed,
 * and only over a file that is such a CSV (or empty): nothing else of yours. */
#define TIMELINE_HEADER "stage,step,lane,what,start_ms,end_ms"
static const output_kind timeline_kind = {KIND_CSV, TIMELINE_HEADER, 0};
static const char *timeline_path;
static long cpu_n = 0; /* --cpu-n: the CPU stages' n; 0: min(n, CPU_MAX_N) */
static const char *ceiling = "yes"; /* --ceiling no: no ceilings, no shares of them (runs at many n) */
static const cli_option options[] = {
    {"timeline", "FILE", "write each output stage's traced steps as CSV (" TIMELINE_HEADER ")",
     .text = &timeline_path},
    {"cpu-n", "N", "the CPU stages' number of bodies (default min(n, 16384)); make bench runs cpu-simd-threads "
                   "at the GPU's n with it, to compare the two at one size", .min = 1, .max = 1 << 24,
     .number = &cpu_n},
    {"ceiling", "yes|no", "measure the FMA ceilings, the host's and the GPU's (default yes; no: the notes give no "
                          "% of them)", .text = &ceiling},
};

static const cli_spec spec = {
    .program = "ch07",
    .summary = "all-pairs N-body: scalar, AVX2 and threaded CPU, naive/tiled/unrolled/symmetric GPU, several GPUs",
    .accepts = CLI_N | CLI_STEPS | CLI_THREADS | CLI_REPEAT | CLI_DEVICE | CLI_STAGE | CLI_CSV | CLI_QUIET,
    CLI_STAGE_TABLE(stages),
    CLI_OPTION_TABLE(options),
    .notes = "--n is the number of bodies: default 2^17 (GPU stages; CPU stages use min(n, 16384)),\n"
             "--steps 2, --repeat 3. Rates count 20 flops per interaction. Forces are checked against\n"
             "a double-precision reference on every body up to n = 16384, above it on 2^28 / n of them\n"
             "(bound, from the observed error and a margin, in common/nbody/check.c).\n"
             "Without a CUDA device the CPU stages run and the exit status is 3.",
};

int main(int argc, char **argv)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    cli_options opt = {.n = 1 << 17, .steps = 2, .repeat = 3, .threads = cores > 0 ? cores : 1};
    cli_parse(&spec, &opt, argc, argv);
    if (strcmp(ceiling, "yes") != 0 && strcmp(ceiling, "no") != 0)
        cli_usage_error(&spec, "--ceiling '%s': yes or no", ceiling);
    rows_plan plan = {.spec = &spec, .opt = &opt, .ceilings = strcmp(ceiling, "yes") == 0};
    if (opt.n > (1 << 24))
        cli_usage_error(&spec, "--n %lld is too large: an all-pairs step grows as n^2 (at most 16777216)", opt.n);
    int n = (int)opt.n, want_gpu = 0, want_cpu = 0, all_ok = 1;
    if (timeline_path)
        cli_require_output(&spec, "--timeline", timeline_path, &timeline_kind);
    for (size_t i = 0; i < STAGE_COUNT; i++)
        if (cli_stage_selected(&opt, i)) {
            want_gpu |= stages[i].info.where != STAGE_CPU;
            want_cpu |= stages[i].info.where == STAGE_CPU;
        }
    char why[256]; /* --device K is checked before the CPU stages run: an error comes first */
    int devices = want_gpu ? cuda_check_device_option(&spec, opt.device, why, sizeof why) : 0;
    cli_begin_work(&spec);
    if (want_cpu)
        all_ok &= run_cpu_rows(&plan, cpu_n ? (int)cpu_n : n < CPU_MAX_N ? n : CPU_MAX_N);
    if (!want_gpu)
        return all_ok ? EXIT_OK : EXIT_CHECK_FAIL;
    if (devices == 0) {
        fprintf(stderr, "ch07: no CUDA device found (%s): the GPU stages were not run (exit status %d)\n",
                why, EXIT_NO_GPU);
        return all_ok ? EXIT_NO_GPU : EXIT_CHECK_FAIL;
    }
    char err[IMAGE_ERROR_SIZE];
    if (timeline_path) { /* opened only now: nothing is left behind where no GPU stage runs */
        plan.timeline = file_write_begin(timeline_path, &timeline_kind, err, sizeof err);
        if (!plan.timeline || fputs(TIMELINE_HEADER "\n", plan.timeline) < 0) {
            fprintf(stderr, "ch07: --timeline: %s\n", plan.timeline ? timeline_path : err);
            return EXIT_CHECK_FAIL;
        }
    }
    all_ok &= run_gpu_rows(&plan, n, devices);
    if (plan.timeline &&
        file_write_end(plan.timeline, all_ok && !ferror(plan.timeline), timeline_path, err, sizeof err) != 0) {
        fprintf(stderr, "ch07: --timeline %s not written%s%s\n", timeline_path, all_ok ? ": " : " (a check failed)",
                all_ok ? err : "");
        all_ok = 0;
    }
    return all_ok ? EXIT_OK : EXIT_CHECK_FAIL;
}
