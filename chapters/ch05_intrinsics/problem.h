/* problem.h - one stage's run as common/measure.h sees it (problem.c): the
 * image poisoned, rendered, and checked against the CPU running the same
 * code, at the best geometry a sweep finds; tests/test_ch05.cu tests the
 * sweep. */
#ifndef CH05_PROBLEM_H
#define CH05_PROBLEM_H

#include "render.h"
#include "stages.h"

#include "../../common/measure.h"

#include "../../common/gpu_picture.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" { /* tests/test_ch05.cu measures a stage too */
#endif

typedef struct {
    gpu_picture pic; /* the image on the device, its checks (common/gpu_picture.h) */
    int width, height, spp, lanes, bx, by;
    render_fn *fn; /* the stage's render, and its flags */
    int flags;
    kernel_info *info; /* filled by the next run, then NULL */
    double box_skip_share;    /* of the spot check's trace() calls, those the box let skip the spheres */
    double spheres_per_trace; /* the spot check's sphere tests per trace() call */
} run;
/* Measures stage s (common/measure.h) at the geometry *best names (a block
 * shape, or a lane count for a stage with lanes 0), or, for a stage that
 * sweeps, at each one it tries, keeping the fastest: its index in *best, its
 * geometry in r; then measured once more at that one, last (its kernel's
 * resources in k, that measurement in m). */
void measure_best(run *r, const stage *s, int repeat, int *best, kernel_info *k, measure_result *m, int quiet);

#ifdef __cplusplus
}
#endif

#endif
