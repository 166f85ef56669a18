/* run.h - a ch06 stage as common/measure.h sees it (run.c): the input and
 * the scratch on the GPU, one stage run over them, its sum checked, and its
 * row with its share of the ceilings measured in the same run. */
#ifndef CH06_RUN_H
#define CH06_RUN_H

#include "reduce.h"

#include "../../common/cli.h"
#include "../../common/cpu_ceiling.h"
#include "../../common/cuda_util.h"
#include "../../common/gpu/ceiling.h"
#include "../../common/report.h"

#include <stddef.h>

typedef struct {
    int *d_in;
    long long *d_sum;
    reduce_ctx ctx;
    int ceilings;             /* the ceilings were measured (--ceiling yes) */
    gpu_memory_ceilings ceil;
    cuda_device_info info;
    char why[256];            /* why there is no device */
} gpu_state;

/* Before cli_begin_work: 1 if there is a device, and the bad input only it
 * can show refused (--device K out of range, an n over its free memory). It
 * selects the device (free memory needs a context) but prints nothing, so an
 * error is the first line. */
int gpu_check(gpu_state *g, const cli_spec *spec, size_t n, long device);

/* After it: the device opened (found: what gpu_check said), the input copied
 * there and, if g->ceilings, the ceilings measured; 1, or 0 where there is
 * no device (said on stderr unless quiet, with the count of GPU stages
 * skipped). */
int gpu_setup(gpu_state *g, const cli_spec *spec, const cli_options *opt, const int *in, size_t n, int found);

/* One stage's measurement: the stage over in (its n values, whose exact sum
 * is expected), on `threads` threads if on the CPU; host: the host's read
 * ceiling (rate 0: not measured). */
typedef struct {
    const stage_info *info; /* the stage's row (stages.h) */
    reduce_fn *stage_run;    /* and its function */
    gpu_state *g;
    const int *in;
    size_t n;
    long long expected, got;
    reduce_ctx cpu;
    const cpu_ceiling *host;
} run;

/* Measures r's stage (repeat timed runs; 0: 20 on the GPU, CPU_STAGE_REPEAT on
 * the CPU) and adds its row in GB/s of input read, with its share of the
 * ceilings. On the CPU, with the host's read ceiling measured, each timed run
 * is followed by one pass of that ceiling's kernel (measure.h's ruler). */
void run_measure(report *rep, run *r, int repeat);

#endif
