/* rows.c - see rows.h. One stage's run: its output poisoned, the stage, its
 * output checked against the reference of what it multiplies (problem.c);
 * its rate is 2 m n k flops over its median time. Each row's note gives its
 * error, its share of the FMA ceiling measured in this run (FP32 rows; the
 * tensor cores have no ceiling of the course's own yet), and its share of
 * its precision's library measured in this run. */
#include "rows.h"
#include "stages.h"

#include "../../common/cpu_ceiling.h"
#include "../../common/cuda_util.h"
#include "../../common/gpu/ceiling.h"
#include "../../common/measure.h"

#include <cublas_v2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One stage's run as the measure loop sees it. */
typedef struct {
    const stage *s;
    problem *p;
    int threads;
    gemm_gpu_args gpu;     /* a GPU stage's arguments (device pointers) */
    const float *d_poison; /* the poisoned C, on the GPU: copied over C before each run */
    double worst, vs_fp32; /* the last check's errors */
} stage_run;

static void poison_output(void *context)
{
    stage_run *r = context;
    if (r->s->gpu) {
        size_t bytes = (size_t)r->p->s.m * r->p->s.ldc * sizeof(float);
        CUDA_CHECK(cudaMemcpy(r->gpu.c, r->d_poison, bytes, cudaMemcpyDeviceToDevice));
    } else {
        problem_poison(r->p->c, &r->p->s);
    }
}

static void run_stage(void *context)
{
    stage_run *r = context;
    if (r->s->gpu)
        r->s->gpu(&r->gpu);
    else
        r->s->cpu(&r->p->s, r->p->a, r->p->b, r->p->c, r->threads);
}

static int check_output(void *context, char *note, size_t size)
{
    stage_run *r = context;
    if (r->s->gpu) {
        CUDA_CHECK(cudaDeviceSynchronize()); /* a fault inside the kernel surfaces here */
        size_t bytes = (size_t)r->p->s.m * r->p->s.ldc * sizeof(float);
        CUDA_CHECK(cudaMemcpy(r->p->c, r->gpu.c, bytes, cudaMemcpyDeviceToHost));
    }
    return problem_check(r->p, r->s->input, r->s->tensor_cores, note, size, &r->worst, &r->vs_fp32);
}

static double flops(const gemm_shape *s)
{
    return 2.0 * s->m * s->n * s->k;
}

static report_row *measure_row(report *rep, stage_run *r, const char *device, int repeat)
{
    const stage *s = r->s;
    measure_result m;
    measure_stage(&(measure_plan){.name = s->info.name, .reset = poison_output, .run = run_stage,
                                  .check = check_output, .context = r, .timer = s->gpu ? cuda_time_ms : NULL,
                                  .repeat = repeat ? repeat : s->gpu ? 20 : CPU_STAGE_REPEAT}, &m);
    double gflops = flops(&r->p->s) / (m.times.median * 1e-3) * 1e-9;
    report_row *row = report_measured(rep, s->info.name, s->gpu ? REPORT_ON_GPU : r->threads, &m, gflops,
                                      "GFLOP/s", device);
    if (m.ok == REPORT_OK) {
        report_note(row, "%serror %.2g of sum|a||b| (bound %.2g)", row->note[0] ? "; " : "", r->worst,
                    problem_bound(r->p->s.k, s->input, s->tensor_cores));
        if (s->input == INPUT_BF16)
            report_note(row, ", %.2g against the FP32 inputs' product", r->vs_fp32);
    }
    return row;
}

/* Each row's share of its precision's library, measured in the same table. */
static void note_yardsticks(report *rep, size_t first_row, const size_t *stage_of_row)
{
    for (int y = (int)first_row; y < rep->count; y++) {
        const stage *ys = &stages[stage_of_row[y - first_row]];
        if (!ys->yardstick || rep->rows[y].ok != REPORT_OK)
            continue;
        for (int i = (int)first_row; i < rep->count; i++) {
            const stage *s = &stages[stage_of_row[i - first_row]];
            if (i != y && s->input == ys->input && rep->rows[i].ok == REPORT_OK)
                report_note(&rep->rows[i], "; %.1f%% of %s", 100 * rep->rows[i].value / rep->rows[y].value,
                            ys->info.name);
        }
    }
}

