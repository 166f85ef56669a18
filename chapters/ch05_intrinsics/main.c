/* ch05 - the GPU card made fast: no FP64, intrinsics, pow by squaring, fast
 * math, block shape, and finally less work; start-up timed apart.
 *
 *   make ch05 && ./ch05                 # every stage, 512x512 at 64 spp
 *   ./ch05 --stage bounding-box
 *   make ch05-sass                      # FP64 instructions per stage's kernel (needs cuobjdump)
 *
 * Each stage adds one change to the one before (card.h says what and why),
 * with one exception: sphere-algebra, which cuts the flops of the sphere test,
 * measured slower than sphere-list on the H200, so fast-math and what follows
 * build on sphere-list; sphere-algebra stays in the table as the measured
 * negative result. "bounding-box" does less work rather than the same work
 * faster, so the table marks it and the book reports it apart.
 *
 * Rates: Msamples/s, and an estimate of GFLOP/s against the FP32 peak: the
 * CPU spot check counts trace() calls per sample, and each call is counted
 * as 787 flops (49 sphere tests of 16 flops: p = o - c, two dot products,
 * b*b - c; plus 3 for the floor), ignoring shading: a lower bound.
 * bounding-box is credited with the full algorithm's flops ("equivalent").
 *
 * Checks as in ch04: no NaN/Inf; 256 fixed-seed pixels against the CPU
 * running the same template (>= 35 dB; the CPU has no __powf or fast math, so
 * it runs their precise forms); at 512x512x64 the whole image against ch01's
 * (>= 38 dB).
 *
 * Start-up: "context" is the wall time of the first CUDA calls (driver load,
 * context creation), "copy-to-host" the image's device-to-host copy,
 * "process" the whole run of this program up to the table.
 * Without a CUDA device: one line on stderr, exit status 3.
 */
#include "render.h"

#include "../../common/cli.h"
#include "../../common/cuda_util.h"
#include "../../common/image.h"
#include "../../common/report.h"
#include "../../common/timer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef REFERENCE_DIR
#define REFERENCE_DIR "data/reference"
#endif
#define REFERENCE_IMAGE REFERENCE_DIR "/kensler_512x512x64.ppm"
#define CPU_CHECK_PIXELS 256
#define CPU_PSNR_DB 35.0
#define ORIGINAL_PSNR_DB 38.0
#define FLOPS_PER_TRACE 787.0

typedef struct {
    const char *name;
    const char *description;
    int flags;      /* STAGE_* bits */
    int fast_math;  /* the -use_fast_math build */
    int sweep;      /* try every block shape, keep the best */
    int less_work;  /* not the same algorithm: reported apart */
} stage;

static const stage stages[] = {
    {"loop", "ch04's loop kernel: double literals and pow() computed in FP64", 0, 0, 0, 0},
    {"float-only", "float literals, powf: no FP64 instruction left", STAGE_FLOAT_ONLY, 0, 0, 0},
    {"intrinsics", "__powf (negative base handled), __fdividef, rsqrtf", STAGE_FLOAT_ONLY | STAGE_INTRINSICS, 0, 0,
     0},
    {"pow-squaring", "x^99 and x^4 by repeated squaring: no special function",
     STAGE_FLOAT_ONLY | STAGE_INTRINSICS | STAGE_POW_SQUARING, 0, 0, 0},
    {"sphere-list", "the 49 spheres from an unrolled list, not 171 bitmap tests: same spheres, same order",
     STAGE_FLOAT_ONLY | STAGE_INTRINSICS | STAGE_POW_SQUARING | STAGE_SPHERE_LIST, 0, 0, 0},
    {"sphere-algebra", "sphere-list with the test expanded (fewer flops): measured slower, not carried on",
     STAGE_FLOAT_ONLY | STAGE_INTRINSICS | STAGE_POW_SQUARING | STAGE_SPHERE_LIST | STAGE_SPHERE_ALGEBRA, 0, 0, 0},
    {"fast-math", "sphere-list's source built with -use_fast_math", 23, 1, 0, 0},
    {"block-shape", "fast-math at the best of eight block shapes (8x8 ... 32x16)", 23, 1, 1, 0},
    {"bounding-box", "block-shape, spheres tested only if the ray meets their box: less work", 31, 1, 0, 1},
};
#define STAGE_COUNT (sizeof stages / sizeof stages[0])

static const int shapes[][2] = {{8, 8}, {16, 8}, {8, 16}, {16, 16}, {32, 4}, {32, 8}, {64, 4}, {32, 16}};
#define SHAPE_COUNT (sizeof shapes / sizeof shapes[0])

