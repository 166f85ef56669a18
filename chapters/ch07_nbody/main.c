/* ch07 - all-pairs N-body: from scalar CPU code to tiled GPU kernels and
 * several GPUs. The compute-bound counterpart of ch06.
 *
 *   make ch07 && ./ch07                        # n = 2^17 on the GPU, 2 steps
 *   ./ch07 --n 65537 --stage gpu-tiled-unrolled
 *
 * Every stage computes the accelerations of the same fixed-seed bodies
 * (nbody.h) and is checked against a double-precision reference with
 * compensated (Neumaier) sums, on 66 bodies (0, n-1, and 64 from seed 0x5A3):
 *
 *   e_i = |a_i - ref_i| / S_i  <=  (16 sqrt(n) + 64) u,   u = 2^-24,
 *
 * where S_i = sum_j |term_j| is the sum of the magnitudes of the n terms. Each
 * term carries a few roundings of its own (the 64 u, which covers rsqrt's
 * approximation too), and the rounding errors of a float sum of n terms add
 * like a random walk, about sqrt(n) u S_i; 16 times that is a generous
 * statistical bound, not a worst case (which would be n u S_i). NaN fails.
 *
 * Then --steps steps of leapfrog (forces, then v += a dt, p += v dt) are timed
 * from the initial state, --repeat times (median), and the forces are checked
 * again. Rates: GFLOP/s at 20 flops per interaction, n^2 interactions a step
 * (the symmetric stage does half and is credited with n^2: same work done).
 * CPU stages run at n = min(n, 16384) to keep them to seconds.
 * Without a CUDA device the CPU stages run and the exit status is 3.
 */
#include "nbody.h"
#include "stages.h"

#include "../../common/cli.h"
#include "../../common/cuda_util.h"
#include "../../common/report.h"
#include "../../common/timer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CPU_MAX_N 16384
#define DT 1e-4f

static const cli_spec spec = {
    .program = "ch07",
    .summary = "all-pairs N-body: scalar, AVX2 and threaded CPU, naive/tiled/unrolled/symmetric GPU, several GPUs",
    .accepts = CLI_N | CLI_STEPS | CLI_THREADS | CLI_REPEAT | CLI_DEVICE | CLI_STAGE | CLI_CSV | CLI_QUIET,
    CLI_STAGE_TABLE(stages),
    .notes = "--n is the number of bodies: default 2^17 (GPU stages; CPU stages use min(n, 16384)),\n"
             "--steps 2, --repeat 3. Rates count 20 flops per interaction. Forces are checked against\n"
             "a double-precision reference on 66 bodies (bound in the source: chapters/ch07_nbody/main.c).\n"
             "Without a CUDA device the CPU stages run and the exit status is 3.",
};

static int positions_finite(const body *b, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(b[i].x) || !isfinite(b[i].y) || !isfinite(b[i].z))
            return 0;
    return 1;
}

typedef struct {
    int n, steps, repeat, threads;
    body *b;
    vec3 *v, *a;
    reference ref;
} problem;

/* A CPU stage: check, time `steps` steps `repeat` times from the initial
 * state, check again. Returns ms per step; *ok and *err set. */
static double run_cpu(const stage *s, problem *p, int *ok, double *err)
{
    nbody_init(p->b, p->v, p->n);
    s->run(p->b, p->a, p->n, p->threads);
    *err = force_error(&p->ref, p->a);
    double times[REPEAT_MAX];
    for (int r = 0; r < p->repeat; r++) {
        nbody_init(p->b, p->v, p->n);
        double t0 = now_seconds();
        for (int k = 0; k < p->steps; k++) {
            s->run(p->b, p->a, p->n, p->threads);
            nbody_integrate_cpu(p->b, p->v, p->a, p->n, DT);
        }
        times[r] = 1e3 * (now_seconds() - t0) / p->steps;
    }
    int moved_ok = positions_finite(p->b, p->n);
    nbody_init(p->b, p->v, p->n);
    s->run(p->b, p->a, p->n, p->threads);
    *err = fmax(*err, force_error(&p->ref, p->a));
    *ok = moved_ok && *err <= error_bound(p->n);
    return median(times, p->repeat);
}

typedef struct {
    body *d_b;
    vec3 *d_v, *d_a;
} gpu_buffers;

static void gpu_reset(problem *p, gpu_buffers *g)
{
    nbody_init(p->b, p->v, p->n);
    CUDA_CHECK(cudaMemcpy(g->d_b, p->b, (size_t)p->n * sizeof(body), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(g->d_v, p->v, (size_t)p->n * sizeof(vec3), cudaMemcpyHostToDevice));
}

static double gpu_checked_forces(const stage *s, problem *p, gpu_buffers *g)
{
    gpu_reset(p, g);
    CUDA_CHECK(cudaMemset(g->d_a, 0xFF, (size_t)p->n * sizeof(vec3))); /* poison: NaN */
    s->run(g->d_b, g->d_a, p->n, 0);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(p->a, g->d_a, (size_t)p->n * sizeof(vec3), cudaMemcpyDeviceToHost));
    return force_error(&p->ref, p->a);
}

