/* stages.h - ch06's stage table: name, what it changes, its function, where it
 * runs. main.c runs it; tests/test_ch06.cu tests every entry. */
#ifndef CH06_STAGES_H
#define CH06_STAGES_H

#include "reduce.h"

static const stage stages[] = {
    {"cpu-serial", "one core, one add per element", reduce_cpu_serial, ON_CPU},
    {"cpu-threads", "all cores, one chunk each: the host's memory bandwidth", reduce_cpu_threads, ON_CPU},
    {"atomic-global", "one 64-bit atomicAdd per element, all on one address", reduce_atomic_global, ON_GPU},
    {"interleaved-divergent", "shared-memory tree, every 2s-th thread works: divergent warps",
     reduce_interleaved_divergent, ON_GPU},
    {"interleaved-strided", "the working threads packed, strided addresses: bank conflicts",
     reduce_interleaved_strided, ON_GPU},
    {"sequential", "fold the upper half onto the lower: no conflicts, no divergence", reduce_sequential, ON_GPU},
    {"first-add-on-load", "each thread adds two elements while loading: half the blocks", reduce_first_add_on_load,
     ON_GPU},
    {"warp-unrolled-volatile", "last warp unrolled without barriers (volatile): racy since Volta",
     reduce_warp_unrolled_volatile, ON_GPU},
    {"warp-unrolled-sync", "the same, made correct with __syncwarp()", reduce_warp_unrolled_sync, ON_GPU},
    {"fully-unrolled", "block size as a template parameter: every loop unrolled", reduce_fully_unrolled, ON_GPU},
    {"many-per-thread", "a grid that just fills the GPU; grid-stride loop, sum in a register", reduce_many_per_thread,
     ON_GPU},
    {"warp-shuffle", "+ the block's sum by warp shuffles in registers, not a shared-memory tree", reduce_warp_shuffle,
     ON_GPU},
    {"four-loads", "+ four independent loads per trip: more bytes in flight per thread", reduce_four_loads, ON_GPU},
    {"read-only-path", "+ the loads through the read-only path (__ldg, __restrict__)", reduce_read_only_path, ON_GPU},
    {"vector-shuffle", "+ 16-byte loads (int4), two in flight", reduce_vector_shuffle, ON_GPU},
    {"cub", "CUB's DeviceReduce::Sum, the yardstick", reduce_cub, ON_GPU},
};
#define STAGE_COUNT (sizeof stages / sizeof stages[0])

#endif
