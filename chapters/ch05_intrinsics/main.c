/* ch05 - the GPU card made fast: no FP64, intrinsics, pow by squaring, fast
 * math, block shape, less work, a pixel's samples shared by a warp's lanes,
 * and less work again; start-up timed apart.
 *
 *   make ch05 && ./ch05                 # every stage, 512x512 at 64 spp
 *   ./ch05 --stage bounding-box
 *   make ch05-sass                      # FP64 instructions per stage's kernel (needs cuobjdump)
 *
 * Each stage adds one change to the one before (card.h says what and why),
 * except sphere-algebra, measured slower than sphere-list and not carried on
 * (the negative result stays in the table); ftz, approx-div and approx-sqrt,
 * each one of -use_fast_math's flags alone on sphere-list (an ablation);
 * bounding-box and letter-boxes, which do less work rather than the same work
 * faster; and samples-across-lanes, which renders each pixel with 2 ... 32
 * threads (the best kept), each with its share of the samples and its own
 * random stream, so its image is another draw of the same picture.
 *
 * Rates: Msamples/s, and a lower bound on GFLOP/s: the CPU spot check counts
 * trace() calls per sample, each counted as 787 flops (49 sphere tests of 16,
 * 3 for the floor), shading ignored; bounding-box gets the full algorithm's.
 *
 * Checks, before timing and after: no NaN/Inf pixel; 256 pixels (positions
 * from a fixed seed, 0xC4EC4) rendered again on the CPU by the same
 * __host__ __device__ code must be within 35 dB PSNR of the GPU's (GPU and CPU
 * arithmetic differ: nvcc fuses multiply-adds, and the GPU's pow differs in
 * the last bits, which can move a reflection); at 512x512x64 the whole image
 * must be within 38 dB of ch01's (the original program's) image.
 *
 * Start-up, apart: "context" (wall time of the first CUDA calls), "copy-to-host"
 * (the image), "process" (this whole run up to the table).
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

enum { SWEEP_SHAPES = 1, SWEEP_LANES = 2 };

typedef struct {
    const char *name;
    const char *description;
    render_fn *run;  /* gpu_render, or gpu_render_fast: the -use_fast_math build */
    int flags;       /* the set of changes (render.h) */
    int sweep;       /* SWEEP_SHAPES: try every block shape; SWEEP_LANES: every lane count; keep the best */
    int less_work;   /* not the same algorithm: reported apart */
    int lanes;       /* threads per pixel: 1, or 0 for the best the lane sweep found */
} stage;

static const stage stages[] = {
    {"loop", "ch04's loop kernel: double literals and pow() computed in FP64", gpu_render, SET_LOOP, 0, 0, 1},
    {"float-only", "float literals, powf: no FP64 instruction left", gpu_render, SET_FLOAT_ONLY, 0, 0, 1},
    {"intrinsics", "__powf (negative base handled), __fdividef, rsqrtf", gpu_render, SET_INTRINSICS, 0, 0, 1},
    {"pow-squaring", "x^99 and x^4 by repeated squaring: no special function", gpu_render, SET_POW_SQUARING, 0, 0, 1},
    {"sphere-list", "the 49 spheres from an unrolled list, not 171 bitmap tests: same spheres, same order",
     gpu_render, SET_SPHERE_LIST, 0, 0, 1},
    {"sphere-algebra", "sphere-list with the test expanded (fewer flops): measured slower, not carried on",
     gpu_render, SET_SPHERE_ALGEBRA, 0, 0, 1},
    {"ftz", "ablation: sphere-list built with -ftz=true alone (subnormals flushed to zero)", gpu_render_ftz,
     SET_SPHERE_LIST, 0, 0, 1},
    {"approx-div", "ablation: sphere-list built with -prec-div=false alone", gpu_render_approx_div, SET_SPHERE_LIST, 0,
     0, 1},
    {"approx-sqrt", "ablation: sphere-list built with -prec-sqrt=false alone", gpu_render_approx_sqrt, SET_SPHERE_LIST,
     0, 0, 1},
    {"fast-math", "sphere-list's source built with -use_fast_math: all three, and fast library functions",
     gpu_render_fast, SET_SPHERE_LIST, 0, 0, 1},
    {"block-shape", "fast-math at the best of eight block shapes (8x8 ... 32x16)", gpu_render_fast, SET_SPHERE_LIST,
     SWEEP_SHAPES, 0, 1},
    {"bounding-box", "block-shape, spheres tested only if the ray meets their box: less work", gpu_render_fast,
     SET_BOUNDING_BOX, 0, 1, 1},
    {"samples-across-lanes", "bounding-box with each pixel's samples shared by 32 ... 2 neighbouring threads, the best "
     "kept: more, shorter threads", gpu_render_fast, SET_BOUNDING_BOX, SWEEP_LANES, 0, 0},
    {"letter-boxes", "samples-across-lanes, a box per letter inside the big box: only the letters a ray meets are "
     "tested", gpu_render_fast, SET_LETTER_BOXES, 0, 1, 0},
};
#define STAGE_COUNT (sizeof stages / sizeof stages[0])

