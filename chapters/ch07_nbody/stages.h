/* stages.h - ch07's stage table: name, what it changes, its forces function,
 * where it runs. main.c runs it; tests/test_ch07.cu tests every entry. */
#ifndef CH07_STAGES_H
#define CH07_STAGES_H

#include "nbody.h"

static const stage stages[] = {
    {"cpu-scalar", "one body at a time, one interaction at a time, 1 / sqrtf", cpu_scalar_forces, ON_CPU},
    {"cpu-simd", "AVX2 + FMA: 8 bodies in the lanes of a vector, rsqrt + one Newton step", cpu_simd_forces, ON_CPU},
    {"cpu-simd-threads", "cpu-simd on every core (pthreads, blocks of bodies)", cpu_simd_threads_forces, ON_CPU},
    {"gpu-naive", "one thread per body, every other body read from global memory", gpu_naive_forces, ON_GPU},
    {"gpu-tiled", "bodies staged through shared memory a block-sized tile at a time", gpu_tiled_forces, ON_GPU},
    {"gpu-tiled-float4", "gpu-tiled with the tile read as float4: one 16-byte shared load per body",
     gpu_tiled_float4_forces, ON_GPU},
    {"gpu-tiled-rsqrt", "+ rsqrtf: one special-function instruction for the square root and the division",
     gpu_tiled_rsqrt_forces, ON_GPU},
    {"gpu-tiled-unrolled", "+ the inner loop unrolled 16 times", gpu_tiled_unrolled_forces, ON_GPU},
    {"gpu-tiled-ftz", "+ the flush-to-zero rsqrt: no subnormal guard (d^2 >= eps^2)", gpu_tiled_ftz_forces, ON_GPU},
    {"gpu-softening-fma", "+ r.r + eps^2 summed from eps^2: three multiply-adds, no separate add",
     gpu_softening_fma_forces, ON_GPU},
    {"gpu-two-bodies", "+ two bodies per thread, the other bodies split between two halves of the block: each "
     "shared load serves two interactions", gpu_two_bodies_forces, ON_GPU},
    {"gpu-atomic-symmetric", "each pair once, the reaction subtracted with float atomics (f_ji = -f_ij), all lanes "
     "on one address", gpu_atomic_symmetric_forces, ON_GPU},
    {"gpu-symmetric-staggered", "+ each lane visits the tile rotated by its index: every atomic on its own address",
     gpu_symmetric_staggered_forces, ON_GPU},
    {"gpu-symmetric-balanced", "+ every block half the tiles round the ring: equal work per block",
     gpu_symmetric_balanced_forces, ON_GPU},
    {"multi-gpu", "gpu-tiled-ftz split across every GPU, one host thread each", gpu_tiled_ftz_forces, ON_ALL_GPUS},
};
#define STAGE_COUNT (sizeof stages / sizeof stages[0])

#endif
