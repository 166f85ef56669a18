/* ch06 - parallel reduction: sum 2^28 int32 values, from a CPU loop to the
 * GPU's memory-bandwidth limit.
 *
 *   make ch06 && ./ch06                   # all stages, n = 2^28 (1 GiB of input)
 *   ./ch06 --n 1000003 --stage vector-shuffle   # one stage, another size
 *
 * Input: int32 values in [-128, 127] from a fixed-seed generator (xorshift64*,
 * seed 0x5EED06), so every stage's int64 sum is exact and must equal the one
 * computed while generating the data. GPU stages: one warm-up run (checked),
 * --repeat timed runs (CUDA events, median), then the last result checked
 * again. The rate is GB/s of input read. Its ceiling is measured in the same
 * run and does what a reduction does, only read: a streaming kernel that loads
 * the stages' own input (at least 256 MiB) with 16-byte loads and writes
 * nothing, the best of 16 grid sizes and loads in flight. The % column is of that ceiling; the device-to-device copy
 * bandwidth (cudaMemcpy: bytes read plus written) is a second reference. Both
 * are CSV rows of their own (check n/a), so the book draws them as lines.
 *
 * Without a CUDA device the CPU stages run, one line says the GPU stages did
 * not, and the exit status is 3.
 */
#include "reduce.h"
#include "stages.h"

#include "../../common/cli.h"
#include "../../common/cuda_util.h"
#include "../../common/report.h"
#include "../../common/timer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define COPY_BYTES ((size_t)256 << 20) /* each of the two copy-test buffers */


static const cli_spec spec = {
    .program = "ch06",
    .summary = "parallel reduction: sum n int32 values into int64, CPU and GPU, against the read bandwidth",
    .accepts = CLI_N | CLI_THREADS | CLI_REPEAT | CLI_DEVICE | CLI_STAGE | CLI_CSV | CLI_QUIET,
    CLI_STAGE_TABLE(stages),
    .notes = "--n is the number of int32 elements: default 2^28 (268435456, 1 GiB); --threads is for\n"
             "cpu-threads (default: all cores); --repeat defaults to 20 timed runs per GPU stage\n"
             "(3 per CPU stage). GPU stages' % is of a read-only streaming kernel measured in the\n"
             "same run; without a CUDA device the CPU stages run and the exit status is 3.",
};

/* Host memory kept free besides the input: the program, the OS, the page cache. */
#define HOST_MARGIN_BYTES (1ULL << 30)

/* Bytes of memory the kernel reports as available, or 0 if unknown. */
static unsigned long long host_available_bytes(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    unsigned long long kb = 0;
    char line[256];
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb * 1024;
}

typedef struct {
    int *d_in;
    long long *d_sum;
    reduce_ctx ctx;
    double read_gbs, copy_gbs; /* the ceilings */
    char name[256];
} gpu_state;

