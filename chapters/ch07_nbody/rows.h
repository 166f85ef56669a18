/* rows.h - what ch07 runs a stage with: its row (the table is stages.h), its
 * problem as the measure loop sees it, and the tables of rows (rows.c). */
#ifndef CH07_ROWS_H
#define CH07_ROWS_H

#include "nbody.h"
#include "output.h"

#include "../../common/cli.h"
#include "../../common/cpu_ceiling.h"
#include "../../common/report.h"

#include <stdio.h>

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

/* One stage at n bodies, as measure_stage resets, runs and checks it
 * (problem.c: reset_bodies puts them back to the start; steps.c: run_steps
 * makes `steps` leapfrog steps, and check_forces checks they stayed finite
 * and the forces on the initial bodies (multi-gpu: its first step's) are
 * within the bound). */
typedef struct problem {
    int n, steps, threads, devices;
    body *b;
    vec3 *v, *a;
    reference ref;
    const stage *s;
    gpu_buffers g;
    struct output_run *out; /* an output stage's buffers and streams (output.h), or NULL */
    const cpu_ceiling *fma; /* a CPU stage's ruler: the host's FMA ceiling on its threads (rows.c), or NULL */
} problem;
void reset_bodies(void *problem);
void run_steps(void *problem);
int check_forces(void *problem, char *note, size_t size);

/* rows.c: the CPU stages, or the GPU ones, measured as one table with the
 * FMA ceilings measured beside them; 1 if every check passed. */
typedef struct {
    const cli_spec *spec;
    const cli_options *opt;
    int ceilings;   /* measure the FMA ceilings (--ceiling yes) */
    FILE *timeline; /* --timeline's file, or NULL */
} rows_plan;
int run_cpu_rows(const rows_plan *plan, int n);
int run_gpu_rows(const rows_plan *plan, int n, int devices);
#ifdef __cplusplus
}
#endif

#endif
