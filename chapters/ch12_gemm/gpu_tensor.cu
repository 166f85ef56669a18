/* gpu_tensor.cu - ch12's tensor-core stages: bf16 A and B, FP32 accumulation,
 * FP32 C. First WMMA, the portable C++ interface; then the same product
 * written by hand with mma.sync fed by ldmatrix from a swizzled shared tile;
 * then that kernel fed by an asynchronous copy pipeline; cuBLAS's bf16 GEMM
 * is the yardstick. Each stage's comment says what it changes from the one
 * before and why that pays.
 *
 * Every stage reads the bf16 copies (g->a16, g->b16: the bits, row-major,
 * leading dimensions lda and ldb) and zero-fills all it loads past m, n or k
 * before it can reach a tensor core. The padding columns hold bf16 NaN, and
 * 0 x NaN is NaN, so zeroing one side of the product is not enough: A past k
 * and B past n are zeroed, A past m and B past k are never read. C is stored
 * predicated, never past row m - 1 or column n - 1.
 *
 * WMMA and mma.sync are warp instructions: each warp feeds its tensor core
 * from registers, one small product at a time. On Hopper that path runs well
 * below the tensor cores' rate; the full rate needs wgmma, a warpgroup of four
 * warps reading its operands straight from shared memory (gpu_hopper.cu).
 * cuBLAS uses wgmma; the best of these stages can hope for about two thirds of it.
 */
#include "gemm.h"
#include "swizzle.h"

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <mma.h>

#include "../../common/cuda_util.h"

#include <stdio.h>

/* The tensor-core instructions these kernels use (bf16 WMMA fragments,
 * mma.sync m16n8k16 bf16, cp.async) start at compute capability 8.0. Built
 * for an older target (CUDA_ARCH=sm_75) the kernels are empty and trap, and
 * gemm_tensor_supported says the stages cannot run: the rest of the chapter
 * still builds and runs there. (The host pass sees the kernels whole.) */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
#define TENSOR_CODE 1
#else
#define TENSOR_CODE 0
#pragma nv_diag_suppress 177 /* the helpers that only the emptied kernels call go unused */
#endif

/* ---- Loading a 16-byte chunk: 8 bf16 of one row, starting at a column that
 * is a multiple of 8. Since the leading dimension is a multiple of 8 too, the
 * chunk lies inside its row's storage, even where part of it is padding. */

/* The bytes of the chunk at (row, col) of a rows x cols matrix that belong to
 * the matrix: 16, fewer at the right edge (2 per element), 0 past the last
 * row or column. */
__host__ __device__ static inline int chunk_bytes(int row, int col, int rows, int cols)
{
    if (row >= rows || col >= cols)
        return 0;
    return cols - col >= 8 ? 16 : 2 * (cols - col);
}

/* A word of two bf16 (the lower-addressed in the low half) with only its first `keep` kept. */
__host__ __device__ static inline unsigned keep_elements(unsigned word, int keep)
{
    return keep >= 2 ? word : keep == 1 ? (word & 0xffffu) : 0u;
}

/* The chunk at p, of which the first `bytes` are the matrix's: they are loaded,
 * the rest (padding, NaN) zeroed; with bytes 0 nothing is read. */
__host__ __device__ static inline uint4 load_chunk(const uint16_t *p, int bytes)
{
    uint4 v = make_uint4(0, 0, 0, 0);
    if (bytes == 0)
        return v;
    v = *reinterpret_cast<const uint4 *>(p);
    int keep = bytes / 2;
    v.x = keep_elements(v.x, keep);
    v.y = keep_elements(v.y, keep - 2);
    v.z = keep_elements(v.z, keep - 4);
    v.w = keep_elements(v.w, keep - 6);
    return v;
}

/* The offset of the chunk at (row, col) of a matrix with leading dimension ld,
 * where it has bytes to read; 0 (the matrix's start, a valid address) where not. */
__host__ __device__ static inline size_t chunk_offset(int bytes, int row, int col, int ld)
{
    return bytes ? (size_t)row * ld + col : 0;
}

/* C[row][col], C[row][col + 1] = x, y, each only inside the m x n matrix. col
 * is even and ldc a multiple of 8, so the pair is 8-byte aligned. */
