/* ex_ch12_kernel.cu - exercise ch12's tile layout in use: a small bf16 GEMM
 * whose shared-memory tiles are laid out by the answer's tile_slot, read by
 * ldmatrix and multiplied by mma.sync (the chapter's tc-mma-ldmatrix stage,
 * cut down to one slice width and no edges). test_ex_ch12.cu includes it.
 *
 * C (m x n, FP32) = A (m x k) x B, with A row-major and B given transposed,
 * bt (n x k, row-major), both bf16 as uint16_t: then both tiles have rows of
 * k, 32 bf16 of one slice, and both are read the same way, by plain ldmatrix.
 * m and n multiples of 64, k of 32. A block of 4 warps makes 64 x 64 of C,
 * each warp 32 x 32: 2 x 4 mma tiles of 16 x 8 per 16 of k. */
#include "tile_layout.cuh"

#include <stdint.h>

enum { EX_ROWS = 64, EX_CHUNKS = 4, EX_SLOTS = EX_ROWS * EX_CHUNKS, EX_BK = 32, EX_THREADS = 128 };

/* mma.sync on bf16 needs compute capability 8.0: built for an older target
 * the GEMM kernel is empty and traps, and the test skips its GPU part there
 * (test_ex_ch12.cu: gpu_can_run_mma). */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
#define EX_MMA_CODE 1
#else
#define EX_MMA_CODE 0
#pragma nv_diag_suppress 177 /* the helpers only the emptied kernel calls go unused */
#endif

/* Every (row, chunk)'s slot as the device computes it, row-major. */
__global__ void layout_table_kernel(int *slots)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < EX_SLOTS)
        slots[i] = tile_slot(i / EX_CHUNKS, i % EX_CHUNKS);
}

/* The slot of (row, chunk), or slot 0 and *bad set where it is outside the
 * tile (so a wrong answer gives wrong numbers, not a write past the tile). */
__device__ static inline int checked_slot(int row, int chunk, int *bad)
{
    int slot = tile_slot(row, chunk);
    if (slot < 0 || slot >= EX_SLOTS) {
        atomicExch(bad, 1);
        return 0;
    }
    return slot;
}

/* Four 8 x 8 matrices of b16; this lane's row address is slot `slot` of tile. */
__device__ static inline void ex_ldmatrix_x4(unsigned r[4], const uint4 *tile, int slot)
{
    unsigned addr = (unsigned)__cvta_generic_to_shared(tile + slot);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr)
                 : "memory");
}

/* d += a x b on 16 x 8 x 16, bf16 in, FP32 accumulate. */
__device__ static inline void ex_mma(float d[4], const unsigned a[4], const unsigned b[2])
{
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__global__ void __launch_bounds__(EX_THREADS)
    layout_gemm_kernel(int m, int n, int k, const uint16_t *a, const uint16_t *bt, float *c, int *bad)
{
#if EX_MMA_CODE
    __shared__ uint4 as[EX_SLOTS], bs[EX_SLOTS];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int m0 = blockIdx.y * EX_ROWS, n0 = blockIdx.x * EX_ROWS;
    int wm = warp / 2 * 32, wn = warp % 2 * 32;
    float acc[2][4][4] = {};
    for (int k0 = 0; k0 < k; k0 += EX_BK) {
        /* stored in order: thread t's chunks are t and t + 128 */
        for (int id = threadIdx.x; id < EX_SLOTS; id += EX_THREADS) {
            int row = id / EX_CHUNKS, chunk = id % EX_CHUNKS, slot = checked_slot(row, chunk, bad);
            as[slot] = *(const uint4 *)(a + (size_t)(m0 + row) * k + k0 + 8 * chunk);
            bs[slot] = *(const uint4 *)(bt + (size_t)(n0 + row) * k + k0 + 8 * chunk);
        }
        __syncthreads();
        for (int ks = 0; ks < EX_BK / 16; ks++) {
            unsigned af[2][4], bf[4][2], r[4];
            /* A: lane l gives row l % 16 of the 16 x 16 block, chunk l / 16 */
            for (int mi = 0; mi < 2; mi++)
                ex_ldmatrix_x4(af[mi], as, checked_slot(wm + 16 * mi + lane % 16, 2 * ks + lane / 16, bad));
            /* B (n rows): matrices (n 0-7, k 0-7), (n 0-7, k 8-15), (n 8-15, k 0-7),
             * (n 8-15, k 8-15): b0, b1 of two n8 tiles */
            for (int nj = 0; nj < 2; nj++) {
                int row = wn + 16 * nj + lane % 8 + 8 * (lane / 16), chunk = 2 * ks + lane / 8 % 2;
                ex_ldmatrix_x4(r, bs, checked_slot(row, chunk, bad));
                bf[2 * nj][0] = r[0], bf[2 * nj][1] = r[1], bf[2 * nj + 1][0] = r[2], bf[2 * nj + 1][1] = r[3];
            }
            for (int mi = 0; mi < 2; mi++)
                for (int ni = 0; ni < 4; ni++)
                    ex_mma(acc[mi][ni], af[mi], bf[ni]);
        }
        __syncthreads();
    }
    for (int mi = 0; mi < 2; mi++)
        for (int ni = 0; ni < 4; ni++)
            for (int i = 0; i < 4; i++) {
                int row = m0 + wm + 16 * mi + lane / 4 + 8 * (i / 2), col = n0 + wn + 8 * ni + 2 * (lane % 4) + i % 2;
                c[(size_t)row * n + col] = acc[mi][ni][i];
            }
#else
    __trap();
#endif
}
