/* timer.c - see timer.h. */
#define _POSIX_C_SOURCE 200809L
#include "timer.h"

#include <stdlib.h>
#include <time.h>

double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double median(double *values, int count)
{
    if (count <= 0)
        return 0.0;
    qsort(values, (size_t)count, sizeof values[0], compare_doubles);
    if (count % 2)
        return values[count / 2];
    return 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

run_times summarize_runs(double *values, int count)
{
    run_times t = {median(values, count), 0, 0, count > 0 ? count : 0};
    if (count > 0) {
        t.lo = values[0]; /* sorted by median() */
        t.hi = values[count - 1];
    }
    return t;
}