__host__ __device__ static inline void store_pair(const gemm_shape &s, float *c, int row, int col, float x, float y)
{
    if (row >= s.m || col >= s.n)
        return;
    float *p = c + (size_t)row * s.ldc + col;
    if (col + 1 < s.n)
        *reinterpret_cast<float2 *>(p) = make_float2(x, y);
    else
        p[0] = x;
}

/* ---- wmma: the warptile kernel's structure, with the inner product moved
 * from FP32 FMAs on the CUDA cores to the tensor cores. One warp instruction
 * (wmma::mma_sync) now does a 16 x 16 x 16 product, 4096 multiply-adds, where
 * an FP32 FMA does 32; and bf16 halves the bytes each element costs in
 * shared memory and in DRAM. A block computes 128 x 128 of C from slices 32
 * wide in k; its 8 warps (2 x 4) each own 64 x 32 of C: 4 x 2 accumulator
 * fragments of 16 x 16. Each shared row is padded by 8 bf16 (16 bytes), which
 * moves each row's start to another bank group so that the fragment loads do
 * not conflict. The fragments' layouts are the library's business: opaque. */
#define WMMA_BM 128
#define WMMA_BN 128
#define WMMA_BK 32
#define WMMA_PAD 8
#define WMMA_THREADS 256

using namespace nvcuda;

/* Global to shared, through registers: the block's slice at k0 of A (128 x 32,
 * 2 chunks per thread) and of B (32 x 128, 2 chunks per thread). */
__device__ static __forceinline__ void wmma_load_slice(const gemm_shape &s, const uint16_t *a, const uint16_t *b,
                                                       int m0, int n0, int k0, uint16_t (*as)[WMMA_BK + WMMA_PAD],
                                                       uint16_t (*bs)[WMMA_BN + WMMA_PAD])
{
#pragma unroll
    for (int i = 0; i < 2; i++) {
        int id = i * WMMA_THREADS + threadIdx.x, row = id / 4, col = id % 4 * 8;
        int bytes = chunk_bytes(m0 + row, k0 + col, s.m, s.k);
        const uint16_t *p = a + chunk_offset(bytes, m0 + row, k0 + col, s.lda);
        *reinterpret_cast<uint4 *>(&as[row][col]) = load_chunk(p, bytes);
    }
#pragma unroll
    for (int i = 0; i < 2; i++) {
        int id = i * WMMA_THREADS + threadIdx.x, row = id / 16, col = id % 16 * 8;
        int bytes = chunk_bytes(k0 + row, n0 + col, s.k, s.n);
        const uint16_t *p = b + chunk_offset(bytes, k0 + row, n0 + col, s.ldb);
        *reinterpret_cast<uint4 *>(&bs[row][col]) = load_chunk(p, bytes);
    }
}

/* A 16 x 16 accumulator at C's (row, col): straight to C where it fits inside,
 * else through the warp's 16 x 16 patch of shared memory, stored predicated. */
__device__ static __forceinline__ void wmma_store(const gemm_shape &s, float *c, int row, int col,
                                                  const wmma::fragment<wmma::accumulator, 16, 16, 16, float> &acc,
                                                  float *patch)
{
    if (row + 16 <= s.m && col + 16 <= s.n) {
        wmma::store_matrix_sync(c + (size_t)row * s.ldc + col, acc, (unsigned)s.ldc, wmma::mem_row_major);
        return;
    }
    wmma::store_matrix_sync(patch, acc, 16, wmma::mem_row_major);
    __syncwarp();
    for (int e = threadIdx.x % 32; e < 16 * 16; e += 32)
        if (row + e / 16 < s.m && col + e % 16 < s.n)
            c[(size_t)(row + e / 16) * s.ldc + col + e % 16] = patch[e];
    __syncwarp();
}

