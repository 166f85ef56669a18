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
 * each timed repetition at least 50 ms. Without a CUDA device the CPU stages
 * run, one line says the GPU ones did not; exit status 3.
 */
#include "reduce.h"
#include "stages.h"

#include "../../common/cli.h"
#include "../../common/cpu_ceiling.h"
#include "../../common/cuda_util.h"
#include "../../common/gpu/ceiling.h"
#include "../../common/measure.h"
#include "../../common/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --ceiling no: no ceilings' search (seconds; minutes under make sanitize). */
static const char *ceiling = "yes";
static int measure_ceilings;
static const cli_option options[] = {
    {"ceiling", "yes|no", "measure the ceilings: read, copy, latency idle and loaded (default yes; no: the notes "
                          "give no %)",
     .text = &ceiling},
};

static const cli_spec spec = {
    .program = "ch06",
    .summary = "parallel reduction: sum n int32 values into int64, CPU and GPU, against the read bandwidth",
    .accepts = CLI_N | CLI_THREADS | CLI_REPEAT | CLI_DEVICE | CLI_STAGE | CLI_CSV | CLI_QUIET,
    CLI_STAGE_TABLE(stages),
    CLI_OPTION_TABLE(options),
    .notes = "--n is the number of int32 elements: default 2^28 (268435456, 1 GiB); --threads is for\n"
             "cpu-threads (default: all cores); --repeat defaults to 20 timed runs per GPU stage\n"
             "(3 per CPU stage). GPU stages' % is of a read-only streaming kernel measured in the\n"
             "same run; without a CUDA device the CPU stages run and the exit status is 3.",
};

typedef struct {
    int *d_in;
    long long *d_sum;
    reduce_ctx ctx;
    gpu_ceiling read, copy;    /* GB/s */
    gpu_ceiling idle, loaded;  /* DRAM's load latency (a pointer chase), ns: alone, and beside a read stream */
    cuda_device_info info;
    char why[256];             /* why there is no device */
} gpu_state;

/* Before cli_begin_work: 1 if there is a device, and the bad input only it
 * can show refused (--device K out of range, an n over its free memory). It
 * selects the device (free memory needs a context) but prints nothing, so an
 * error is the first line. */
static int gpu_check(gpu_state *g, size_t n, const cli_options *opt)
{
    if (cuda_check_device_option(&spec, opt->device, g->why, sizeof g->why) == 0)
        return 0;
    CUDA_CHECK(cudaSetDevice((int)opt->device));
    cuda_describe_device((int)opt->device, &g->info);
    g->ctx.scratch_bytes = reduce_stage_scratch_bytes(n);
    size_t need = n * sizeof(int) + g->ctx.scratch_bytes + 2 * REDUCE_CEILING_BYTES + (64 << 20), free_b, total_b;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (need > free_b)
        cli_usage_error(&spec, "--n %lld needs %.2f GiB of device memory; %s has %.2f GiB free", opt->n,
                        need / 1073741824.0, g->info.name, free_b / 1073741824.0);
    return 1;
}

/* The ceilings (common/gpu/ceiling.h) over two scratch buffers of
 * REDUCE_CEILING_BYTES: the copy between them; the read over the input, or
 * over a buffer when the input is smaller (reduce.h says why); both chases
 * through the first (scratch by then), the loaded one beside a stream over
 * what the read ceiling read. */
static void measure_ceilings_on(gpu_state *g, size_t in_bytes)
{
    void *a, *b;
    CUDA_CHECK(cudaMalloc(&a, REDUCE_CEILING_BYTES));
    CUDA_CHECK(cudaMalloc(&b, REDUCE_CEILING_BYTES));
    CUDA_CHECK(cudaMemset(a, 1, REDUCE_CEILING_BYTES));
    g->copy = gpu_copy_ceiling(b, a, REDUCE_CEILING_BYTES);
    const void *stream = in_bytes >= REDUCE_CEILING_BYTES ? (const void *)g->d_in : b;
    size_t stream_bytes = in_bytes >= REDUCE_CEILING_BYTES ? in_bytes : REDUCE_CEILING_BYTES;
    g->read = gpu_read_ceiling(stream, stream_bytes);
    g->idle = gpu_latency_idle(a, REDUCE_CEILING_BYTES);
    g->loaded = gpu_latency_loaded(a, REDUCE_CEILING_BYTES, stream, stream_bytes);
    CUDA_CHECK(cudaFree(a));
    CUDA_CHECK(cudaFree(b));
}

