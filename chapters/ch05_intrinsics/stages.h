/* stages.h - ch05's stages.
 *
 * Each stage adds one change to the one before (card.h says what and why),
 * except sphere-algebra, measured slower than sphere-list and not carried on
 * (the negative result stays in the table); ftz, approx-div and approx-sqrt,
 * each one of -use_fast_math's flags alone on sphere-list (an ablation);
 * samples-across-lanes, which renders each pixel with 2 ... 32 threads (the
 * best kept), each with its share of the samples and its own random stream,
 * so its image is another draw of the same picture; and bounding-box and
 * letter-boxes after it, which do less work rather than the same work faster.
 *
 * A row: name, what it changes, where it runs, the kernel make profile
 * measures, its tags; then its render function (the build of the kernels with
 * its floating-point flags), its set of changes, whether it sweeps block
 * shapes or lanes per pixel (keeping the best), its lanes per pixel, and
 * whether its note says what the box saves; a field a row leaves out is zero.
 * The tag work=less: the stage does less work than the full algorithm (the
 * table and the tools report it apart); whole-process: `make bench` also times
 * that stage alone as a whole process (bench_extra.sh). */
#ifndef CH05_STAGES_H
#define CH05_STAGES_H

#include "render.h"

#include "../../common/stage.h"

enum { SWEEP_SHAPES = 1, SWEEP_LANES = 2 };

typedef struct {
    stage_info info;
    render_fn *run;           /* gpu_render, or another build's (render.h): gpu_render_fast, gpu_render_ftz ... */
    int flags;                /* the set of changes (render.h) */
    int sweep STAGE_ZERO;     /* SWEEP_SHAPES: try every block shape; SWEEP_LANES: every lane count; keep the best */
    int lanes STAGE_ZERO;     /* threads per pixel: 1, or 0 for the best the lane sweep found */
    int box_note STAGE_ZERO;  /* the stage that brings in the bounding box: its note says how much the box saves */
} stage;

static const stage stages[] = {
    {{"loop", "ch04's loop kernel: double literals and pow() computed in FP64",
      .where = STAGE_GPU, .kernel = "render_kernel"},
     .run = gpu_render, .flags = SET_LOOP, .lanes = 1},
    {{"float-only", "float literals, powf: no FP64 instruction left",
      .where = STAGE_GPU, .kernel = "render_kernel"},
     .run = gpu_render, .flags = SET_FLOAT_ONLY, .lanes = 1},
    {{"intrinsics", "__powf (negative base handled), __fdividef, rsqrtf",
      .where = STAGE_GPU, .kernel = "render_kernel"},
     .run = gpu_render, .flags = SET_INTRINSICS, .lanes = 1},
    {{"pow-squaring", "x^99 and x^4 by repeated squaring: no special function",
      .where = STAGE_GPU, .kernel = "render_kernel"},
     .run = gpu_render, .flags = SET_POW_SQUARING, .lanes = 1},
    {{"sphere-list", "the 49 spheres from an unrolled list, not 171 bitmap tests: same spheres, same order",
      .where = STAGE_GPU, .kernel = "render_kernel"},
     .run = gpu_render, .flags = SET_SPHERE_LIST, .lanes = 1},
    {{"sphere-algebra", "sphere-list with the test expanded (fewer flops): measured slower, not carried on",
      .where = STAGE_GPU, .kernel = "render_kernel"},
     .run = gpu_render, .flags = SET_SPHERE_ALGEBRA, .lanes = 1},
    {{"ftz", "ablation: sphere-list built with -ftz=true alone (subnormals flushed to zero)",
      .where = STAGE_GPU, .kernel = "render_kernel"},
     .run = gpu_render_ftz, .flags = SET_SPHERE_LIST, .lanes = 1},
    {{"approx-div", "ablation: sphere-list built with -prec-div=false alone",
      .where = STAGE_GPU, .kernel = "render_kernel"},
     .run = gpu_render_approx_div, .flags = SET_SPHERE_LIST, .lanes = 1},
    {{"approx-sqrt", "ablation: sphere-list built with -prec-sqrt=false alone",
      .where = STAGE_GPU, .kernel = "render_kernel"},
     .run = gpu_render_approx_sqrt, .flags = SET_SPHERE_LIST, .lanes = 1},
    {{"fast-math", "sphere-list's source built with -use_fast_math: all three, and fast library functions",
      .where = STAGE_GPU, .kernel = "render_kernel"},
     .run = gpu_render_fast, .flags = SET_SPHERE_LIST, .lanes = 1},
    {{"block-shape", "fast-math at the best of eight block shapes (8x8 ... 32x16)",
      .where = STAGE_GPU, .kernel = "render_kernel"},
     .run = gpu_render_fast, .flags = SET_SPHERE_LIST, .sweep = SWEEP_SHAPES, .lanes = 1},
    {{"samples-across-lanes", "block-shape with each pixel's samples shared by 32 ... 2 neighbouring threads, the "
      "best kept: more, shorter threads",
      .where = STAGE_GPU, .kernel = "render_lanes_kernel"},
     .run = gpu_render_fast, .flags = SET_SPHERE_LIST, .sweep = SWEEP_LANES, .lanes = 0},
    {{"bounding-box", "samples-across-lanes, spheres tested only if the ray meets their box: less work",
      .where = STAGE_GPU, .kernel = "render_lanes_kernel", .tags = "work=less"},
     .run = gpu_render_fast, .flags = SET_BOUNDING_BOX, .lanes = 0, .box_note = 1},
    {{"letter-boxes", "bounding-box, a box per letter inside the big box: only the letters a ray meets are tested",
      .where = STAGE_GPU, .kernel = "render_lanes_kernel", .tags = "whole-process work=less"},
     .run = gpu_render_fast, .flags = SET_LETTER_BOXES, .lanes = 0},
};
#define STAGE_COUNT (sizeof stages / sizeof stages[0])

#endif
