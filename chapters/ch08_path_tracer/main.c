/* ch08 - a smallpt-style path tracer: CPU threads, then the GPU, measured in
 * samples per second and in quality per second.
 *
 *   make ch08 && ./ch08                      # every stage, 1024x768 at 64 spp
 *   ./ch08 --stage gpu-light-sampling --spp 256
 *
 * The scene is read from --scene (default data/scenes/cornell.txt, smallpt's
 * nine spheres); a bad file stops the program before any work (exit 2).
 *
 * Each stage renders twice, with seeds S and S+1 (--seed S, default 1):
 * checked, then timed, then checked again. Two renders A and B of a stage
 * differ only by their random streams, so n = MSE(A, B) / 2 estimates the
 * noise of one render (it falls as 1/spp); the checks measure against it:
 *   - no NaN or infinite sample;
 *   - GPU stages: up to CPU_CHECK_PIXELS fixed-seed pixels (seed 0xC8C8),
 *     rendered on the CPU by the kernel's own functions (path.h, compiled for
 *     the host) with the same random streams, differ from the GPU's by an MSE
 *     of at most SPOT_FRACTION n + 1. The GPU fuses multiply-adds, which sends
 *     a few paths elsewhere (measured on the H100: 0.01 n for the loops, 0.2 n
 *     for light sampling); a kernel that rendered other samples or other
 *     pixels would differ by 2 n, like two independent renders;
 *   - with the default scene at a size that has a reference image (a
 *     converged render, data/reference/ch08_cornell_<w>x<h>.ppm; `make
 *     ch08-reference` rebuilds them) and at least NOISE_TEST_MIN_SPP, the
 *     noise test: if the stage's expectation is the reference's, then
 *       E[MSE(A, ref)] = n + n_ref + (bias of clamping and gamma)
 *     where n_ref is the reference's own noise (the table below); a stage
 *     passes if MSE(A, ref) and MSE(B, ref) are <= 1.25 n + n_ref + 2
 *     (render.h's noise_bound). A wrong expectation (a missing factor, a
 *     light counted twice) shows up as MSE well above the noise. Below 64 spp
 *     the bias term is not small: smallpt clamps each subpixel's mean before
 *     gamma, and at 4 spp (one sample per subpixel) its estimator measured
 *     MSE(A, ref) = 4 n on the H100, all of it that bias.
 *
 * Rates: Msamples/s, one camera path per sample (a pixel at --spp has spp).
 * With a reference, each stage also has a row in the unit "MSE" (the first
 * render's, per 8-bit channel): `make bench` sweeps spp to chart MSE against
 * time, and the time to MSE < 52 (the report's bar).
 *
 * Without a CUDA device the CPU stage runs and the exit status is 3.
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
#include <unistd.h>

#ifndef REFERENCE_DIR
#define REFERENCE_DIR "data/reference"
#endif
#ifndef SCENE_DIR
#define SCENE_DIR "data/scenes"
#endif
#define DEFAULT_SCENE SCENE_DIR "/cornell.txt"
#define CPU_CHECK_PIXELS 256
#define CPU_CHECK_SAMPLES (1 << 20) /* fewer pixels at high spp: the CPU's share stays about a second */
#define SPOT_FRACTION 0.5
#define NOISE_TEST_MIN_SPP 64

/* The reference images: made by `make ch08-reference` (gpu-loop, the double-
 * precision loop, checked against the CPU stage) at these spp with seed 1000.
 * noise: each one's own MSE against the converged image, the noise of
 * gpu-loop at 64 spp scaled by 64 / spp (measured on the H100: n = 1386.9 at
 * 1024x768, and on the CPU 1373.6 at 128x96, by the same code). */
static const struct {
    int width, height, spp;
    double noise;
} references[] = {
    {1024, 768, 16384, 5.4},
    {128, 96, 65536, 1.3},
};

enum { ON_CPU = -1 };
enum { SHAPE_FIXED, SHAPE_SWEPT };