typedef struct {
    const stage *s;
    problem *p;
    gpu_buffers *g;
} launch;

/* --steps steps from the initial state (the copy in is outside the timing). */
static void launch_steps(void *context)
{
    launch *l = context;
    for (int k = 0; k < l->p->steps; k++) {
        l->s->run(l->g->d_b, l->g->d_a, l->p->n, 0);
        gpu_integrate(l->g->d_b, l->g->d_v, l->g->d_a, l->p->n, DT);
    }
}

static double run_gpu(const stage *s, problem *p, gpu_buffers *g, int *ok, double *err)
{
    *err = gpu_checked_forces(s, p, g);
    double times[REPEAT_MAX];
    launch l = {s, p, g};
    for (int r = 0; r < p->repeat; r++) {
        gpu_reset(p, g);
        times[r] = cuda_median_ms(launch_steps, &l, 1) / p->steps;
    }
    CUDA_CHECK(cudaMemcpy(p->b, g->d_b, (size_t)p->n * sizeof(body), cudaMemcpyDeviceToHost));
    int moved_ok = positions_finite(p->b, p->n);
    *err = fmax(*err, gpu_checked_forces(s, p, g));
    *ok = moved_ok && *err <= error_bound(p->n);
    return median(times, p->repeat);
}

static double run_multi(problem *p, int devices, int *ok, double *err)
{
    double times[REPEAT_MAX];
    nbody_init(p->b, p->v, p->n);
    multi_gpu_run(p->b, p->v, p->n, 1, DT, devices, p->a); /* warm-up; its first forces checked */
    *err = force_error(&p->ref, p->a);
    for (int r = 0; r < p->repeat; r++) {
        nbody_init(p->b, p->v, p->n);
        times[r] = 1e3 * multi_gpu_run(p->b, p->v, p->n, p->steps, DT, devices, r == 0 ? p->a : NULL) / p->steps;
        if (r == 0)
            *err = fmax(*err, force_error(&p->ref, p->a));
    }
    *ok = positions_finite(p->b, p->n) && *err <= error_bound(p->n);
    return median(times, p->repeat);
}

static int alloc_problem(problem *p, int n)
{
    p->n = n;
    p->b = cli_alloc((size_t)n * sizeof(body), "the bodies");
    p->v = cli_alloc((size_t)n * sizeof(vec3), "the velocities");
    p->a = cli_alloc((size_t)n * sizeof(vec3), "the accelerations");
    nbody_init(p->b, p->v, n);
    make_reference(&p->ref, p->b, n);
    return 0;
}

static void free_problem(problem *p)
{
    free(p->b);
    free(p->v);
    free(p->a);
}

static void add_row(report *rep, const stage *s, int threads, double ms, int n, int ok, double err,
                    const char *device, double peak_gflops)
{
    double gflops = FLOPS_PER_INTERACTION * (double)n * n / (ms * 1e-3) * 1e-9;
    report_row *row = report_add(rep, (report_entry){.stage = s->name, .threads = threads, .ms = ms, .value = gflops,
                                                     .unit = "GFLOP/s", .ok = ok, .device = device});
    size_t used = (size_t)snprintf(row->note, sizeof row->note, "%.3g interactions/s, error %.2g (bound %.2g)",
                                   (double)n * n / (ms * 1e-3), err, error_bound(n));
    if (peak_gflops > 0)
        snprintf(row->note + used, sizeof row->note - used, ", %.1f%% of FP32 peak", 100 * gflops / peak_gflops);
}

/* Sets up one group of stages (CPU or GPU): its report, and n bodies with
 * their reference forces. Exits on out-of-memory. */
static void begin_group(report *rep, problem *p, int n, const cli_options *opt)
{
    char workload[64];
    snprintf(workload, sizeof workload, "n=%d steps=%ld", n, opt->steps);
    report_init(rep, "ch07", workload, opt->csv, opt->quiet);
    if (alloc_problem(p, n) != 0) {
        fprintf(stderr, "ch07: out of host memory for %d bodies\n", n);
        exit(EXIT_CHECK_FAIL);
    }
    p->steps = (int)opt->steps;
    p->repeat = (int)opt->repeat;
    p->threads = (int)opt->threads;
}

static int selected(const cli_options *opt, int i)
{
    return opt->stage_index < 0 || opt->stage_index == i;
}

