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
 *
 * This file is the problem as common/program.h's skeleton runs it: the
 * input, a stage measured over it (poisoned, run, its sum checked), and the
 * ceilings' rows beside the stages.
 */
#include "reduce.h"
#include "stages.h"

#include "../../common/cli.h"
#include "../../common/cpu_ceiling.h"
#include "../../common/cuda_util.h"
#include "../../common/gpu/ceiling.h"
#include "../../common/measure.h"
#include "../../common/program.h"
#include "../../common/program_cuda.h"
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

/* The problem: the input, its exact sum, its copy on the GPU with the
 * stages' scratch, and the ceilings measured over it in the same run. */
static struct {
    int *in;
    size_t n;
    long long expected;
    int ceilings;  /* --ceiling yes */
    int *d_in;
    long long *d_sum;
    reduce_ctx ctx; /* the GPU stages' scratch */
    gpu_memory_ceilings gpu;
    cpu_ceiling host; /* rate 0: not measured */
} input;

static void validate(program_run *r)
{
    char needs[64];
    input.n = (size_t)r->opt.n;
    input.ceilings = strcmp(ceiling, "yes") == 0;
    snprintf(needs, sizeof needs, "--n %lld", r->opt.n);
    cli_check_host_memory(r->spec, input.n * sizeof(int), needs);
}

/* CUDA's device count, and an n over the device's free memory refused as
 * bad input: before any work, so the error is the first line. It selects
 * the device (free memory needs a context) but prints nothing. */
static int count_device(const cli_spec *spec, long device, char *why, size_t whylen)
{
    int found = PROGRAM_CUDA->count(spec, device, why, whylen);
    if (!found)
        return 0;
    cuda_device_info info;
    CUDA_CHECK(cudaSetDevice((int)device));
    cuda_describe_device((int)device, &info);
    input.ctx.scratch_bytes = reduce_stage_scratch_bytes(input.n);
    size_t need = input.n * sizeof(int) + input.ctx.scratch_bytes + 2 * REDUCE_CEILING_BYTES + (64 << 20);
    size_t free_b, total_b;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (need > free_b)
        cli_usage_error(spec, "--n %zu needs %.2f GiB of device memory; %s has %.2f GiB free", input.n,
                        need / 1073741824.0, info.name, free_b / 1073741824.0);
    return found;
}

static const program_device reduce_device = {count_device, program_cuda_open};

/* The input filled; on the GPU, copied there and, with --ceiling yes, the
 * memory ceilings measured over it (over buffers of REDUCE_CEILING_BYTES:
 * reduce.h says why). */
static void setup(program_run *r)
{
    size_t bytes = input.n * sizeof(int);
    input.in = cli_alloc(bytes, "the input");
    input.expected = reduce_fill(input.in, input.n);
    if (!r->gpu)
        return;
    CUDA_CHECK(cudaMalloc((void **)&input.d_in, bytes ? bytes : sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&input.d_sum, sizeof(long long)));
    CUDA_CHECK(cudaMalloc(&input.ctx.scratch, input.ctx.scratch_bytes ? input.ctx.scratch_bytes : 1));
    CUDA_CHECK(cudaMemcpy(input.d_in, input.in, bytes, cudaMemcpyHostToDevice));
    if (input.ceilings)
        input.gpu = gpu_memory_ceilings_measure(r->spec->program, input.d_in, bytes, REDUCE_CEILING_BYTES,
                                                program_gpu.peak_bw_gbs, r->opt.quiet);
}

static void workload(program_run *r, int table, char *buf, size_t size)
{
    (void)table;
    snprintf(buf, size, "n=%lld", r->opt.n);
}

/* The host's own read ceiling, over the same input, on the same threads:
 * the ruler the CPU stages' runs take turns with. */
static void measure_host_ceiling(program_run *r)
{
    if (r->want_cpu && input.ceilings && input.n > 0)
        input.host = cpu_read_ceiling_said(r->spec->program, input.in, input.n * sizeof(int), (int)r->opt.threads,
                                           HOST_REPEAT, r->opt.quiet);
}

/* One stage's run as measure_stage sees it. */
typedef struct {
    const stage *s;
    long long got;
    reduce_ctx cpu; /* a CPU stage's threads */
} run;

static int on_gpu(const run *one)
{
    return one->s->info.where == STAGE_GPU;
}

