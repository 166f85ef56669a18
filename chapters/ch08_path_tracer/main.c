/* ch08 - a smallpt-style path tracer: CPU threads, then the GPU, measured in
 * samples per second and in quality per second.
 *
 *   make ch08 && ./ch08                      # every stage, 1024x768 at 64 spp
 *   ./ch08 --stage gpu-light-sampling --spp 256
 *
 * The scene is read from --scene (default data/scenes/cornell.txt, smallpt's
 * nine spheres); a bad file stops the program before any work (exit 2).
 *
 * Each stage renders twice, with seeds S and S+1 (--seed S, default 1),
 * measured as every chapter's are (common/measure.h): checked, timed, checked
 * again (the CPU stage: two renders, each checked). The checks, and the noise
 * test against a converged reference, are run.c's (its header says why).
 *
 * Rates: Msamples/s, one camera path per sample (a pixel at --spp has spp).
 * With a reference, each stage also has a row in the unit "MSE" (the first
 * render's, per 8-bit channel): `make bench` sweeps spp to chart MSE against
 * time, and the time to MSE < 52 (the report's bar).
 *
 * After the CPU stages, the row ceiling-cpu-fma: the host's FMA throughput
 * on their threads at its widest vector ISA, measured in the same run
 * (common/cpu_ceiling.h).
 *
 * Without a CUDA device the CPU stage runs and the exit status is 3.
 */
#include "render.h"
#include "run.h"
#include "stages.h"

#include "../../common/cli.h"
#include "../../common/cpu_ceiling.h"
#include "../../common/cuda_util.h"
#include "../../common/image.h"
#include "../../common/measure.h"
#include "../../common/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef SCENE_DIR
#define SCENE_DIR "data/scenes"
#endif
#define DEFAULT_SCENE SCENE_DIR "/cornell.txt"

static const int block_shapes[][2] = {{16, 16}, {32, 16}, {32, 8}, {32, 4}, {64, 4}, {16, 8}, {8, 8}};
#define SHAPE_COUNT (sizeof block_shapes / sizeof block_shapes[0])

static const char default_scene[] = DEFAULT_SCENE; /* the checkout's, an absolute path fixed at build time */
static const char *scene_path = default_scene;
static long first_seed = 1;
static const char *noise_test = "yes"; /* no: make ch08-reference, which renders the reference itself */
static const char *linear_out, *linear_reference; /* PFM files of linear radiance (make bench's quality ladder) */
static const cli_option options[] = {
    {"scene", "FILE", "the scene file (format: its own comments, and the chapter's --help)", .text = &scene_path},
    {"seed", "S", "the first of the seeds of the random streams (default 1; a second render uses S+1)", .min = 1,
     .max = 4294967294LL, .number = &first_seed},
    {"noise-test", "yes|no", "compare with the converged reference where one exists (default yes)",
     .text = &noise_test},
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
             "(how and why: chapters/ch08_path_tracer/run.c).\n"
             "Default output: ch08.ppm (the last stage's image, written only if every check passed).\n"
             "Without a CUDA device the CPU stage runs and the exit status is 3.",
};

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

/* Room for linear radiance, on the GPU and here. */
static void gpu_alloc_linear(run *r)
{
    size_t bytes = 3 * (size_t)r->width * r->height * sizeof(float);
    CUDA_CHECK(cudaMalloc((void **)&r->d_linear, bytes));
    r->linear = malloc(bytes);
    if (!r->linear) {
        fprintf(stderr, "%s: out of memory (%zu bytes of linear radiance)\n", spec.program, bytes);
        exit(EXIT_CHECK_FAIL);
    }
}