/* 0 on success; -1 (with a message printed) if gpu_check found no device. */
static int gpu_setup(gpu_state *g, const int *in, size_t n, const cli_options *opt, int found)
{
    if (!found) {
        fprintf(stderr, "ch06: no CUDA device found (%s): the GPU stages were not run (exit status %d)\n", g->why,
                EXIT_NO_GPU);
        return -1;
    }
    cuda_require_device(&spec, (int)opt->device);
    if (!opt->quiet)
        cuda_print_device(stderr, (int)opt->device, &g->info);
    CUDA_CHECK(cudaMalloc((void **)&g->d_in, n ? n * sizeof(int) : sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&g->d_sum, sizeof(long long)));
    CUDA_CHECK(cudaMalloc(&g->ctx.scratch, g->ctx.scratch_bytes ? g->ctx.scratch_bytes : 1));
    CUDA_CHECK(cudaMemcpy(g->d_in, in, n * sizeof(int), cudaMemcpyHostToDevice));
    if (!measure_ceilings)
        return 0;
    measure_ceilings_on(g, n * sizeof(int));
    if (!opt->quiet)
        fprintf(stderr, "ch06: measured read-only streaming %.0f GB/s, device-to-device copy %.0f GB/s "
                        "(peak from clocks %.0f GB/s); DRAM latency %.0f ns, %.0f ns under load\n", g->read.rate,
                g->copy.rate, g->info.peak_bw_gbs, g->idle.rate, g->loaded.rate);
    return 0;
}

/* What measure_stage runs: one stage over the input, its sum checked. */
typedef struct {
    const stage *s;
    gpu_state *g;
    const int *in;
    size_t n;
    long long expected, got;
    reduce_ctx cpu;
} run;

static void poison_sum(void *context)
{
    run *r = context;
    r->got = 0x5A5A5A5A;
    if (r->s->info.where == STAGE_GPU)
        CUDA_CHECK(cudaMemset(r->g->d_sum, 0xA5, sizeof(long long)));
}

static void run_stage(void *context)
{
    run *r = context;
    if (r->s->info.where == STAGE_GPU)
        r->s->run(r->g->d_in, r->n, r->g->d_sum, &r->g->ctx);
    else
        r->s->run(r->in, r->n, &r->got, &r->cpu);
}

static int check_sum(void *context, char *note, size_t size)
{
    run *r = context;
    if (r->s->info.where == STAGE_GPU) {
        CUDA_CHECK(cudaDeviceSynchronize()); /* errors inside the kernel surface here */
        CUDA_CHECK(cudaMemcpy(&r->got, r->g->d_sum, sizeof r->got, cudaMemcpyDeviceToHost));
    }
    if (r->got != r->expected)
        snprintf(note, size, "wrong sum: %lld, not %lld", r->got, r->expected);
    return r->got == r->expected;
}

/* The ceilings as rows of their own: references, not stages (check n/a). */
static void add_ceilings(report *rep, const gpu_state *g, size_t n)
{
    double bytes = (double)n * sizeof(int);
    const gpu_ceiling *r = &g->read, *c = &g->copy, *i = &g->idle, *l = &g->loaded;
    report_entry e = {.threads = REPORT_ON_GPU, .unit = "GB/s", .ok = REPORT_NO_CHECK, .device = g->info.name};
    e.stage = "ceiling-read-stream", e.value = r->rate, e.ms = bytes / (r->rate * 1e6);
    report_note(report_add(rep, e), "read-only streaming kernel, the best configuration searched: %s; best of %d "
                "repetitions of %lld passes (%.0f ms each); SM clock at most %d MHz; timed as a stage is (one launch, the "
                "median of %d), the same kernel reads at %.1f GB/s (%.1f%%): the launch and the tail", r->config,
                r->repeats, r->passes, r->rep_ms, r->max_clock_mhz, GPU_ONE_LAUNCH_REPEAT, r->one_launch,
                100 * r->one_launch / r->rate);
    e.stage = "ceiling-copy", e.value = c->rate, e.ms = 2 * bytes / (c->rate * 1e6);
    report_note(report_add(rep, e), "cudaMemcpy device to device, read + written: a second reference; best of %d "
                "repetitions of %s (%.0f ms each)", c->repeats, c->config, c->rep_ms);
    /* Little's law: to stream at the read ceiling, bandwidth x latency bytes
     * must be in flight; the latency that holds is the loaded one. */
    double idle_flight = r->rate * i->rate, loaded_flight = r->rate * l->rate; /* GB/s x ns = bytes */
    e.unit = "ns";
    e.stage = "dram-latency", e.value = i->rate, e.ms = i->rate * 1e-6;
    report_note(report_add(rep, e), "one load at a time, %s; best of %d chases of %lld loads (%.0f ms each); with "
                "this idle latency Little's law would ask %.2f MB in flight, %.1f KiB per SM", i->config, i->repeats,
                i->passes, i->rep_ms, idle_flight * 1e-6, idle_flight / 1024 / g->info.sms);
    e.stage = "dram-latency-loaded", e.value = l->rate, e.ms = l->rate * 1e-6;
    report_note(report_add(rep, e), "the same chase under load: %s, reading %.0f GB/s (%.1f%% of the read ceiling) "
                "meanwhile; best of %d repetitions (%.0f ms each); Little's law: read ceiling x loaded latency = %.2f "
                "MB in flight, %.1f KiB per SM", l->config, l->other, 100 * l->other / r->rate, l->repeats, l->rep_ms,
                loaded_flight * 1e-6, loaded_flight / 1024 / g->info.sms);
}