__global__ void __launch_bounds__(WMMA_THREADS, 2) tc_wmma_kernel(gemm_shape s, const uint16_t *a, const uint16_t *b,
                                                               float *c)
{
#if TENSOR_CODE
    __shared__ __align__(128) uint16_t as[WMMA_BM][WMMA_BK + WMMA_PAD];
    __shared__ __align__(128) uint16_t bs[WMMA_BK][WMMA_BN + WMMA_PAD];
    __shared__ __align__(128) float patch[WMMA_THREADS / 32][16 * 16];
    const int warp = threadIdx.x / 32, m0 = blockIdx.y * WMMA_BM, n0 = blockIdx.x * WMMA_BN;
    const int wm = warp / 4 * 64, wn = warp % 4 * 32; /* the warp's 64 x 32 inside the block's tile */
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[4][2];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 2; j++)
            wmma::fill_fragment(acc[i][j], 0.0f);

    for (int k0 = 0; k0 < s.k; k0 += WMMA_BK) {
        wmma_load_slice(s, a, b, m0, n0, k0, as, bs);
        __syncthreads();
        for (int kk = 0; kk < WMMA_BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa[4];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> fb[2];
#pragma unroll
            for (int i = 0; i < 4; i++)
                wmma::load_matrix_sync(fa[i], reinterpret_cast<const __nv_bfloat16 *>(&as[wm + 16 * i][kk]),
                                       WMMA_BK + WMMA_PAD);
#pragma unroll
            for (int j = 0; j < 2; j++)
                wmma::load_matrix_sync(fb[j], reinterpret_cast<const __nv_bfloat16 *>(&bs[kk][wn + 16 * j]),
                                       WMMA_BN + WMMA_PAD);
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 2; j++)
                    wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 2; j++)
            wmma_store(s, c, m0 + wm + 16 * i, n0 + wn + 16 * j, acc[i][j], patch[warp]);
#else
    __trap(); /* not built for this GPU: gemm_tensor_supported said so before any launch */
#endif
}

void gemm_tc_wmma(const gemm_gpu_args *g)
{
    dim3 grid((g->s.n + WMMA_BN - 1) / WMMA_BN, (g->s.m + WMMA_BM - 1) / WMMA_BM);
    tc_wmma_kernel<<<grid, WMMA_THREADS>>>(g->s, g->a16, g->b16, g->c);
    CUDA_CHECK_LAUNCH();
}

/* ---- The mma.sync stages' tiles and fragments.
 *
 * A block computes BM x BN of C (128 x 256) from slices MMA_BK = 64 wide in
 * k: A's slice is BM x 64 bf16 (rows of 128 bytes), B's is 64 x BN (rows of
 * BN * 2 bytes), both stored swizzled (swizzle.h): the 16-byte chunk (row,
 * chunk) of a tile with `chunks` chunks per row lies at byte
 * 16 * (row * chunks + swizzle_chunk(row, chunk)). Its warps (2 x 4) each own
 * 64 x 64 of C: 4 x 8 tiles of 16 x 8, one mma.sync.m16n8k16 each per 16 of k,
 * 128 FP32 accumulators per thread.
 *
 * Who holds what (PTX ISA, mma.m16n8k16 with .bf16; g = lane / 4, t = lane % 4;
 * a register holds two bf16, the lower column or k in its low half):
 *   A, 16 x 16 (m x k, "row"):  a0 = A[g][2t, 2t+1]      a1 = A[g+8][2t, 2t+1]
 *                               a2 = A[g][2t+8, 2t+9]    a3 = A[g+8][2t+8, 2t+9]
 *   B, 16 x 8 (k x n, "col": a register holds two k of one n):
 *                               b0 = B[2t, 2t+1][g]      b1 = B[2t+8, 2t+9][g]
 *   C and D, 16 x 8 FP32:       c0, c1 = C[g][2t], C[g][2t+1]
 *                               c2, c3 = C[g+8][2t], C[g+8][2t+1]
 * ldmatrix.x4 loads four 8 x 8 matrices of b16: lanes 8j .. 8j+7 give the
 * addresses of matrix j's rows 0..7 (16 bytes each), and lane l receives, in
 * its register j, row g of matrix j, columns 2t and 2t+1; with .trans, rows
 * 2t and 2t+1 of column g (the matrix transposed).
 *   A's 16 x 16 block as the matrices (rows 0-7, k 0-7), (rows 8-15, k 0-7),
 *   (rows 0-7, k 8-15), (rows 8-15, k 8-15) gives exactly a0, a1, a2, a3: lane
 *   l addresses row l % 16 at chunk l / 16.
 *   B's 16 x 16 block (k x n, row-major in shared memory) with .trans, as the
 *   matrices (k 0-7, n 0-7), (k 8-15, n 0-7), (k 0-7, n 8-15), (k 8-15, n 8-15),
 *   gives b0, b1 of the n8 tile 0-7, then b0, b1 of the n8 tile 8-15: lane l
 *   addresses k row l % 16 at chunk l / 16, the same pattern. */
#define MMA_BM 128
#define MMA_BN 256
#define MMA_BK 64
#define MMA_STAGES 3
#define WARP_M 64
#define WARP_N 64

