/* ch07 - all-pairs N-body: from scalar CPU code to tiled GPU kernels and
 * several GPUs. The compute-bound counterpart of ch06.
 *
 *   make ch07 && ./ch07                        # n = 2^17 on the GPU, 2 steps
 *   ./ch07 --n 65537 --stage gpu-tiled-unrolled
 *
 * Every stage computes the accelerations of the same fixed-seed bodies
 * (nbody.h), checked against a double-precision reference (check.c derives
 * the bound).
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
 * (common/cpu_ceiling.h) for the CPU stages, the GPU's (common/gpu/ceiling.h:
 * independent FMA chains, each timed run at least 50 ms, the SM clock it ran
 * at measured) for the GPU stages; --ceiling no skips them.
 * Without a CUDA device the CPU stages run and the exit status is 3.
 */
#include "nbody.h"
#include "output.h"
#include "stages.h"

#include "../../common/cli.h"
#include "../../common/cpu_ceiling.h"
#include "../../common/image.h"
#include "../../common/cuda_util.h"
#include "../../common/gpu/ceiling.h"
#include "../../common/measure.h"
#include "../../common/report.h"
#include "../../common/timer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CPU_MAX_N 16384

/* --timeline FILE: each output stage's steps once more, traced (output.h),
 * as CSV; written (temporary file, then renamed) only if every check passed. */
