/* stages.h - ch04's stages: name, what it changes, where it runs, the kernel
 * make profile measures; then its render function and the sampler it runs.
 * The link gets nvlink's warning that the recursive kernel's stack size
 * "cannot be statically determined": it is the one warning this course
 * allows, and the reason for the loop (make ch04 keeps it in
 * build/ch04/nvlink.txt and says so). */
#ifndef CH04_STAGES_H
#define CH04_STAGES_H

#include "render.h"

#include "../../common/stage.h"

typedef struct {
    stage_info info;
    render_fn *run;
    int flags; /* the sampler (render.h) */
} stage;

static const stage stages[] = {
    {{"recursive", "ch03's recursive sample() as a device function: a stack in local memory", .where = STAGE_GPU,
      .kernel = "render_kernel<(int)1>"}, gpu_render, SAMPLER_RECURSIVE},
    {{"loop", "the same light transport as a loop carrying colour and attenuation: no stack", .where = STAGE_GPU,
      .kernel = "render_kernel<(int)0>"}, gpu_render, SAMPLER_LOOP},
};
#define STAGE_COUNT (sizeof stages / sizeof stages[0])

#endif
