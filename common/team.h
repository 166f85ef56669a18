/* team.h - the threads of the chapters' CPU stages (ch06, ch07, ch08, ch10).
 *
 * Two promises every row relies on: the thread count a row reports is the one
 * that ran (a thread that cannot start is an error, never a quiet fallback to
 * fewer), and a stage's time ends when its last worker does (the waiting
 * thread is woken at the end, not at its next progress tick). ch03 starts its
 * threads by hand, since there the threads are the lesson. */
#ifndef COMMON_TEAM_H
#define COMMON_TEAM_H

#include "report.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TEAM_MAX 1024 /* threads one team may have */

/* Runs work(context, t, threads) for t = 0 .. threads-1, each on a thread of
 * its own, and returns when every one has finished. threads is 1..TEAM_MAX.
 * The threads are started at the first run that needs them and kept waiting
 * for the next (the calling thread only waits); a team of one is the calling
 * thread itself, so a one-thread run times its work, not a thread's wake-up,
 * as a one-thread stage that calls its work directly does. If one cannot start (ulimit
 * -u, memory), the program exits 1 with "<program>: error: cannot start
 * thread k of n: <reason>" on stderr, before any work. Not reentrant: one
 * run at a time, from one thread. */
typedef void team_fn(void *context, int index, int threads);
void team_run(int threads, team_fn *work, void *context);

/* Rows on demand: `threads` workers each take the next unrendered row and call
 * row(context, r) until all `rows` are done, while the calling thread draws
 * `bar` (progress_update) and is woken by the last row's worker. */
typedef void team_row_fn(void *context, int row);
void team_rows(int threads, int rows, team_row_fn *row, void *context, progress *bar);

#ifdef __cplusplus
}
#endif

#endif
