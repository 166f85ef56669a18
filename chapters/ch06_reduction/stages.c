/* stages.c - ch06's stage table: name, what it changes, and its function. */
#include "reduce.h"

const stage stages[STAGE_COUNT] = {
    {"cpu-serial", "one core, one add per element", reduce_cpu_serial, NULL},
    {"cpu-threads", "all cores, one chunk each: the host's memory bandwidth", reduce_cpu_threads, NULL},
    {"atomic-global", "one 64-bit atomicAdd per element, all on one address", NULL, reduce_atomic_global},
    {"interleaved-divergent", "shared-memory tree, every 2s-th thread works: divergent warps", NULL,
     reduce_interleaved_divergent},
    {"interleaved-strided", "the working threads packed, strided addresses: bank conflicts", NULL,
     reduce_interleaved_strided},
    {"sequential", "fold the upper half onto the lower: no conflicts, no divergence", NULL, reduce_sequential},
    {"first-add-on-load", "each thread adds two elements while loading: half the blocks", NULL,
     reduce_first_add_on_load},
    {"warp-unrolled-volatile", "last warp unrolled without barriers (volatile): racy since Volta", NULL,
     reduce_warp_unrolled_volatile},
    {"warp-unrolled-sync", "the same, made correct with __syncwarp()", NULL, reduce_warp_unrolled_sync},
    {"fully-unrolled", "block size as a template parameter: every loop unrolled", NULL, reduce_fully_unrolled},
    {"many-per-thread", "a grid that just fills the GPU; grid-stride loop, sum in a register", NULL,
     reduce_many_per_thread},
    {"shuffle", "warp shuffles, one barrier, 4 loads in flight per thread (__ldg), one atomic per block", NULL,
     reduce_shuffle},
    {"vector-shuffle", "16-byte loads (int4), two in flight, grid sized to the SMs", NULL, reduce_vector_shuffle},
    {"cub", "CUB's DeviceReduce::Sum, the yardstick", NULL, reduce_cub},
};