/* The byte of chunk (row, chunk) in a swizzled tile with `chunks` chunks per row. */
__host__ __device__ static inline int tile_offset(int row, int chunk, int chunks)
{
    return 16 * (row * chunks + swizzle_chunk(row, chunk));
}

/* The row and chunk, inside a 16 x 16 block, whose address lane gives to ldmatrix.x4. */
__host__ __device__ static inline int ldsm_row(int lane)
{
    return lane % 16;
}
__host__ __device__ static inline int ldsm_chunk(int lane)
{
    return lane / 16;
}

/* Lane's ldmatrix address (a byte of the tile) in A's slice, for the 16 x 16
 * block at rows row0.., k 16 kk.., and in B's slice, for the block at k 16 kk..,
 * columns col0.. (a multiple of 16). */
__host__ __device__ static inline int a_ldsm_offset(int row0, int kk, int lane)
{
    return tile_offset(row0 + ldsm_row(lane), 2 * kk + ldsm_chunk(lane), MMA_BK / 8);
}
template <int BN>
__host__ __device__ static inline int b_ldsm_offset(int col0, int kk, int lane)
{
    return tile_offset(16 * kk + ldsm_row(lane), col0 / 8 + ldsm_chunk(lane), BN / 8);
}

/* Row and column, inside its 16 x 8 tile of C, of lane's accumulator i (0..3). */
__host__ __device__ static inline int frag_row(int lane, int i)
{
    return lane / 4 + 8 * (i / 2);
}
__host__ __device__ static inline int frag_col(int lane, int i)
{
    return 2 * (lane % 4) + i % 2;
}

/* One 16-byte copy of a slice: from element src of A or B (bytes of it real,
 * the rest zero) to byte dst of the shared tile. */
typedef struct {
    size_t src;
    int bytes, dst;
} chunk_copy;

/* Copy `id` of A's slice at k0 (BM x 64: 8 chunks a row; a warp's 32 copies
 * are 4 whole rows, 512 contiguous bytes of global memory). */
__host__ __device__ static inline chunk_copy a_copy(const gemm_shape &s, int m0, int k0, int id)
{
    int row = id / (MMA_BK / 8), col = id % (MMA_BK / 8) * 8;
    chunk_copy cp;
    cp.bytes = chunk_bytes(m0 + row, k0 + col, s.m, s.k);
    cp.src = chunk_offset(cp.bytes, m0 + row, k0 + col, s.lda);
    cp.dst = tile_offset(row, col / 8, MMA_BK / 8);
    return cp;
}

/* Copy `id` of B's slice at k0 (64 x BN: BN / 8 chunks a row). */
template <int BN>
__host__ __device__ static inline chunk_copy b_copy(const gemm_shape &s, int n0, int k0, int id)
{
    int row = id / (BN / 8), col = id % (BN / 8) * 8;
    chunk_copy cp;
    cp.bytes = chunk_bytes(k0 + row, n0 + col, s.k, s.n);
    cp.src = chunk_offset(cp.bytes, k0 + row, n0 + col, s.ldb);
    cp.dst = tile_offset(row, col / 8, BN / 8);
    return cp;
}

template <int BM, int BN>
__host__ __device__ constexpr int mma_threads()
{
    return BM / WARP_M * (BN / WARP_N) * 32;
}

/* Bytes of one stage of shared memory: A's slice, then B's. */
template <int BM, int BN>
__host__ __device__ constexpr int stage_bytes()
{
    return (BM + BN) * MMA_BK * 2;
}

__device__ static __forceinline__ unsigned shared_address(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

/* Four 8 x 8 matrices of b16 from shared memory; lane's row address in addr. */
__device__ static __forceinline__ void ldsm_x4(unsigned r[4], unsigned addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr)
                 : "memory");
}

/* The same, each matrix transposed: B fragments of two n8 tiles, lo and hi. */
__device__ static __forceinline__ void ldsm_x4_trans(unsigned lo[2], unsigned hi[2], unsigned addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(lo[0]), "=r"(lo[1]), "=r"(hi[0]), "=r"(hi[1])
                 : "r"(addr)
                 : "memory");
}