int main(int argc, char **argv)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    cli_options opt = {.n = 1LL << 28, .repeat = 0, .threads = cores > 0 ? cores : 1};
    cli_parse(&spec, &opt, argc, argv);
    if (strcmp(ceiling, "yes") != 0 && strcmp(ceiling, "no") != 0)
        cli_usage_error(&spec, "--ceiling '%s': yes or no", ceiling);
    measure_ceilings = strcmp(ceiling, "yes") == 0;
    size_t n = (size_t)opt.n;
    unsigned long long avail = host_available_bytes();
    if (avail && n * sizeof(int) + HOST_MARGIN_BYTES > avail)
        cli_usage_error(&spec, "--n %lld needs %.2f GiB of host memory and 1 GiB to spare; %.2f GiB is available",
                        opt.n, n * sizeof(int) / 1073741824.0, avail / 1073741824.0);
    int want_gpu = 0;
    for (size_t i = 0; i < STAGE_COUNT; i++)
        want_gpu |= stages[i].info.where == STAGE_GPU && cli_stage_selected(&opt, i);
    gpu_state g = {0};
    int found_gpu = want_gpu && gpu_check(&g, n, &opt);
    cli_begin_work(&spec);
    int *in = cli_alloc(n * sizeof(int), "the input");
    long long expected = reduce_fill(in, n);
    int have_gpu = want_gpu && gpu_setup(&g, in, n, &opt, found_gpu) == 0;

    /* The host's own read ceiling, over the same input, on the same threads. */
    int want_cpu = 0;
    for (size_t i = 0; i < STAGE_COUNT; i++)
        want_cpu |= stages[i].info.where == STAGE_CPU && cli_stage_selected(&opt, i);
    cpu_ceiling host = {0};
    if (want_cpu && measure_ceilings && n > 0) {
        host = cpu_read_ceiling(in, n * sizeof(int), (int)opt.threads, 5);
        if (!opt.quiet)
            fprintf(stderr, "ch06: measured the host's read stream: %.1f GB/s on %d threads (%s loads)\n", host.rate,
                    host.threads, host.isa);
    }

    char workload[64];
    snprintf(workload, sizeof workload, "n=%lld", opt.n);
    report rep;
    report_init(&rep, "ch06", workload, opt.csv, opt.quiet);
    for (size_t i = 0; i < STAGE_COUNT; i++) {
        const stage *s = &stages[i];
        int gpu = s->info.where == STAGE_GPU;
        if (!cli_stage_selected(&opt, i) || (gpu && !have_gpu))
            continue;
        int threads = s->info.all_cores ? (int)opt.threads : 1;
        run r = {s, &g, in, n, expected, 0, {.threads = threads}};
        measure_result m;
        measure_stage(&(measure_plan){.reset = poison_sum, .run = run_stage, .check = check_sum, .context = &r,
                                      .timer = gpu ? cuda_time_ms : NULL,
                                      .repeat = opt.repeat ? (int)opt.repeat : gpu ? 20 : 3}, &m);
        double gbs = n * sizeof(int) / (m.times.median * 1e-3) * 1e-9;
        report_row *row = report_measured(&rep, s->info.name, gpu ? REPORT_ON_GPU : threads, &m, gbs, "GB/s",
                                          gpu ? g.info.name : host_cpu_name());
        if (gpu && measure_ceilings)
            report_note(row, "%s%.1f%% of the read ceiling (%.1f%% of its kernel timed as a stage), %.1f%% of copy",
                        m.note[0] ? "; " : "", 100 * gbs / g.read.rate, 100 * gbs / g.read.one_launch,
                        100 * gbs / g.copy.rate);
        if (!gpu && host.rate > 0)
            report_note(row, "%s%.1f%% of the host's read ceiling", m.note[0] ? "; " : "", 100 * gbs / host.rate);
    }
    if (host.rate > 0) {
        report_entry e = {.stage = "ceiling-cpu-read", .threads = host.threads, .ms = host.ms, .value = host.rate,
                          .unit = "GB/s", .ok = REPORT_NO_CHECK, .device = host_cpu_name()};
        report_note(report_add(&rep, e), "the host's plain read stream over the same input, %s loads, 1 MiB pieces "
                    "taken as threads are free, the best of 5 runs of at least %.0f ms", host.isa, CPU_CEILING_MIN_MS);
    }
    if (have_gpu && measure_ceilings)
        add_ceilings(&rep, &g, n);
    report_print(&rep, stdout);
    free(in);
    if (!report_all_ok(&rep))
        return EXIT_CHECK_FAIL;
    return want_gpu && !have_gpu ? EXIT_NO_GPU : EXIT_OK;
}
