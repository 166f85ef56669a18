/* run.c - see run.h. The checks of a stage's two renders A and B:
 *
 * Two renders A and B of a stage differ only by their random streams, so
 * n = MSE(A, B) / 2 estimates the noise of one render (it falls as 1/spp);
 * the checks measure against it:
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
 */
#include "run.h"

#include "../../common/cuda_util.h"
#include "../../common/measure.h"
#include "../../common/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SCENE_DIR
#define SCENE_DIR "data/scenes"
#endif
#define DEFAULT_SCENE SCENE_DIR "/cornell.txt" /* the checkout's, an absolute path fixed at build time */
#ifndef REFERENCE_DIR
#define REFERENCE_DIR "data/reference"
#endif
#define CPU_CHECK_PIXELS 256
#define CPU_CHECK_SAMPLES (1 << 20) /* fewer pixels at high spp: the CPU's share stays about a second */
#define SPOT_FRACTION 0.5
#define NOISE_TEST_MIN_SPP 64

/* The reference images: made by `make ch08-reference` (gpu-loop, the double-
 * precision loop, checked against the CPU stage) at these spp with seed 1000.
 * noise: each one's own MSE against the converged image, the noise of
 * gpu-loop at 64 spp scaled by 64 / spp (measured on the H100: n = 1398.3 at
 * 1024x768, and on the CPU 1368.9 at 128x96, by the same code). */
static const struct {
    int width, height, spp;
    double noise;
} references[] = {
    {1024, 768, 16384, 5.5},
    {128, 96, 65536, 1.3},
};

/* MSE per 8-bit channel (common/image.c; the sizes always match here). */
static double mse(const image *x, const image *y)
{
    image_diff d;
    image_compare(x, y, &d);
    return d.mse;
}

int run_load_scene(run *r, const char *path, char *err, size_t len)
{
    char why[SCENE_ERROR_SIZE];
    if (scene_load(path ? path : DEFAULT_SCENE, &r->sc, why, sizeof why) != 0) {
        if (!path) /* not the user's file: say whose it is and how to choose another */
            snprintf(err, len, "the default scene (no --scene given): %s (its path was fixed when ch08 was built: "
                     "rebuild with make ch08 where the checkout is now, or give --scene FILE)", why);
        else
            snprintf(err, len, "--scene: %s", why);
        return -1;
    }
    scene standard;
    r->default_scene = scene_load(DEFAULT_SCENE, &standard, why, sizeof why) == 0 && scene_equal(&standard, &r->sc);
    return 0;
}

void run_load_reference(run *r)
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

void run_begin_stage(run *r, const char *name, int kernel, int bx, int by, kernel_info *info)
{
    r->name = name, r->kernel = kernel, r->bx = bx, r->by = by, r->info = info;
    r->checks = 0, r->run_seed = r->seed, r->bad = 0, r->quality = 0, r->rel_quality = -1, r->have_linear = 0;
}

void poison(void *context)
{
    run *r = context;
    if (on_cpu(r->kernel))
        return;
    CUDA_CHECK(cudaMemset(r->d_bad, 0, sizeof(int)));
    CUDA_CHECK(cudaMemset(r->d_rgb, 0xEE, image_bytes(&r->a)));
    if (r->d_linear) /* NaN: a pixel the kernel skipped makes the relative MSE NaN, a failed check */
        CUDA_CHECK(cudaMemset(r->d_linear, 0xFF, 3 * (size_t)r->width * r->height * sizeof(float)));
}

void render(void *context)
{
    run *r = context;
    if (on_cpu(r->kernel)) {
        char label[96];
        snprintf(label, sizeof label, "%s x%d, render %d of 2", r->name, r->threads, r->checks + 1);
        r->bad += cpu_render(r->kernel, &r->sc, r->checks ? &r->b : &r->a, r->spp, r->run_seed, r->threads, label, r->quiet);
        return;
    }
    gpu_render(r->kernel, r->d_rgb, r->d_linear, r->d_bad, r->width, r->height, r->spp, r->run_seed, r->bx, r->by,
               r->info);
    CUDA_CHECK_LAUNCH();
    r->info = NULL;
}