/* --linear-out: the last GPU stage's A, if one was rendered. */
static int write_linear(const run *r, const char *path)
{
    char err[4400];
    if (!r->have_linear) {
        fprintf(stderr, "%s: --linear-out %s: no GPU stage was rendered\n", spec.program, path);
        return -1;
    }
    for (size_t i = 0; i < 3 * (size_t)r->width * r->height; i++)
        if (!isfinite(r->linear[i])) {
            fprintf(stderr, "%s: --linear-out %s: not written: pixel %zu is not finite\n", spec.program, path, i / 3);
            return -1;
        }
    if (linear_write_pfm(path, r->linear, r->width, r->height, err, sizeof err) != 0) {
        fprintf(stderr, "%s: --linear-out: %s\n", spec.program, err);
        return -1;
    }
    return 0;
}

/* Measures one stage and adds its rows: Msamples/s, and MSE with a reference. */
static void measure_row(report *rep, run *r, const stage *s, int repeat, const char *gpu_name)
{
    int cpu = on_cpu(s->kernel), shape = s->shape == SHAPE_SWEPT ? best_shape(r, s->kernel) : 0;
    kernel_info k;
    run_begin_stage(r, s->info.name, s->kernel, block_shapes[shape][0], block_shapes[shape][1], &k);
    measure_result m;
    measure_stage(&(measure_plan){.reset = poison, .run = render, .check = check, .context = r,
                                  .timer = cpu ? NULL : cuda_time_ms, .repeat = cpu ? 2 : repeat,
                                  .check_each_run = cpu}, &m);
    double samples = (double)r->width * r->height * r->spp, ms = m.times.median;
    const char *device = cpu ? host_cpu_name() : gpu_name;
    report_row *row = report_measured(rep, s->info.name, cpu ? r->threads : REPORT_ON_GPU, &m, samples / (ms * 1e3),
                                      "Msamples/s", device);
    if (!cpu)
        report_note(row, "; %dx%d, %d regs, %d B static local frame%s, occupancy %.0f%%", r->bx, r->by,
                    k.registers, k.local_bytes, s->kernel == KERNEL_RECURSIVE_F64 ? " + call stack at run time" : "",
                    100 * k.occupancy); /* a frame, not traffic: the profiler counts local traffic */
    if (r->have_reference)
        report_add(rep, (report_entry){.stage = s->info.name, .threads = cpu ? r->threads : REPORT_ON_GPU, .ms = ms,
                                       .value = r->quality, .unit = "MSE", .ok = m.ok, .device = device,
                                       .note = "MSE per 8-bit channel against the reference"});
    if (r->rel_quality >= 0)
        report_add(rep, (report_entry){.stage = s->info.name, .threads = REPORT_ON_GPU, .ms = ms,
                                       .value = r->rel_quality, .unit = "relMSE", .ok = m.ok, .device = device,
                                       .note = "relative MSE of linear radiance against --linear-reference"});
}

