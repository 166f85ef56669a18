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
 * A sweep checks every shape or lane count it tries (run.c). Start-up is timed
 * apart: context (first CUDA calls), copy-to-host (the image), process (the
 * whole run).
 *
 * Without a CUDA device: one line on stderr, exit status 3.
 */
#include "render.h"
#include "run.h"
#include "stages.h"

#include "../../common/program_cuda.h" /* and cuda_util.h, program.h */
#include "../../common/raytracer.h"    /* and cli.h, image.h */
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

static run job;
static int best_shape = 3, best_lanes = 0; /* 16x16, and 32 lanes (the H100's best), until a sweep says otherwise */
static double process_start, context_ms; /* the process's time begins at the device count */

/* The device as PROGRAM_CUDA opens it, the driver's and context's start-up
 * timed on the way: from the device count (it starts the driver), right after
 * the command line was read, to a context that exists. */
static int count_timed(const cli_spec *s, long device, char *why, size_t whylen)
{
    process_start = now_seconds();
    return program_cuda_count(s, device, why, whylen);
}

static const char *open_timed(program_run *p)
{
    cuda_require_device(p->spec, (int)p->opt.device); /* without a device: exits 3, saying so */
    CUDA_CHECK(cudaFree(0));                            /* forces the context into existence */
    context_ms = 1e3 * (now_seconds() - process_start);
    return program_cuda_open(p);
}

static const program_device timed_cuda = {count_timed, open_timed};

static void setup(program_run *p)
{
    job.width = (int)p->opt.width, job.height = (int)p->opt.height, job.spp = (int)p->opt.spp;
    gpu_picture_begin(&job.pic, spec.program, &p->opt);
}

static void workload(program_run *p, int table, char *buf, size_t size)
{
    (void)table;
    raytracer_workload(buf, size, &p->opt);
}

/* The stage at its best geometry (a sweep finds it: run.c), in Msamples/s;
 * its note names that geometry and the kernel's registers and occupancy. */
static int measure(program_run *p, size_t i)
{
    const stage *s = &stages[i];
    kernel_info k;
    measure_result m;
    char work[32];
    measure_best(&job, s, (int)p->opt.repeat, s->lanes == 1 ? &best_shape : &best_lanes, &k, &m, p->opt.quiet);
    double samples = (double)job.width * job.height * job.spp;
    report_row *row = report_measured(p->rep, s->info.name, REPORT_ON_GPU, &m, samples / (m.times.median * 1e3),
                                      "Msamples/s", p->device);
    int less = strcmp(stage_work(s->info.name, work, sizeof work), "less") == 0; /* the row's tag work=less */
    report_note(row, "; %s%dx%d px x %d lane%s, %d regs, occ %.0f%%", less ? "LESS WORK: " : "", job.bx, job.by,
                job.lanes, job.lanes > 1 ? "s" : "", k.registers, 100 * k.occupancy);
    if (s->flags & BOUNDING_BOX)
        report_note(row, "; %.1f sphere tests per trace() (CPU check)", job.spheres_per_trace);
    if (s->box_note) {
        double ray_miss, warp_miss;
        cpu_primary_box_misses(job.width, job.height, job.bx, job.by, job.lanes, &ray_miss, &warp_miss);
        report_note(row, ", box skips %.0f%% of them; first camera rays: %.0f%% miss it, %.0f%% of warps miss it "
                    "whole", 100 * job.box_skip_share, 100 * ray_miss, 100 * warp_miss);
    }
    return 0;
}

static void launch_copy(void *context)
{
    run *r = context;
    CUDA_CHECK(cudaMemcpyAsync(r->pic.host.rgb, r->pic.d_rgb, image_bytes(&r->pic.host), cudaMemcpyDeviceToHost, 0));
}

/* After the stages: where the time of a run goes, reported apart from them
 * (no check: references). */
static void startup_rows(program_run *p)
{
    launch_copy(&job); /* warm-up */
    double copy_ms = cuda_median_ms(launch_copy, &job, 5);
    double start_ms[] = {context_ms, copy_ms, 1e3 * (now_seconds() - process_start)};
    const char *names[] = {"context", "copy-to-host", "process"},
               *notes[] = {"driver and context start-up", "the image (events)", "this whole run up to here"};
    for (size_t i = 0; i < 3; i++)
        report_add(p->rep, (report_entry){.stage = names[i], .threads = REPORT_ON_GPU, .ms = start_ms[i],
                                          .value = start_ms[i], .unit = "ms", .ok = REPORT_NO_CHECK,
                                          .device = p->device, .note = notes[i]});
}

static void teardown(program_run *p)
{
    (void)p;
    gpu_picture_end(&job.pic);
}

const program chapter_program = {
    .spec = &spec,
    .defaults = {.width = 512, .height = 512, .spp = 64, .repeat = 10},
    .gpu = PROGRAM_GPU_ONLY,
    .device = &timed_cuda,
    .picture = "ch05.ppm",
    .setup = setup,
    .workload = workload,
    .stage = measure,
    .end = startup_rows,
    .picture_image = &job.pic.host,
    .teardown = teardown,
};
