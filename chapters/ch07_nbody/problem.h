/* problem.h - what ch07 runs a stage on: its problem as the measure loop
 * sees it (problem.c); a row's type and the rows are stages.h's. */
#ifndef CH07_PROBLEM_H
#define CH07_PROBLEM_H

#include "nbody.h"
#include "output.h"

#include "../../common/cli.h"
#include "../../common/cpu_ceiling.h"
#include "../../common/report.h"

#ifdef __cplusplus
extern "C" {
#endif

struct stage; /* a row of the table (stages.h) */

/* One table's problem: n bodies, as measure_stage resets, runs and checks
 * them for a stage (problem.c). */
typedef struct problem {
    int n, steps, threads, devices;
    body *b;
    vec3 *v, *a;
    reference ref;
    const struct stage *s;
    gpu_buffers g;
    struct output_run *out; /* an output stage's buffers and streams (output.h), or NULL */
    const cpu_ceiling *fma; /* a CPU stage's ruler: the host's FMA ceiling on its threads (problem.c), or NULL */
} problem;
/* The bodies back to their start (on the host and, for a GPU stage, on the
 * GPU): measure.h's reset, and the output stages' own check's (output.c). */
void reset_bodies(void *problem);
#ifdef __cplusplus
}
#endif

#endif
