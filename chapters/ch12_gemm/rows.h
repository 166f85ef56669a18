/* rows.h - ch12's stages run as rows (rows.c): the CPU stages in one table,
 * at the CPU's size, and the GPU stages in another, each measured as every
 * chapter's are (common/measure.h) and checked against the FP64 reference. */
#ifndef CH12_ROWS_H
#define CH12_ROWS_H

#include "../../common/cli.h"

typedef struct {
    const cli_spec *spec;
    const cli_options *opt;
    int m, n, k;        /* the GPU stages' shape */
    int cpu_m, cpu_n, cpu_k; /* the CPU stages' */
    int ceilings;       /* measure the FMA ceilings (--ceiling yes) */
} rows_plan;

/* Each returns 1 if every row it measured checked ok. */
int run_cpu_rows(const rows_plan *plan);
int run_gpu_rows(const rows_plan *plan);

#endif