static void poison_sum(void *context)
{
    run *one = context;
    one->got = 0x5A5A5A5A;
    if (on_gpu(one))
        CUDA_CHECK(cudaMemset(input.d_sum, 0xA5, sizeof(long long)));
}

static void run_stage(void *context)
{
    run *one = context;
    if (on_gpu(one))
        one->s->run(input.d_in, input.n, input.d_sum, &input.ctx);
    else
        one->s->run(input.in, input.n, &one->got, &one->cpu);
}

static int check_sum(void *context, char *note, size_t size)
{
    run *one = context;
    if (on_gpu(one)) {
        CUDA_CHECK(cudaDeviceSynchronize()); /* errors inside the kernel surface here */
        CUDA_CHECK(cudaMemcpy(&one->got, input.d_sum, sizeof one->got, cudaMemcpyDeviceToHost));
    }
    if (one->got != input.expected)
        snprintf(note, size, "wrong sum: %lld, not %lld", one->got, input.expected);
    return one->got == input.expected;
}

/* The host's read ceiling's kernel, one pass over the same input: the ruler
 * a CPU stage's runs take turns with; returns the bytes its threads counted. */
static double read_ceiling_pass(void *context)
{
    (void)context;
    return (double)cpu_read_ceiling_pass(&input.host, input.in, input.n * sizeof(int), NULL);
}

/* Stage i (--repeat timed runs; 0: 20 on the GPU, CPU_STAGE_REPEAT on the
 * CPU), its row in GB/s of input read with its share of the ceilings. On the
 * CPU, with the host's read ceiling measured, each timed run is followed by
 * one pass of that ceiling's kernel (measure.h's ruler). */
static int measure(program_run *r, size_t i)
{
    run one = {&stages[i], 0, {.threads = stages[i].info.all_cores ? (int)r->opt.threads : 1}};
    int gpu = on_gpu(&one), ruled = !gpu && input.host.rate > 0, repeat = (int)r->opt.repeat;
    double bytes = (double)(input.n * sizeof(int));
    measure_result m;
    measure_plan plan = {.name = one.s->info.name, .reset = poison_sum, .run = run_stage, .check = check_sum,
                         .context = &one, .timer = gpu ? cuda_time_ms : NULL,
                         .repeat = repeat ? repeat : gpu ? 20 : CPU_STAGE_REPEAT,
                         .ruler = ruled ? read_ceiling_pass : NULL, .ruler_work = ruled ? bytes : 0};
    report_row *row = program_measure(r, &plan, bytes, 1e9, "GB/s", gpu ? REPORT_ON_GPU : one.cpu.threads,
                                      gpu ? r->device : NULL, &m);
    double gbs = row->value;
    if (gpu && input.ceilings)
        gpu_memory_ceilings_note(row, gbs, &input.gpu);
    if (ruled)
        report_note(row, "%s%.1f%% of the host's read ceiling (%.1f%% of its kernel timed as a stage; %.1f%% "
                    "(%.1f-%.1f) of its kernel's passes taken in turn with this stage's)", row->note[0] ? "; " : "",
                    100 * gbs / input.host.rate, 100 * gbs / input.host.one_pass, 100 * m.share.median,
                    100 * m.share.lo, 100 * m.share.hi);
    return 0;
}

/* The ceilings' rows, after the stages: the host's, and the GPU's memory. */
static void ceiling_rows(program_run *r)
{
    if (input.host.rate > 0)
        cpu_read_ceiling_row(r->rep, &input.host, HOST_REPEAT);
    if (r->gpu && input.ceilings)
        gpu_memory_ceiling_rows(r->rep, &input.gpu, (double)input.n * sizeof(int), program_gpu.name, program_gpu.sms);
}

static void teardown(program_run *r)
{
    (void)r;
    free(input.in);
}

const program chapter_program = {
    .spec = &spec,
    .defaults = {.n = 1LL << 28, .repeat = 0, .threads = PROGRAM_ALL_CORES},
    .gpu = PROGRAM_GPU_IF_ANY,
    .device = &reduce_device,
    .validate = validate,
    .setup = setup,
    .workload = workload,
    .begin = measure_host_ceiling,
    .stage = measure,
    .end = ceiling_rows,
    .teardown = teardown,
};
