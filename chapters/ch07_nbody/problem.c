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
 * run after; each check recomputes the forces on the initial bodies.
 * Rates: GFLOP/s at 20 flops per interaction, n^2 interactions a step (the
 * symmetric stage does half and is credited with n^2: same work done).
 * Two tables (common/program.h runs them): the CPU stages at
 * n = min(n, 16384), to keep them to seconds (--cpu-n sets it: make bench
 * runs cpu-simd-threads at the GPU's n too, so the headline compares the two
 * at one n where the GPU is full), then the GPU stages at n.
 * The shares are of ceilings measured in the same run, rows of their own
 * (check n/a): the host's FMA ceiling (common/cpu_ceiling.h) for the CPU
 * stages, whose timed runs take turns with runs of its kernel doing the flops
 * the stage counts (the ruler: its share of those, run for run, sees the host
 * as the stage saw it; a virtual machine's clock drifts by a fifth within a
 * run), the GPU's (common/gpu/ceiling.h: independent FMA chains, each timed
 * run at least 50 ms, the SM clock it ran at measured) for the GPU stages;
 * --ceiling no skips them.
 * Without a CUDA device the CPU stages run and the exit status is 3.
 */
#include "problem.h"
#include "stages.h"

#include "../../common/cpu_ceiling.h"
#include "../../common/gpu/ceiling.h"
#include "../../common/image.h"
#include "../../common/measure.h"
#include "../../common/nbody/nbody_gpu.h"
#include "../../common/program.h"
#include "../../common/program_cuda.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CPU_MAX_N 16384
enum { CPU_TABLE, GPU_TABLE };

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

/* The table being run: its bodies, and the ceilings measured for it. */
static problem bodies;
static cpu_ceiling cpu_one, cpu_all; /* the CPU table's: on one thread, on --threads (rate 0: not measured) */
static gpu_ceiling gpu_fma;          /* the GPU table's (rate 0: not measured) */
static FILE *timeline;               /* --timeline's file, open while the GPU table runs */
static int ceilings;                 /* --ceiling yes */

/* ch07's own usage errors, before any work (program.h). */
static void validate(program_run *r)
{
    if (strcmp(ceiling, "yes") != 0 && strcmp(ceiling, "no") != 0)
        cli_usage_error(r->spec, "--ceiling '%s': yes or no", ceiling);
    ceilings = strcmp(ceiling, "yes") == 0;
    if (r->opt.n > (1 << 24))
        cli_usage_error(r->spec, "--n %lld is too large: an all-pairs step grows as n^2 (at most 16777216)",
                        r->opt.n);
    if (timeline_path)
        cli_require_output(r->spec, "--timeline", timeline_path, &timeline_kind);
}

/* Two tables: the CPU stages', then the GPU stages' (each its own n). */
static int table_of(const program_run *r, size_t i)
{
    (void)r;
    return stages[i].info.where == STAGE_CPU ? CPU_TABLE : GPU_TABLE;
}

/* A table's n: the GPU's --n; the CPU's --cpu-n, or min(n, CPU_MAX_N). */
static int table_n(const program_run *r, int table)
{
    int n = (int)r->opt.n;
    if (table == GPU_TABLE)
        return n;
    return cpu_n ? (int)cpu_n : n < CPU_MAX_N ? n : CPU_MAX_N;
}

static void workload(program_run *r, int table, char *buf, size_t size)
{
    snprintf(buf, size, "n=%d steps=%ld", table_n(r, table), r->opt.steps);
}

/* ---- one stage's run, as measure_stage resets, runs and checks it */

void reset_bodies(void *context)
{
    problem *p = context;
    nbody_init(p->b, p->v, p->n);
    if (p->s->info.where != STAGE_GPU)
        return;
    CUDA_CHECK(cudaMemcpy(p->g.d_b, p->b, (size_t)p->n * sizeof(body), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(p->g.d_v, p->v, (size_t)p->n * sizeof(vec3), cudaMemcpyHostToDevice));
}

/* --steps steps from the initial state (GPU: launched, not waited for). */
static void run_steps(void *context)
{
    problem *p = context;
    if (p->s->info.where == STAGE_ALL_GPUS) {
        multi_gpu_run(p->b, p->v, p->n, p->steps, DT, p->devices, p->a, p->s->multi); /* a: the first step's forces */
        return;
    }
    if (p->out) {
        output_steps(p->out, &p->g, DT);
        return;
    }
    for (int k = 0; k < p->steps; k++) {
        if (p->s->info.where == STAGE_CPU) {
            p->s->run(p->b, p->a, p->n, p->threads);
            nbody_integrate_cpu(p->b, p->v, p->a, p->n, DT);
        } else {
            p->s->run(p->g.d_b, p->g.d_a, p->n, 0);
            nbody_integrate_gpu(p->g.d_b, p->g.d_v, p->g.d_a, p->n, DT, 0);
        }
    }
}

/* The forces on the initial bodies, into p->a (the multi-gpu run's are its
 * first step's, there already). */
static void initial_forces(problem *p)
{
    if (p->s->info.where != STAGE_ALL_GPUS)
        reset_bodies(p);
    if (p->s->info.where == STAGE_CPU) {
        p->s->run(p->b, p->a, p->n, p->threads);
    } else if (p->s->info.where == STAGE_GPU) {
        CUDA_CHECK(cudaMemset(p->g.d_a, 0xFF, (size_t)p->n * sizeof(vec3))); /* poison: NaN */
        p->s->run(p->g.d_b, p->g.d_a, p->n, 0);
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaMemcpy(p->a, p->g.d_a, (size_t)p->n * sizeof(vec3), cudaMemcpyDeviceToHost));
    }
}

