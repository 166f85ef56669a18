/* gemm.h - ch12's problem: C = A x B, row-major, single precision out.
 *
 * A is m x k, B is k x n, C is m x n, each row-major with a leading dimension
 * (elements from one row to the next) that is a multiple of GEMM_LD_ALIGN, so
 * every row starts 32-byte aligned in FP32 and 16-byte aligned in bf16, and a
 * 16-byte vector load that starts inside a row at a multiple of its width
 * stays inside that row's storage. The columns past k (A), past n (B, C) are
 * padding the run fills with NaN (A, B) or poison (C): a stage that reads
 * padding without masking it produces NaN and fails its check; one that
 * writes past n in C fails too (problem.c checks the padding is untouched).
 * m, n, k are any size from 1 (odd ones included): every stage handles the
 * edges itself (bounds-checked or zero-filled loads, predicated stores).
 *
 * A CPU stage computes C from FP32 A and B; a GPU stage reads device copies:
 * FP32 (a, b) or the same values rounded to bf16 (a16, b16: the bits, the
 * stage's row says which it reads with its work= tag) and writes FP32 C.
 */
#ifndef CH12_GEMM_H
#define CH12_GEMM_H

#include <stddef.h>
#include <stdint.h>

#define GEMM_LD_ALIGN 8

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int m, n, k;
    int lda, ldb, ldc; /* elements; lda >= k, ldb >= n, ldc >= n, each a multiple of GEMM_LD_ALIGN */
} gemm_shape;

/* The leading dimension the run gives a row of `cols` elements. */
static inline int gemm_ld(int cols)
{
    return cols < 1 ? GEMM_LD_ALIGN : (cols + GEMM_LD_ALIGN - 1) / GEMM_LD_ALIGN * GEMM_LD_ALIGN;
}

/* A CPU stage: C = A x B on `threads` threads (1 for a one-core stage). */
typedef void gemm_cpu_fn(const gemm_shape *s, const float *a, const float *b, float *c, int threads);

/* A GPU stage's arguments: device pointers, launched on the default stream.
 * A stage checks its launches (CUDA_CHECK(cudaGetLastError())) and returns
 * without synchronising: the timer's events and the check do that. */
typedef struct {
    gemm_shape s;
    const float *a, *b;        /* FP32 inputs */
    const uint16_t *a16, *b16; /* the same values rounded to bf16 (round to nearest even), same leading dimensions */
    float *c;                  /* the output */
    void *cublas;              /* a cublasHandle_t, for the library's rows */
    int sms;                   /* the device's multiprocessors (a persistent grid's size) */
} gemm_gpu_args;
typedef void gemm_gpu_fn(const gemm_gpu_args *g);

/* A cuBLAS call (where cublas_v2.h is included) that fails: file:line, the
 * call, the status, exit 1. */
#define CUBLAS_CHECK(call)                                                                                       \
    do {                                                                                                         \
        cublasStatus_t cublas_check_status_ = (call);                                                            \
        if (cublas_check_status_ != CUBLAS_STATUS_SUCCESS) {                                                     \
            fprintf(stderr, "%s:%d: cuBLAS error %d (%s)\n  in: %s\n", __FILE__, __LINE__,                       \
                    (int)cublas_check_status_, cublasGetStatusString(cublas_check_status_), #call);              \
            exit(1);                                                                                             \
        }                                                                                                        \
    } while (0)

/* A stage that needs what a machine may lack (an ISA, OpenBLAS, a Hopper GPU):
 * 1 where it can run; else 0 and why, in one line, into why. */
typedef int gemm_supported_fn(char *why, size_t size);

/* cpu_gemm.c */
gemm_cpu_fn gemm_cpu_naive, gemm_cpu_loop_order, gemm_cpu_blocked, gemm_cpu_packed, gemm_cpu_threads, gemm_openblas;
gemm_supported_fn gemm_cpu_packed_supported, gemm_openblas_supported;
const char *gemm_openblas_library(void); /* the library loaded, its build and kernels: the row's note */

/* gpu_fp32.cu: FP32 on the CUDA cores, then cuBLAS SGEMM */
gemm_gpu_fn gemm_gpu_naive, gemm_gpu_coalesced, gemm_gpu_shared_tiles, gemm_gpu_blocktile_1d, gemm_gpu_blocktile_2d,
    gemm_gpu_vectorised, gemm_gpu_warptile, gemm_gpu_double_buffer, gemm_cublas_sgemm, gemm_cublas_tf32;

/* gpu_tensor.cu: bf16 in, FP32 accumulate, on the tensor cores: WMMA, mma.sync, cp.async; then cuBLAS bf16 */
gemm_gpu_fn gemm_tc_wmma, gemm_tc_mma_ldmatrix, gemm_tc_cp_async, gemm_cublas_bf16;
gemm_supported_fn gemm_tensor_supported; /* compute capability 8.0 and kernels built for it */

/* gpu_hopper.cu: Hopper's wgmma fed by TMA (sm_90a machine code), then what takes it to the library's rate */
gemm_gpu_fn gemm_hopper_wgmma_tma, gemm_hopper_ring, gemm_hopper_pipelined, gemm_hopper_persistent;
gemm_supported_fn gemm_hopper_supported;
const char *gemm_hopper_persistent_note(void); /* the last persistent launch: clusters, tiles, rounds */

#ifdef __cplusplus
}
#endif

#endif
