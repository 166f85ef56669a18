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
 * A sweep checks every shape or lane count it tries (measure_best, below). Start-up is timed
 * apart: context (first CUDA calls), copy-to-host (the image), process (the
 * whole run).
 *
 * Without a CUDA device: one line on stderr, exit status 3.
 */
#include "problem.h" /* and render.h, stages.h */

#include "../../common/gpu_picture.h"  /* and cuda_util.h, raytracer.h: the picture and its check */
#include "../../common/program_cuda.h" /* and program.h */
#include "../../common/report.h"
#include "../../common/stage.h"
#include "../../common/timer.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- one stage's run, as measure_stage sees it: the picture poisoned,
 * rendered, checked (common/gpu_picture.h), at the geometry a sweep finds */
static void poison(void *context)
{
    gpu_picture_poison(&((run *)context)->pic);
}

static void render(void *context)
{
    run *r = context;
    r->fn(r->flags, r->lanes, r->pic.d_rgb, r->pic.d_bad, r->width, r->height, r->spp, r->bx, r->by, r->info);
    CUDA_CHECK_LAUNCH();
    r->info = NULL;
}

/* The CPU's render of one pixel, by the same code as the stage's kernel. */
static int cpu_pixel(void *context, int col, int row, unsigned char rgb[3])
{
    const run *r = context;
    return cpu_render_picture_pixel(r->flags, r->lanes, col, row, r->width, r->height, r->spp, rgb);
}

/* The picture's checks (common/gpu_picture.h), and what the CPU's spot check
 * counted on the way: how often the bounding box let trace() skip the spheres. */
static int check(void *context, char *note, size_t len)
{
    run *r = context;
    unsigned long long traces = cpu_trace_calls(), skips = cpu_box_skips(), tests = cpu_sphere_tests();
    int ok = gpu_picture_check(&r->pic, cpu_pixel, r, note, len);
    traces = cpu_trace_calls() - traces;
    r->box_skip_share = (double)(cpu_box_skips() - skips) / (double)traces;
    r->spheres_per_trace = (double)(cpu_sphere_tests() - tests) / (double)traces;
    return ok;
}

static const int shapes[][2] = {{8, 8}, {16, 8}, {8, 16}, {16, 16}, {32, 4}, {32, 8}, {64, 4}, {32, 16}};
#define SHAPE_COUNT (sizeof shapes / sizeof shapes[0])
/* With several lanes per pixel, blocks of 32 x 8 threads: each warp one row of 32 / lanes pixels. */
static const int lane_counts[] = {32, 16, 8, 4, 2}; /* the first is the default until a sweep says otherwise */
#define LANE_COUNT (sizeof lane_counts / sizeof lane_counts[0])

/* A geometry: `lanes` threads per pixel, blocks of bx x by pixels. */
static void use_shape(run *r, int shape)
{
    r->lanes = 1, r->bx = shapes[shape][0], r->by = shapes[shape][1];
}

static void use_lanes(run *r, int lanes)
{
    r->lanes = lanes, r->bx = 32 / lanes, r->by = 8;
}

/* Sets r's geometry to `at` (a shape, or an index in lane_counts) and measures stage s there. */
static void measure_at(run *r, const stage *s, int at, int repeat, kernel_info *k, measure_result *m)
{
    if (s->lanes == 1)
        use_shape(r, at);
    else
        use_lanes(r, lane_counts[at]);
    r->fn = s->run, r->flags = s->flags, r->info = k;
    measure_stage(&(measure_plan){.name = s->info.name, .reset = poison, .run = render, .check = check, .timer = cuda_time_ms,
                                  .context = r, .repeat = repeat}, m);
}

/* Measures stage s at the best geometry so far, or at each one its sweep
 * tries, keeping the fastest (*best, r's geometry and info, m). A sweep then
 * measures its winner once more, last, and reports that: the row's time is not
 * the least of several noisy medians (the winner of a sweep is biased fast),
 * and the stage's last launches, its image and the launch `make profile`
 * measures (tools/profile.sh: the stage's last launch) are the geometry the
 * row names. */
void measure_best(run *r, const stage *s, int repeat, int *best, kernel_info *k, measure_result *m, int quiet)
{
    size_t count = s->sweep == SWEEP_SHAPES ? SHAPE_COUNT : s->sweep == SWEEP_LANES ? LANE_COUNT : 1;
    for (size_t i = 0; i < count; i++) {
        int at = s->sweep ? (int)i : *best;
        kernel_info ki;
        measure_result mi;
        measure_at(r, s, at, repeat, &ki, &mi);
        if (s->sweep && !quiet)
            fprintf(stderr, "ch05: %s %2d lanes, %2dx%-2d pixels %8.3f ms\n", s->info.name, r->lanes, r->bx, r->by,
                    mi.times.median);
        if (i == 0 || mi.times.median < m->times.median)
            *m = mi, *k = ki, *best = at;
    }
    if (s->sweep)
        measure_at(r, s, *best, repeat, k, m);
}

/* ---- the program */
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

/* The stage at its best geometry (a sweep finds it: measure_best), in Msamples/s;
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
    .workload = raytracer_program_workload,
    .stage = measure,
    .end = startup_rows,
    .picture_image = &job.pic.host,
    .teardown = teardown,
};