static const char *timeline_path;
static FILE *timeline;
static long cpu_n = 0; /* --cpu-n: the CPU stages' n; 0: min(n, CPU_MAX_N) */
static const char *ceiling = "yes"; /* --ceiling no: no ceilings, no shares of them (runs at many n) */
static int measure_ceilings;
static const cli_option options[] = {
    {"timeline", "FILE", "write each output stage's traced steps as CSV (stage,step,lane,what,start_ms,end_ms)",
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
             "(bound, from the observed error and a margin, in chapters/ch07_nbody/check.c).\n"
             "Without a CUDA device the CPU stages run and the exit status is 3.",
};

/* Measures stage s on p's bodies and adds its row (ms per step). */
static report_row *measure_row(report *rep, problem *p, const stage *s, int repeat, const char *device,
                               double peak_gflops)
{
    p->s = s;
    output_run out;
    if (s->output) {
        output_begin(&out, s->output, &p->g, p->n, p->steps);
        p->out = &out;
    }
    measure_result m;
    measure_stage(&(measure_plan){.reset = reset_bodies, .run = run_steps, .check = check_forces, .context = p,
                                  .timer = s->info.where == STAGE_GPU ? cuda_time_ms : NULL, .repeat = repeat}, &m);
    if (s->output) {
        if (timeline)
            output_trace(&out, p, s->info.name, timeline);
        output_end(&out);
        p->out = NULL;
    }
    m.times.median /= p->steps, m.times.lo /= p->steps, m.times.hi /= p->steps;
    double n2 = (double)p->n * p->n, gflops = FLOPS_PER_INTERACTION * n2 / (m.times.median * 1e-3) * 1e-9;
    int threads = s->info.where == STAGE_GPU ? REPORT_ON_GPU : s->info.where == STAGE_ALL_GPUS ? p->devices
                  : s->info.all_cores ? p->threads : 1;
    report_row *row = report_measured(rep, s->info.name, threads, &m, gflops, "GFLOP/s", device);
    report_note(row, ", %.3g interactions/s", n2 / (m.times.median * 1e-3));
    if (peak_gflops > 0)
        report_note(row, ", %.1f%% of the FMA ceiling", 100 * gflops / peak_gflops);
    return row;
}

/* Sets up one group of stages (CPU or GPU): its report, and n bodies with
 * their reference forces. */
static void begin_group(report *rep, problem *p, int n, const cli_options *opt)
{
    char workload[64];
    snprintf(workload, sizeof workload, "n=%d steps=%ld", n, opt->steps);
    report_init(rep, "ch07", workload, opt->csv, opt->quiet);
    *p = (problem){.n = n, .steps = (int)opt->steps, .threads = (int)opt->threads};
    p->b = cli_alloc((size_t)n * sizeof(body), "the bodies");
    p->v = cli_alloc((size_t)n * sizeof(vec3), "the velocities");
    p->a = cli_alloc((size_t)n * sizeof(vec3), "the accelerations");
    nbody_init(p->b, p->v, n);
    make_reference(&p->ref, p->b, n);
}

static int end_group(report *rep, problem *p)
{
    report_print(rep, stdout);
    free(p->b);
    free(p->v);
    free(p->a);
    free_reference(&p->ref);
    return report_all_ok(rep);
}

/* The host's FMA ceiling as a row of its own (check n/a), in ms per step of
 * the problem's n^2 interactions, as the GPU's. */
static void add_cpu_ceiling(report *rep, const problem *p, cpu_ceiling c)
{
    char note[160];
    snprintf(note, sizeof note, "measured: independent FMA chains at %s, no memory, best of 5 runs of at least "
             "%.0f ms", c.isa, CPU_CEILING_MIN_MS);
    report_add(rep, (report_entry){.stage = "ceiling-cpu-fma", .threads = c.threads,
                                   .ms = FLOPS_PER_INTERACTION * (double)p->n * p->n / (c.rate * 1e9) * 1e3,
                                   .value = c.rate, .unit = "GFLOP/s", .ok = REPORT_NO_CHECK,
                                   .device = host_cpu_name(), .note = note});
}

/* The CPU stages at n bodies, each against the host's FMA ceiling measured
 * here on as many threads as the stage ran; returns 1 if all checked ok. */
static int run_cpu_stages(const cli_options *opt, int n)
{
    report rep;
    problem p;
    begin_group(&rep, &p, n, opt);
    cpu_ceiling one = {0}, all = {0};
    if (measure_ceilings)
        one = cpu_fma_ceiling(1, 5), all = cpu_fma_ceiling((int)opt->threads, 5);
    for (size_t i = 0; i < STAGE_COUNT; i++) {
        const stage *s = &stages[i];
        if (s->info.where != STAGE_CPU || !cli_stage_selected(opt, i))
            continue;
        if (s->run != cpu_scalar_forces && !cpu_simd_supported()) {
            fprintf(stderr, "ch07: %s needs AVX2 and FMA, which this CPU lacks: skipped\n", s->info.name);
            continue;
        }
        report_row *row = measure_row(&rep, &p, s, (int)opt->repeat, host_cpu_name(), 0);
        double ceiling = s->info.all_cores ? all.rate : one.rate;
        if (ceiling > 0)
            report_note(row, ", %.1f%% of the host's FMA ceiling on %d thread%s", 100 * row->value / ceiling,
                        s->info.all_cores ? all.threads : 1, s->info.all_cores && all.threads > 1 ? "s" : "");
        if (s->run == cpu_avx512_threads_forces)
            report_note(row, "; ran with %s", strcmp(cpu_widest_isa(), "avx512") == 0 ? "AVX-512" : "AVX2 (no AVX-512)");
    }
    if (measure_ceilings) {
        add_cpu_ceiling(&rep, &p, one);
        add_cpu_ceiling(&rep, &p, all);
    }
    return end_group(&rep, &p);
}

/* The GPU's FMA ceiling as a row of its own (check n/a), in ms per step of
 * the problem's n^2 interactions, with the clock it ran at and the data
 * sheet's peak at that clock (2 x FP32 lanes x SMs x clock) beside it. */
static void add_gpu_ceiling(report *rep, int n, const gpu_ceiling *c, const cuda_device_info *info)
{
    report_entry e = {.stage = "ceiling-fp32-peak", .threads = REPORT_ON_GPU, .value = c->rate, .unit = "GFLOP/s",
                      .ms = FLOPS_PER_INTERACTION * (double)n * n / (c->rate * 1e9) * 1e3, .ok = REPORT_NO_CHECK,
                      .device = info->name};
    report_note(report_add(rep, e), "measured: %s, no memory, best of %d runs of %.0f ms after a warm-up; ran at %d "
                "MHz on %d SMs: %.1f%% of the data sheet's %.0f at that clock (the data sheet's: %.0f at %d MHz)",
                c->config, c->repeats, c->rep_ms, c->ran_mhz, info->sms, c->other > 0 ? 100 * c->rate / c->other : 0,
                c->other, info->fp32_peak_gflops, c->max_clock_mhz);
}

/* The GPU stages at n bodies on `devices` GPUs; returns 1 if all checked ok. */
static int run_gpu_stages(const cli_options *opt, int n, int devices)
{
    cuda_require_device(&spec, (int)opt->device);
    cuda_device_info info;
    cuda_describe_device((int)opt->device, &info);
    if (!opt->quiet)
        cuda_print_device(stderr, (int)opt->device, &info);
    report rep;
    problem p;
    begin_group(&rep, &p, n, opt);
    p.devices = devices;
    CUDA_CHECK(cudaMalloc((void **)&p.g.d_b, (size_t)n * sizeof(body)));
    CUDA_CHECK(cudaMalloc((void **)&p.g.d_v, (size_t)n * sizeof(vec3)));
    CUDA_CHECK(cudaMalloc((void **)&p.g.d_a, (size_t)n * sizeof(vec3)));
    /* The ceiling, measured in this run (a reference, check n/a): the best
     * rate of a plain kernel of FMAs on this GPU. Shares in the notes are of it
     * (the multi-gpu row, on several GPUs, gets none). */
    gpu_ceiling fma = {0};
    if (measure_ceilings)
        fma = gpu_fma_ceiling();
    for (size_t i = 0; i < STAGE_COUNT; i++) {
        const stage *s = &stages[i];
        if (s->info.where == STAGE_CPU || !cli_stage_selected(opt, i))
            continue;
        int all = s->info.where == STAGE_ALL_GPUS;
        if (all && !opt->quiet && devices == 1)
            fprintf(stderr, "ch07: multi-gpu: this machine has one GPU, so it runs on one\n");
        measure_row(&rep, &p, s, (int)opt->repeat, info.name, all ? 0 : fma.rate);
    }
    if (measure_ceilings)
        add_gpu_ceiling(&rep, n, &fma, &info);
    CUDA_CHECK(cudaFree(p.g.d_b));
    CUDA_CHECK(cudaFree(p.g.d_v));
    CUDA_CHECK(cudaFree(p.g.d_a));
    return end_group(&rep, &p);
}

int main(int argc, char **argv)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    cli_options opt = {.n = 1 << 17, .steps = 2, .repeat = 3, .threads = cores > 0 ? cores : 1};
    cli_parse(&spec, &opt, argc, argv);
    if (strcmp(ceiling, "yes") != 0 && strcmp(ceiling, "no") != 0)
        cli_usage_error(&spec, "--ceiling '%s': yes or no", ceiling);
    measure_ceilings = strcmp(ceiling, "yes") == 0;
    if (opt.n > (1 << 24))
        cli_usage_error(&spec, "--n %lld is too large: an all-pairs step grows as n^2 (at most 16777216)", opt.n);
    int n = (int)opt.n, want_gpu = 0, want_cpu = 0, all_ok = 1;
    if (timeline_path)
        cli_require_writable(&spec, "--timeline", timeline_path);
    for (size_t i = 0; i < STAGE_COUNT; i++)
        if (cli_stage_selected(&opt, i)) {
            want_gpu |= stages[i].info.where != STAGE_CPU;
            want_cpu |= stages[i].info.where == STAGE_CPU;
        }
    char why[256]; /* --device K is checked before the CPU stages run: an error comes first */
    int devices = want_gpu ? cuda_check_device_option(&spec, opt.device, why, sizeof why) : 0;
    cli_begin_work(&spec);
    if (want_cpu)
        all_ok &= run_cpu_stages(&opt, cpu_n ? (int)cpu_n : n < CPU_MAX_N ? n : CPU_MAX_N);
    if (!want_gpu)
        return all_ok ? EXIT_OK : EXIT_CHECK_FAIL;
    if (devices == 0) {
        fprintf(stderr, "ch07: no CUDA device found (%s): the GPU stages were not run (exit status %d)\n",
                why, EXIT_NO_GPU);
        return all_ok ? EXIT_NO_GPU : EXIT_CHECK_FAIL;
    }
    char err[IMAGE_ERROR_SIZE];
    if (timeline_path) { /* opened only now: nothing is left behind where no GPU stage runs */
        timeline = file_write_begin(timeline_path, err, sizeof err);
        if (!timeline || fputs("stage,step,lane,what,start_ms,end_ms\n", timeline) < 0) {
            fprintf(stderr, "ch07: --timeline: %s\n", timeline ? timeline_path : err);
            return EXIT_CHECK_FAIL;
        }
    }
    all_ok &= run_gpu_stages(&opt, n, devices);
    if (timeline && file_write_end(timeline, all_ok && !ferror(timeline), timeline_path, err, sizeof err) != 0) {
        fprintf(stderr, "ch07: --timeline %s not written%s%s\n", timeline_path, all_ok ? ": " : " (a check failed)",
                all_ok ? err : "");
        all_ok = 0;
    }
    return all_ok ? EXIT_OK : EXIT_CHECK_FAIL;
}