/* 0 on success; -1 (with a message printed) if there is no usable device. */
static int gpu_setup(gpu_state *g, const int *in, size_t n, const cli_options *opt)
{
    char why[256];
    int count = cuda_device_count(why, sizeof why);
    if (count == 0) {
        fprintf(stderr, "ch06: no CUDA device found (%s): the GPU stages were not run (exit status %d)\n", why,
                EXIT_NO_GPU);
        return -1;
    }
    cuda_require_device("ch06", (int)opt->device);
    cuda_device_info info;
    cuda_describe_device((int)opt->device, &info);
    snprintf(g->name, sizeof g->name, "%s", info.name);
    g->ctx.scratch_bytes = reduce_scratch_bytes(n);
    size_t need = n * sizeof(int) + g->ctx.scratch_bytes + 2 * COPY_BYTES + (64 << 20), free_b, total_b;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (need > free_b)
        cli_usage_error(&spec, "--n %lld needs %.2f GiB of device memory; %s has %.2f GiB free", opt->n,
                        need / 1073741824.0, info.name, free_b / 1073741824.0);
    if (!opt->quiet)
        cuda_print_device(stderr, (int)opt->device, &info);
    void *a, *b;
    CUDA_CHECK(cudaMalloc(&a, COPY_BYTES));
    CUDA_CHECK(cudaMalloc(&b, COPY_BYTES));
    CUDA_CHECK(cudaMemset(a, 1, COPY_BYTES));
    g->copy_gbs = measure_copy_bandwidth(a, b, COPY_BYTES, 21) * 1e-9;
    CUDA_CHECK(cudaFree(a));
    CUDA_CHECK(cudaFree(b));
    CUDA_CHECK(cudaMalloc((void **)&g->d_in, n ? n * sizeof(int) : sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&g->d_sum, sizeof(long long)));
    CUDA_CHECK(cudaMalloc(&g->ctx.scratch, g->ctx.scratch_bytes ? g->ctx.scratch_bytes : 1));
    CUDA_CHECK(cudaMemcpy(g->d_in, in, n * sizeof(int), cudaMemcpyHostToDevice));
    /* The read ceiling over the stages' own input, so launch and tail costs
     * weigh the same (at least 256 MiB: a small n would measure only those). */
    if (n * sizeof(int) >= COPY_BYTES) {
        g->read_gbs = measure_read_bandwidth(g->d_in, n * sizeof(int), 21) * 1e-9;
    } else {
        CUDA_CHECK(cudaMalloc(&a, COPY_BYTES));
        CUDA_CHECK(cudaMemset(a, 1, COPY_BYTES));
        g->read_gbs = measure_read_bandwidth(a, COPY_BYTES, 21) * 1e-9;
        CUDA_CHECK(cudaFree(a));
    }
    if (!opt->quiet)
        fprintf(stderr, "ch06: measured read-only streaming %.0f GB/s, device-to-device copy %.0f GB/s "
                        "(peak from clocks %.0f GB/s)\n", g->read_gbs, g->copy_gbs, info.peak_bw_gbs);
    return 0;
}

static long long gpu_result(const gpu_state *g)
{
    long long sum;
    CUDA_CHECK(cudaDeviceSynchronize()); /* errors inside the kernel surface here */
    CUDA_CHECK(cudaMemcpy(&sum, g->d_sum, sizeof sum, cudaMemcpyDeviceToHost));
    return sum;
}

typedef struct {
    const stage *s;
    gpu_state *g;
    size_t n;
} launch;

static void launch_stage(void *p)
{
    launch *l = p;
    l->s->run(l->g->d_in, l->n, l->g->d_sum, &l->g->ctx);
}

/* Check, time, check again. Returns 1 if both checks gave the exact sum. */
static int run_gpu_stage(const stage *s, gpu_state *g, size_t n, long long expected, int repeat, double *ms)
{
    launch l = {s, g, n};
    CUDA_CHECK(cudaMemset(g->d_sum, 0xA5, sizeof(long long))); /* poison */
    launch_stage(&l);
    int ok = gpu_result(g) == expected;
    *ms = cuda_median_ms(launch_stage, &l, repeat);
    ok &= gpu_result(g) == expected;
    return ok;
}

static int run_cpu_stage(const stage *s, const int *in, size_t n, long long expected, int threads, int repeat,
                         double *ms)
{
    double times[REPEAT_MAX];
    reduce_ctx ctx = {.threads = threads};
    long long got;
    s->run(in, n, &got, &ctx);
    int ok = got == expected;
    for (int r = 0; r < repeat; r++) {
        double t0 = now_seconds();
        s->run(in, n, &got, &ctx);
        times[r] = 1e3 * (now_seconds() - t0);
        ok &= got == expected;
    }
    *ms = median(times, repeat);
    return ok;
}

