/* stages.h - ch03's stages: name, what it changes, where it runs; its worker
 * and where its generator lives. problem.c runs them; tests/test_ch03.c tests
 * every row. (The tag divisor-typo: bench_extra.sh renders that stage with the
 * article's typo too.)
 *
 *   rand-shared        rows split in equal blocks; every thread calls libc rand().
 *                      glibc's rand() takes a process-wide lock around its state,
 *                      so the threads queue on it (and the lock's cache line moves
 *                      from core to core). It gets slower with more threads.
 *   rng-packed         each thread has its own LCG, but the states sit side by side
 *                      in one array: one cache line, written on every draw by every
 *                      thread. No lock, yet the line still moves: false sharing.
 *   rng-local          the state lives on each thread's own stack: nothing shared.
 *   rng-local-dynamic  rows handed out one at a time through an atomic counter:
 *                      rows through the letters cost far more than sky rows, so
 *                      equal blocks leave some threads idle at the end.
 */
#ifndef CH03_STAGES_H
#define CH03_STAGES_H

#include "threads.h"

static const stage stages[] = {
    {{"rand-shared", "rows in equal blocks; every thread calls libc rand(): one lock for all", .where = STAGE_CPU},
     rows_in_blocks, RNG_LIBC},
    {{"rng-packed", "an LCG per thread, states adjacent in one array: false sharing", .where = STAGE_CPU},
     rows_in_blocks, RNG_PACKED},
    {{"rng-local", "the LCG state on each thread's own stack: nothing shared", .where = STAGE_CPU,
      .tags = "divisor-typo"}, rows_in_blocks, RNG_LOCAL},
    {{"rng-local-dynamic", "rng-local, rows handed out one by one from an atomic counter", .where = STAGE_CPU},
     rows_on_demand, RNG_LOCAL},
};
#define STAGE_COUNT (sizeof stages / sizeof stages[0])

/* The stage whose 1-thread renders are the image check's reference where
 * ch01's image is not (problem.c): the first whose generator is on each
 * thread's own stack, nothing shared. */
static inline const stage *check_reference_stage(void)
{
    size_t i = 0;
    while (i + 1 < STAGE_COUNT && stages[i].rng != RNG_LOCAL)
        i++;
    return &stages[i];
}

#endif
