/* stages.h - ch08's stages: name, what it changes, where it runs, the kernel
 * make profile measures; then which kernel (render.h), whether the block
 * shape is swept, and whether the kernel's stack grows at run time (its row's
 * note says so). The tag mse-ladder: `make bench` finds that stage's time to
 * MSE < 52 on a ladder of spp (bench_extra.sh); not gpu-recursive, whose
 * ladder alone would take minutes (26 s a render at the 2048 spp needed).
 * The tag work=: the stage's estimator or precision is not cpu-threads' (from
 * gpu-loop on, roulette at glass where smallpt splits; from gpu-float on,
 * float; then light sampling), so make book compares its time with its own
 * kind's only (common/stage.h). */
#ifndef CH08_STAGES_H
#define CH08_STAGES_H

#include "render.h"

#include "../../common/stage.h"

enum { SHAPE_FIXED, SHAPE_SWEPT };
enum { FRAME_STATIC, FRAME_CALL_STACK };

typedef struct {
    stage_info info;
    int kernel; /* render.h's KERNEL_*, or ON_CPU, ON_CPU_LOOP */
    int shape;  /* 16x16, or the fastest of block_shapes measured */
    int frame;  /* FRAME_CALL_STACK: the kernel recurses, so its stack grows at run time beyond the static local
                   frame the row's note gives (said there); FRAME_STATIC: the frame is all there is */
} stage;

static const stage stages[] = {
    {{"cpu-threads", "smallpt's recursive path tracer in C (double), POSIX threads taking rows on demand",
      .where = STAGE_CPU, .all_cores = 1}, ON_CPU, SHAPE_FIXED, FRAME_STATIC},
    {{"cpu-threads-loop", "recursion to a loop carrying gathered light and throughput, roulette at glass: gpu-loop's "
                          "estimator on the CPU (the like-for-like side of the GPU's best)", .where = STAGE_CPU,
      .tags = "work=roulette", .all_cores = 1}, ON_CPU_LOOP, SHAPE_FIXED, FRAME_STATIC},
    {{"gpu-recursive", "the same recursive code on the GPU, one thread per pixel: a stack in local memory",
      .where = STAGE_GPU, .kernel = "render_kernel<(int)0>"}, KERNEL_RECURSIVE_F64, SHAPE_FIXED, FRAME_CALL_STACK},
    {{"gpu-loop", "recursion to a loop carrying gathered light and throughput: no stack", .where = STAGE_GPU,
      .kernel = "render_kernel<(int)1>", .tags = "mse-ladder work=roulette"}, KERNEL_LOOP_F64, SHAPE_FIXED,
     FRAME_STATIC},
    {{"gpu-block-shape", "block shapes measured, the fastest kept", .where = STAGE_GPU,
      .kernel = "render_kernel<(int)1>", .tags = "mse-ladder work=roulette"}, KERNEL_LOOP_F64, SHAPE_SWEPT,
     FRAME_STATIC},
    {{"gpu-balanced", "one loop over samples and bounces: a lane whose path ends starts its next sample",
      .where = STAGE_GPU, .kernel = "render_kernel<(int)2>", .tags = "mse-ladder work=roulette"}, KERNEL_REGENERATE_F64,
     SHAPE_SWEPT, FRAME_STATIC},
    {{"gpu-registers", "at most 64 registers a thread (__launch_bounds__): twice the warps, some values spilled",
      .where = STAGE_GPU, .kernel = "render_kernel_capped<(int)3>", .tags = "mse-ladder work=roulette"}, KERNEL_CAPPED_F64,
     SHAPE_SWEPT, FRAME_STATIC},
    {{"gpu-float", "double to float, every literal marked float", .where = STAGE_GPU,
      .kernel = "render_kernel_capped<(int)4>", .tags = "mse-ladder work=float-roulette"}, KERNEL_REGENERATE_F32,
     SHAPE_SWEPT, FRAME_STATIC},
    {{"gpu-light-sampling", "a shadow ray to the light at every diffuse surface: less noise per sample",
      .where = STAGE_GPU, .kernel = "render_kernel_capped<(int)5>", .tags = "mse-ladder work=float-light-sampling"}, KERNEL_LIGHT_F32,
     SHAPE_SWEPT, FRAME_STATIC},
    {{"gpu-registers-56", "gpu-registers with the cap at 56 registers (__maxnreg__): more warps may fit, more "
      "spilled", .where = STAGE_GPU, .kernel = "render_kernel_regs<(int)6, (int)56>", .tags = "work=roulette"},
     KERNEL_CAP56_F64, SHAPE_SWEPT, FRAME_STATIC},
    {{"gpu-registers-80", "gpu-registers with the cap at 80 registers (__maxnreg__): fewer warps, less spilled",
      .where = STAGE_GPU, .kernel = "render_kernel_regs<(int)7, (int)80>", .tags = "work=roulette"},
     KERNEL_CAP80_F64, SHAPE_SWEPT, FRAME_STATIC},
};
#define STAGE_COUNT (sizeof stages / sizeof stages[0])

#endif
