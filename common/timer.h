/* timer.h - wall-clock timing for every chapter.
 *
 * now_seconds() reads CLOCK_MONOTONIC: it never jumps when the system clock is
 * set, unlike gettimeofday(), and it measures elapsed time, unlike clock(), which
 * counts CPU time summed over all threads (a parallel program would look slower).
 *
 * Timings are noisy, so chapters repeat a measurement and report the median,
 * which one slow run (a page fault, another process) cannot move much.
 */
#ifndef COMMON_TIMER_H
#define COMMON_TIMER_H

#ifdef __cplusplus
extern "C" {
#endif

/* Seconds since an arbitrary fixed point; only differences mean anything. */
double now_seconds(void);

/* Median of values[0..count-1]; sorts the array in place. Returns 0 for count 0. */
double median(double *values, int count);

/* The median of count timed runs, and the fastest and slowest of them (the
 * spread a reader needs before believing a difference). Sorts in place. */
typedef struct {
    double median, lo, hi;
    int runs;
} run_times;
run_times summarize_runs(double *values, int count);

#ifdef __cplusplus
}
#endif

#endif