typedef struct {
    const char *name;
    const char *description;
    int kernel; /* render.h's KERNEL_*, or ON_CPU */
    int shape;  /* 16x16, or the fastest of block_shapes measured */
} stage;

static const stage stages[] = {
    {"cpu-threads", "smallpt's recursive path tracer in C (double), POSIX threads taking rows on demand", ON_CPU,
     SHAPE_FIXED},
    {"gpu-recursive", "the same recursive code on the GPU, one thread per pixel: a stack in local memory",
     KERNEL_RECURSIVE_F64, SHAPE_FIXED},
    {"gpu-loop", "recursion to a loop carrying gathered light and throughput: no stack", KERNEL_LOOP_F64, SHAPE_FIXED},
    {"gpu-float", "double to float, every literal marked float", KERNEL_LOOP_F32, SHAPE_FIXED},
    {"gpu-block-shape", "block shapes measured, the fastest kept", KERNEL_LOOP_F32, SHAPE_SWEPT},
    {"gpu-balanced", "one loop over samples and bounces: a lane whose path ends starts its next sample",
     KERNEL_REGENERATE_F32, SHAPE_SWEPT},
    {"gpu-light-sampling", "a shadow ray to the light at every diffuse surface: less noise per sample",
     KERNEL_LIGHT_F32, SHAPE_SWEPT},
};
#define STAGE_COUNT (sizeof stages / sizeof stages[0])

static const int block_shapes[][2] = {{16, 16}, {32, 16}, {32, 8}, {32, 4}, {64, 4}, {16, 8}, {8, 8}};
#define SHAPE_COUNT (sizeof block_shapes / sizeof block_shapes[0])

static const cli_spec spec = {
    .program = "ch08",
    .summary = "a smallpt-style path tracer: CPU threads, then the GPU; samples per second and quality per second",
    .accepts = CLI_WIDTH | CLI_HEIGHT | CLI_SPP | CLI_THREADS | CLI_REPEAT | CLI_DEVICE | CLI_STAGE | CLI_OUT |
               CLI_IMAGES | CLI_CSV | CLI_QUIET | CLI_SCENE | CLI_SEED,
    CLI_STAGE_TABLE(stages),
    .notes = "Defaults: 1024x768, --spp 64 (a multiple of 4: spp/4 samples in each of 2x2 subpixels), --repeat 5\n"
             "(GPU stages; the CPU stage renders twice), --threads all CPUs, --seed 1,\n"
             "--scene data/scenes/cornell.txt (one 'sphere R cx cy cz er eg eb r g b material' per line).\n"
             "Checks: no NaN; GPU pixels against the same code on the CPU; with the default scene at\n"
             "1024x768 or 128x96 and spp >= 64, the noise test against a converged reference\n"
             "(how and why: chapters/ch08_path_tracer/main.c).\n"
             "Default output: ch08.ppm (the last stage's image, written only if every check passed).\n"
             "Without a CUDA device the CPU stage runs and the exit status is 3.",
};

typedef struct {
    scene sc;
    int default_scene;
    image a, b, reference;
    int have_reference;
    double reference_noise;
    int width, height, spp, repeat, threads, quiet;
    unsigned int seed;
    unsigned char *d_rgb;
    int *d_bad;
} run;

/* MSE per 8-bit channel (common/image.c; the sizes always match here). */
static double mse(const image *x, const image *y)
{
    image_diff d;
    image_compare(x, y, &d);
    return d.mse;
}

/* ---------------------------------------------------------------- setup */
static void load_scene(run *r, const char *path)
{
    char err[SCENE_ERROR_SIZE];
    if (scene_load(path, &r->sc, err, sizeof err) != 0)
        cli_usage_error(&spec, "--scene: %s", err);
    scene standard;
    r->default_scene = scene_load(DEFAULT_SCENE, &standard, err, sizeof err) == 0 && scene_equal(&standard, &r->sc);
}

