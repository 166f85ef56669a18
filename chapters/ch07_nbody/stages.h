/* stages.h - ch07's stages: name, what it changes, where it runs, the kernel
 * make profile measures, the extra runs make bench makes of it (GFLOP/s
 * against n, the book's chart), tags for the chapter's scripts (ptx-mix=K:
 * ptx_mix.sh counts its unrolled loop, K interactions per shared load); then
 * how to run it. problem.c runs them; tests/test_ch07.cu tests every row. */
#ifndef CH07_STAGES_H
#define CH07_STAGES_H

#include "nbody.h"
#include "output.h"

#include "../../common/report.h"
#include "../../common/stage.h"

#ifdef __cplusplus
extern "C" {
#endif
void cpu_isa_note(report_row *row);       /* cpu.c: which ISA cpu-avx512-threads ran with */
void cpu_scheduled_note(report_row *row); /* cpu.c: the same, and if clang built the block without gcc's scheduler */

/* A stage: its head, then how to run it. */
typedef struct stage { /* STAGE_ZERO: see stage.h */
    stage_info info;
    forces_fn *run;        /* one step's forces; NULL for a multi-GPU stage (it runs multi_gpu_run) */
    int output STAGE_ZERO; /* output.h's OUTPUT_*: how each step's positions reach the host (0: they do not) */
    int multi STAGE_ZERO;  /* a STAGE_ALL_GPUS stage: how the host drives the GPUs (MULTI_*) */
    int (*supported)(void) STAGE_ZERO; /* a CPU stage: 0 where this CPU lacks the ISA it needs (AVX2 + FMA, all
                                          the rows need today): skipped; NULL: any CPU */
    void (*note)(report_row *row) STAGE_ZERO; /* adds to the row's note once measured; NULL: nothing */
} stage;

forces_fn cpu_scalar_forces, cpu_simd_forces, cpu_simd_threads_forces, cpu_avx512_threads_forces,
    cpu_avx512_pieces_forces, cpu_avx512_folded_forces, cpu_avx512_two_vectors_forces, cpu_avx512_mass_table_forces,
    cpu_avx512_symmetric_forces, cpu_avx512_eight_tiles_forces, cpu_avx512_scheduled_forces;
forces_fn gpu_naive_forces, gpu_tiled_forces, gpu_tiled_float4_forces, gpu_tiled_rsqrt_forces,
    gpu_tiled_unrolled_forces, gpu_tiled_ftz_forces, gpu_softening_fma_forces, gpu_two_bodies_unsplit_forces,
    gpu_two_bodies_forces, gpu_four_bodies_forces, gpu_double_buffered_forces, gpu_warp_tiles_forces, gpu_broadcast_loads_forces,
    gpu_atomic_symmetric_forces, gpu_symmetric_staggered_forces, gpu_symmetric_balanced_forces;
#ifdef __cplusplus
}
#endif

#define N_SWEEP "--n 1024;--n 4096;--n 16384;--n 65536;--n 262144"
/* The multi-GPU stages where a step is short (the host's part shows) and long. */
#define MULTI_SWEEP "--n 16384 --steps 20;--n 1048576"
/* The output stages where a step is short and the copy and the launches are
 * not: 100 steps each (enum values from output.h). */
#define OUTPUT_SWEEP "--n 1024 --steps 100;--n 4096 --steps 100;--n 16384 --steps 100"