static int stage_runs_here(const rows_plan *plan, size_t i, int where)
{
    const stage *s = &stages[i];
    if (s->info.where != where || !cli_stage_selected(plan->opt, i))
        return 0;
    char why[256] = "";
    if (s->supported && !s->supported(why, sizeof why)) {
        if (!plan->opt->quiet)
            fprintf(stderr, "%s: %s skipped: %s\n", plan->spec->program, s->info.name, why);
        return 0;
    }
    return 1;
}

static void begin_table(report *rep, const rows_plan *plan, int m, int n, int k)
{
    char workload[96];
    snprintf(workload, sizeof workload, "m=%d n=%d k=%d", m, n, k);
    report_init(rep, plan->spec->program, workload, plan->opt->csv, plan->opt->quiet);
}

static void say_reference(const rows_plan *plan, const problem *p, const char *what)
{
    if (!plan->opt->quiet)
        fprintf(stderr, "%s: the FP64 reference of %s, %dx%dx%d, on %d threads\n", plan->spec->program, what,
                p->s.m, p->s.n, p->s.k, p->threads);
}

/* A ceiling's row (check n/a): its rate, and the time the table's work
 * would take at it. */
static void ceiling_row(report *rep, const char *name, int threads, double gflops, const gemm_shape *s,
                        const char *device, const char *note)
{
    report_add(rep, (report_entry){.stage = name, .threads = threads, .ms = flops(s) / (gflops * 1e9) * 1e3,
                                   .value = gflops, .unit = "GFLOP/s", .ok = REPORT_NO_CHECK, .device = device,
                                   .note = note});
}

int run_cpu_rows(const rows_plan *plan)
{
    const cli_options *opt = plan->opt;
    report rep;
    begin_table(&rep, plan, plan->cpu_m, plan->cpu_n, plan->cpu_k);
    problem p;
    problem_init(&p, plan->cpu_m, plan->cpu_n, plan->cpu_k, (int)opt->threads);
    cpu_ceiling one = {0}, all = {0};
    if (plan->ceilings) {
        one = cpu_fma_ceiling(1, 5);
        all = cpu_fma_ceiling((int)opt->threads, 5);
    }
    size_t stage_of_row[STAGE_COUNT], rows = 0;
    for (size_t i = 0; i < STAGE_COUNT; i++) {
        if (!stage_runs_here(plan, i, STAGE_CPU))
            continue;
        stage_run r = {.s = &stages[i], .p = &p, .threads = stages[i].info.all_cores ? (int)opt->threads : 1};
        report_row *row = measure_row(&rep, &r, host_cpu_name(), (int)opt->repeat);
        if (stages[i].note)
            report_note(row, "; %s", stages[i].note());
        const cpu_ceiling *c = stages[i].info.all_cores ? &all : &one;
        if (c->rate > 0 && row->ok == REPORT_OK)
            report_note(row, "; %.1f%% of the host's FMA ceiling on %d thread%s", 100 * row->value / c->rate,
                        c->threads, c->threads > 1 ? "s" : "");
        stage_of_row[rows++] = i;
    }
    note_yardsticks(&rep, 0, stage_of_row);
    char note[160];
    snprintf(note, sizeof note, "measured: independent FMA chains (%s), no memory, best of 5 runs of at least "
             "%.0f ms", one.isa ? one.isa : "-", CPU_CEILING_MIN_MS);
    if (one.rate > 0)
        ceiling_row(&rep, "ceiling-cpu-fma", 1, one.rate, &p.s, host_cpu_name(), note);
    if (all.rate > 0)
        ceiling_row(&rep, "ceiling-cpu-fma", all.threads, all.rate, &p.s, host_cpu_name(), note);
    report_print(&rep, stdout);
    problem_free(&p);
    return report_all_ok(&rep);
}