/* The pair: A and B against the CPU (GPU stages), within SPOT_FRACTION of
 * their noise; both against the reference (noise_test). */
static int check_pair(run *r, double spot_b, char *note, size_t len)
{
    int ok = r->bad == 0;
    note[0] = '\0';
    if (!on_cpu(r->kernel)) {
        double limit = SPOT_FRACTION * mse(&r->a, &r->b) / 2 + 1;
        ok &= r->spot_a <= limit && spot_b <= limit;
        snprintf(note, len, "vs CPU MSE %.2g, %.2g (limit %.3g)", r->spot_a, spot_b, limit);
    }
    if (r->bad)
        snprintf(note + strlen(note), len - strlen(note), "%sNaN/Inf samples", note[0] ? "; " : "");
    if (r->have_reference)
        ok &= noise_test(r, note, len, &r->quality);
    if (r->have_linear && r->linear_reference) {
        r->rel_quality = linear_mse(r->linear, r->linear_reference, 3 * (size_t)r->width * r->height);
        ok &= isfinite(r->rel_quality); /* NaN: a pixel left poisoned, or a NaN sample */
        snprintf(note + strlen(note), len - strlen(note), "%srelative MSE (linear) %.4g", note[0] ? "; " : "",
                 r->rel_quality);
    }
    return ok;
}

int check(void *context, char *note, size_t len)
{
    run *r = context;
    image *img = r->checks ? &r->b : &r->a;
    double spot = 0;
    if (!on_cpu(r->kernel)) {
        int bad = 0;
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaMemcpy(img->rgb, r->d_rgb, image_bytes(img), cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(&bad, r->d_bad, sizeof bad, cudaMemcpyDeviceToHost));
        spot = spot_check(r, r->kernel, img, r->run_seed, &bad);
        r->bad += bad;
    }
    if (r->checks++ == 0) { /* A: the pair is judged when B is there */
        r->spot_a = spot;
        if (r->d_linear && !on_cpu(r->kernel)) {
            CUDA_CHECK(cudaMemcpy(r->linear, r->d_linear, 3 * (size_t)r->width * r->height * sizeof(float),
                                  cudaMemcpyDeviceToHost));
            r->have_linear = 1;
        }
        r->run_seed = r->seed + 1;
        if (r->bad)
            snprintf(note, len, "NaN/Inf samples");
        return r->bad == 0;
    }
    return check_pair(r, spot, note, len);
}

/* ---------------------------------------------------------------- a stage's rows */
static const int block_shapes[][2] = {{16, 16}, {32, 16}, {32, 8}, {32, 4}, {64, 4}, {16, 8}, {8, 8}};
#define SHAPE_COUNT (sizeof block_shapes / sizeof block_shapes[0])

void run_gpu_begin(run *r, int linear)
{
    CUDA_CHECK(cudaMalloc((void **)&r->d_rgb, image_bytes(&r->a)));
    CUDA_CHECK(cudaMalloc((void **)&r->d_bad, sizeof(int)));
    if (linear) {
        size_t bytes = 3 * (size_t)r->width * r->height * sizeof(float);
        CUDA_CHECK(cudaMalloc((void **)&r->d_linear, bytes));
        r->linear = cli_alloc(bytes, "linear radiance");
    }
    gpu_prepare_stack();
    gpu_set_scene(&r->sc, r->width, r->height);
}

void run_end(run *r)
{
    if (r->d_rgb) { /* the GPU's side was set up */
        CUDA_CHECK(cudaFree(r->d_rgb));
        CUDA_CHECK(cudaFree(r->d_bad));
        CUDA_CHECK(cudaFree(r->d_linear));
    }
    free(r->linear);
    free(r->linear_reference);
    image_free(&r->a);
    image_free(&r->b);
    image_free(&r->reference);
}

