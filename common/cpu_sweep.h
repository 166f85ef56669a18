/* cpu_sweep.h - a CPU stage measured at 1, 2, 4, ... threads: the thread
 * counts of the sweep, and each count's row, whose note says beside the time
 * what threads cost: the efficiency against one thread, how evenly the
 * threads were busy, how often the process was switched out.
 *
 * Header only, like cuda_util.h.
 */
#ifndef COMMON_CPU_SWEEP_H
#define COMMON_CPU_SWEEP_H

#include "measure.h"
#include "report.h"

#include <sys/resource.h>

/* The sweep's thread counts into counts (room for 32): 1, 2, 4, ... below
 * max, then max. Returns how many. */
static inline int cpu_sweep_counts(int max, int *counts)
{
    int n = 0;
    for (int t = 1; t < max; t *= 2)
        counts[n++] = t;
    counts[n++] = max;
    return n;
}

/* Context switches of this process so far, voluntary (waiting, e.g. on a
 * lock) and not (its time slice ran out): a row notes how many a run made. */
static inline long cpu_context_switches(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_nvcsw + u.ru_nivcsw;
}

/* The busiest thread's busy time over the mean of threads' (1: perfectly
 * balanced; 0 if none was busy): what an unbalanced schedule costs. */
static inline double cpu_busy_imbalance(const double *busy, int threads)
{
    double max = 0, sum = 0;
    for (int t = 0; t < threads; t++) {
        max = busy[t] > max ? busy[t] : max;
        sum += busy[t];
    }
    return sum > 0 ? max * threads / sum : 0;
}

/* Measures one stage at one thread count (plan: its run, timer and check)
 * and adds its row: the rate in Msamples/s of `samples` a run, and the notes:
 * efficiency against the stage's 1-thread time (*one_thread: 0 before the
 * stage's first row, set by its 1-thread row), busy max/mean of the threads'
 * busy[] after the last run, context switches a run. Returns the row. */
static inline report_row *cpu_sweep_row(report *rep, const char *stage, int threads, const measure_plan *plan,
                                        double samples, const double *busy, double *one_thread)
{
    long switches = cpu_context_switches();
    measure_result m;
    measure_plan named = *plan;
    named.name = named.name ? named.name : stage; /* its NVTX range */
    measure_stage(&named, &m);
    switches = (cpu_context_switches() - switches) / plan->repeat;
    double ms = m.times.median;
    if (threads == 1)
        *one_thread = ms;
    report_row *row = report_measured(rep, stage, threads, &m, samples / (ms * 1e3), "Msamples/s", host_cpu_name());
    if (*one_thread > 0)
        report_note(row, ", eff %.0f%%", 100 * *one_thread / (threads * ms));
    report_note(row, ", busy max/mean %.2f, %ld ctx sw", cpu_busy_imbalance(busy, threads), switches);
    return row;
}

#endif