/* The GPU's copies of the inputs, its output and the poisoned image of it. */
typedef struct {
    float *a, *b, *c, *poison;
    uint16_t *a16, *b16;
} device_buffers;

static void *device_copy(const void *host, size_t bytes)
{
    void *d;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    CUDA_CHECK(cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice));
    return d;
}

static void device_begin(device_buffers *d, problem *p, int want_bf16)
{
    size_t na = (size_t)p->s.m * p->s.lda, nb = (size_t)p->s.k * p->s.ldb, nc = (size_t)p->s.m * p->s.ldc;
    *d = (device_buffers){.a = device_copy(p->a, na * sizeof(float)), .b = device_copy(p->b, nb * sizeof(float))};
    problem_poison(p->c, &p->s);
    d->poison = device_copy(p->c, nc * sizeof(float));
    CUDA_CHECK(cudaMalloc((void **)&d->c, nc * sizeof(float)));
    if (want_bf16) {
        d->a16 = device_copy(p->a16, na * sizeof(uint16_t));
        d->b16 = device_copy(p->b16, nb * sizeof(uint16_t));
    }
}

static void device_end(device_buffers *d)
{
    void *all[] = {d->a, d->b, d->c, d->poison, d->a16, d->b16};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        CUDA_CHECK(cudaFree(all[i]));
}

static void gpu_ceiling_row(report *rep, const gpu_ceiling *c, const gemm_shape *s, const cuda_device_info *info)
{
    char note[256];
    snprintf(note, sizeof note, "measured: %s, no memory, best of %d runs of %.0f ms; ran at %d MHz on %d SMs",
             c->config, c->repeats, c->rep_ms, c->ran_mhz, info->sms);
    ceiling_row(rep, "ceiling-fp32-peak", REPORT_ON_GPU, c->rate, s, info->name, note);
}

static int wants_bf16(const rows_plan *plan)
{
    for (size_t i = 0; i < STAGE_COUNT; i++)
        if (stages[i].input == INPUT_BF16 && stage_runs_here(plan, i, STAGE_GPU))
            return 1;
    return 0;
}

int run_gpu_rows(const rows_plan *plan)
{
    const cli_options *opt = plan->opt;
    cuda_device_info info;
    cuda_describe_device((int)opt->device, &info);
    report rep;
    begin_table(&rep, plan, plan->m, plan->n, plan->k);
    problem p;
    problem_init(&p, plan->m, plan->n, plan->k, (int)opt->threads);
    say_reference(plan, &p, "the FP32 inputs");
    int bf16 = wants_bf16(plan);
    if (bf16) {
        say_reference(plan, &p, "their bf16 roundings");
        problem_want_bf16(&p);
    }
    device_buffers d;
    device_begin(&d, &p, bf16);
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));
    gpu_ceiling fma = {0};
    if (plan->ceilings)
        fma = gpu_fma_ceiling();
    size_t stage_of_row[STAGE_COUNT], rows = 0;
    for (size_t i = 0; i < STAGE_COUNT; i++) {
        if (!stage_runs_here(plan, i, STAGE_GPU))
            continue;
        stage_run r = {.s = &stages[i], .p = &p, .d_poison = d.poison,
                       .gpu = {.s = p.s, .a = d.a, .b = d.b, .a16 = d.a16, .b16 = d.b16, .c = d.c,
                               .cublas = handle, .sms = info.sms}};
        report_row *row = measure_row(&rep, &r, info.name, (int)opt->repeat);
        if (stages[i].note)
            report_note(row, "; %s", stages[i].note());
        if (fma.rate > 0 && !stages[i].tensor_cores && row->ok == REPORT_OK)
            report_note(row, "; %.1f%% of the FP32 FMA ceiling", 100 * row->value / fma.rate);
        stage_of_row[rows++] = i;
    }
    note_yardsticks(&rep, 0, stage_of_row);
    if (fma.rate > 0)
        gpu_ceiling_row(&rep, &fma, &p.s, &info);
    report_print(&rep, stdout);
    CUBLAS_CHECK(cublasDestroy(handle));
    device_end(&d);
    problem_free(&p);
    return report_all_ok(&rep);
}
