/* stages.h - ch03's stages: name, what it changes, where it runs; its worker
 * and where its generator lives. main.c runs them; tests/test_ch03.c tests
 * every row. (The tag divisor-typo: bench_extra.sh renders that stage with the
 * article's typo too.) */
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

#endif
