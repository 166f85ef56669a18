/* ch08 - a smallpt-style path tracer: CPU threads, then the GPU, measured in
 * samples per second and in quality per second.
 *
 *   make ch08 && ./ch08                      # every stage, 1024x768 at 64 spp
 *   ./ch08 --stage gpu-light-sampling --spp 256
 *
 * The scene is read from --scene (default data/scenes/cornell.txt, smallpt's
 * nine spheres); a bad file stops the program before any work (exit 2).
 * Each stage renders twice, with seeds S and S+1 (--seed S, default 1),
 * measured as every chapter's are (common/measure.h); the checks, and the
 * noise test against a converged reference, are this file's (below).
 *
 * Rates: Msamples/s, one camera path per sample (a pixel at --spp has spp).
 * With a reference, each stage also has a row in the unit "MSE" (the first
 * render's, per 8-bit channel): `make bench` sweeps spp to chart MSE against
 * time, and the time to MSE < 52 (the report's bar). Without a CUDA device
 * the CPU stages run and the exit status is 3.
 *
 * This file is the problem as common/program.h's skeleton runs it: the
 * scene, a stage's renders, their checks and its rows. The checks of a
 * stage's two renders A and B:
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
#include "linear.h"
#include "render.h"
#include "stages.h"

#include "../../common/cli.h"
#include "../../common/cpu_ceiling.h"
#include "../../common/cuda_util.h"
#include "../../common/image.h"
#include "../../common/measure.h"
#include "../../common/program.h"
#include "../../common/raytracer.h" /* the workload label */
#include "../../common/program_cuda.h"
#include "../../common/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *scene_path; /* NULL: the default scene */
static long first_seed = 1;
static const char *noise_test_option = "yes"; /* no: make ch08-reference, which renders the reference itself */
static const char *linear_out, *linear_reference; /* PFM files of linear radiance (make bench's quality ladder) */
static const cli_option options[] = {
    {"scene", "FILE", "the scene file (format: its own comments, and the chapter's --help)", .text = &scene_path},
    {"seed", "S", "the first of the seeds of the random streams (default 1; a second render uses S+1)", .min = 1,
     .max = 4294967294LL, .number = &first_seed},
    {"noise-test", "yes|no", "compare with the converged reference where one exists (default yes)",
     .text = &noise_test_option, .choices = cli_yes_no, .choice_count = 2},
    {"linear-out", "FILE", "also write the last GPU stage's unclamped mean radiance as PFM (after its checks)",
     .text = &linear_out},
    {"linear-reference", "FILE", "a PFM from --linear-out: each GPU stage's relative MSE against it, as a row",
     .text = &linear_reference},
};

static const cli_spec spec = {
    .program = "ch08",
    .summary = "a smallpt-style path tracer: CPU threads, then the GPU; samples per second and quality per second",
    .accepts = CLI_WIDTH | CLI_HEIGHT | CLI_SPP | CLI_THREADS | CLI_REPEAT | CLI_DEVICE | CLI_STAGE | CLI_OUT |
               CLI_IMAGES | CLI_CSV | CLI_QUIET,
    CLI_STAGE_TABLE(stages),
    CLI_OPTION_TABLE(options),
    .notes = "Defaults: 1024x768, --spp 64 (a multiple of 4: spp/4 samples in each of 2x2 subpixels), --repeat 5\n"
             "(GPU stages; the CPU stage renders twice), --threads all CPUs, --seed 1,\n"
             "--scene data/scenes/cornell.txt (one 'sphere R cx cy cz er eg eb r g b material' per line).\n"
             "Checks: no NaN; GPU pixels against the same code on the CPU; with the default scene at\n"
             "1024x768 or 128x96 and spp >= 64, the noise test against a converged reference\n"
             "(how and why: chapters/ch08_path_tracer/problem.c).\n"
             "Default output: ch08.ppm (the last stage's image, written only if every check passed).\n"
             "Without a CUDA device the CPU stage runs and the exit status is 3.",
};

/* The problem: the scene, a stage's two renders A and B, the GPU's buffers.
 * A is the first checked render, B the last (GPU: the checked run after the
 * timed ones; CPU: its second render). The first check looks for NaN and, on
 * the GPU, measures A against the CPU; the second has both renders and
 * judges the pair. */
