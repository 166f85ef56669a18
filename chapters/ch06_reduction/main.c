/* ch06 - parallel reduction: sum 2^28 int32 values, from a CPU loop to the
 * GPU's memory-bandwidth limit.
 *
 *   make ch06 && ./ch06                   # all stages, n = 2^28 (1 GiB of input)
 *   ./ch06 --n 1000003 --stage shuffle    # one stage, another size
 *
 * Input: int32 values in [-128, 127] from a fixed-seed generator (xorshift64*,
 * seed 0x5EED06), so every stage's int64 sum is exact and must equal the one
 * computed while generating the data. GPU stages: one warm-up run (checked),
 * --repeat timed runs (CUDA events, median), then the last result checked
 * again. The rate is GB/s of input read, and the % is of the device-to-device
 * copy bandwidth this program measures itself (cudaMemcpy, bytes read plus
 * written), the practical ceiling for a kernel that streams its input once.
 *
 * Without a CUDA device the CPU stages run, one line says the GPU stages did
 * not, and the exit status is 3.
 */
#include "reduce.h"

#include "../../common/cli.h"
#include "../../common/cuda_util.h"
#include "../../common/report.h"
#include "../../common/timer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SEED 0x5EED06ULL
#define COPY_BYTES ((size_t)256 << 20) /* each of the two copy-test buffers */


static const cli_spec spec = {
    "ch06",
    "parallel reduction: sum n int32 values into int64, CPU and GPU, against the copy bandwidth",
    CLI_N | CLI_THREADS | CLI_REPEAT | CLI_DEVICE | CLI_STAGE | CLI_CSV | CLI_QUIET,
    stages,
    STAGE_COUNT,
    sizeof stages[0],
    "Default n = 2^28 (268435456 values, 1 GiB); --threads is for cpu-threads (default: all cores);\n"
    "--repeat defaults to 20 timed runs per GPU stage (3 per CPU stage).",
};

/* Fills in[] with the fixed-seed values and returns their exact sum. */
static long long generate(int *in, size_t n)
{
    unsigned long long x = SEED;
    long long sum = 0;
    for (size_t i = 0; i < n; i++) {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        in[i] = (int)((x * 2685821657736338717ULL) >> 56) - 128;
        sum += in[i];
    }
    return sum;
}

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
    void *scratch;
    size_t scratch_bytes;
    double copy_gbs;
    char name[256];
} gpu_state;

/* 0 on success; -1 (with a message printed) if there is no usable device. */
static int gpu_setup(gpu_state *g, const int *in, size_t n, const cli_options *opt)
{
    char why[256];
    int count = cuda_device_count(why, sizeof why);
    if (count == 0) {
        fprintf(stderr, "ch06: no usable CUDA device or driver (%s): the GPU stages were not run (exit status %d)\n", why,
                EXIT_NO_GPU);
        return -1;
    }
    cuda_require_device("ch06", (int)opt->device);
    cuda_device_info info;
    cuda_describe_device((int)opt->device, &info);
    snprintf(g->name, sizeof g->name, "%s", info.name);
    g->scratch_bytes = reduce_scratch_bytes(n);
    size_t need = n * sizeof(int) + g->scratch_bytes + 2 * COPY_BYTES + (64 << 20), free_b, total_b;
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
    CUDA_CHECK(cudaMalloc(&g->scratch, g->scratch_bytes ? g->scratch_bytes : 1));
    CUDA_CHECK(cudaMemcpy(g->d_in, in, n * sizeof(int), cudaMemcpyHostToDevice));
    if (!opt->quiet)
        fprintf(stderr, "ch06: measured device-to-device copy bandwidth %.0f GB/s (peak from clocks %.0f GB/s)\n",
                g->copy_gbs, info.peak_bw_gbs);
    return 0;
}

static long long gpu_result(const gpu_state *g)
{
    long long sum;
    CUDA_CHECK(cudaDeviceSynchronize()); /* errors inside the kernel surface here */
    CUDA_CHECK(cudaMemcpy(&sum, g->d_sum, sizeof sum, cudaMemcpyDeviceToHost));
    return sum;
}