static const int shapes[][2] = {{8, 8}, {16, 8}, {8, 16}, {16, 16}, {32, 4}, {32, 8}, {64, 4}, {32, 16}};
#define SHAPE_COUNT (sizeof shapes / sizeof shapes[0])
/* With several lanes per pixel, blocks of 32 x 8 threads: each warp one row of 32 / lanes pixels. */
static const int lane_counts[] = {32, 16, 8, 4, 2}; /* the first is the default, and what `make profile` sees */
#define LANE_COUNT (sizeof lane_counts / sizeof lane_counts[0])

/* How a stage is launched: lanes per pixel and the block, in pixels. */
typedef struct {
    int lanes, bx, by;
} geometry;

static geometry shape_geometry(int shape)
{
    return (geometry){1, shapes[shape][0], shapes[shape][1]};
}

static geometry lanes_geometry(int lanes)
{
    return (geometry){lanes, 32 / lanes, 8};
}

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

typedef struct {
    image host, original;
    int have_original;
    unsigned char *d_rgb;
    int *d_bad;
    int width, height, spp;
    double traces_per_sample; /* from the CPU spot check */
    double box_skip_share;    /* of the spot check's trace() calls, those the box let skip the spheres */
    double spheres_per_trace; /* the spot check's sphere tests per trace() call */
} run;

static void render(const run *r, const stage *s, geometry g, kernel_info *info)
{
    s->run(s->flags, g.lanes, r->d_rgb, r->d_bad, r->width, r->height, r->spp, g.bx, g.by, info);
    CUDA_CHECK_LAUNCH();
}

/* PSNR of the GPU image against the CPU on fixed-seed pixels (seed 0xC4EC4). */
static double cpu_spot_check(run *r, int flags, int lanes, int *bad)
{
    unsigned long long x = 0xC4EC4, traces = cpu_trace_calls(), skips = cpu_box_skips(), tests = cpu_sphere_tests();
    double sq = 0;
    int n = 0;
    for (int i = 0; i < CPU_CHECK_PIXELS; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        int col = (int)((x >> 33) % (unsigned long long)r->width);
        int row = (int)((x >> 13) % (unsigned long long)r->height);
        unsigned char cpu[3];
        *bad += !cpu_render_picture_pixel(flags, lanes, col, row, r->width, r->height, r->spp, cpu);
        const unsigned char *gpu = r->host.rgb + 3 * ((size_t)row * r->width + col);
        for (int c = 0; c < 3; c++, n++)
            sq += (double)(cpu[c] - gpu[c]) * (cpu[c] - gpu[c]);
    }
    if (!(flags & BOUNDING_BOX))
        r->traces_per_sample = (double)(cpu_trace_calls() - traces) / ((double)CPU_CHECK_PIXELS * r->spp);
    traces = cpu_trace_calls() - traces;
    r->box_skip_share = (double)(cpu_box_skips() - skips) / (double)traces;
    r->spheres_per_trace = (double)(cpu_sphere_tests() - tests) / (double)traces;
    return sq == 0 ? INFINITY : 10 * log10(255.0 * 255.0 * n / sq);
}

