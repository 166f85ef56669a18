/* measure.h - how every stage is measured, written once for every chapter.
 *
 *   1. reset, run, check: the first run is the warm-up, and it is checked
 *      (the reset poisons the output, so a stage that writes nothing fails);
 *   2. `repeat` timed runs, each after an untimed reset;
 *   3. reset, run, check again: a stage that only works the first time, or
 *      that corrupts its own input, fails;
 *   4. the median of the timed runs and their spread (fastest, slowest).
 * A stage whose one run takes seconds (the CPU renders) sets check_each_run
 * instead: no warm-up and no extra run, but every timed run is checked.
 *
 * A stage may name a ruler, the plain kernel of its kind (ch06's CPU stages:
 * the host's read ceiling): then every timed run of the stage is followed
 * (after its check, where each run is checked) by one timed run of the ruler,
 * and the stage's share of it is the median, run for run, of ruler time over
 * stage time (the same work on both sides). A share of a ceiling measured
 * once, seconds before, moves with the host's drift; pairs taken in turn see
 * the same host. The ruler returns the work its threads counted (bytes,
 * flops), and a run that counted other work than the plan's ruler_work fails
 * the row: its share would compare unlike work. A ruler must not write what
 * reset, run or check use: the verdict on the output stays the stage's own.
 *
 * Each measurement is an NVTX range named after the stage (plan.name), with
 * one range inside it for the timed runs, so an Nsight Systems timeline
 * (nsys profile ./chNN) shows which stage each kernel and thread belongs to.
 * Built without the CUDA Toolkit's nvtx3 header (HAVE_NVTX unset) there are
 * no ranges; with it and no profiler attached, a range costs a call that
 * returns at once.
 *
 * A chapter supplies the four steps as functions of one context; GPU
 * chapters time with CUDA events (cuda_util.h's cuda_time_ms), CPU ones with
 * the wall clock (timer = NULL).
 */
#ifndef COMMON_MEASURE_H
#define COMMON_MEASURE_H

#include "report.h"
#include "timer.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void measure_fn(void *context);
typedef int measure_check_fn(void *context, char *note, size_t size); /* 1: right; what it found goes in note */
typedef double measure_timer_fn(measure_fn *run, void *context);     /* milliseconds of one run */
typedef double measure_count_fn(void *context);                      /* runs once; returns the work it counted */

typedef struct {
    measure_fn *reset;       /* before every run, untimed: inputs to their start, output poisoned (NULL: none) */
    measure_fn *run;         /* the work, once */
    measure_check_fn *check; /* NULL: nothing to check against (the row says n/a) */
    measure_timer_fn *timer; /* NULL: the wall clock around run */
    void *context;
    int repeat;              /* timed runs, 1 .. REPEAT_MAX */
    int check_each_run;      /* 1: check every timed run instead of a run before and after */
    measure_count_fn *ruler; /* NULL: none; else the same work by the plain kernel, run and timed after each
                              * timed run (with the same timer), its context the stage's */
    double ruler_work;       /* the work each ruler run must count; a run that counts other work fails the row */
    const char *name;        /* the stage's name: its range on a profiler's timeline (NVTX, as Nsight Systems
                              * shows it); NULL: the range is called "stage" */
} measure_plan;

typedef struct {
    int ok;          /* REPORT_OK, REPORT_FAIL, or REPORT_NO_CHECK */
    run_times times; /* ms: median, fastest, slowest, runs */
    char note[256];  /* the first check's note (a later one's if it was empty), and a later one's if it failed */
    run_times share; /* with a ruler: ruler ms / stage ms, run for run (1: as fast), over the pairs whose two
                      * times are above 0 (runs: how many); else all 0 */
    double ruler_counted; /* with a ruler: the work its runs counted (the first run's that strayed from
                           * ruler_work, else ruler_work); else 0 */
} measure_result;

void measure_stage(const measure_plan *plan, measure_result *out);

/* The wall-clock timer (what timer = NULL means). */
double measure_wall_ms(measure_fn *run, void *context);

/* A measured stage's row: time and spread from m, its check and note, the
 * rate `value` in `unit`. Returns the row, for report_note. */
report_row *report_measured(report *r, const char *stage, int threads, const measure_result *m, double value,
                            const char *unit, const char *device);

#ifdef __cplusplus
}
#endif

#endif