/* d += a x b on a 16 x 8 x 16 tile, bf16 in, FP32 accumulate. */
__device__ static __forceinline__ void mma_bf16(float d[4], const unsigned a[4], const unsigned b[2])
{
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* One warp's share of one slice: per 16 of k, the A fragments of its 4 m16
 * tiles (4 ldmatrix), the B fragments of its 8 n8 tiles (4 ldmatrix.trans),
 * then 32 mma: 8 shared loads of 512 bytes feed 32 x 2048 multiply-adds. sa,
 * sb: the shared addresses of A's and B's slice; (wm, wn): the warp's corner. */
template <int BN>
__device__ static __forceinline__ void warp_mma_slice(unsigned sa, unsigned sb, int wm, int wn, float acc[4][8][4])
{
    const int lane = threadIdx.x % 32;
#pragma unroll
    for (int kk = 0; kk < MMA_BK / 16; kk++) {
        unsigned af[4][4], bf[8][2];
#pragma unroll
        for (int i = 0; i < 4; i++)
            ldsm_x4(af[i], sa + a_ldsm_offset(wm + 16 * i, kk, lane));
#pragma unroll
        for (int j = 0; j < 4; j++)
            ldsm_x4_trans(bf[2 * j], bf[2 * j + 1], sb + b_ldsm_offset<BN>(wn + 16 * j, kk, lane));
#pragma unroll
        for (int i = 0; i < 4; i++)
#pragma unroll
            for (int j = 0; j < 8; j++)
                mma_bf16(acc[i][j], af[i], bf[j]);
    }
}

/* The warp's 64 x 64 of C, its corner at C's (row0, col0), stored predicated:
 * each store instruction writes 8 rows of 32 contiguous bytes (4 lanes x 2 floats). */
__device__ static __forceinline__ void warp_store(const gemm_shape &s, float *c, int row0, int col0,
                                                  const float acc[4][8][4])
{
    const int lane = threadIdx.x % 32;
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 8; j++) {
            int row = row0 + 16 * i, col = col0 + 8 * j + frag_col(lane, 0);
            store_pair(s, c, row + frag_row(lane, 0), col, acc[i][j][0], acc[i][j][1]);
            store_pair(s, c, row + frag_row(lane, 2), col, acc[i][j][2], acc[i][j][3]);
        }
}

/* ---- mma-ldmatrix: the wmma kernel's product written by hand, one level
 * down: mma.sync m16n8k16 by inline PTX, its fragments loaded by ldmatrix,
 * their register layouts now ours to know (above) instead of the library's.
 * That buys a larger warp tile within the same registers: 64 x 64 instead of
 * 64 x 32, in a 128 x 256 block tile. Per 16 of k a warp issues 8 ldmatrix.x4
 * for 32 mma where wmma's 64 x 32 took 6 for 16 (each of its fragment loads
 * is one ldmatrix.x4): a third fewer shared-memory bytes per multiply-add,
 * the resource such a kernel runs out of first; and the block reads a quarter
 * fewer bytes from L2 per flop. The tiles are stored unpadded, XOR-swizzled
 * (swizzle.h): each 8-lane phase of an ldmatrix reads 8 distinct 16-byte
 * chunks, all 32 banks once, so no conflicts and no bytes wasted; rows stay
 * 128 bytes, the layout Hopper's TMA writes and wgmma reads. The loads are
 * still synchronous: global to registers to shared, a barrier, the mma, a
 * barrier; the warps wait out each slice's load latency. */
template <int BM, int BN>
__global__ void __launch_bounds__(mma_threads<BM, BN>(), 1)
    tc_mma_ldmatrix_kernel(gemm_shape s, const uint16_t *a, const uint16_t *b, float *c)
{
#if TENSOR_CODE
    constexpr int THREADS = mma_threads<BM, BN>(), A_BYTES = BM * MMA_BK * 2;
    extern __shared__ __align__(128) unsigned char smem[];
    const unsigned sa = shared_address(smem);
    const int tid = threadIdx.x, warp = tid / 32, m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int wm = warp / (BN / WARP_N) * WARP_M, wn = warp % (BN / WARP_N) * WARP_N;
    float acc[4][8][4] = {};

    for (int k0 = 0; k0 < s.k; k0 += MMA_BK) {
#pragma unroll
        for (int i = 0; i < BM * MMA_BK / 8 / THREADS; i++) {
            chunk_copy cp = a_copy(s, m0, k0, i * THREADS + tid);
            *reinterpret_cast<uint4 *>(smem + cp.dst) = load_chunk(a + cp.src, cp.bytes);
        }
#pragma unroll
        for (int i = 0; i < MMA_BK * BN / 8 / THREADS; i++) {
            chunk_copy cp = b_copy<BN>(s, n0, k0, i * THREADS + tid);
            *reinterpret_cast<uint4 *>(smem + A_BYTES + cp.dst) = load_chunk(b + cp.src, cp.bytes);
        }
        __syncthreads();
        warp_mma_slice<BN>(sa, sa + A_BYTES, wm, wn, acc);
        __syncthreads();
    }
    warp_store(s, c, m0 + wm, n0 + wn, acc);
#else
    __trap(); /* not built for this GPU (TENSOR_CODE) */
#endif
}