/* Copies the image back and runs every check; 1 if all pass. */
static int check(run *r, const stage *s, int lanes, char *note, size_t len)
{
    int bad = 0;
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(r->host.rgb, r->d_rgb, image_bytes(&r->host), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&bad, r->d_bad, sizeof bad, cudaMemcpyDeviceToHost));
    double cpu_db = cpu_spot_check(r, s->flags, lanes, &bad);
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

typedef struct {
    const run *r;
    const stage *s;
    geometry g;
} launch;

static void launch_render(void *p)
{
    const launch *l = p;
    render(l->r, l->s, l->g, NULL);
}

/* Median kernel time of `repeat` renders at one geometry, after a warm-up. */
static double time_geometry(const run *r, const stage *s, geometry g, int repeat)
{
    launch l = {r, s, g};
    launch_render(&l);
    return cuda_median_ms(launch_render, &l, repeat);
}

/* Tries every block shape (SWEEP_SHAPES) or lane count (SWEEP_LANES); returns
 * the best time, and the index of the best in *best. */
static double sweep(const run *r, const stage *s, int repeat, int *best, int quiet)
{
    double best_ms = INFINITY;
    size_t count = s->sweep == SWEEP_SHAPES ? SHAPE_COUNT : LANE_COUNT;
    for (size_t i = 0; i < count; i++) {
        geometry g = s->sweep == SWEEP_SHAPES ? shape_geometry((int)i) : lanes_geometry(lane_counts[i]);
        double ms = time_geometry(r, s, g, repeat);
        if (!quiet)
            fprintf(stderr, "ch05: %s %2d lanes, %2dx%-2d pixels %8.3f ms\n", s->name, g.lanes, g.bx, g.by, ms);
        if (ms < best_ms) {
            best_ms = ms;
            *best = (int)i;
        }
    }
    return best_ms;
}

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
    double t0 = now_seconds();
    cuda_require_device(spec.program, (int)opt.device);
    CUDA_CHECK(cudaFree(0)); /* forces the context into existence */
    double context_ms = 1e3 * (now_seconds() - t0);
    cuda_device_info info;
    cuda_describe_device((int)opt.device, &info);
    if (!opt.quiet)
        cuda_print_device(stderr, (int)opt.device, &info);

    run r = {.width = (int)opt.width, .height = (int)opt.height, .spp = (int)opt.spp};
    char err[IMAGE_ERROR_SIZE];
    if (image_alloc(&r.host, r.width, r.height) != 0) {
        fprintf(stderr, "%s: out of memory (%dx%d image)\n", spec.program, r.width, r.height);
        return EXIT_CHECK_FAIL;
    }
    r.have_original = r.width == 512 && r.height == 512 && r.spp == 64 &&
                      image_read_ppm(&r.original, REFERENCE_IMAGE, err, sizeof err) == 0;
    CUDA_CHECK(cudaMalloc((void **)&r.d_rgb, image_bytes(&r.host)));
    CUDA_CHECK(cudaMalloc((void **)&r.d_bad, sizeof(int)));

    char workload[96];
    snprintf(workload, sizeof workload, "%dx%dx%dspp", r.width, r.height, r.spp);
    report rep;
    report_init(&rep, spec.program, workload, opt.csv, opt.quiet);
    int best_shape = 3; /* 16x16 until a sweep says otherwise */
    int best_lanes = 0; /* 32 lanes (the H100's best) until a sweep says otherwise */
    for (size_t i = 0; i < STAGE_COUNT; i++) {
        const stage *s = &stages[i];
        if (opt.stage_index >= 0 && (size_t)opt.stage_index != i)
            continue;
        char note[128], after[128];
        kernel_info k;
        geometry g = s->lanes == 1 ? shape_geometry(best_shape) : lanes_geometry(lane_counts[best_lanes]);
        CUDA_CHECK(cudaMemset(r.d_bad, 0, sizeof(int)));
        CUDA_CHECK(cudaMemset(r.d_rgb, 0xEE, image_bytes(&r.host))); /* poison */
        render(&r, s, g, &k);
        int ok = check(&r, s, g.lanes, note, sizeof note); /* the warm-up, checked */
        double ms;
        if (s->sweep) {
            ms = sweep(&r, s, (int)opt.repeat, s->sweep == SWEEP_SHAPES ? &best_shape : &best_lanes, opt.quiet);
            g = s->sweep == SWEEP_SHAPES ? shape_geometry(best_shape) : lanes_geometry(lane_counts[best_lanes]);
        } else {
            ms = time_geometry(&r, s, g, (int)opt.repeat);
        }
        render(&r, s, g, &k);
        ok &= check(&r, s, g.lanes, after, sizeof after); /* and again after timing */
        if (opt.images && image_write_stage(&r.host, opt.images, spec.program, s->name) != 0)
            return EXIT_CHECK_FAIL;
        double samples = (double)r.width * r.height * r.spp;
        double gflops = samples * r.traces_per_sample * FLOPS_PER_TRACE / (ms * 1e-3) * 1e-9;
        report_row *row = report_add(&rep, (report_entry){.stage = s->name, .threads = REPORT_ON_GPU, .ms = ms,
                                                          .value = samples / (ms * 1e3), .unit = "Msamples/s",
                                                          .ok = ok, .device = info.name});
        int used = snprintf(row->note, sizeof row->note, "%s%dx%d px x %d lane%s, %d regs, occ %.0f%%, ~%.0f GFLOP/s%s "
                            "(%.1f%% of FP32 peak); %s", s->less_work ? "LESS WORK: " : "", g.bx, g.by, g.lanes,
                            g.lanes > 1 ? "s" : "", k.registers, 100 * k.occupancy, gflops,
                            s->flags & BOUNDING_BOX ? " equiv." : "", 100 * gflops / info.fp32_peak_gflops, note);
        if (s->flags & BOUNDING_BOX && used > 0 && (size_t)used < sizeof row->note)
            used += snprintf(row->note + used, sizeof row->note - used, "; %.1f sphere tests per trace() (CPU check)",
                             r.spheres_per_trace);
        if (s->flags == SET_BOUNDING_BOX && g.lanes == 1 && used > 0 && (size_t)used < sizeof row->note) {
            double ray_miss, warp_miss;
            cpu_primary_box_misses(r.width, r.height, g.bx, g.by, &ray_miss, &warp_miss);
            snprintf(row->note + used, sizeof row->note - used,
                     ", box skips %.0f%% of them; first camera rays: %.0f%% miss it, %.0f%% of warps miss it whole",
                     100 * r.box_skip_share, 100 * ray_miss, 100 * warp_miss);
        }
    }
    launch_copy(&r); /* warm-up */
    double copy_ms = cuda_median_ms(launch_copy, &r, 5);

    int status = report_finish_image(&rep, 1, spec.program, &r.host, out, opt.quiet);
    /* Where the time of a run goes, reported apart from the stages (no check: references). */
    double process_ms = 1e3 * (now_seconds() - process_start);
    report_entry start_up[] = {
        {.stage = "context", .ms = context_ms, .note = "driver and context start-up"},
        {.stage = "copy-to-host", .ms = copy_ms, .note = "the image (events)"},
        {.stage = "process", .ms = process_ms, .note = "this whole run up to here"}};
    for (size_t i = 0; i < sizeof start_up / sizeof start_up[0]; i++) {
        start_up[i].threads = REPORT_ON_GPU;
        start_up[i].value = start_up[i].ms;
        start_up[i].unit = "ms";
        start_up[i].ok = REPORT_NO_CHECK;
        start_up[i].device = info.name;
        report_add(&rep, start_up[i]);
    }
    report_print(&rep, stdout);
    CUDA_CHECK(cudaFree(r.d_rgb));
    CUDA_CHECK(cudaFree(r.d_bad));
    image_free(&r.host);
    image_free(&r.original);
    return status;
}