typedef struct {
    scene sc;
    int default_scene;
    image a, b, reference;
    int have_reference;
    double reference_noise;
    int width, height, spp, threads, quiet;
    unsigned int seed;
    unsigned char *d_rgb;
    int *d_bad;
    /* linear radiance (--linear-out, --linear-reference): A's per-pixel
     * unclamped means on the GPU and here, and the converged ones */
    float *d_linear, *linear, *linear_reference;
    int have_linear; /* linear holds A's (a GPU stage whose A is checked) */
    int rendered;    /* a stage ran: A is the picture */
    /* the stage being measured (run_begin_stage) */
    int kernel, bx, by, checks;
    unsigned int run_seed; /* the next render's: S until A is checked, then S+1 */
    kernel_info *info;     /* filled by the next GPU render, then NULL */
    long bad;              /* NaN/Inf samples or pixels so far */
    double spot_a, quality; /* A's MSE against the CPU (GPU stages); MSE(A, reference) */
    double rel_quality;     /* A's relative MSE against linear_reference (linear_mse), or -1 */
    const char *name;
} run;

static run state; /* the one the program runs */

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

/* The scene file (path NULL: the default scene; 0, or -1 with the reason in
 * err, the option named). */
static int run_load_scene(run *r, const char *path, char *err, size_t len)
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

/* For the default scene at a size that has one, the converged reference. */
static void run_load_reference(run *r)
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

static void run_begin_stage(run *r, const char *name, int kernel, int bx, int by, kernel_info *info)
{
    r->name = name, r->kernel = kernel, r->bx = bx, r->by = by, r->info = info;
    r->checks = 0, r->run_seed = r->seed, r->bad = 0, r->quality = 0, r->rel_quality = -1, r->have_linear = 0;
}

static void poison(void *context)
{
    run *r = context;
    if (on_cpu(r->kernel))
        return;
    CUDA_CHECK(cudaMemset(r->d_bad, 0, sizeof(int)));
    CUDA_CHECK(cudaMemset(r->d_rgb, 0xEE, image_bytes(&r->a)));
    if (r->d_linear) /* NaN: a pixel the kernel skipped makes the relative MSE NaN, a failed check */
        CUDA_CHECK(cudaMemset(r->d_linear, 0xFF, 3 * (size_t)r->width * r->height * sizeof(float)));
}

static void render(void *context)
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

static int check(void *context, char *note, size_t len)
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

static const int block_shapes[][2] = {{16, 16}, {32, 16}, {32, 8}, {32, 4}, {64, 4}, {16, 8}, {8, 8}};
#define SHAPE_COUNT (sizeof block_shapes / sizeof block_shapes[0])

static void run_gpu_begin(run *r, int linear)
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

static void run_end(run *r)
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

/* Stage i (GPU: a checked warm-up, --repeat timed runs, a checked run after,
 * the block shape the row's; CPU: two renders, each checked), its rows:
 * Msamples/s, with a reference its MSE, with --linear-reference its
 * relative MSE. */
static int measure(program_run *p, size_t i)
{
    run *r = &state;
    const stage *s = &stages[i];
    int cpu = on_cpu(s->kernel), shape = s->shape == SHAPE_SWEPT ? best_shape(r, s->kernel) : 0;
    kernel_info k;
    run_begin_stage(r, s->info.name, s->kernel, block_shapes[shape][0], block_shapes[shape][1], &k);
    measure_result m;
    measure_plan plan = {.name = s->info.name, .reset = poison, .run = render, .check = check, .context = r,
                         .timer = cpu ? NULL : cuda_time_ms, .repeat = cpu ? 2 : (int)p->opt.repeat,
                         .check_each_run = cpu};
    double samples = (double)r->width * r->height * r->spp;
    int threads = cpu ? r->threads : REPORT_ON_GPU;
    const char *device = cpu ? host_cpu_name() : p->device;
    report_row *row = program_measure(p, &plan, samples, 1e6, "Msamples/s", threads, device, &m);
    r->rendered = 1;
    if (!cpu)
        report_note(row, "; %dx%d, %d regs, %d B static local frame%s, occupancy %.0f%%", r->bx, r->by,
                    k.registers, k.local_bytes, s->frame == FRAME_CALL_STACK ? " + call stack at run time" : "",
                    100 * k.occupancy); /* a frame, not traffic: the profiler counts local traffic */
    double ms = m.times.median;
    if (r->have_reference)
        report_add(p->rep, (report_entry){.stage = s->info.name, .threads = threads, .ms = ms, .value = r->quality,
                                          .unit = "MSE", .ok = m.ok, .device = device,
                                          .note = "MSE per 8-bit channel against the reference"});
    if (r->rel_quality >= 0)
        report_add(p->rep, (report_entry){.stage = s->info.name, .threads = REPORT_ON_GPU, .ms = ms,
                                          .value = r->rel_quality, .unit = "relMSE", .ok = m.ok, .device = device,
                                          .note = "relative MSE of linear radiance against --linear-reference"});
    return 0;
}

