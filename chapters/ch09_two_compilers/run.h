/* run.h - a ch09 stage's run as common/measure.h sees it (run.c): its
 * chapter's data prepared once, its output poisoned, its kernel launched, its
 * result checked as in its own chapter. */
#ifndef CH09_RUN_H
#define CH09_RUN_H

#include "parts.h"
#include "stages.h"

#include "../../common/cli.h"
#include "../../common/image.h"
#include "../../common/report.h"

#include <stddef.h>

typedef struct {
    long long n;
    const ch09_stage *s; /* the stage being measured */
    int bodies, width, height, spp, repeat;
    /* ch05 */
    image host, original;
    int have_original;
    unsigned char *d_rgb;
    int *d_bad;
    /* ch06 */
    int *d_in;
    long long *d_sum, exact;
    reduce_ctx ctx;
    /* ch07 */
    body *b, *d_b;
    vec3 *a, *d_a;
    reference ref;
    /* the talk's kernels: talk_n elements; the division's operands narrow
     * (within 32 bits) and wide, its quotients; floats in (4 per element) and out */
    int talk_n;
    long long *narrow[2], *wide[2], *d_narrow[2], *d_wide[2], *quotient, *d_quotient;
    float *fin, *fout, *d_fin, *d_fout;
} run;

/* The sizes the command line asks for (ch07's bodies and the talk's elements
 * capped: main.c's comment says at what), nothing allocated yet. */
void run_init(run *r, const cli_options *opt);
void run_prepare(run *r, const int parts_wanted[PART_COUNT]); /* each wanted part's data, host and device */
void run_release(run *r);

/* One report per part, each named by its part's workload (its sizes). */
void run_reports_init(const run *r, report reports[PART_COUNT], const char *program, const cli_options *opt);

/* Measures stage s (common/measure.h) and adds its row to rep, at the rate
 * its own chapter reports: Msamples/s, GB/s read, GFLOP/s, Gelements/s. */
void run_stage(run *r, const ch09_stage *s, report *rep, const char *device);

void poison(void *run);
void launch(void *run);
int check(void *run, char *note, size_t len);

#endif
