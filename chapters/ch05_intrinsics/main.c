/* ch05 - the GPU card made fast: no FP64, intrinsics, pow by squaring, fast math,
 * block shape, less work, samples across a warp's lanes; start-up timed apart.
 *
 *   make ch05 && ./ch05                 # every stage, 512x512 at 64 spp
 *   ./ch05 --stage bounding-box
 *
 * Rate: Msamples/s. FLOP/s are not modelled here: the book's counted-work
 * table divides the FP32 operations Nsight Compute counts by the kernel time.
 *
 * Checks, before timing and after: no NaN/Inf pixel; 256 pixels (positions
 * from a fixed seed, 0xC4EC4) rendered again on the CPU by the same
 * __host__ __device__ code must be within 35 dB PSNR of the GPU's (GPU and CPU
 * arithmetic differ: nvcc fuses multiply-adds, and the GPU's pow differs in
 * the last bits, which can move a reflection); at 512x512x64 the whole image
 * must be within 38 dB of ch01's (the original program's) image.
 *
 * A sweep checks every shape or lane count it tries. Start-up is timed apart:
 * context (first CUDA calls), copy-to-host (the image), process (the whole run).
 *
 * Without a CUDA device: one line on stderr, exit status 3.
 */
#include "render.h"
#include "run.h"
#include "stages.h"

#include "../../common/cuda_util.h"
#include "../../common/raytracer.h" /* and cli.h, image.h */
#include "../../common/report.h"
#include "../../common/stage.h"
#include "../../common/timer.h"

#include <stdio.h>
#include <string.h>

static const cli_spec spec = {
    .program = "ch05",
    .summary = "the GPU card made fast: FP64 out, intrinsics, pow by squaring, fast math, block shape, less work",
    .accepts = CLI_WIDTH | CLI_HEIGHT | CLI_SPP | CLI_REPEAT | CLI_DEVICE | CLI_STAGE | CLI_OUT | CLI_IMAGES |
               CLI_CSV | CLI_QUIET,
    CLI_STAGE_TABLE(stages),
    .notes = "Checks: no NaN/Inf; 256 fixed-seed pixels against the CPU running the same code\n"
             "(>= 35 dB); at 512x512x64 the whole image against ch01's (>= 38 dB).\n"
             "Default output: ch05.ppm (the last stage's image, written only if every check\n"
             "passed). --repeat defaults to 10.",
};

static void launch_copy(void *p)
{
    run *r = p;
    CUDA_CHECK(cudaMemcpyAsync(r->host.rgb, r->d_rgb, image_bytes(&r->host), cudaMemcpyDeviceToHost, 0));
}

int main(int argc, char **argv)
{
    double process_start = now_seconds();
    cli_options opt = {.width = 512, .height = 512, .spp = 64, .repeat = 10};
    cli_parse(&spec, &opt, argc, argv);
    const char *out = opt.out ? opt.out : "ch05.ppm";
    cli_require_writable(&spec, "default output", out);
    double t0 = now_seconds(); /* the device count starts the driver: part of "context" */
    cuda_check_device_option(&spec, opt.device, NULL, 0);
    cli_begin_work(&spec);
    cuda_require_device(&spec, (int)opt.device);
    CUDA_CHECK(cudaFree(0)); /* forces the context into existence */
    double context_ms = 1e3 * (now_seconds() - t0);
    cuda_device_info info;
    cuda_describe_device((int)opt.device, &info);
    if (!opt.quiet)
        cuda_print_device(stderr, (int)opt.device, &info);
    run r = {.width = (int)opt.width, .height = (int)opt.height, .spp = (int)opt.spp};
    raytracer_image_alloc(&r.host, spec.program, &opt);
    r.have_original = raytracer_read_original(&r.original, &opt);
    CUDA_CHECK(cudaMalloc((void **)&r.d_rgb, image_bytes(&r.host)));
    CUDA_CHECK(cudaMalloc((void **)&r.d_bad, sizeof(int)));
    char workload[96], work[32];
    report rep;
    report_init(&rep, spec.program, raytracer_workload(workload, sizeof workload, &opt), opt.csv, opt.quiet);
    int best_shape = 3, best_lanes = 0; /* 16x16, and 32 lanes (the H100's best), until a sweep says otherwise */
    for (size_t i = 0; i < STAGE_COUNT; i++) {
        const stage *s = &stages[i];
        if (!cli_stage_selected(&opt, i))
            continue;
        kernel_info k;
        measure_result m;
        measure_best(&r, s, (int)opt.repeat, s->lanes == 1 ? &best_shape : &best_lanes, &k, &m, opt.quiet);
        if (opt.images && image_write_stage(&r.host, opt.images, spec.program, s->info.name) != 0)
            return EXIT_CHECK_FAIL;
        double samples = (double)r.width * r.height * r.spp, ms = m.times.median;
        report_row *row = report_measured(&rep, s->info.name, REPORT_ON_GPU, &m, samples / (ms * 1e3), "Msamples/s",
                                          info.name);
        int less = strcmp(stage_work(s->info.name, work, sizeof work), "less") == 0; /* the row's tag work=less */
        report_note(row, "; %s%dx%d px x %d lane%s, %d regs, occ %.0f%%", less ? "LESS WORK: " : "", r.bx, r.by,
                    r.lanes, r.lanes > 1 ? "s" : "", k.registers, 100 * k.occupancy);
        if (s->flags & BOUNDING_BOX)
            report_note(row, "; %.1f sphere tests per trace() (CPU check)", r.spheres_per_trace);
        if (s->box_note) {
            double ray_miss, warp_miss;
            cpu_primary_box_misses(r.width, r.height, r.bx, r.by, r.lanes, &ray_miss, &warp_miss);
            report_note(row, ", box skips %.0f%% of them; first camera rays: %.0f%% miss it, %.0f%% of warps miss it "
                        "whole", 100 * r.box_skip_share, 100 * ray_miss, 100 * warp_miss);
        }
    }
    launch_copy(&r); /* warm-up */
    double copy_ms = cuda_median_ms(launch_copy, &r, 5);
    int status = report_finish_image(&rep, 1, spec.program, &r.host, out, opt.quiet);
    /* Where the time of a run goes, reported apart from the stages (no check: references). */
    double start_ms[] = {context_ms, copy_ms, 1e3 * (now_seconds() - process_start)};
    const char *names[] = {"context", "copy-to-host", "process"},
               *notes[] = {"driver and context start-up", "the image (events)", "this whole run up to here"};
    for (size_t i = 0; i < 3; i++)
        report_add(&rep, (report_entry){.stage = names[i], .threads = REPORT_ON_GPU, .ms = start_ms[i],
                                        .value = start_ms[i], .unit = "ms", .ok = REPORT_NO_CHECK,
                                        .device = info.name, .note = notes[i]});
    report_print(&rep, stdout);
    CUDA_CHECK(cudaFree(r.d_rgb));
    CUDA_CHECK(cudaFree(r.d_bad));
    image_free(&r.host);
    image_free(&r.original);
    return status;
}