/* The CPU stages at n bodies; returns 1 if all checked ok. */
static int run_cpu_stages(const cli_options *opt, int n)
{
    report rep;
    problem p = {0};
    begin_group(&rep, &p, n, opt);
    for (size_t i = 0; i < STAGE_COUNT; i++) {
        const stage *s = &stages[i];
        if (s->where != ON_CPU || !selected(opt, (int)i))
            continue;
        if (s->run != cpu_scalar_forces && !cpu_simd_supported()) {
            fprintf(stderr, "ch07: %s needs AVX2 and FMA, which this CPU lacks: skipped\n", s->name);
            continue;
        }
        int ok;
        double err, ms = run_cpu(s, &p, &ok, &err);
        add_row(&rep, s, s->run == cpu_simd_threads_forces ? p.threads : 1, ms, n, ok, err, host_cpu_name(), 0);
    }
    report_print(&rep, stdout);
    free_problem(&p);
    return report_all_ok(&rep);
}

/* The GPU stages at n bodies on `devices` GPUs; returns 1 if all checked ok. */
static int run_gpu_stages(const cli_options *opt, int n, int devices)
{
    cuda_require_device("ch07", (int)opt->device);
    cuda_device_info info;
    cuda_describe_device((int)opt->device, &info);
    if (!opt->quiet)
        cuda_print_device(stderr, (int)opt->device, &info);
    report rep;
    problem p = {0};
    begin_group(&rep, &p, n, opt);
    gpu_buffers g;
    CUDA_CHECK(cudaMalloc((void **)&g.d_b, (size_t)n * sizeof(body)));
    CUDA_CHECK(cudaMalloc((void **)&g.d_v, (size_t)n * sizeof(vec3)));
    CUDA_CHECK(cudaMalloc((void **)&g.d_a, (size_t)n * sizeof(vec3)));
    for (size_t i = 0; i < STAGE_COUNT; i++) {
        const stage *s = &stages[i];
        if (s->where == ON_CPU || !selected(opt, (int)i))
            continue;
        int ok;
        double err, ms;
        if (s->where == ON_ALL_GPUS) {
            if (!opt->quiet && devices == 1)
                fprintf(stderr, "ch07: multi-gpu: this machine has one GPU, so it runs on one\n");
            ms = run_multi(&p, devices, &ok, &err);
            add_row(&rep, s, devices, ms, n, ok, err, info.name, info.fp32_peak_gflops * devices);
        } else {
            ms = run_gpu(s, &p, &g, &ok, &err);
            add_row(&rep, s, REPORT_ON_GPU, ms, n, ok, err, info.name, info.fp32_peak_gflops);
        }
    }
    /* The ceiling as a row of its own (a reference, check n/a): what the SMs
     * could do if every lane issued an FMA every cycle at the reported clock. */
    double peak_ms = FLOPS_PER_INTERACTION * (double)n * n / (info.fp32_peak_gflops * 1e9) * 1e3;
    report_add(&rep, (report_entry){.stage = "ceiling-fp32-peak", .threads = REPORT_ON_GPU, .ms = peak_ms,
                                    .value = info.fp32_peak_gflops, .unit = "GFLOP/s", .ok = REPORT_NO_CHECK,
                                    .device = info.name, .note = "SMs x FP32 lanes x 2 (FMA) x boost clock"});
    CUDA_CHECK(cudaFree(g.d_b));
    CUDA_CHECK(cudaFree(g.d_v));
    CUDA_CHECK(cudaFree(g.d_a));
    report_print(&rep, stdout);
    free_problem(&p);
    return report_all_ok(&rep);
}

int main(int argc, char **argv)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    cli_options opt = {.n = 1 << 17, .steps = 2, .repeat = 3, .threads = cores > 0 ? cores : 1};
    cli_parse(&spec, &opt, argc, argv);
    if (opt.n > (1 << 24))
        cli_usage_error(&spec, "--n %lld is too large: an all-pairs step grows as n^2 (at most 16777216)", opt.n);
    int n = (int)opt.n, want_gpu = 0, want_cpu = 0, all_ok = 1;
    for (size_t i = 0; i < STAGE_COUNT; i++)
        if (selected(&opt, (int)i)) {
            want_gpu |= stages[i].where != ON_CPU;
            want_cpu |= stages[i].where == ON_CPU;
        }
    if (want_cpu)
        all_ok &= run_cpu_stages(&opt, n < CPU_MAX_N ? n : CPU_MAX_N);
    if (!want_gpu)
        return all_ok ? EXIT_OK : EXIT_CHECK_FAIL;
    char why[256];
    int devices = cuda_device_count(why, sizeof why);
    if (devices == 0) {
        fprintf(stderr, "ch07: no CUDA device found (%s): the GPU stages were not run (exit status %d)\n",
                why, EXIT_NO_GPU);
        return all_ok ? EXIT_NO_GPU : EXIT_CHECK_FAIL;
    }
    all_ok &= run_gpu_stages(&opt, n, devices);
    return all_ok ? EXIT_OK : EXIT_CHECK_FAIL;
}