/* --linear-out: the last GPU stage's A, as PFM; 0, or -1 said on stderr
 * (none rendered, a pixel not finite, a failed write). */
static int run_write_linear(const run *r, const char *path)
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

/* The command line's own checks, before any work: a bad scene file or
 * --linear-reference is a usage error, the first line. */
static void validate(program_run *p)
{
    run *r = &state;
    char err[2 * SCENE_ERROR_SIZE];
    if (p->opt.spp % 4 != 0)
        cli_usage_error(p->spec, "--spp %ld: must be a multiple of 4 (spp/4 samples in each of 2x2 subpixels)",
                        p->opt.spp);
    if (linear_out)
        cli_require_output(p->spec, "--linear-out", linear_out, &linear_kind);
    *r = (run){.width = (int)p->opt.width, .height = (int)p->opt.height, .spp = (int)p->opt.spp,
               .threads = (int)p->opt.threads, .quiet = p->opt.quiet, .seed = (unsigned int)first_seed};
    if (run_load_scene(r, scene_path, err, sizeof err) != 0)
        cli_usage_error(p->spec, "%s", err);
    if (linear_reference &&
        linear_read_pfm(linear_reference, &r->linear_reference, r->width, r->height, err, sizeof err) != 0)
        cli_usage_error(p->spec, "--linear-reference: %s", err);
}

/* The images, the reference (--noise-test yes) and, with a device, the GPU's
 * side: the image and the NaN count, linear radiance where asked for, the
 * stack and the scene set. */
static void setup(program_run *p)
{
    run *r = &state;
    cli_alloc_image(&r->a, r->width, r->height);
    cli_alloc_image(&r->b, r->width, r->height);
    if (strcmp(noise_test_option, "yes") == 0)
        run_load_reference(r);
    if (p->gpu)
        run_gpu_begin(r, linear_out || linear_reference);
}


/* The host's FMA ceiling beside the CPU rows, on their threads: a reference
 * (a path's flops are not counted, so no stage claims a share of it). */
static void fma_ceiling(program_run *p)
{
    if (p->want_cpu)
        cpu_fma_ceiling_row(p->rep, state.threads, 3);
}

static const image *picture(program_run *p)
{
    (void)p;
    return state.rendered ? &state.a : NULL;
}

/* --linear-out, after the picture: written only if every check passed. */
static int write_linear(program_run *p, int status)
{
    if (linear_out && p->gpu && status == EXIT_OK && run_write_linear(&state, linear_out) != 0)
        return EXIT_CHECK_FAIL;
    return status;
}

static void teardown(program_run *p)
{
    (void)p;
    run_end(&state);
}

const program chapter_program = {
    .spec = &spec,
    .defaults = {.width = 1024, .height = 768, .spp = 64, .repeat = 5, .threads = PROGRAM_ALL_CORES},
    .gpu = PROGRAM_GPU_IF_ANY,
    .device = PROGRAM_CUDA,
    .picture = "ch08.ppm",
    .validate = validate,
    .setup = setup,
    .workload = raytracer_program_workload,
    .stage = measure,
    .end = fma_ceiling,
    .image = picture,
    .finish = write_linear,
    .teardown = teardown,
};
