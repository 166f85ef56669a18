/* stages.h - ch06's stages: name, what it changes, where it runs, the kernel
 * make profile measures, tags (racy: make sanitize's racecheck must flag
 * it, the race is its lesson); then its function. problem.c measures them;
 * tests/test_ch06.cu tests every row. */
#ifndef CH06_STAGES_H
#define CH06_STAGES_H

#include "reduce.h"

#include "../../common/stage.h"

/* A stage: its head, and its function. (Here beside the table, not in
 * reduce.h, which ch09 includes beside other chapters' headers.) */
typedef struct {
    stage_info info;
    reduce_fn *run;
} stage;

static const stage stages[] = {
    {{"cpu-serial", "one core, one add per element", .where = STAGE_CPU}, reduce_cpu_serial},
    {{"cpu-threads", "all cores, one chunk each: the host's memory bandwidth", .where = STAGE_CPU, .all_cores = 1},
     reduce_cpu_threads},
    {{"cpu-threads-simd", "+ each chunk summed with the widest vectors the CPU has (AVX-512 or AVX2, chosen at run "
                          "time), four sums in flight", .where = STAGE_CPU, .all_cores = 1}, reduce_cpu_threads_simd},
    {{"cpu-pieces", "+ the input dealt in 1 MiB pieces as threads ask for them, not one fixed chunk each",
      .where = STAGE_CPU, .all_cores = 1}, reduce_cpu_pieces},
    {{"cpu-biased-lanes", "+ one 64-byte load per 16 ints, biased to unsigned and added as 64-bit lanes (exact for "
      "any int32): four instructions per 64 bytes instead of six", .where = STAGE_CPU, .all_cores = 1},
     reduce_cpu_biased_lanes},
    {{"cpu-prefetch", "+ a software prefetch of every cache line, 8 KiB ahead, into L2 (the read ceiling tries the same)",
      .where = STAGE_CPU, .all_cores = 1}, reduce_cpu_prefetch},
    {{"atomic-global", "one 64-bit atomicAdd per element, all on one address", .where = STAGE_GPU,
      .kernel = "atomic_global_kernel"}, reduce_atomic_global},
    {{"interleaved-divergent", "shared-memory tree, every 2s-th thread works: divergent warps", .where = STAGE_GPU,
      .kernel = "interleaved_divergent_kernel"}, reduce_interleaved_divergent},
    {{"interleaved-strided", "the working threads packed, strided addresses: bank conflicts", .where = STAGE_GPU,
      .kernel = "interleaved_strided_kernel"}, reduce_interleaved_strided},
    {{"sequential", "fold the upper half onto the lower: no conflicts, no divergence", .where = STAGE_GPU,
      .kernel = "sequential_kernel"}, reduce_sequential},
    {{"first-add-on-load", "each thread adds two elements while loading: half the blocks", .where = STAGE_GPU,
      .kernel = "first_add_on_load_kernel"}, reduce_first_add_on_load},
    {{"warp-unrolled-volatile", "last warp unrolled without barriers (volatile): racy since Volta",
      .where = STAGE_GPU, .kernel = "warp_unrolled_volatile_kernel", .tags = "racy"}, reduce_warp_unrolled_volatile},
    {{"warp-unrolled-sync", "the same, made correct with __syncwarp()", .where = STAGE_GPU,
      .kernel = "warp_unrolled_sync_kernel"}, reduce_warp_unrolled_sync},
    {{"fully-unrolled", "block size as a template parameter: every loop unrolled", .where = STAGE_GPU,
      .kernel = "fully_unrolled_kernel"}, reduce_fully_unrolled},
    {{"chunk-per-thread", "a grid that just fills the GPU, each thread a contiguous chunk, sum in a register: "
                          "uncoalesced", .where = STAGE_GPU, .kernel = "chunk_per_thread_kernel"},
     reduce_chunk_per_thread},
    {{"many-per-thread", "the same, elements dealt out grid-stride: a warp reads 32 adjacent ints (coalesced)",
      .where = STAGE_GPU,
      .kernel = "many_per_thread_kernel"}, reduce_many_per_thread},
    {{"warp-shuffle", "+ the block's sum by warp shuffles in registers, not a shared-memory tree",
      .where = STAGE_GPU, .kernel = "warp_shuffle_kernel"}, reduce_warp_shuffle},
    {{"four-loads", "+ four independent loads per trip: more bytes in flight per thread", .where = STAGE_GPU,
      .kernel = "four_loads_kernel"}, reduce_four_loads},
    {{"read-only-path", "+ the loads through the read-only path (__ldg, __restrict__)", .where = STAGE_GPU,
      .kernel = "read_only_path_kernel"}, reduce_read_only_path},
    {{"vector-shuffle", "+ 16-byte loads (int4), two in flight", .where = STAGE_GPU,
      .kernel = "vector_shuffle_kernel"}, reduce_vector_shuffle},
    {{"cover-once", "+ a grid that covers the input once: eight 16-byte loads per thread, all in flight at once, "
      "no grid-stride loop", .where = STAGE_GPU, .kernel = "cover_once_kernel<(int)256, (int)8>"}, reduce_cover_once},
    {{"ceiling-shape", "+ the read ceiling's launch shape: 512 threads of two 16-byte loads instead of 256 of eight",
      .where = STAGE_GPU, .kernel = "cover_once_kernel<(int)512, (int)2>"}, reduce_ceiling_shape},
    {{"one-launch", "+ no memset launched first: the grid's last block writes the total (a ticket per block)",
      .where = STAGE_GPU, .kernel = "one_launch_kernel<(int)512, (int)2>"}, reduce_one_launch},
    {{"cub", "CUB's DeviceReduce::Sum, the yardstick", .where = STAGE_GPU, .kernel = "DeviceReduceKernel"},
     reduce_cub},
};
#define STAGE_COUNT (sizeof stages / sizeof stages[0])

#endif