static void load_reference(run *r)
{
    for (size_t i = 0; i < sizeof references / sizeof references[0]; i++) {
        if (!r->default_scene || references[i].width != r->width || references[i].height != r->height)
            continue;
        char path[512], err[IMAGE_ERROR_SIZE];
        snprintf(path, sizeof path, "%s/ch08_cornell_%dx%d.ppm", REFERENCE_DIR, r->width, r->height);
        if (image_read_ppm(&r->reference, path, err, sizeof err) != 0) {
            if (!r->quiet)
                fprintf(stderr, "ch08: no reference image (%s): the noise test is skipped\n", err);
            return;
        }
        r->have_reference = r->reference.width == r->width && r->reference.height == r->height;
        r->reference_noise = references[i].noise;
    }
}

/* ---------------------------------------------------------------- checks */
/* MSE of the GPU image against the kernel's own code on the CPU, at
 * fixed-seed pixels (seed 0xC8C8); *bad counts NaN pixels the CPU found. */
static double spot_check(const run *r, int kernel, const image *img, unsigned int seed, int *bad)
{
    unsigned long long x = 0xC8C8;
    int pixels = CPU_CHECK_SAMPLES / r->spp;
    pixels = pixels < 8 ? 8 : pixels > CPU_CHECK_PIXELS ? CPU_CHECK_PIXELS : pixels;
    double sq = 0;
    int n = 0;
    for (int i = 0; i < pixels; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        int col = (int)((x >> 33) % (unsigned long long)r->width);
        int row = (int)((x >> 13) % (unsigned long long)r->height);
        unsigned char cpu[3];
        *bad += !cpu_kernel_pixel(kernel, &r->sc, col, row, r->width, r->height, r->spp, seed, cpu);
        const unsigned char *gpu = img->rgb + 3 * ((size_t)row * r->width + col);
        for (int c = 0; c < 3; c++, n++)
            sq += (double)(cpu[c] - gpu[c]) * (cpu[c] - gpu[c]);
    }
    return sq / n;
}

/* The noise test (top of this file) on the stage's two renders; appends its
 * numbers to the note. *mse_a: MSE(A, ref). */
static int noise_test(const run *r, char *note, size_t len, double *mse_a)
{
    double n = mse(&r->a, &r->b) / 2, ma = mse(&r->a, &r->reference), mb = mse(&r->b, &r->reference);
    double bound = noise_bound(2 * n, r->reference_noise);
    *mse_a = ma;
    size_t used = strlen(note);
    snprintf(note + used, len - used, "%sMSE vs reference %.1f, %.1f (noise %.1f, bound %.1f%s)", used ? "; " : "", ma,
             mb, n, bound, r->spp < NOISE_TEST_MIN_SPP ? ", not applied below 64 spp" : "");
    return r->spp < NOISE_TEST_MIN_SPP || (ma <= bound && mb <= bound);
}

/* ---------------------------------------------------------------- the CPU stage */
static double run_cpu(run *r, const stage *s, int *ok, char *note, size_t len, run_times *timing)
{
    char label[64];
    double times[2];
    long bad = 0;
    for (int k = 0; k < 2; k++) {
        snprintf(label, sizeof label, "%s x%d, render %d of 2", s->name, r->threads, k + 1);
        double t0 = now_seconds();
        bad += cpu_render(&r->sc, k ? &r->b : &r->a, r->spp, r->seed + (unsigned int)k, r->threads, label, r->quiet);
        times[k] = (now_seconds() - t0) * 1e3;
    }
    *ok = bad == 0;
    snprintf(note, len, "%s", bad ? "NaN/Inf samples" : "");
    *timing = summarize_runs(times, 2);
    return timing->median;
}

/* ---------------------------------------------------------------- GPU stages */
typedef struct {
    const run *r;
    int kernel, bx, by, spp;
} launch;

static void launch_render(void *p)
{
    const launch *l = p;
    gpu_render(l->kernel, l->r->d_rgb, l->r->d_bad, l->r->width, l->r->height, l->spp, l->r->seed, l->bx, l->by, NULL);
    CUDA_CHECK_LAUNCH();
}

/* Renders with seed into img; returns the number of bad pixels (NaN on the
 * GPU or in the CPU's spot check) and the spot check's MSE in *spot. */