/* The ceilings as rows of their own: references, not stages (check n/a). */
static void add_ceilings(report *rep, const gpu_state *g, size_t n)
{
    double bytes = (double)n * sizeof(int);
    report_add(rep, (report_entry){.stage = "ceiling-read-stream", .threads = REPORT_ON_GPU,
                                   .ms = bytes / (g->read_gbs * 1e9) * 1e3, .value = g->read_gbs, .unit = "GB/s",
                                   .ok = REPORT_NO_CHECK, .device = g->name,
                                   .note = "read-only streaming kernel, best of 16 configurations: the ceiling"});
    report_add(rep, (report_entry){.stage = "ceiling-copy", .threads = REPORT_ON_GPU,
                                   .ms = 2 * bytes / (g->copy_gbs * 1e9) * 1e3, .value = g->copy_gbs, .unit = "GB/s",
                                   .ok = REPORT_NO_CHECK, .device = g->name,
                                   .note = "cudaMemcpy device to device, read + written: a second reference"});
}

int main(int argc, char **argv)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    cli_options opt = {.n = 1LL << 28, .repeat = 0, .threads = cores > 0 ? cores : 1};
    cli_parse(&spec, &opt, argc, argv);
    size_t n = (size_t)opt.n;
    unsigned long long avail = host_available_bytes();
    if (avail && n * sizeof(int) + HOST_MARGIN_BYTES > avail)
        cli_usage_error(&spec, "--n %lld needs %.2f GiB of host memory and 1 GiB to spare; %.2f GiB is available",
                        opt.n, n * sizeof(int) / 1073741824.0, avail / 1073741824.0);
    int *in = cli_alloc(n * sizeof(int), "the input");
    long long expected = reduce_fill(in, n);

    int want_gpu = 0;
    for (size_t i = 0; i < STAGE_COUNT; i++)
        want_gpu |= stages[i].where == ON_GPU && (opt.stage_index < 0 || (size_t)opt.stage_index == i);
    gpu_state g = {0};
    int have_gpu = want_gpu && gpu_setup(&g, in, n, &opt) == 0;

    char workload[64];
    snprintf(workload, sizeof workload, "n=%lld", opt.n);
    report rep;
    report_init(&rep, "ch06", workload, opt.csv, opt.quiet);
    for (size_t i = 0; i < STAGE_COUNT; i++) {
        const stage *s = &stages[i];
        int gpu = s->where == ON_GPU;
        if ((opt.stage_index >= 0 && (size_t)opt.stage_index != i) || (gpu && !have_gpu))
            continue;
        double ms;
        int threads = s->run == reduce_cpu_threads ? (int)opt.threads : 1, ok;
        if (gpu)
            ok = run_gpu_stage(s, &g, n, expected, opt.repeat ? (int)opt.repeat : 20, &ms);
        else
            ok = run_cpu_stage(s, in, n, expected, threads, opt.repeat ? (int)opt.repeat : 3, &ms);
        double gbs = n * sizeof(int) / (ms * 1e-3) * 1e-9;
        report_row *row = report_add(&rep, (report_entry){.stage = s->name, .threads = gpu ? REPORT_ON_GPU : threads,
                                                          .ms = ms, .value = gbs, .unit = "GB/s", .ok = ok,
                                                          .device = gpu ? g.name : host_cpu_name()});
        if (gpu)
            snprintf(row->note, sizeof row->note, "%.1f%% of the read ceiling, %.1f%% of copy", 100 * gbs / g.read_gbs,
                     100 * gbs / g.copy_gbs);
        if (!ok)
            snprintf(row->note + strlen(row->note), sizeof row->note - strlen(row->note), " wrong sum");
    }
    if (have_gpu)
        add_ceilings(&rep, &g, n);
    report_print(&rep, stdout);
    free(in);
    if (!report_all_ok(&rep))
        return EXIT_CHECK_FAIL;
    return want_gpu && !have_gpu ? EXIT_NO_GPU : EXIT_OK;
}