/* The bodies moved stay finite, an output stage's steps were read as a plain
 * run's, and the forces on the initial bodies are within the bound of the
 * reference. */
static int check_forces(void *context, char *note, size_t size)
{
    problem *p = context;
    if (p->s->info.where == STAGE_GPU)
        CUDA_CHECK(cudaMemcpy(p->b, p->g.d_b, (size_t)p->n * sizeof(body), cudaMemcpyDeviceToHost));
    int moved_ok = positions_finite(p->b, p->n), output_ok = 1;
    char output_note[160] = "";
    if (p->out) {
        reset_bodies(p);
        output_ok = output_check(p->out, p, output_note, sizeof output_note);
    }
    initial_forces(p);
    double err = force_error(&p->ref, p->a);
    snprintf(note, size, "%serror %.2g (bound %.2g)%s", output_note, err, error_bound(p->n),
             moved_ok ? "" : ", positions not finite");
    return moved_ok && output_ok && err <= error_bound(p->n);
}

/* ---- the CPU stages' ruler: the host's FMA ceiling's kernel */

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

/* ---- the rows */

/* Measures stage s on the table's bodies and adds its row (ms per step);
 * with p->fma, each timed run followed by one of the ceiling's kernel
 * (m->share). An output stage's steps are traced once more for --timeline. */
