/* stages.h - ch03's stage table: name, what it changes, its worker and where
 * its generator lives. main.c runs it; tests/test_ch03.c tests every entry. */
#ifndef CH03_STAGES_H
#define CH03_STAGES_H

#include "threads.h"

static const stage stages[] = {
    {"rand-shared", "rows in equal blocks; every thread calls libc rand(): one lock for all", rows_in_blocks, RNG_LIBC},
    {"rng-packed", "an LCG per thread, states adjacent in one array: false sharing", rows_in_blocks, RNG_PACKED},
    {"rng-local", "the LCG state on each thread's own stack: nothing shared", rows_in_blocks, RNG_LOCAL},
    {"rng-local-dynamic", "rng-local, rows handed out one by one from an atomic counter", rows_on_demand, RNG_LOCAL},
};
#define STAGE_COUNT (sizeof stages / sizeof stages[0])

#endif
