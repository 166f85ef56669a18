/* stages.h - ch12's stages, in lesson order: three ladders, each ending at
 * its library. The CPU's (cpu_gemm.c) against OpenBLAS; FP32 on the CUDA
 * cores (gpu_fp32.cu) against cuBLAS SGEMM; bf16 on the tensor cores
 * (gpu_tensor.cu, then Hopper's own instructions in gpu_hopper.cu) against
 * cuBLAS bf16. A row says what its stage multiplies (input: problem.h's
 * INPUT_*, and its work= tag, so no ratio mixes two precisions), whether it
 * runs on the tensor cores (their error bound), and which row is its
 * precision's yardstick. problem.c runs them, the CPU rows in one table and
 * the GPU rows in another; tests/test_ch12.cu tests every row. */
#ifndef CH12_STAGES_H
#define CH12_STAGES_H

#include "gemm.h"
#include "problem.h"

#include "../../common/stage.h"

typedef struct stage { /* STAGE_ZERO: see stage.h */
    stage_info info;
    gemm_cpu_fn *cpu STAGE_ZERO;              /* a CPU stage's function, or NULL */
    gemm_gpu_fn *gpu STAGE_ZERO;              /* a GPU stage's, or NULL */
    int input STAGE_ZERO;                     /* INPUT_FP32, INPUT_BF16 or INPUT_TF32 */
    int tensor_cores STAGE_ZERO;              /* 1: its sums are the tensor cores' (problem.c's bound) */
    int yardstick STAGE_ZERO;                 /* 1: the library every row of its precision and group is
                                                 compared with */
    gemm_supported_fn *supported STAGE_ZERO; /* NULL: runs wherever its group does */
    const char *(*note)(void) STAGE_ZERO;     /* what the row's note adds once measured (the library
                                                 loaded, the launch made); NULL: nothing */
} stage;

/* The plain rows: one core, or one GPU, FP32 in and out. */
#define CPU_ROW(name, what, fn) {{name, what, .where = STAGE_CPU}, .cpu = fn}
#define GPU_ROW(name, what, kernel_name, fn) {{name, what, .where = STAGE_GPU, .kernel = kernel_name}, .gpu = fn}