/* The fastest block shape for a kernel (median of 3 runs each, at no more
 * than SWEEP_SPP: the shape's effect does not grow with spp, and the sweep
 * should cost little beside the stage), remembered. */
#define SWEEP_SPP 16
static int best_shape(run *r, int kernel)
{
    static int known[KERNEL_COUNT] = {0};
    if (known[kernel])
        return known[kernel] - 1;
    double best = INFINITY;
    int pick = 0, spp = r->spp;
    r->spp = spp < SWEEP_SPP ? spp : SWEEP_SPP;
    for (size_t i = 0; i < SHAPE_COUNT; i++) {
        run_begin_stage(r, "sweep", kernel, block_shapes[i][0], block_shapes[i][1], NULL);
        render(r); /* warm-up */
        double ms = cuda_median_ms(render, r, 3);
        if (!r->quiet)
            fprintf(stderr, "ch08: kernel %d, block %dx%d: %.2f ms\n", kernel, block_shapes[i][0], block_shapes[i][1],
                    ms);
        if (ms < best)
            best = ms, pick = (int)i;
    }
    r->spp = spp;
    known[kernel] = pick + 1;
    return pick;
}

void run_measure(report *rep, run *r, const stage *s, int repeat, const char *device)
{
    int cpu = on_cpu(s->kernel), shape = s->shape == SHAPE_SWEPT ? best_shape(r, s->kernel) : 0;
    kernel_info k;
    run_begin_stage(r, s->info.name, s->kernel, block_shapes[shape][0], block_shapes[shape][1], &k);
    measure_result m;
    measure_stage(&(measure_plan){.name = s->info.name, .reset = poison, .run = render, .check = check, .context = r,
                                  .timer = cpu ? NULL : cuda_time_ms, .repeat = cpu ? 2 : repeat,
                                  .check_each_run = cpu}, &m);
    double samples = (double)r->width * r->height * r->spp, ms = m.times.median;
    int threads = cpu ? r->threads : REPORT_ON_GPU;
    device = cpu ? host_cpu_name() : device;
    report_row *row = report_measured(rep, s->info.name, threads, &m, samples / (ms * 1e3), "Msamples/s", device);
    if (!cpu)
        report_note(row, "; %dx%d, %d regs, %d B static local frame%s, occupancy %.0f%%", r->bx, r->by,
                    k.registers, k.local_bytes, s->frame == FRAME_CALL_STACK ? " + call stack at run time" : "",
                    100 * k.occupancy); /* a frame, not traffic: the profiler counts local traffic */
    if (r->have_reference)
        report_add(rep, (report_entry){.stage = s->info.name, .threads = threads, .ms = ms, .value = r->quality,
                                       .unit = "MSE", .ok = m.ok, .device = device,
                                       .note = "MSE per 8-bit channel against the reference"});
    if (r->rel_quality >= 0)
        report_add(rep, (report_entry){.stage = s->info.name, .threads = REPORT_ON_GPU, .ms = ms,
                                       .value = r->rel_quality, .unit = "relMSE", .ok = m.ok, .device = device,
                                       .note = "relative MSE of linear radiance against --linear-reference"});
}

int run_write_linear(const run *r, const char *path)
{
    char err[4400];
    if (!r->have_linear) {
        fprintf(stderr, "ch08: --linear-out %s: no GPU stage was rendered\n", path);
        return -1;
    }
    for (size_t i = 0; i < 3 * (size_t)r->width * r->height; i++)
        if (!isfinite(r->linear[i])) {
            fprintf(stderr, "ch08: --linear-out %s: not written: pixel %zu is not finite\n", path, i / 3);
            return -1;
        }
    if (linear_write_pfm(path, r->linear, r->width, r->height, err, sizeof err) != 0) {
        fprintf(stderr, "ch08: --linear-out: %s\n", err);
        return -1;
    }
    return 0;
}
