/* run.c - see run.h. The checks: no NaN/Inf pixel; 256 pixels (positions
 * from a fixed seed) rendered again on the CPU by the same code within 35 dB
 * PSNR of the GPU's; ch01's image, when there is one at this size, within 38 dB. */
#include "run.h"

#include "../../common/gpu_picture.h"
#include "../../common/measure.h"

#include <math.h>
#include <stdio.h>

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
