/* program.h - the one main() every chapter runs (common/program.c; the
 * helpers program_stage and program_measure are in common/measure.c, the
 * library, so a test that links a problem file links them too).
 *
 * A chapter's program is its stage table (stages.h) and one `program`, in
 * its problem file: what the problem is (set it up, run a stage on it, the
 * rows that stand beside the stages, tear it down). The skeleton is written
 * once, here:
 *
 *   1. .start, the command line, from .defaults (cli_parse), then .validate: the
 *      chapter's own usage errors and output checks, before any work;
 *   2. if a selected stage runs on a GPU, --device is checked (.device);
 *   3. cli_begin_work; the device is opened (its line printed) where a GPU
 *      stage is selected and a device was found. A .gpu = PROGRAM_GPU_ONLY
 *      program without one exits 3 here; a PROGRAM_GPU_IF_ANY one runs its
 *      CPU stages (if none is selected, it exits 3 at once);
 *   4. .setup, then for each table (most chapters have one, whose workload
 *      .workload names): .begin, each selected stage that can run (.stage),
 *      .end (the ceilings' rows), and the table printed, CSV rows appended;
 *   5. a picture program (.picture: its default --out) writes its picture
 *      (.picture_image, or .image's) if every check passed; --images gets
 *      each stage's;
 *   6. .finish (the chapter's own outputs), .teardown, and the exit status: 0, 1 (a check failed), 3 (GPU stages
 *      skipped without a device). A .stage that returns an exit status ends the program there, without them.
 *
 * ch06's (chapters/ch06_reduction/problem.c):
 *   const program chapter_program = {
 *       .spec = &spec, .defaults = {.n = 1LL << 28, .repeat = 0, .threads = PROGRAM_ALL_CORES},
 *       .gpu = PROGRAM_GPU_IF_ANY, .device = &reduce_device, (PROGRAM_CUDA, and ch06's device-memory check)
 *       .validate = validate, .setup = setup, .workload = workload,
 *       .begin = measure_host_ceiling, .stage = measure, .end = ceiling_rows, .teardown = teardown,
 *   };
 */
#ifndef COMMON_PROGRAM_H
#define COMMON_PROGRAM_H

#include "cli.h"
#include "image.h"
#include "measure.h"
#include "report.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { PROGRAM_CPU_ONLY, PROGRAM_GPU_ONLY, PROGRAM_GPU_IF_ANY };
#define PROGRAM_ALL_CORES (-1L) /* in .defaults.threads: every online core */
#define PROGRAM_TABLES_MAX 4

typedef struct program program;

typedef struct program_run {
    const program *program;
    const cli_spec *spec;
    cli_options opt;        /* the parsed command line */
    int want_cpu, want_gpu; /* how many selected stages run on the host, on a GPU */
    int gpu;                /* 1: a device is open, the GPU stages run */
    char why[256];          /* where no device was found: why */
    const char *device;     /* the open GPU's name ("" without one) */
    const char *out;        /* a picture program's --out, or its default */
    int table;              /* the table being run */
    report *rep;            /* its report: a stage adds its rows here */
    int silent;             /* set by a hook: this process prints no table and writes no CSV row (ch11's
                               ranks but rank 0, whose table is the run's) */
} program_run;

/* A GPU program's device: PROGRAM_CUDA (program_cuda.h) in a CUDA chapter. */
typedef struct {
    int (*count)(const cli_spec *spec, long device, char *why, size_t whylen); /* before work: 0 = none, why says why */
    const char *(*open)(program_run *r); /* after work began: requires, selects, describes (printed unless quiet) */
} program_device;

struct program {
    const cli_spec *spec;
    cli_options defaults;
    int gpu;                       /* PROGRAM_CPU_ONLY (default), PROGRAM_GPU_ONLY, PROGRAM_GPU_IF_ANY */
    const program_device *device;  /* a GPU program's: PROGRAM_CUDA */
    const char *picture;           /* a picture program: its default --out ("ch01.ppm"); NULL: none */
    int tables;                    /* tables of rows (1 where 0), each its own workload */
    int (*table_of)(const program_run *r, size_t stage); /* a stage's table (NULL: 0) */
    void (*start)(void);                                 /* before the command line is read (NULL: nothing) */
    void (*validate)(program_run *r);                    /* usage errors (cli_usage_error), before any work */
    void (*setup)(program_run *r);                       /* after the work began and the device opened */
    void (*workload)(program_run *r, int table, char *buf, size_t size); /* the table's CSV workload */
    void (*begin)(program_run *r);                       /* before the table's first stage (NULL: nothing) */
    int (*stage)(program_run *r, size_t stage); /* measures it, adds its rows; 0, or an exit status to stop at */
    void (*end)(program_run *r);                /* after the table's stages: the rows beside them (ceilings) */
    const image *picture_image;                 /* the picture (--images, and --out at the end), where it is
                                                   one image throughout ... */
    const image *(*image)(program_run *r);      /* ... or the picture now, where it changes or may be none */
    int (*finish)(program_run *r, int status);  /* after the tables (and the picture): the exit status, changed
                                                   if the chapter's own outputs fail (NULL: kept) */
    void (*teardown)(program_run *r);
};

/* The chapter's one program (its problem file defines it). */
extern const program chapter_program;

/* The stage_info of row i of the program's table. */
const stage_info *program_stage(const program_run *r, size_t i);

/* Measures one stage by plan (common/measure.h) and adds its row to r->rep:
 * its rate is `work` (what one run does: samples, bytes, flops) over the
 * median run, in units of `per` a second ("Msamples/s": per = 1e6); threads
 * as report_measured takes them; device NULL: the host's CPU. Returns the
 * row, for the stage's notes; the measurement goes to *m unless m is NULL. */
report_row *program_measure(program_run *r, const measure_plan *plan, double work, double per, const char *unit,
                            int threads, const char *device, measure_result *m);

#ifdef __cplusplus
}
#endif

#endif