static const cli_spec spec = {
    "ch05",
    "the GPU card made fast: FP64 out, intrinsics, pow by squaring, fast math, block shape, less work",
    CLI_WIDTH | CLI_HEIGHT | CLI_SPP | CLI_REPEAT | CLI_DEVICE | CLI_STAGE | CLI_OUT | CLI_IMAGES | CLI_CSV | CLI_QUIET,
    stages,
    STAGE_COUNT,
    sizeof stages[0],
    "Checks: no NaN/Inf; 256 fixed-seed pixels against the CPU running the same code\n"
    "(>= 35 dB); at 512x512x64 the whole image against ch01's (>= 38 dB).\n"
    "Default output: ch05.ppm (the last stage's image). --repeat defaults to 10.",
};

typedef struct {
    image host, original;
    int have_original;
    unsigned char *d_rgb;
    int *d_bad;
    int width, height, spp;
    double traces_per_sample; /* from the CPU spot check */
} run;

static void render(const run *r, const stage *s, int bx, int by)
{
    if (s->fast_math)
        gpu_render_fast(s->flags, r->d_rgb, r->d_bad, r->width, r->height, r->spp, bx, by);
    else
        gpu_render(s->flags, r->d_rgb, r->d_bad, r->width, r->height, r->spp, bx, by);
    CUDA_CHECK_LAUNCH();
}

/* PSNR of the GPU image against the CPU on fixed-seed pixels (seed 0xC4EC4). */
static double cpu_spot_check(run *r, int flags, int *bad)
{
    unsigned long long x = 0xC4EC4, traces = cpu_trace_calls();
    double sq = 0;
    int n = 0;
    for (int i = 0; i < CPU_CHECK_PIXELS; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        int col = (int)((x >> 33) % (unsigned long long)r->width);
        int row = (int)((x >> 13) % (unsigned long long)r->height);
        unsigned char cpu[3];
        *bad += !cpu_render_picture_pixel(flags, col, row, r->width, r->height, r->spp, cpu);
        const unsigned char *gpu = r->host.rgb + 3 * ((size_t)row * r->width + col);
        for (int c = 0; c < 3; c++, n++)
            sq += (double)(cpu[c] - gpu[c]) * (cpu[c] - gpu[c]);
    }
    if (!(flags & STAGE_BOUNDING_BOX))
        r->traces_per_sample = (double)(cpu_trace_calls() - traces) / ((double)CPU_CHECK_PIXELS * r->spp);
    return sq == 0 ? INFINITY : 10 * log10(255.0 * 255.0 * n / sq);
}

static int check(run *r, const stage *s, char *note, size_t len)
{
    int bad = 0;
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(r->host.rgb, r->d_rgb, image_bytes(&r->host), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&bad, r->d_bad, sizeof bad, cudaMemcpyDeviceToHost));
    double cpu_db = cpu_spot_check(r, s->flags, &bad);
    int ok = bad == 0 && cpu_db >= CPU_PSNR_DB;
    size_t used = (size_t)snprintf(note, len, "vs CPU %.1f dB", cpu_db);
    if (r->have_original) {
        image_diff d;
        image_compare(&r->host, &r->original, &d);
        ok &= d.psnr >= ORIGINAL_PSNR_DB;
        used += (size_t)snprintf(note + used, len - used, ", vs ch01 %.1f dB", d.psnr);
    }
    if (bad)
        snprintf(note + used, len - used, ", %d NaN/Inf pixels", bad);
    return ok;
}

/* Median kernel time of `repeat` renders at one block shape. */
static double time_shape(const run *r, const stage *s, int bx, int by, int repeat, cuda_timer *t)
{
    double times[1000];
    render(r, s, bx, by); /* warm-up */
    for (int i = 0; i < repeat; i++) {
        cuda_timer_start(t);
        render(r, s, bx, by);
        times[i] = cuda_timer_stop(t);
    }
    return median(times, repeat);
}

/* Tries every shape; returns the best time and its index in *best. */
static double sweep_shapes(const run *r, const stage *s, int repeat, cuda_timer *t, int *best, int quiet)
{
    double best_ms = INFINITY;
    for (size_t i = 0; i < SHAPE_COUNT; i++) {
        double ms = time_shape(r, s, shapes[i][0], shapes[i][1], repeat, t);
        if (!quiet)
            fprintf(stderr, "ch05: block-shape %2dx%-2d %8.3f ms\n", shapes[i][0], shapes[i][1], ms);
        if (ms < best_ms) {
            best_ms = ms;
            *best = (int)i;
        }
    }
    return best_ms;
}

/* Event-timed device-to-host copy of the image, median of 5. */
static double time_copy(run *r, cuda_timer *t)
{
    double times[5];
    for (int i = 0; i < 5; i++) {
        cuda_timer_start(t);
        CUDA_CHECK(cudaMemcpyAsync(r->host.rgb, r->d_rgb, image_bytes(&r->host), cudaMemcpyDeviceToHost, 0));
        times[i] = cuda_timer_stop(t);
    }
    return median(times, 5);
}