static int gpu_render_checked(run *r, int kernel, int bx, int by, unsigned int seed, image *img, kernel_info *k,
                              double *spot)
{
    int bad = 0;
    CUDA_CHECK(cudaMemset(r->d_bad, 0, sizeof(int)));
    CUDA_CHECK(cudaMemset(r->d_rgb, 0xEE, image_bytes(img))); /* poison */
    gpu_render(kernel, r->d_rgb, r->d_bad, r->width, r->height, r->spp, seed, bx, by, k);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(img->rgb, r->d_rgb, image_bytes(img), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&bad, r->d_bad, sizeof bad, cudaMemcpyDeviceToHost));
    *spot = spot_check(r, kernel, img, seed, &bad);
    return bad;
}

/* The fastest block shape for a kernel (median of 3 runs each, at no more
 * than SWEEP_SPP: the shape's effect does not grow with spp, and the sweep
 * should cost little beside the stage), remembered. */
#define SWEEP_SPP 16
static int best_shape(const run *r, int kernel)
{
    static int known[KERNEL_COUNT] = {0};
    if (known[kernel])
        return known[kernel] - 1;
    double best = INFINITY;
    int pick = 0;
    for (size_t i = 0; i < SHAPE_COUNT; i++) {
        launch l = {r, kernel, block_shapes[i][0], block_shapes[i][1], r->spp < SWEEP_SPP ? r->spp : SWEEP_SPP};
        launch_render(&l);
        double ms = cuda_median_ms(launch_render, &l, 3);
        if (!r->quiet)
            fprintf(stderr, "ch08: kernel %d, block %dx%d: %.2f ms\n", kernel, block_shapes[i][0], block_shapes[i][1],
                    ms);
        if (ms < best)
            best = ms, pick = (int)i;
    }
    known[kernel] = pick + 1;
    return pick;
}

static double run_gpu(run *r, const stage *s, int *ok, char *note, size_t len, run_times *timing)
{
    int shape = s->shape == SHAPE_SWEPT ? best_shape(r, s->kernel) : 0;
    int bx = block_shapes[shape][0], by = block_shapes[shape][1];
    kernel_info k;
    double spot_a, spot_b;
    int bad = gpu_render_checked(r, s->kernel, bx, by, r->seed, &r->a, &k, &spot_a);
    launch l = {r, s->kernel, bx, by, r->spp};
    double times[REPEAT_MAX];
    for (int i = 0; i < r->repeat; i++)
        times[i] = cuda_median_ms(launch_render, &l, 1);
    *timing = summarize_runs(times, r->repeat);
    bad += gpu_render_checked(r, s->kernel, bx, by, r->seed + 1, &r->b, NULL, &spot_b);
    double n = mse(&r->a, &r->b) / 2, limit = SPOT_FRACTION * n + 1;
    *ok = bad == 0 && spot_a <= limit && spot_b <= limit;
    snprintf(note, len, "%dx%d, %d regs, %d B local, occupancy %.0f%%; vs CPU MSE %.2g, %.2g (limit %.3g)%s", bx, by,
             k.registers, k.local_bytes, 100 * k.occupancy, spot_a, spot_b, limit, bad ? "; NaN/Inf samples" : "");
    return timing->median;
}