static const stage stages[] = {
    CPU_ROW("cpu-naive", "one dot product per element of C, i-j-k: B read down a column", gemm_cpu_naive),
    CPU_ROW("cpu-loop-order", "+ i-k-j: the inner loop streams rows of B and C (unit stride, vectorised)",
            gemm_cpu_loop_order),
    CPU_ROW("cpu-blocked", "+ cache blocking: a block of B (64 rows of up to 2048) reused from L2 by every row of C",
            gemm_cpu_blocked),
    {{"cpu-packed", "+ packed panels and a micro-kernel whose tile of C lives in vector registers (AVX-512, "
      "else AVX2)", .where = STAGE_CPU}, .cpu = gemm_cpu_packed, .supported = gemm_cpu_packed_supported},
    {{"cpu-threads", "+ every core, each its own blocks of C, the packed panel of B shared", .where = STAGE_CPU,
      .bench = "--cpu-size 4096", .all_cores = 1}, .cpu = gemm_cpu_threads, .supported = gemm_cpu_packed_supported},
    {{"openblas", "OpenBLAS's sgemm on every core, the CPU's yardstick", .where = STAGE_CPU,
      .bench = "--cpu-size 4096", .all_cores = 1}, .cpu = gemm_openblas, .yardstick = 1, .supported = gemm_openblas_supported,
     .note = gemm_openblas_library},

    GPU_ROW("gpu-naive", "one thread per element of C, threads of a warp down a column: uncoalesced",
            "naive_kernel", gemm_gpu_naive),
    GPU_ROW("gpu-coalesced", "+ threads of a warp along a row: B and C read and written 128 bytes at a time",
            "coalesced_kernel", gemm_gpu_coalesced),
    GPU_ROW("gpu-shared-tiles", "+ 32x32 tiles of A and B staged in shared memory: each loaded once per block",
            "shared_tiles_kernel", gemm_gpu_shared_tiles),
    GPU_ROW("gpu-blocktile-1d", "+ 8 outputs a thread, a column: one shared load of B feeds 8 FMAs",
            "blocktile_1d_kernel<(int)64, (int)64, (int)8, (int)8>", gemm_gpu_blocktile_1d),
    GPU_ROW("gpu-blocktile-2d", "+ an 8x8 tile a thread, an outer product from registers", "blocktile_2d_kernel<(int)128, (int)128, (int)8, (int)8, (int)8>",
            gemm_gpu_blocktile_2d),
    GPU_ROW("gpu-vectorised", "+ 16-byte loads, A transposed in shared memory: float4 reads from it",
            "vectorised_kernel<(int)128, (int)128, (int)8, (int)8, (int)8>", gemm_gpu_vectorised),
    GPU_ROW("gpu-warptile", "+ warp tiles: a warp a 32x64 eighth of the block's tile, its reads conflict-free",
            "warptile_kernel<(int)128, (int)128, (int)8, (int)32, (int)64>", gemm_gpu_warptile),
    GPU_ROW("gpu-double-buffer", "+ double buffering: the next slice loads while this one multiplies",
            "double_buffer_kernel<(int)128, (int)128, (int)8, (int)32, (int)64>", gemm_gpu_double_buffer),
    {{"cublas-sgemm", "cuBLAS SGEMM, FP32 on the CUDA cores: the yardstick", .where = STAGE_GPU, .kernel = "gemm",
      .tags = "kernel=library"}, .gpu = gemm_cublas_sgemm, .yardstick = 1},
    {{"cublas-tf32", "cuBLAS with TF32 tensor cores on the FP32 inputs (10-bit mantissas)", .where = STAGE_GPU,
      .kernel = "gemm", .tags = "work=tf32 kernel=library"}, .gpu = gemm_cublas_tf32, .input = INPUT_TF32, .tensor_cores = 1,
     .yardstick = 1},

    {{"tc-wmma", "bf16 on the tensor cores through WMMA's 16x16x16 fragments", .where = STAGE_GPU,
      .kernel = "tc_wmma_kernel", .tags = "work=bf16"}, .gpu = gemm_tc_wmma, .input = INPUT_BF16, .tensor_cores = 1,
     .supported = gemm_tensor_supported},
    {{"tc-mma-ldmatrix", "+ mma.sync from ldmatrix fragments, shared memory swizzled: no bank conflicts",
      .where = STAGE_GPU, .kernel = "tc_mma_ldmatrix_kernel<(int)128, (int)256>", .tags = "work=bf16"}, .gpu = gemm_tc_mma_ldmatrix,
     .input = INPUT_BF16, .tensor_cores = 1, .supported = gemm_tensor_supported},
    {{"tc-cp-async", "+ a multi-stage cp.async pipeline: the next tiles load while these multiply",
      .where = STAGE_GPU, .kernel = "tc_cp_async_kernel<(int)128, (int)256, (int)3>", .tags = "work=bf16"}, .gpu = gemm_tc_cp_async,
     .input = INPUT_BF16, .tensor_cores = 1, .supported = gemm_tensor_supported},
    {{"wgmma-tma", "Hopper: warpgroup MMA (wgmma) from shared memory, tiles brought by TMA", .where = STAGE_GPU,
      .kernel = "wgmma_tma_kernel", .tags = "work=bf16"}, .gpu = gemm_hopper_wgmma_tma, .input = INPUT_BF16,
     .tensor_cores = 1, .supported = gemm_hopper_supported},
    {{"wgmma-ring", "+ a ring of four shared buffers: the copies three k-steps ahead of the multiplies",
      .where = STAGE_GPU, .kernel = "wgmma_ring_kernel", .tags = "work=bf16"}, .gpu = gemm_hopper_ring,
     .input = INPUT_BF16, .tensor_cores = 1, .supported = gemm_hopper_supported},
    {{"wgmma-pipelined", "+ warp specialisation: a producer warpgroup issues TMA while two consumer "
      "warpgroups only multiply (setmaxnreg gives them the registers)",
      .where = STAGE_GPU, .kernel = "wgmma_pipelined_kernel", .tags = "work=bf16"}, .gpu = gemm_hopper_pipelined,
     .input = INPUT_BF16, .tensor_cores = 1, .supported = gemm_hopper_supported},
    {{"wgmma-persistent", "+ a persistent grid of two-block clusters walking 256x256 tiles in an "
      "order L2 reuses, B multicast to both blocks by TMA", .where = STAGE_GPU,
      .kernel = "wgmma_persistent_kernel", .tags = "work=bf16"}, .gpu = gemm_hopper_persistent,
     .input = INPUT_BF16, .tensor_cores = 1, .supported = gemm_hopper_supported, .note = gemm_hopper_persistent_note},
    {{"cublas-bf16", "cuBLAS bf16 on the tensor cores, FP32 sums: the yardstick", .where = STAGE_GPU,
      .kernel = "gemm", .tags = "work=bf16 kernel=library"}, .gpu = gemm_cublas_bf16, .input = INPUT_BF16, .tensor_cores = 1,
     .yardstick = 1, .supported = gemm_tensor_supported},
};
#define STAGE_COUNT (sizeof stages / sizeof stages[0])

#endif
