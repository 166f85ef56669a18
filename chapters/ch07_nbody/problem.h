/* problem.h - what ch07 runs a stage with: its row's type (the rows are
 * stages.h's) and its problem as the measure loop sees it (problem.c). */
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

void cpu_isa_note(report_row *row);       /* cpu.c: which ISA cpu-avx512-threads ran with */
void cpu_scheduled_note(report_row *row); /* cpu.c: the same, and if clang built the block without gcc's scheduler */

/* A stage: its head, then how to run it. */
typedef struct stage { /* STAGE_ZERO: see stage.h */
    stage_info info;
    forces_fn *run;        /* one step's forces; NULL for a multi-GPU stage (it runs multi_gpu_run) */
    int output STAGE_ZERO; /* output.h's OUTPUT_*: how each step's positions reach the host (0: they do not) */
    int multi STAGE_ZERO;  /* a STAGE_ALL_GPUS stage: how the host drives the GPUs (MULTI_*) */
    int (*supported)(void) STAGE_ZERO; /* a CPU stage: 0 where this CPU lacks the ISA it needs (AVX2 + FMA, all
                                          the rows need today): skipped; NULL: any CPU */
    void (*note)(report_row *row) STAGE_ZERO; /* adds to the row's note once measured; NULL: nothing */
} stage;

/* One table's problem: n bodies, as measure_stage resets, runs and checks
 * them for a stage (problem.c). */
typedef struct problem {
    int n, steps, threads, devices;
    body *b;
    vec3 *v, *a;
    reference ref;
    const stage *s;
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