static report_row *measure_row(program_run *r, const stage *s, const char *device, double peak_gflops,
                               measure_result *m)
{
    problem *p = &bodies;
    p->s = s;
    output_run out;
    if (s->output) {
        output_begin(&out, s->output, &p->g, p->n, p->steps);
        p->out = &out;
    }
    measure_stage(&(measure_plan){.name = s->info.name, .reset = reset_bodies, .run = run_steps,
                                  .check = check_forces, .context = p,
                                  .timer = s->info.where == STAGE_GPU ? cuda_time_ms : NULL,
                                  .repeat = (int)r->opt.repeat, .ruler = p->fma ? fma_ceiling_pass : NULL,
                                  .ruler_work = p->fma ? pass_flops(p) : 0},
                  m);
    if (s->output) {
        if (timeline) {
            reset_bodies(p);
            output_trace(&out, p, s->info.name, timeline);
        }
        output_end(&out);
        p->out = NULL;
    }
    m->times.median /= p->steps, m->times.lo /= p->steps, m->times.hi /= p->steps;
    double n2 = (double)p->n * p->n, gflops = FLOPS_PER_INTERACTION * n2 / (m->times.median * 1e-3) * 1e-9;
    int threads = s->info.where == STAGE_GPU ? REPORT_ON_GPU : s->info.where == STAGE_ALL_GPUS ? p->devices
                  : s->info.all_cores ? p->threads : 1;
    report_row *row = report_measured(r->rep, s->info.name, threads, m, gflops, "GFLOP/s", device);
    report_note(row, ", %.3g interactions/s", n2 / (m->times.median * 1e-3));
    if (peak_gflops > 0)
        report_note(row, ", %.1f%% of the FMA ceiling", 100 * gflops / peak_gflops);
    return row;
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

/* A CPU stage's row, against the host's FMA ceiling on as many threads as
 * it ran; NULL where this CPU lacks its ISA (skipped, saying so). */
static report_row *cpu_row(program_run *r, const stage *s)
{
    if (s->supported && !s->supported()) {
        fprintf(stderr, "ch07: %s needs AVX2 and FMA, which this CPU lacks: skipped\n", s->info.name);
        return NULL;
    }
    const cpu_ceiling *fma = s->info.all_cores ? &cpu_all : &cpu_one;
    bodies.fma = fma->rate > 0 ? fma : NULL;
    measure_result m;
    report_row *row = measure_row(r, s, host_cpu_name(), 0, &m);
    if (bodies.fma)
        note_ruler(row, &bodies, &m);
    bodies.fma = NULL;
    return row;
}

/* A GPU stage's row, its share of the GPU's ceiling (the multi-GPU rows, on
 * several GPUs, get none). */
static report_row *gpu_row(program_run *r, const stage *s)
{
    int all = s->info.where == STAGE_ALL_GPUS;
    if (all && !r->opt.quiet && bodies.devices == 1)
        fprintf(stderr, "ch07: %s: this machine has one GPU, so it runs on one\n", s->info.name);
    measure_result m;
    return measure_row(r, s, r->device, all ? 0 : gpu_fma.rate, &m);
}

/* One stage's row, with its own note (stages.h's .note). */
static int run_stage(program_run *r, size_t i)
{
    const stage *s = &stages[i];
    report_row *row = s->info.where == STAGE_CPU ? cpu_row(r, s) : gpu_row(r, s);
    if (row && s->note)
        s->note(row);
    return 0;
}

/* ---- the tables: their bodies, ceilings and --timeline */

/* The CPU table's ceilings: only those some selected stage this CPU runs
 * needs (one thread, all of them). */
static void measure_cpu_ceilings(const program_run *r)
{
    int need_one = 0, need_all = 0;
    for (size_t i = 0; i < STAGE_COUNT; i++) {
        const stage *s = &stages[i];
        if (s->info.where == STAGE_CPU && cli_stage_selected(&r->opt, i) && (!s->supported || s->supported()))
            need_one |= !s->info.all_cores, need_all |= s->info.all_cores;
    }
    cpu_one = cpu_all = (cpu_ceiling){0};
    if (ceilings && need_one)
        cpu_one = cpu_fma_ceiling(1, 5);
    if (ceilings && need_all)
        cpu_all = cpu_fma_ceiling((int)r->opt.threads, 5);
}

/* --timeline's file, opened only now a GPU stage runs: nothing is left
 * behind where none does. */
static void open_timeline(void)
{
    char err[IMAGE_ERROR_SIZE];
    if (!timeline_path)
        return;
    timeline = file_write_begin(timeline_path, &timeline_kind, err, sizeof err);
    if (!timeline || fputs(TIMELINE_HEADER "\n", timeline) < 0) {
        fprintf(stderr, "ch07: --timeline: %s\n", timeline ? timeline_path : err);
        exit(EXIT_CHECK_FAIL);
    }
}

/* The GPU table: the device's copies of the bodies, and its ceiling (a
 * plain kernel of FMAs' best rate on this GPU). */
static void begin_gpu(void)
{
    char why[256];
    open_timeline();
    bodies.devices = cuda_device_count(why, sizeof why);
    CUDA_CHECK(cudaMalloc((void **)&bodies.g.d_b, (size_t)bodies.n * sizeof(body)));
    CUDA_CHECK(cudaMalloc((void **)&bodies.g.d_v, (size_t)bodies.n * sizeof(vec3)));
    CUDA_CHECK(cudaMalloc((void **)&bodies.g.d_a, (size_t)bodies.n * sizeof(vec3)));
    gpu_fma = (gpu_ceiling){0};
    if (ceilings)
        gpu_fma = gpu_fma_ceiling();
}

/* A table's n bodies with their reference forces. */
static void begin(program_run *r)
{
    int n = table_n(r, r->table);
    bodies = (problem){.n = n, .steps = (int)r->opt.steps, .threads = (int)r->opt.threads};
    bodies.b = cli_alloc((size_t)n * sizeof(body), "the bodies");
    bodies.v = cli_alloc((size_t)n * sizeof(vec3), "the velocities");
    bodies.a = cli_alloc((size_t)n * sizeof(vec3), "the accelerations");
    nbody_init(bodies.b, bodies.v, n);
    make_reference(&bodies.ref, bodies.b, n);
    if (r->table == CPU_TABLE)
        measure_cpu_ceilings(r);
    else
        begin_gpu();
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

/* After a table's stages: its ceilings' rows, and its bodies freed. */
static void end(program_run *r)
{
    if (r->table == CPU_TABLE) {
        if (cpu_one.rate > 0)
            add_cpu_ceiling(r->rep, &bodies, cpu_one);
        if (cpu_all.rate > 0)
            add_cpu_ceiling(r->rep, &bodies, cpu_all);
    } else {
        if (ceilings)
            add_gpu_ceiling(r->rep, bodies.n, &gpu_fma, &program_gpu);
        CUDA_CHECK(cudaFree(bodies.g.d_b));
        CUDA_CHECK(cudaFree(bodies.g.d_v));
        CUDA_CHECK(cudaFree(bodies.g.d_a));
    }
    free(bodies.b);
    free(bodies.v);
    free(bodies.a);
    free_reference(&bodies.ref);
}

/* --timeline written (renamed into place) only if every check passed. */
static int finish(program_run *r, int status)
{
    (void)r;
    char err[IMAGE_ERROR_SIZE];
    int ok = status == EXIT_OK;
    if (!timeline)
        return status;
    if (file_write_end(timeline, ok && !ferror(timeline), timeline_path, err, sizeof err) != 0) {
        fprintf(stderr, "ch07: --timeline %s not written%s%s\n", timeline_path, ok ? ": " : " (a check failed)",
                ok ? err : "");
        return EXIT_CHECK_FAIL;
    }
    return status;
}

const program chapter_program = {
    .spec = &spec, .defaults = {.n = 1 << 17, .steps = 2, .repeat = 3, .threads = PROGRAM_ALL_CORES},
    .gpu = PROGRAM_GPU_IF_ANY, .device = PROGRAM_CUDA, .tables = 2, .table_of = table_of,
    .validate = validate, .workload = workload, .begin = begin, .stage = run_stage, .end = end, .finish = finish,
};
