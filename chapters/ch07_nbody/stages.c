/* stages.c - ch07's stage table: name, what it changes, and how it runs. */
#include "nbody.h"

const stage stages[STAGE_COUNT] = {
    {"cpu-scalar", "one body at a time, one interaction at a time, 1 / sqrtf", cpu_scalar_forces, -1, 0},
    {"cpu-simd", "AVX2 + FMA: 8 bodies in the lanes of a vector, rsqrt + one Newton step", cpu_simd_forces, -1, 0},
    {"cpu-simd-threads", "cpu-simd on every core (pthreads, blocks of bodies)", cpu_simd_threads_forces, -1, 0},
    {"gpu-naive", "one thread per body, every other body read from global memory", NULL, GPU_NAIVE, 0},
    {"gpu-tiled", "bodies staged through shared memory a block-sized tile at a time", NULL, GPU_TILED, 0},
    {"gpu-tiled-unrolled", "tiles + float4 loads, unrolled inner loop, rsqrtf", NULL, GPU_TILED_UNROLLED, 0},
    {"gpu-tiled-ftz", "tiled-unrolled with the flush-to-zero rsqrt: no subnormal guard (d^2 >= eps^2)", NULL,
     GPU_TILED_FTZ, 0},
    {"gpu-atomic-symmetric", "each pair once, the reaction subtracted with float atomics (f_ji = -f_ij)", NULL,
     GPU_ATOMIC_SYMMETRIC, 0},
    {"multi-gpu", "gpu-tiled-ftz split across every GPU, one host thread each", NULL, -1, 1},
};