/* Shared memory past 48 KB must be asked for, once per kernel. */
static void allow_shared(const void *kernel, int bytes)
{
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
}

void gemm_tc_mma_ldmatrix(const gemm_gpu_args *g)
{
    const int bytes = stage_bytes<MMA_BM, MMA_BN>();
    static int ready;
    if (!ready) {
        allow_shared((const void *)tc_mma_ldmatrix_kernel<MMA_BM, MMA_BN>, bytes);
        ready = 1;
    }
    dim3 grid((g->s.n + MMA_BN - 1) / MMA_BN, (g->s.m + MMA_BM - 1) / MMA_BM);
    tc_mma_ldmatrix_kernel<MMA_BM, MMA_BN><<<grid, mma_threads<MMA_BM, MMA_BN>(), bytes>>>(g->s, g->a16, g->b16, g->c);
    CUDA_CHECK_LAUNCH();
}

/* ---- cp.async: one 16-byte copy from global to shared memory, in the
 * background; of its 16 bytes only the first src_bytes are read, the rest of
 * the destination is filled with zeros (how the edges are zeroed). */
__device__ static __forceinline__ void cp_async_16(unsigned dst, const void *src, int src_bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(__cvta_generic_to_global(src)),
                 "r"(src_bytes)
                 : "memory");
}

/* Closes the group of copies this thread issued since the last commit. */
__device__ static __forceinline__ void cp_async_commit(void)
{
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}

/* Waits until at most `pending` of this thread's groups are still in flight. */
template <int pending>
__device__ static __forceinline__ void cp_async_wait(void)
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(pending) : "memory");
}

/* The block's slice at k0 of A and B, as background copies into the stage at shared address st. */
template <int BM, int BN>
__device__ static __forceinline__ void load_slice_async(const gemm_shape &s, const uint16_t *a, const uint16_t *b,
                                                        unsigned st, int m0, int n0, int k0)
{
    constexpr int THREADS = mma_threads<BM, BN>(), A_BYTES = BM * MMA_BK * 2;
#pragma unroll
    for (int i = 0; i < BM * MMA_BK / 8 / THREADS; i++) {
        chunk_copy cp = a_copy(s, m0, k0, i * THREADS + threadIdx.x);
        cp_async_16(st + cp.dst, a + cp.src, cp.bytes);
    }
#pragma unroll
    for (int i = 0; i < MMA_BK * BN / 8 / THREADS; i++) {
        chunk_copy cp = b_copy<BN>(s, n0, k0, i * THREADS + threadIdx.x);
        cp_async_16(st + A_BYTES + cp.dst, b + cp.src, cp.bytes);
    }
}

/* ---- cp-async: mma-ldmatrix with one change, the loads. They are cp.async
 * copies from global straight to shared memory (no registers, no stall on
 * issue) into a ring of STAGES = 3 slices: while the warps multiply slice t,
 * the copies of slices t+1 and t+2 are in flight, so DRAM and L2 latency
 * (the synchronous kernel's idle time at every slice) hides behind the mma.
 * Each slice's copies are one commit group; cp.async.wait_group STAGES-2
 * leaves the newer groups flying and waits for slice t's; the barrier then
 * makes every thread's copies visible to all, and also says that every warp
 * has finished slice t-1, whose buffer the copies of slice t+2 overwrite. */