/* ---------------------------------------------------------------- main */
int main(int argc, char **argv)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    cli_options opt = {.width = 1024, .height = 768, .spp = 64, .repeat = 5, .threads = cpus > 0 ? cpus : 1,
                       .seed = 1};
    cli_parse(&spec, &opt, argc, argv);
    if (opt.spp % 4 != 0)
        cli_usage_error(&spec, "--spp %ld: must be a multiple of 4 (spp/4 samples in each of 2x2 subpixels)", opt.spp);
    const char *out = opt.out ? opt.out : "ch08.ppm";
    cli_require_writable(&spec, "default output", out);
    run r = {.width = (int)opt.width, .height = (int)opt.height, .spp = (int)opt.spp, .repeat = (int)opt.repeat,
             .threads = (int)opt.threads, .quiet = opt.quiet, .seed = (unsigned int)opt.seed};
    load_scene(&r, opt.scene ? opt.scene : DEFAULT_SCENE);
    if (image_alloc(&r.a, r.width, r.height) != 0 || image_alloc(&r.b, r.width, r.height) != 0) {
        fprintf(stderr, "%s: out of memory (%dx%d image)\n", spec.program, r.width, r.height);
        return EXIT_CHECK_FAIL;
    }
    load_reference(&r);

    char why[256] = "";
    int devices = cuda_device_count(why, sizeof why), gpu = devices > 0;
    if (gpu && opt.device >= devices)
        cli_usage_error(&spec, "--device %ld is out of range: this machine has %d CUDA device%s", opt.device, devices,
                        devices == 1 ? "" : "s");
    cuda_device_info info;
    memset(&info, 0, sizeof info);
    if (gpu) {
        CUDA_CHECK(cudaSetDevice((int)opt.device));
        cuda_describe_device((int)opt.device, &info);
        if (!opt.quiet)
            cuda_print_device(stderr, (int)opt.device, &info);
        CUDA_CHECK(cudaMalloc((void **)&r.d_rgb, image_bytes(&r.a)));
        CUDA_CHECK(cudaMalloc((void **)&r.d_bad, sizeof(int)));
        gpu_prepare_stack();
        gpu_set_scene(&r.sc, r.width, r.height);
    }

    char workload[96];
    snprintf(workload, sizeof workload, "%dx%dx%dspp", r.width, r.height, r.spp);
    report rep;
    report_init(&rep, spec.program, workload, opt.csv, opt.quiet);
    int skipped = 0, rendered = 0;
    for (size_t i = 0; i < STAGE_COUNT; i++) {
        const stage *s = &stages[i];
        if (opt.stage_index >= 0 && (size_t)opt.stage_index != i)
            continue;
        if (s->kernel != ON_CPU && !gpu) {
            skipped++;
            continue;
        }
        char note[256] = "";
        int ok;
        run_times t = {0};
        double ms = s->kernel == ON_CPU ? run_cpu(&r, s, &ok, note, sizeof note, &t)
                                        : run_gpu(&r, s, &ok, note, sizeof note, &t);
        double quality = 0;
        if (r.have_reference)
            ok &= noise_test(&r, note, sizeof note, &quality);
        rendered = 1;
        if (opt.images && image_write_stage(&r.a, opt.images, spec.program, s->name) != 0)
            return EXIT_CHECK_FAIL;
        double samples = (double)r.width * r.height * r.spp;
        const char *device = s->kernel == ON_CPU ? host_cpu_name() : info.name;
        report_add(&rep, (report_entry){.stage = s->name, .threads = s->kernel == ON_CPU ? r.threads : REPORT_ON_GPU,
                                        .ms = ms, .value = samples / (ms * 1e3), .unit = "Msamples/s", .ok = ok,
                                        .device = device, .note = note, .runs = t.runs, .lo_ms = t.lo,
                                        .hi_ms = t.hi});
        if (r.have_reference)
            report_add(&rep, (report_entry){.stage = s->name, .threads = s->kernel == ON_CPU ? r.threads : 0,
                                            .ms = ms, .value = quality, .unit = "MSE", .ok = ok, .device = device,
                                            .note = "MSE per 8-bit channel against the reference"});
    }
    if (skipped && !opt.quiet)
        fprintf(stderr, "%s: no CUDA device found (%s): %d GPU stage%s not run (exit status %d)\n", spec.program, why,
                skipped, skipped == 1 ? "" : "s", EXIT_NO_GPU);

    int status = report_finish_image(&rep, 1, spec.program, rendered ? &r.a : NULL, out, opt.quiet);
    report_print(&rep, stdout);
    if (gpu) {
        CUDA_CHECK(cudaFree(r.d_rgb));
        CUDA_CHECK(cudaFree(r.d_bad));
    }
    image_free(&r.a);
    image_free(&r.b);
    image_free(&r.reference);
    if (status == EXIT_OK && skipped)
        status = EXIT_NO_GPU;
    return status;
}