/* Check, time, check again. Returns 1 if both checks gave the exact sum. */
static int run_gpu_stage(const stage *s, gpu_state *g, size_t n, long long expected, int repeat, double *ms)
{
    CUDA_CHECK(cudaMemset(g->d_sum, 0xA5, sizeof(long long))); /* poison */
    s->gpu(g->d_in, n, g->d_sum, g->scratch, g->scratch_bytes);
    int ok = gpu_result(g) == expected;
    double times[1000];
    cuda_timer t;
    cuda_timer_create(&t);
    for (int r = 0; r < repeat; r++) {
        cuda_timer_start(&t);
        s->gpu(g->d_in, n, g->d_sum, g->scratch, g->scratch_bytes);
        times[r] = cuda_timer_stop(&t);
    }
    cuda_timer_destroy(&t);
    ok &= gpu_result(g) == expected;
    *ms = median(times, repeat);
    return ok;
}

static int run_cpu_stage(const stage *s, const int *in, size_t n, long long expected, int threads, int repeat,
                         double *ms)
{
    double times[1000];
    int ok = s->cpu(in, n, threads) == expected;
    for (int r = 0; r < repeat; r++) {
        double t0 = now_seconds();
        long long got = s->cpu(in, n, threads);
        times[r] = 1e3 * (now_seconds() - t0);
        ok &= got == expected;
    }
    *ms = median(times, repeat);
    return ok;
}

int main(int argc, char **argv)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    cli_options opt = {.n = 1LL << 28, .repeat = 0, .threads = cores > 0 ? cores : 1};
    cli_parse(&spec, &opt, argc, argv);
    size_t n = (size_t)opt.n;
    unsigned long long avail = host_available_bytes();
    if (avail && n * sizeof(int) > avail)
        cli_usage_error(&spec, "--n %lld needs %.2f GiB of host memory; %.2f GiB is available", opt.n,
                        n * sizeof(int) / 1073741824.0, avail / 1073741824.0);
    int *in = malloc(n * sizeof(int));
    if (!in) {
        fprintf(stderr, "ch06: cannot allocate %zu bytes for the input\n", n * sizeof(int));
        return EXIT_CHECK_FAIL;
    }
    long long expected = generate(in, n);

    int want_gpu = 0;
    for (size_t i = 0; i < STAGE_COUNT; i++)
        want_gpu |= stages[i].gpu && (opt.stage_index < 0 || (size_t)opt.stage_index == i);
    gpu_state g = {0};
    int have_gpu = want_gpu && gpu_setup(&g, in, n, &opt) == 0;

    char workload[64];
    snprintf(workload, sizeof workload, "n=%lld", opt.n);
    report rep;
    report_init(&rep, "ch06", workload, opt.csv, opt.quiet);
    for (size_t i = 0; i < STAGE_COUNT; i++) {
        const stage *s = &stages[i];
        if ((opt.stage_index >= 0 && (size_t)opt.stage_index != i) || (s->gpu && !have_gpu))
            continue;
        double ms;
        int threads = s->cpu == reduce_cpu_threads ? (int)opt.threads : 1, ok;
        if (s->gpu)
            ok = run_gpu_stage(s, &g, n, expected, opt.repeat ? (int)opt.repeat : 20, &ms);
        else
            ok = run_cpu_stage(s, in, n, expected, threads, opt.repeat ? (int)opt.repeat : 3, &ms);
        double gbs = n * sizeof(int) / (ms * 1e-3) * 1e-9;
        report_row *row = report_add(&rep, s->name, s->gpu ? 0 : threads, ms, gbs, "GB/s", ok,
                                     s->gpu ? g.name : host_cpu_name());
        if (s->gpu)
            snprintf(row->note, sizeof row->note, "%.1f%% of copy bandwidth", 100 * gbs / g.copy_gbs);
        if (!ok)
            snprintf(row->note + strlen(row->note), sizeof row->note - strlen(row->note), " wrong sum");
    }
    report_print(&rep, stdout);
    if (have_gpu)
        printf("copy bandwidth (device to device, read + written): %.0f GB/s on %s\n", g.copy_gbs, g.name);
    free(in);
    if (!report_all_ok(&rep))
        return EXIT_CHECK_FAIL;
    return want_gpu && !have_gpu ? EXIT_NO_GPU : EXIT_OK;
}