int main(int argc, char **argv)
{
    double process_start = now_seconds();
    cli_options opt = {.width = 512, .height = 512, .spp = 64, .repeat = 10};
    cli_parse(&spec, &opt, argc, argv);
    const char *out = opt.out ? opt.out : "ch05.ppm";
    double t0 = now_seconds();
    cuda_require_device("ch05", (int)opt.device);
    CUDA_CHECK(cudaFree(0)); /* forces the context into existence */
    double context_ms = 1e3 * (now_seconds() - t0);
    cuda_device_info info;
    cuda_describe_device((int)opt.device, &info);
    if (!opt.quiet)
        cuda_print_device(stderr, (int)opt.device, &info);

    run r = {.width = (int)opt.width, .height = (int)opt.height, .spp = (int)opt.spp};
    char err[256];
    if (image_alloc(&r.host, r.width, r.height) != 0) {
        fprintf(stderr, "ch05: cannot allocate a %dx%d image\n", r.width, r.height);
        return EXIT_CHECK_FAIL;
    }
    r.have_original = r.width == 512 && r.height == 512 && r.spp == 64 &&
                      image_read_ppm(&r.original, REFERENCE_IMAGE, err, sizeof err) == 0;
    CUDA_CHECK(cudaMalloc((void **)&r.d_rgb, image_bytes(&r.host)));
    CUDA_CHECK(cudaMalloc((void **)&r.d_bad, sizeof(int)));

    char workload[96];
    snprintf(workload, sizeof workload, "%dx%dx%dspp", r.width, r.height, r.spp);
    report rep;
    report_init(&rep, "ch05", workload, opt.csv, opt.quiet);
    cuda_timer timer;
    cuda_timer_create(&timer);
    int best_shape = 3; /* 16x16 until a sweep says otherwise */
    int images_failed = 0;
    for (size_t i = 0; i < STAGE_COUNT; i++) {
        const stage *s = &stages[i];
        if (opt.stage_index >= 0 && (size_t)opt.stage_index != i)
            continue;
        char note[128], after[128];
        CUDA_CHECK(cudaMemset(r.d_bad, 0, sizeof(int)));
        CUDA_CHECK(cudaMemset(r.d_rgb, 0xEE, image_bytes(&r.host))); /* poison */
        render(&r, s, shapes[best_shape][0], shapes[best_shape][1]);
        int ok = check(&r, s, note, sizeof note);
        double ms = s->sweep ? sweep_shapes(&r, s, (int)opt.repeat, &timer, &best_shape, opt.quiet)
                             : time_shape(&r, s, shapes[best_shape][0], shapes[best_shape][1], (int)opt.repeat,
                                          &timer);
        ok &= check(&r, s, after, sizeof after);
        kernel_info k;
        if (s->fast_math)
            gpu_kernel_info_fast(s->flags, shapes[best_shape][0], shapes[best_shape][1], &k);
        else
            gpu_kernel_info(s->flags, shapes[best_shape][0], shapes[best_shape][1], &k);
        double samples = (double)r.width * r.height * r.spp;
        double gflops = samples * r.traces_per_sample * FLOPS_PER_TRACE / (ms * 1e-3) * 1e-9;
        report_row *row = report_add(&rep, s->name, 0, ms, samples / (ms * 1e3), "Msamples/s", ok, info.name);
        snprintf(row->note, sizeof row->note, "%s%dx%d, %d regs, occ %.0f%%, ~%.0f GFLOP/s%s (%.1f%% of FP32 peak); %s",
                 s->less_work ? "LESS WORK: " : "", shapes[best_shape][0], shapes[best_shape][1], k.registers,
                 100 * k.occupancy, gflops, s->less_work ? " equiv." : "", 100 * gflops / info.fp32_peak_gflops,
                 note);
        if (opt.images && image_write_stage(&r.host, opt.images, "ch05", s->name) != 0)
            images_failed = 1;
    }
    double copy_ms = time_copy(&r, &timer);
    cuda_timer_destroy(&timer);

    int status = report_all_ok(&rep) && !images_failed ? EXIT_OK : EXIT_CHECK_FAIL;
    if (image_write(&r.host, out, err, sizeof err) != 0) {
        fprintf(stderr, "ch05: %s\n", err);
        status = EXIT_CHECK_FAIL;
    }
    /* Where the time of a run goes, reported apart from the stages. */
    report_row *row = report_add(&rep, "context", 0, context_ms, context_ms, "ms", -1, info.name);
    snprintf(row->note, sizeof row->note, "first CUDA calls: driver and context start-up (wall clock)");
    row = report_add(&rep, "copy-to-host", 0, copy_ms, copy_ms, "ms", -1, info.name);
    snprintf(row->note, sizeof row->note, "the image, device to host (events)");
    double process_ms = 1e3 * (now_seconds() - process_start);
    row = report_add(&rep, "process", 0, process_ms, process_ms, "ms", -1, info.name);
    snprintf(row->note, sizeof row->note, "this whole run up to here, every stage and check included");
    report_print(&rep, stdout);
    CUDA_CHECK(cudaFree(r.d_rgb));
    CUDA_CHECK(cudaFree(r.d_bad));
    image_free(&r.host);
    image_free(&r.original);
    return status;
}