static const stage stages[] = {
    {{"cpu-scalar", "one body at a time, one interaction at a time, 1 / sqrtf", .where = STAGE_CPU},
     .run = cpu_scalar_forces},
    {{"cpu-simd", "AVX2 + FMA: 8 bodies in the lanes of a vector, rsqrt + one Newton step", .where = STAGE_CPU},
     .run = cpu_simd_forces, .supported = cpu_simd_supported},
    {{"cpu-simd-threads", "cpu-simd on every core (pthreads, blocks of bodies)", .where = STAGE_CPU,
      .bench = "--n 131072 --cpu-n 131072", .all_cores = 1},
     .run = cpu_simd_threads_forces, .supported = cpu_simd_supported},
    {{"cpu-avx512-threads", "+ AVX-512: 16 bodies in the lanes, sources broadcast from memory, rsqrt14 + one Newton "
                            "step (AVX2 where the CPU lacks it: the row says)", .where = STAGE_CPU,
      .bench = "--n 131072 --cpu-n 131072", .all_cores = 1},
     .run = cpu_avx512_threads_forces, .supported = cpu_simd_supported, .note = cpu_isa_note},
    {{"cpu-avx512-pieces", "+ the targets dealt in pieces of 64 as threads ask for them, not one fixed range each",
      .where = STAGE_CPU, .bench = "--n 131072 --cpu-n 131072", .all_cores = 1},
     .run = cpu_avx512_pieces_forces, .supported = cpu_simd_supported, .note = cpu_isa_note},
    {{"cpu-avx512-folded", "+ the Newton step folded into the cube: y^3 (2.5 - 1.5 d^2 y^2), 16 vector "
      "instructions an interaction instead of 17, the same accuracy", .where = STAGE_CPU,
      .bench = "--n 131072 --cpu-n 131072", .all_cores = 1},
     .run = cpu_avx512_folded_forces, .supported = cpu_simd_supported, .note = cpu_isa_note},
    {{"cpu-avx512-two-vectors", "+ 32 targets a block: each source's broadcasts serve two vectors of 16, two "
      "independent chains", .where = STAGE_CPU, .bench = "--n 131072 --cpu-n 131072", .all_cores = 1},
     .run = cpu_avx512_two_vectors_forces, .supported = cpu_simd_supported, .note = cpu_isa_note},
    {{"cpu-avx512-mass-table", "+ the mass folded into the factor's constants: 2.5 y^3 (m - 0.6 m u), 0.6 m read "
      "from a table made once a call, both broadcast from memory: 15 vector instructions an interaction",
      .where = STAGE_CPU, .bench = "--n 131072 --cpu-n 131072", .all_cores = 1},
     .run = cpu_avx512_mass_table_forces, .supported = cpu_simd_supported, .note = cpu_isa_note},
    {{"cpu-avx512-symmetric", "+ each pair once, the force on j minus the force on i (m_i for m_j): tiles of 16 "
      "met 16 times, the sources loaded a lane further round each time and the reaction permuted with them, two "
      "tiles of targets a block; 21.5 arithmetic vector instructions a pair, against 30", .where = STAGE_CPU,
      .bench = "--n 131072 --cpu-n 131072", .all_cores = 1},
     .run = cpu_avx512_symmetric_forces, .supported = cpu_simd_supported, .note = cpu_isa_note},
    {{"cpu-avx512-eight-tiles", "+ eight tiles of targets a block, not two: each turn's permutes shared 8 ways "
      "(20.4 instructions a pair) and 8 independent chains a turn for the core to interleave", .where = STAGE_CPU,
      .bench = "--n 131072 --cpu-n 131072", .all_cores = 1},
     .run = cpu_avx512_eight_tiles_forces, .supported = cpu_simd_supported, .note = cpu_isa_note},
    {{"cpu-avx512-scheduled", "+ gcc's instruction scheduler run before register allocation, for this block only "
      "(-fschedule-insns -fsched-pressure): the 8 chains of a turn interleaved, not one after another",
      .where = STAGE_CPU, .bench = "--n 131072 --cpu-n 131072", .all_cores = 1},
     .run = cpu_avx512_scheduled_forces, .supported = cpu_simd_supported, .note = cpu_scheduled_note},
    {{"gpu-naive", "one thread per body, every other body read from global memory", .where = STAGE_GPU,
      .kernel = "naive_kernel", .bench = N_SWEEP}, .run = gpu_naive_forces},
    {{"gpu-tiled", "bodies staged through shared memory a block-sized tile at a time", .where = STAGE_GPU,
      .kernel = "tiled_kernel", .bench = N_SWEEP}, .run = gpu_tiled_forces},
    {{"gpu-tiled-float4", "gpu-tiled with the tile read as float4: one 16-byte shared load per body",
      .where = STAGE_GPU, .kernel = "tiled_float4_kernel<(int)0>"}, .run = gpu_tiled_float4_forces},
    {{"gpu-tiled-rsqrt", "+ rsqrtf: one special-function instruction for the square root and the division",
      .where = STAGE_GPU, .kernel = "tiled_float4_kernel<(int)1>"}, .run = gpu_tiled_rsqrt_forces},
    {{"gpu-tiled-unrolled", "+ the inner loop unrolled 16 times", .where = STAGE_GPU,
      .kernel = "tiled_float4_kernel<(int)3>", .bench = N_SWEEP, .tags = "ptx-mix=1"},
     .run = gpu_tiled_unrolled_forces},
    {{"gpu-tiled-ftz", "+ the flush-to-zero rsqrt: no subnormal guard (d^2 >= eps^2)", .where = STAGE_GPU,
      .kernel = "tiled_float4_kernel<(int)7>", .bench = N_SWEEP, .tags = "ptx-mix=1"},
     .run = gpu_tiled_ftz_forces},
    {{"gpu-softening-fma", "+ r.r + eps^2 summed from eps^2: three multiply-adds, no separate add",
      .where = STAGE_GPU, .kernel = "tiled_float4_kernel<(int)15>", .tags = "ptx-mix=1"},
     .run = gpu_softening_fma_forces},
    {{"gpu-two-bodies-unsplit", "+ two bodies per thread: each shared load serves two interactions, half the "
      "threads", .where = STAGE_GPU, .kernel = "several_bodies_kernel<(int)2, (int)1, (int)256>"},
     .run = gpu_two_bodies_unsplit_forces},
    {{"gpu-two-bodies", "+ the other bodies split between two halves of the block: the threads back, each half "
      "every other tile", .where = STAGE_GPU, .kernel = "several_bodies_kernel<(int)2, (int)2, (int)256>",
      .bench = N_SWEEP, .tags = "ptx-mix=2"}, .run = gpu_two_bodies_forces},
    {{"gpu-four-bodies", "the same at four: four bodies per thread, the other bodies split four ways (blocks of "
      "128 x 4): a quarter of a shared load per interaction, four chains a thread", .where = STAGE_GPU,
      .kernel = "several_bodies_kernel<(int)4, (int)4, (int)128>", .bench = N_SWEEP, .tags = "ptx-mix=4"},
     .run = gpu_four_bodies_forces},
    {{"gpu-double-buffered", "+ two tiles: the next one loaded into registers while this one is used, one barrier "
      "a tile instead of two", .where = STAGE_GPU, .kernel = "double_buffered_kernel<(int)4, (int)4, (int)128>",
      .bench = N_SWEEP, .tags = "ptx-mix=4"},
     .run = gpu_double_buffered_forces},
    {{"gpu-warp-tiles", "gpu-four-bodies' grid with a 32-body tile per warp, ordered by __syncwarp: no block barrier between tiles",
      .where = STAGE_GPU, .kernel = "warp_tiles_kernel<(int)4, (int)4, (int)128>", .tags = "ptx-mix=4"},
     .run = gpu_warp_tiles_forces},
    {{"gpu-broadcast-loads", "gpu-four-bodies' grid without the shared tile: every lane loads the same body through "
      "the read-only cache", .where = STAGE_GPU, .kernel = "broadcast_loads_kernel<(int)4, (int)4, (int)128>"},
     .run = gpu_broadcast_loads_forces},
    {{"gpu-atomic-symmetric", "each pair once, the reaction subtracted with float atomics (f_ji = -f_ij), all lanes "
      "on one address", .where = STAGE_GPU, .kernel = "symmetric_kernel<(bool)0, (bool)0>"},
     .run = gpu_atomic_symmetric_forces},
    {{"gpu-symmetric-staggered", "+ each lane visits the tile rotated by its index: every atomic on its own address",
      .where = STAGE_GPU, .kernel = "symmetric_kernel<(bool)1, (bool)0>"}, .run = gpu_symmetric_staggered_forces},
    {{"gpu-symmetric-balanced", "+ every block half the tiles round the ring: equal work per block",
      .where = STAGE_GPU, .kernel = "symmetric_kernel<(bool)1, (bool)1>", .bench = N_SWEEP},
     .run = gpu_symmetric_balanced_forces},
    {{"gpu-output-pageable", "gpu-two-bodies, and every step's positions to the host for it to read: cudaMemcpy "
      "into pageable memory", .where = STAGE_GPU, .kernel = "several_bodies_kernel<(int)2, (int)2, (int)256>", .bench = OUTPUT_SWEEP},
     .run = gpu_two_bodies_forces, .output = OUTPUT_PAGEABLE},
    {{"gpu-output-pinned", "+ the host frame page-locked (cudaMallocHost)", .where = STAGE_GPU,
      .kernel = "several_bodies_kernel<(int)2, (int)2, (int)256>", .bench = OUTPUT_SWEEP}, .run = gpu_two_bodies_forces, .output = OUTPUT_PINNED},
    {{"gpu-output-overlap", "+ the copy in a stream of its own from a snapshot, overlapping the next step's forces "
      "and the host's reading", .where = STAGE_GPU, .kernel = "several_bodies_kernel<(int)2, (int)2, (int)256>", .bench = OUTPUT_SWEEP},
     .run = gpu_two_bodies_forces, .output = OUTPUT_OVERLAP},
    {{"gpu-output-graph", "gpu-output-pinned with each step's three launches one CUDA graph", .where = STAGE_GPU,
      .kernel = "several_bodies_kernel<(int)2, (int)2, (int)256>", .bench = OUTPUT_SWEEP}, .run = gpu_two_bodies_forces, .output = OUTPUT_GRAPH},
    {{"multi-gpu", "gpu-tiled-ftz split across every GPU, one host thread each", .where = STAGE_ALL_GPUS,
      .bench = MULTI_SWEEP}, .run = NULL, .multi = MULTI_THREADS},
    {{"multi-gpu-pinned", "+ the host's positions and forces page-locked, portable to every GPU",
      .where = STAGE_ALL_GPUS, .bench = MULTI_SWEEP}, .run = NULL, .multi = MULTI_THREADS_PINNED},
    {{"multi-gpu-one-thread", "+ one host thread for every GPU: a stream each, every GPU's copies and kernel "
      "queued before any is waited for", .where = STAGE_ALL_GPUS, .bench = MULTI_SWEEP}, .run = NULL,
     .multi = MULTI_ONE_THREAD},
};
#define STAGE_COUNT (sizeof stages / sizeof stages[0])

#endif