int main(int argc, char **argv)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    cli_options opt = {.width = 1024, .height = 768, .spp = 64, .repeat = 5, .threads = cpus > 0 ? cpus : 1};
    cli_parse(&spec, &opt, argc, argv);
    if (opt.spp % 4 != 0)
        cli_usage_error(&spec, "--spp %ld: must be a multiple of 4 (spp/4 samples in each of 2x2 subpixels)", opt.spp);
    if (strcmp(noise_test, "yes") != 0 && strcmp(noise_test, "no") != 0)
        cli_usage_error(&spec, "--noise-test '%s': yes or no", noise_test);
    const char *out = opt.out ? opt.out : "ch08.ppm";
    cli_require_writable(&spec, "default output", out);
    if (linear_out)
        cli_require_writable(&spec, "--linear-out", linear_out);
    run r = {.width = (int)opt.width, .height = (int)opt.height, .spp = (int)opt.spp, .threads = (int)opt.threads,
             .quiet = opt.quiet, .seed = (unsigned int)first_seed};
    char err[SCENE_ERROR_SIZE], why[256] = "";
    if (run_load_scene(&r, scene_path, DEFAULT_SCENE, err, sizeof err) != 0) {
        if (scene_path == default_scene) /* not the user's file: say whose it is and how to choose another */
            cli_usage_error(&spec, "the default scene (no --scene given): %s (its path was fixed when ch08 was built: "
                            "rebuild with make ch08 where the checkout is now, or give --scene FILE)", err);
        cli_usage_error(&spec, "--scene: %s", err);
    }
    if (linear_reference && /* read before any device work: a bad file's error is the first line */
        linear_read_pfm(linear_reference, &r.linear_reference, r.width, r.height, err, sizeof err) != 0)
        cli_usage_error(&spec, "--linear-reference: %s", err);
    int gpu = cuda_check_device_option(&spec, opt.device, why, sizeof why) > 0;
    cli_begin_work(&spec);
    if (image_alloc(&r.a, r.width, r.height) != 0 || image_alloc(&r.b, r.width, r.height) != 0) {
        fprintf(stderr, "%s: out of memory (%dx%d image)\n", spec.program, r.width, r.height);
        return EXIT_CHECK_FAIL;
    }
    if (strcmp(noise_test, "yes") == 0)
        run_load_reference(&r);
    cuda_device_info info;
    memset(&info, 0, sizeof info);
    if (gpu) {
        cuda_require_device(&spec, (int)opt.device);
        cuda_describe_device((int)opt.device, &info);
        if (!opt.quiet)
            cuda_print_device(stderr, (int)opt.device, &info);
        CUDA_CHECK(cudaMalloc((void **)&r.d_rgb, image_bytes(&r.a)));
        CUDA_CHECK(cudaMalloc((void **)&r.d_bad, sizeof(int)));
        if (linear_out || linear_reference)
            gpu_alloc_linear(&r);
        gpu_prepare_stack();
        gpu_set_scene(&r.sc, r.width, r.height);
    }
    char workload[96];
    snprintf(workload, sizeof workload, "%dx%dx%dspp", r.width, r.height, r.spp);
    report rep;
    report_init(&rep, spec.program, workload, opt.csv, opt.quiet);
    int skipped = 0, rendered = 0, cpu_rows = 0;
    for (size_t i = 0; i < STAGE_COUNT; i++) {
        const stage *s = &stages[i];
        if (!cli_stage_selected(&opt, i))
            continue;
        if (!on_cpu(s->kernel) && !gpu) {
            skipped++;
            continue;
        }
        measure_row(&rep, &r, s, (int)opt.repeat, info.name);
        rendered = 1;
        cpu_rows |= on_cpu(s->kernel);
        if (opt.images && image_write_stage(&r.a, opt.images, spec.program, s->info.name) != 0)
            return EXIT_CHECK_FAIL;
    }
    /* The host's own limit beside the CPU rows, on their threads: a reference
     * (a path's flops are not counted, so no stage claims a share of it). */
    if (cpu_rows)
        cpu_fma_ceiling_row(&rep, r.threads, 3);
    if (skipped && !opt.quiet)
        fprintf(stderr, "%s: no CUDA device found (%s): %d GPU stage%s not run (exit status %d)\n", spec.program, why,
                skipped, skipped == 1 ? "" : "s", EXIT_NO_GPU);

    int status = report_finish_image(&rep, 1, spec.program, rendered ? &r.a : NULL, out, opt.quiet);
    if (linear_out && gpu && status == EXIT_OK && write_linear(&r, linear_out) != 0)
        status = EXIT_CHECK_FAIL;
    report_print(&rep, stdout);
    if (gpu) {
        CUDA_CHECK(cudaFree(r.d_rgb));
        CUDA_CHECK(cudaFree(r.d_bad));
        CUDA_CHECK(cudaFree(r.d_linear));
    }
    free(r.linear);
    free(r.linear_reference);
    image_free(&r.a);
    image_free(&r.b);
    image_free(&r.reference);
    if (status == EXIT_OK && skipped)
        status = EXIT_NO_GPU;
    return status;
}