template <int BM, int BN, int STAGES>
__global__ void __launch_bounds__(mma_threads<BM, BN>(), 1)
    tc_cp_async_kernel(gemm_shape s, const uint16_t *a, const uint16_t *b, float *c)
{
#if TENSOR_CODE
    constexpr int A_BYTES = BM * MMA_BK * 2, STAGE = stage_bytes<BM, BN>();
    extern __shared__ __align__(128) unsigned char smem[];
    const unsigned sa = shared_address(smem);
    const int warp = threadIdx.x / 32, m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int wm = warp / (BN / WARP_N) * WARP_M, wn = warp % (BN / WARP_N) * WARP_N;
    const int slices = (s.k + MMA_BK - 1) / MMA_BK;
    float acc[4][8][4] = {};

    for (int t = 0; t < STAGES - 1; t++) { /* the ring's first STAGES - 1 slices */
        if (t < slices)
            load_slice_async<BM, BN>(s, a, b, sa + t * STAGE, m0, n0, t * MMA_BK);
        cp_async_commit(); /* a group per slice, empty or not: wait_group counts them */
    }
    for (int t = 0; t < slices; t++) {
        cp_async_wait<STAGES - 2>(); /* this thread's copies of slice t have landed */
        __syncthreads();             /* everyone's have; everyone is done with slice t - 1 */
        int next = t + STAGES - 1;
        if (next < slices)
            load_slice_async<BM, BN>(s, a, b, sa + next % STAGES * STAGE, m0, n0, next * MMA_BK);
        cp_async_commit();
        unsigned st = sa + t % STAGES * STAGE;
        warp_mma_slice<BN>(st, st + A_BYTES, wm, wn, acc);
    }
    warp_store(s, c, m0 + wm, n0 + wn, acc);
#else
    __trap(); /* not built for this GPU (TENSOR_CODE) */
#endif
}

void gemm_tc_cp_async(const gemm_gpu_args *g)
{
    const int bytes = MMA_STAGES * stage_bytes<MMA_BM, MMA_BN>();
    static int ready;
    if (!ready) {
        allow_shared((const void *)tc_cp_async_kernel<MMA_BM, MMA_BN, MMA_STAGES>, bytes);
        ready = 1;
    }
    dim3 grid((g->s.n + MMA_BN - 1) / MMA_BN, (g->s.m + MMA_BM - 1) / MMA_BM);
    tc_cp_async_kernel<MMA_BM, MMA_BN, MMA_STAGES>
        <<<grid, mma_threads<MMA_BM, MMA_BN>(), bytes>>>(g->s, g->a16, g->b16, g->c);
    CUDA_CHECK_LAUNCH();
}

/* Runs on compute capability 8.0 and later, where the kernels hold the
 * tensor-core code (TENSOR_CODE): built for sm_75, they are empty. cuBLAS's
 * bf16 GEMM needs 8.0 as well. */
int gemm_tensor_supported(char *why, size_t size)
{
    int device = 0;
    struct cudaDeviceProp p;
    struct cudaFuncAttributes a;
    if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&p, device) != cudaSuccess ||
        cudaFuncGetAttributes(&a, tc_wmma_kernel) != cudaSuccess) {
        cudaGetLastError();
        snprintf(why, size, "needs compute capability 8.0 (bf16 tensor cores); no CUDA device or no code for it");
        return 0;
    }
    if (p.major < 8) {
        snprintf(why, size, "needs compute capability 8.0 (bf16 tensor cores); this is %.80s, compute capability %d.%d",
                 p.name, p.major, p.minor);
        return 0;
    }
    if (a.binaryVersion < 80) {
        snprintf(why, size, "built for sm_%d, without the tensor-core code (build with CUDA_ARCH=sm_80 or newer)",
                 a.binaryVersion);
        return 0;
    }
    return 1;
}

/* ---- cublas-bf16: the library's bf16 GEMM, FP32 accumulate and out, the
 * yardstick (on sm_90 it runs wgmma kernels). cuBLAS is column-major; a
 * row-major matrix is its transpose in column-major, so C = A B is computed as
 * C^T = B^T A^T: B first, n and m swapped, leading dimensions ldb, lda, ldc. */
void gemm_cublas_bf16(const gemm_gpu_args *g)
{
    const gemm_shape *s = &g->s;
    const float one = 1.0f, zero = 0.0f;
    CUBLAS_CHECK(cublasGemmEx((cublasHandle_t)g->cublas, CUBLAS_OP_N, CUBLAS_OP_N, s->n, s->m, s->k, &one, g->b16,
                              CUDA_R_16BF, s->ldb, g->a16, CUDA_R_16BF, s->lda, &zero, g->c, CUDA_R_32F, s->ldc,
                              CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    CUDA_CHECK_LAUNCH();
}
