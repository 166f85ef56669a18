/* rows.c - the stages run as rows: the CPU stages in one table, the GPU
 * stages in another, each stage measured as every chapter's are
 * (common/measure.h) with its rate and its share of the FMA ceiling measured
 * in the same run, and the ceilings as rows of their own (check n/a). A CPU
 * stage's timed runs take turns with runs of the ceiling's kernel doing the
 * flops the stage counts (the ruler): its share of those, run for run, sees
 * the host as the stage saw it (a virtual machine's clock drifts by a fifth
 * within a run). */
#include "stages.h"

#include "../../common/cpu_ceiling.h"
#include "../../common/cuda_util.h"
#include "../../common/gpu/ceiling.h"
#include "../../common/measure.h"
#include "../../common/timer.h"

#include <math.h>
#include <stdlib.h>

/* The flops a run of the stage counts: 20 an interaction, n^2 a step. */
static double run_flops(const problem *p)
{
    return FLOPS_PER_INTERACTION * (double)p->n * p->n * p->steps;
}

/* What a ruler's pass must count, from cpu_ceiling.h's promise, not its
 * code: the stage's flops to the nearest whole iteration, at least one (a
 * stage of one body is less than an iteration). */
static double pass_flops(const problem *p)
{
    double iteration = cpu_fma_iteration_flops(p->fma), whole = floor(run_flops(p) / iteration + 0.5);
    return iteration * (whole > 1 ? whole : 1);
}

/* The host's FMA ceiling's kernel, the stage's flops: the ruler a CPU
 * stage's runs take turns with; returns the flops its threads counted. */
static double fma_ceiling_pass(void *context)
{
    problem *p = context;
    return cpu_fma_ceiling_pass(p->fma, run_flops(p));
}

/* Measures stage s on p's bodies and adds its row (ms per step); with p->fma,
 * each timed run followed by one of the ceiling's kernel (m->share). */
static report_row *measure_row(report *rep, problem *p, const stage *s, const rows_plan *plan, const char *device,
                               double peak_gflops, measure_result *share)
{
    p->s = s;
    output_run out;
    if (s->output) {
        output_begin(&out, s->output, &p->g, p->n, p->steps);
        p->out = &out;
    }
    measure_result m;
    measure_stage(&(measure_plan){.name = s->info.name, .reset = reset_bodies, .run = run_steps, .check = check_forces, .context = p,
                                  .timer = s->info.where == STAGE_GPU ? cuda_time_ms : NULL,
                                  .repeat = (int)plan->opt->repeat, .ruler = p->fma ? fma_ceiling_pass : NULL,
                                  .ruler_work = p->fma ? pass_flops(p) : 0},
                  &m);
    if (s->output) {
        if (plan->timeline)
            output_trace(&out, p, s->info.name, plan->timeline);
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
    if (share)
        *share = m;
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
 * the problem's n^2 interactions, as the GPU's. (common/cpu_ceiling.h's
 * cpu_fma_ceiling_row times a repetition instead: ch07's row keeps the
 * stages' time scale.) */
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

/* A CPU row's shares: of the ceiling on its threads, and of the ruler's runs
 * taken in turn, with the flops the ruler's threads counted a run (a ruler
 * that strayed from a pass's flops failed the row: measure.h). */
static void note_ruler(report_row *row, const problem *p, const measure_result *m)
{
    report_note(row, ", %.1f%% of the host's FMA ceiling on %d thread%s (%.1f%% (%.1f-%.1f) of its kernel's runs of "
                "the stage's flops to a whole iteration, %.0f a run, taken in turn with this stage's)",
                100 * row->value / p->fma->rate, p->fma->threads, p->fma->threads > 1 ? "s" : "",
                100 * m->share.median, 100 * m->share.lo, 100 * m->share.hi, m->ruler_counted);
}

/* The CPU stages this run selects, and of those the ones it measures (this
 * CPU has their ISA). */
static int cpu_stage_selected(const cli_options *opt, size_t i)
{
    return stages[i].info.where == STAGE_CPU && cli_stage_selected(opt, i);
}

static int cpu_stage_runs(const cli_options *opt, size_t i)
{
    return cpu_stage_selected(opt, i) && (!stages[i].supported || stages[i].supported());
}

/* The CPU stages at n bodies, each against the host's FMA ceiling measured
 * here on as many threads as the stage ran (only the ceilings some stage
 * needs: one thread, all of them); returns 1 if all checked ok. */
int run_cpu_rows(const rows_plan *plan, int n)
{
    const cli_options *opt = plan->opt;
    report rep;
    problem p;
    begin_group(&rep, &p, n, opt);
    int need_one = 0, need_all = 0;
    for (size_t i = 0; i < STAGE_COUNT; i++)
        if (cpu_stage_runs(opt, i))
            need_one |= !stages[i].info.all_cores, need_all |= stages[i].info.all_cores;
    cpu_ceiling one = {0}, all = {0};
    if (plan->ceilings && need_one)
        one = cpu_fma_ceiling(1, 5);
    if (plan->ceilings && need_all)
        all = cpu_fma_ceiling((int)opt->threads, 5);
    for (size_t i = 0; i < STAGE_COUNT; i++) {
        const stage *s = &stages[i];
        if (!cpu_stage_selected(opt, i))
            continue;
        if (!cpu_stage_runs(opt, i)) {
            fprintf(stderr, "ch07: %s needs AVX2 and FMA, which this CPU lacks: skipped\n", s->info.name);
            continue;
        }
        const cpu_ceiling *fma = s->info.all_cores ? &all : &one;
        p.fma = fma->rate > 0 ? fma : NULL;
        measure_result m;
        report_row *row = measure_row(&rep, &p, s, plan, host_cpu_name(), 0, &m);
        if (p.fma)
            note_ruler(row, &p, &m);
        p.fma = NULL;
        if (s->note)
            s->note(row);
    }
    if (one.rate > 0)
        add_cpu_ceiling(&rep, &p, one);
    if (all.rate > 0)
        add_cpu_ceiling(&rep, &p, all);
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
int run_gpu_rows(const rows_plan *plan, int n, int devices)
{
    const cli_options *opt = plan->opt;
    cuda_require_device(plan->spec, (int)opt->device);
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
     * (the multi-GPU rows, on several GPUs, get none). */
    gpu_ceiling fma = {0};
    if (plan->ceilings)
        fma = gpu_fma_ceiling();
    for (size_t i = 0; i < STAGE_COUNT; i++) {
        const stage *s = &stages[i];
        if (s->info.where == STAGE_CPU || !cli_stage_selected(opt, i))
            continue;
        int all = s->info.where == STAGE_ALL_GPUS;
        if (all && !opt->quiet && devices == 1)
            fprintf(stderr, "ch07: %s: this machine has one GPU, so it runs on one\n", s->info.name);
        report_row *row = measure_row(&rep, &p, s, plan, info.name, all ? 0 : fma.rate, NULL);
        if (s->note)
            s->note(row);
    }
    if (plan->ceilings)
        add_gpu_ceiling(&rep, n, &fma, &info);
    CUDA_CHECK(cudaFree(p.g.d_b));
    CUDA_CHECK(cudaFree(p.g.d_v));
    CUDA_CHECK(cudaFree(p.g.d_a));
    return end_group(&rep, &p);
}
