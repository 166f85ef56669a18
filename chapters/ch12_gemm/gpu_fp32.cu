/* gpu_fp32.cu - ch12's FP32 GPU stages: C = A x B on the CUDA cores, from one
 * thread per element of C to within reach of cuBLAS, then the library itself:
 * SGEMM (the yardstick) and, for comparison, TF32 on the tensor cores. The
 * ladder follows Simon Boehm's "How to optimize a CUDA matmul kernel"; each
 * stage's comment says the one thing it changes from the stage before and
 * why that pays.
 *
 * A GEMM has arithmetic to spare: 2mnk flops from 4(mk + kn) bytes of input,
 * at 4096^3 137 GFLOP from 128 MiB, a thousand flops per byte. A kernel that
 * fetches both operands of every multiply-add (FMA) from memory gets 2 flops
 * per 8 bytes and runs at the speed of the memory. Each stage raises the FMAs
 * per byte moved at one level: global to shared memory (tiles loaded once per
 * block), shared memory to registers (tiles of C held in registers), until
 * the FMA units themselves are the limit.
 *
 * Layout (gemm.h): row-major, leading dimensions multiples of 8 floats, so
 * each row starts 32-byte aligned and a float4 at a column that is a multiple
 * of 4 is 16-byte aligned. The padding columns past k (A) and n (B) hold NaN,
 * so the kernels never sum them: every tile element past m, n or k is loaded
 * as zero, which adds nothing; a 16-byte load is used only where its four
 * elements are all in range; no store goes past row m-1 or column n-1.
 */
#include "gemm.h"

#include "../../common/cuda_util.h"

#include <cublas_v2.h>

#define TILE 32 /* the side of the first stages' blocks and tiles */

/* ---- naive: one thread per element of C, a dot product of a row of A and a
 * column of B read straight from global memory, threadIdx.x walking DOWN the
 * rows of C. The 32 lanes of a warp share a column, so at each step they read
 * one element of B (one address: a broadcast) but 32 elements of A a row
 * apart: 32 sectors of 32 bytes for 128 useful bytes. Their stores to C are a
 * row apart too. Uncoalesced: every request costs 32 transactions. The dot
 * product itself (dot_into_c) is the next stage's too: only which thread
 * takes which element changes. */
static __device__ __forceinline__ void dot_into_c(const gemm_shape &s, const float *__restrict__ a,
                                                  const float *__restrict__ b, float *__restrict__ c, int row, int col)
{
    if (row >= s.m || col >= s.n)
        return;
    float sum = 0.0f;
    for (int i = 0; i < s.k; i++)
        sum += a[(size_t)row * s.lda + i] * b[(size_t)i * s.ldb + col];
    c[(size_t)row * s.ldc + col] = sum;
}

__global__ void naive_kernel(gemm_shape s, const float *__restrict__ a, const float *__restrict__ b,
                             float *__restrict__ c)
{
    dot_into_c(s, a, b, c, blockIdx.x * TILE + threadIdx.x, blockIdx.y * TILE + threadIdx.y);
}

/* ---- coalesced: the same dot products, threadIdx.x now walking ALONG a row of C.
 * The lanes of a warp share a row of A (one address per step: a broadcast)
 * and read 32 adjacent floats of B, 128 bytes in 4 sectors, and store 32
 * adjacent floats of C: coalesced, a transaction carries 32 useful values
 * instead of one. */
__global__ void coalesced_kernel(gemm_shape s, const float *__restrict__ a, const float *__restrict__ b,
                                 float *__restrict__ c)
{
    dot_into_c(s, a, b, c, blockIdx.y * TILE + threadIdx.y, blockIdx.x * TILE + threadIdx.x); /* x: the column */
}

/* ---- shared-tiles: the block (32 x 32 threads, a 32 x 32 tile of C) walks k
 * in steps of 32. At each step its threads copy a 32 x 32 tile of A and one
 * of B into shared memory, one element each, coalesced, and then do their 32
 * FMAs from there. Each element of A and B is read from global memory once
 * per block instead of once by every thread that needs it: a thread issues 2
 * global loads per 32 FMAs instead of 2 per FMA. Elements past m, n or k are
 * stored as zero. */
__global__ void shared_tiles_kernel(gemm_shape s, const float *__restrict__ a, const float *__restrict__ b,
                                    float *__restrict__ c)
{
    __shared__ float as[TILE][TILE], bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float sum = 0.0f;
    for (int k0 = 0; k0 < s.k; k0 += TILE) {
        as[ty][tx] = row < s.m && k0 + tx < s.k ? a[(size_t)row * s.lda + k0 + tx] : 0.0f;
        bs[ty][tx] = k0 + ty < s.k && col < s.n ? b[(size_t)(k0 + ty) * s.ldb + col] : 0.0f;
        __syncthreads();
        for (int i = 0; i < TILE; i++)
            sum += as[ty][i] * bs[i][tx]; /* as[ty][i]: one address per warp, a broadcast */
        __syncthreads();
    }
    if (row < s.m && col < s.n)
        c[(size_t)row * s.ldc + col] = sum;
}

/* The block's threads copy the ROWS x COLS tile of a matrix (rows x cols,
 * leading dimension ld) at (r0, c0) into dst, row-major; elements out of
 * range are zero. Consecutive threads take consecutive columns: coalesced. */
template <int ROWS, int COLS, int THREADS>
__device__ static void load_tile(float *dst, const float *__restrict__ src, int ld, int r0, int c0, int rows,
                                 int cols)
{
#pragma unroll
    for (int i = threadIdx.x; i < ROWS * COLS; i += THREADS) {
        int r = r0 + i / COLS, col = c0 + i % COLS;
        dst[i] = r < rows && col < cols ? src[(size_t)r * ld + col] : 0.0f;
    }
}

/* One element of C, stored only where it is inside C. */
__device__ static void store1(const gemm_shape &s, float *__restrict__ c, int r, int col, float v)
{
    if (r < s.m && col < s.n)
        c[(size_t)r * s.ldc + col] = v;
}

/* ---- blocktile-1d: each thread computes TM (8) elements of a column of C
 * instead of one: a BM x BN (64 x 64) tile of C per block of 512 threads, k
 * in steps of BK (8). In the inner loop an element of B, read once from
 * shared memory into a register, serves TM FMAs, so a thread makes 1 + 1/TM
 * shared loads per FMA instead of 2; and the larger tile means each element
 * brought from global memory serves 64 FMAs instead of 32. */
template <int BM, int BN, int BK, int TM>
__global__ void __launch_bounds__(BM * BN / TM)
    blocktile_1d_kernel(gemm_shape s, const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c)
{
    constexpr int THREADS = BM * BN / TM;
    __shared__ float as[BM * BK], bs[BK * BN];
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    int t_row = threadIdx.x / BN * TM, t_col = threadIdx.x % BN; /* a warp: one t_row, 32 columns */
    float acc[TM] = {};
    for (int k0 = 0; k0 < s.k; k0 += BK) {
        load_tile<BM, BK, THREADS>(as, a, s.lda, row0, k0, s.m, s.k);
        load_tile<BK, BN, THREADS>(bs, b, s.ldb, k0, col0, s.k, s.n);
        __syncthreads();
#pragma unroll
        for (int dot = 0; dot < BK; dot++) {
            float bv = bs[dot * BN + t_col];
#pragma unroll
            for (int i = 0; i < TM; i++)
                acc[i] += as[(t_row + i) * BK + dot] * bv; /* broadcast: one address per warp */
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; i++)
        store1(s, c, row0 + t_row + i, col0 + t_col, acc[i]);
}

/* ---- blocktile-2d: each thread computes a TM x TN (8 x 8) tile of C, 64
 * sums in registers: a 128 x 128 tile per block of 256 threads. At each step
 * of k it loads a column of TM values of A and a row of TN values of B from
 * shared memory into registers and multiplies them as an outer product: TM +
 * TN = 16 shared loads feed TM x TN = 64 FMAs, a quarter of a load per FMA
 * (1d: 1.125), and each element brought from global memory serves 128 FMAs. */
template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__(BM * BN / (TM * TN))
    blocktile_2d_kernel(gemm_shape s, const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c)
{
    constexpr int THREADS = BM * BN / (TM * TN);
    __shared__ float as[BM * BK], bs[BK * BN];
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    int t_row = threadIdx.x / (BN / TN) * TM, t_col = threadIdx.x % (BN / TN) * TN;
    float acc[TM][TN] = {}, ra[TM], rb[TN];
    for (int k0 = 0; k0 < s.k; k0 += BK) {
        load_tile<BM, BK, THREADS>(as, a, s.lda, row0, k0, s.m, s.k);
        load_tile<BK, BN, THREADS>(bs, b, s.ldb, k0, col0, s.k, s.n);
        __syncthreads();
#pragma unroll
        for (int dot = 0; dot < BK; dot++) {
#pragma unroll
            for (int i = 0; i < TM; i++)
                ra[i] = as[(t_row + i) * BK + dot];
#pragma unroll
            for (int j = 0; j < TN; j++)
                rb[j] = bs[dot * BN + t_col + j];
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    acc[i][j] += ra[i] * rb[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            store1(s, c, row0 + t_row + i, col0 + t_col + j, acc[i][j]);
}

/* Four consecutive elements of row r of a matrix (rows x cols, leading
 * dimension ld) from column col, a multiple of 4: one 16-byte load where all
 * four are in range (always where full, the block's uniform "this whole tile
 * is inside" flag, which skips the checks), else one by one with zeros past
 * the edges. */
__device__ static float4 load4(const float *__restrict__ p, int ld, int r, int col, int rows, int cols, bool full)
{
    if (full || (r < rows && col + 3 < cols))
        return __ldg(reinterpret_cast<const float4 *>(p + (size_t)r * ld + col));
    float v[4] = {};
    if (r < rows) {
        const float *q = p + (size_t)r * ld; /* the start of row r: inside the matrix */
#pragma unroll
        for (int j = 0; j < 4; j++)
            if (col + j < cols)
                v[j] = q[col + j];
    }
    return make_float4(v[0], v[1], v[2], v[3]);
}

/* Four consecutive elements of C from (r, col), col a multiple of 4: one
 * 16-byte store where all four are inside C, else those that are. */
__device__ static void store4(const gemm_shape &s, float *__restrict__ c, int r, int col, float4 v)
{
    if (r >= s.m)
        return;
    if (col + 3 < s.n) {
        *reinterpret_cast<float4 *>(c + (size_t)r * s.ldc + col) = v;
        return;
    }
    float w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int j = 0; j < 4; j++)
        if (col + j < s.n)
            c[(size_t)r * s.ldc + col + j] = w[j];
}

/* The A tile (BM x BK at (row0, k0)), read as float4s along k, stored
 * TRANSPOSED into as[BK][BM + 4]: a column of the tile becomes a row, so the
 * TM values a thread needs at one step of k are adjacent. The 4 floats of
 * padding per row make the transposing stores conflict-free: the two threads
 * of a warp that take the same row of A write 16 banks apart, where without
 * the padding they would write to the same bank. */
template <int BM, int BK, int THREADS>
__device__ static void load_a_transposed(float (*as)[BM + 4], const gemm_shape &s, const float *__restrict__ a,
                                         int row0, int k0)
{
    bool full = row0 + BM <= s.m && k0 + BK <= s.k;
#pragma unroll
    for (int i = threadIdx.x; i < BM * BK / 4; i += THREADS) {
        int r = i / (BK / 4), kk = i % (BK / 4) * 4;
        float4 v = load4(a, s.lda, row0 + r, k0 + kk, s.m, s.k, full);
        as[kk + 0][r] = v.x;
        as[kk + 1][r] = v.y;
        as[kk + 2][r] = v.z;
        as[kk + 3][r] = v.w;
    }
}

/* The B tile (BK x BN at (k0, col0)) as float4s, stored as it is. */
template <int BN, int BK, int THREADS>
__device__ static void load_b(float (*bs)[BN], const gemm_shape &s, const float *__restrict__ b, int k0, int col0)
{
    bool full = k0 + BK <= s.k && col0 + BN <= s.n;
#pragma unroll
    for (int i = threadIdx.x; i < BK * BN / 4; i += THREADS) {
        int r = i / (BN / 4), col = i % (BN / 4) * 4;
        *reinterpret_cast<float4 *>(&bs[r][col]) = load4(b, s.ldb, k0 + r, col0 + col, s.k, s.n, full);
    }
}

/* N floats from shared memory at p (16-byte aligned) into registers, as N / 4 float4 loads. */
template <int N>
__device__ static void read_shared4(float *dst, const float *p)
{
#pragma unroll
    for (int i = 0; i < N; i += 4) {
        float4 v = *reinterpret_cast<const float4 *>(p + i);
        dst[i] = v.x;
        dst[i + 1] = v.y;
        dst[i + 2] = v.z;
        dst[i + 3] = v.w;
    }
}

/* ---- vectorised: blocktile-2d's tiles and threads, its memory operations
 * four floats wide. The global loads are float4s (a quarter of the load
 * instructions, each a full 16 bytes), and A is stored transposed in shared
 * memory (load_a_transposed), so a thread's TM values of A at one step of k
 * are adjacent, like its TN values of B: two 16-byte shared loads each
 * instead of eight 4-byte ones. The A reads are broadcasts (a warp reads two
 * addresses); C is stored as float4s. The B reads still conflict: a warp's
 * 16 float4s lie 32 bytes apart, four to each group of four banks, four
 * passes where two would do (warptile's layout removes that). */
template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__(BM * BN / (TM * TN))
    vectorised_kernel(gemm_shape s, const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c)
{
    constexpr int THREADS = BM * BN / (TM * TN);
    static_assert(TM % 4 == 0 && TN % 4 == 0 && BK % 4 == 0, "float4 tiles");
    __shared__ __align__(16) float as[BK][BM + 4];
    __shared__ __align__(16) float bs[BK][BN];
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    int t_row = threadIdx.x / (BN / TN) * TM, t_col = threadIdx.x % (BN / TN) * TN;
    float acc[TM][TN] = {}, ra[TM], rb[TN];
    for (int k0 = 0; k0 < s.k; k0 += BK) {
        load_a_transposed<BM, BK, THREADS>(as, s, a, row0, k0);
        load_b<BN, BK, THREADS>(bs, s, b, k0, col0);
        __syncthreads();
#pragma unroll
        for (int dot = 0; dot < BK; dot++) {
            read_shared4<TM>(ra, &as[dot][t_row]);
            read_shared4<TN>(rb, &bs[dot][t_col]);
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    acc[i][j] += ra[i] * rb[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j += 4)
            store4(s, c, row0 + t_row + i, col0 + t_col + j,
                   make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]));
}

/* The warp tile's lanes: a grid of LANE_ROWS x LANE_COLS, each lane 4 x 4
 * elements of every sub-tile (LANE_ROWS * 4 x LANE_COLS * 4) of its warp's. */
#define LANE_ROWS 4
#define LANE_COLS 8

/* A lane's fragments at step dot of k: its MI float4s of A and NI of B from
 * one shared buffer. A warp reads 4 distinct adjacent float4s of A (64 bytes)
 * and 8 of B (128 bytes) per instruction: no bank conflicts. */
template <int BM, int BN, int MI, int NI>
__device__ static void warptile_frags(float *ra, float *rb, const float (*as)[BM + 4], const float (*bs)[BN], int dot,
                                      int t_row, int t_col)
{
#pragma unroll
    for (int mi = 0; mi < MI; mi++)
        read_shared4<4>(ra + 4 * mi, &as[dot][t_row + mi * LANE_ROWS * 4]);
#pragma unroll
    for (int ni = 0; ni < NI; ni++)
        read_shared4<4>(rb + 4 * ni, &bs[dot][t_col + ni * LANE_COLS * 4]);
}

/* The outer product of a lane's fragments into its sums. */
template <int MI, int NI>
__device__ static void warptile_fma(float (&acc)[4 * MI][4 * NI], const float *ra, const float *rb)
{
#pragma unroll
    for (int i = 0; i < 4 * MI; i++)
#pragma unroll
        for (int j = 0; j < 4 * NI; j++)
            acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
}

/* The tiles at k0 from global memory into registers: the A tile's float4s
 * (as load_a_transposed reads them) into va, the B tile's into vb. */
template <int BM, int BN, int BK, int THREADS>
__device__ static void warptile_fetch(float4 *va, float4 *vb, const gemm_shape &s, const float *__restrict__ a,
                                      const float *__restrict__ b, int row0, int col0, int k0)
{
    bool a_full = row0 + BM <= s.m && k0 + BK <= s.k, b_full = k0 + BK <= s.k && col0 + BN <= s.n;
#pragma unroll
    for (int v = 0; v < BM * BK / 4 / THREADS; v++) {
        int i = threadIdx.x + v * THREADS;
        va[v] = load4(a, s.lda, row0 + i / (BK / 4), k0 + i % (BK / 4) * 4, s.m, s.k, a_full);
    }
#pragma unroll
    for (int v = 0; v < BK * BN / 4 / THREADS; v++) {
        int i = threadIdx.x + v * THREADS;
        vb[v] = load4(b, s.ldb, k0 + i / (BN / 4), col0 + i % (BN / 4) * 4, s.k, s.n, b_full);
    }
}

/* The registers warptile_fetch filled into one shared buffer: A transposed
 * (as load_a_transposed stores it), B as it is. */
template <int BM, int BN, int BK, int THREADS>
__device__ static void warptile_stash(float (*as)[BM + 4], float (*bs)[BN], const float4 *va, const float4 *vb)
{
#pragma unroll
    for (int v = 0; v < BM * BK / 4 / THREADS; v++) {
        int i = threadIdx.x + v * THREADS, r = i / (BK / 4), kk = i % (BK / 4) * 4;
        as[kk + 0][r] = va[v].x;
        as[kk + 1][r] = va[v].y;
        as[kk + 2][r] = va[v].z;
        as[kk + 3][r] = va[v].w;
    }
#pragma unroll
    for (int v = 0; v < BK * BN / 4 / THREADS; v++) {
        int i = threadIdx.x + v * THREADS;
        *reinterpret_cast<float4 *>(&bs[i / (BN / 4)][i % (BN / 4) * 4]) = vb[v];
    }
}

/* The block's WM x WN warp tiles, shared by warptile and double-buffer: a
 * lane's first row and column of C in the block tile (its 32 lanes a 4 x 8
 * grid in its warp's tile). */
template <int BN, int WM, int WN>
__device__ static int warptile_row(void)
{
    return threadIdx.x / 32 / (BN / WN) * WM + threadIdx.x % 32 / LANE_COLS * 4;
}
template <int BN, int WM, int WN>
__device__ static int warptile_col(void)
{
    return threadIdx.x / 32 % (BN / WN) * WN + threadIdx.x % 32 % LANE_COLS * 4;
}

/* A lane's sums into C: each row of its 4 x 4 values per sub-tile a float4. */
template <int MI, int NI>
__device__ static void warptile_store(const gemm_shape &s, float *c, const float (&acc)[4 * MI][4 * NI], int row,
                                      int col)
{
#pragma unroll
    for (int i = 0; i < 4 * MI; i++) {
        int r = row + i / 4 * LANE_ROWS * 4 + i % 4;
#pragma unroll
        for (int ni = 0; ni < NI; ni++)
            store4(s, c, r, col + ni * LANE_COLS * 4,
                   make_float4(acc[i][4 * ni], acc[i][4 * ni + 1], acc[i][4 * ni + 2], acc[i][4 * ni + 3]));
    }
}

/* The constants both kernels derive from their tile shape, and its checks. */
#define WARPTILE_CONSTANTS                                                                                        \
    constexpr int THREADS = BM / WM * (BN / WN) * 32, MI = WM / (LANE_ROWS * 4), NI = WN / (LANE_COLS * 4);      \
    constexpr int A_VECS = BM * BK / 4 / THREADS, B_VECS = BK * BN / 4 / THREADS;                                 \
    static_assert(BM % WM == 0 && BN % WN == 0 && MI >= 1 && NI >= 1 && WM % (LANE_ROWS * 4) == 0 &&               \
                      WN % (LANE_COLS * 4) == 0,                                                                  \
                  "the warp grid must tile the block tile");                                                      \
    static_assert(A_VECS >= 1 && B_VECS >= 1 && BM * BK / 4 % THREADS == 0 && BK * BN / 4 % THREADS == 0,        \
                  "each thread loads whole float4s of both tiles")

/* ---- warptile: vectorised's 128 x 128 x 8 block tile and 64 sums a
 * thread, now split among warps. Each of the block's 8 warps owns a WM x WN
 * (32 x 64) eighth of it, its 32 lanes a 4 x 8 grid inside that, each lane
 * 4 x 4 values of each of the warp's 2 x 2 sub-tiles of 16 x 32. What
 * changes is which values a lane holds: at each step of k a warp reads 4
 * adjacent float4s of A and 8 of B, each a single conflict-free pass, where
 * vectorised's B reads (16 float4s 32 bytes apart) take four passes where two
 * would do. The stores of C are 128 bytes a row. The loop is vectorised's:
 * load a slice, barrier, multiply it, barrier. */
template <int BM, int BN, int BK, int WM, int WN>
__global__ void __launch_bounds__(BM / WM * (BN / WN) * 32, 2)
    warptile_kernel(gemm_shape s, const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c)
{
    WARPTILE_CONSTANTS;
    __shared__ __align__(16) float as[BK][BM + 4];
    __shared__ __align__(16) float bs[BK][BN];
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    int t_row = warptile_row<BN, WM, WN>(), t_col = warptile_col<BN, WM, WN>();
    float acc[4 * MI][4 * NI] = {}, ra[4 * MI], rb[4 * NI];
    float4 va[A_VECS], vb[B_VECS];
    for (int k0 = 0; k0 < s.k; k0 += BK) {
        warptile_fetch<BM, BN, BK, THREADS>(va, vb, s, a, b, row0, col0, k0);
        warptile_stash<BM, BN, BK, THREADS>(as, bs, va, vb);
        __syncthreads();
#pragma unroll
        for (int dot = 0; dot < BK; dot++) {
            warptile_frags<BM, BN, MI, NI>(ra, rb, as, bs, dot, t_row, t_col);
            warptile_fma<MI, NI>(acc, ra, rb);
        }
        __syncthreads();
    }
    warptile_store<MI, NI>(s, c, acc, row0 + t_row, col0 + t_col);
}

/* ---- double-buffer: warptile with its loads overlapped with its FMAs.
 * Two shared buffers: while the FMAs run on one, the next BK slice of A and
 * B is on its way from global memory into registers (warptile_fetch) and
 * goes into the other buffer at the last step. The loads' latency hides
 * behind 512 FMAs a thread, and one barrier per slice is enough instead of
 * two (the buffer written was last read before the previous barrier). The
 * fragments are double-buffered in registers the same way: step dot's FMAs
 * run while step dot + 1's fragments come from shared memory; at the last
 * step the barrier comes first and the FMAs cover the first reads from the
 * new buffer. 16 warps to an SM (two blocks of 256 threads, at most 128
 * registers each; the same tile in 4 warps of 64 x 64, 128 sums a thread,
 * measured a few percent slower on the H200). */
template <int BM, int BN, int BK, int WM, int WN>
__global__ void __launch_bounds__(BM / WM * (BN / WN) * 32, 2)
    double_buffer_kernel(gemm_shape s, const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c)
{
    WARPTILE_CONSTANTS;
    static_assert(BK % 2 == 0, "the fragments alternate between two register sets");
    __shared__ __align__(16) float as[2][BK][BM + 4];
    __shared__ __align__(16) float bs[2][BK][BN];
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    int t_row = warptile_row<BN, WM, WN>(), t_col = warptile_col<BN, WM, WN>();
    float acc[4 * MI][4 * NI] = {}, ra[2][4 * MI], rb[2][4 * NI];
    float4 va[A_VECS], vb[B_VECS];
    int slices = (s.k + BK - 1) / BK;

    warptile_fetch<BM, BN, BK, THREADS>(va, vb, s, a, b, row0, col0, 0);
    warptile_stash<BM, BN, BK, THREADS>(as[0], bs[0], va, vb);
    __syncthreads();
    warptile_frags<BM, BN, MI, NI>(ra[0], rb[0], as[0], bs[0], 0, t_row, t_col);
    for (int t = 0; t < slices; t++) {
        int cur = t & 1;
        bool more = t + 1 < slices; /* the same for the whole block */
        if (more)
            warptile_fetch<BM, BN, BK, THREADS>(va, vb, s, a, b, row0, col0, (t + 1) * BK);
#pragma unroll
        for (int dot = 0; dot < BK; dot++) {
            int next = (dot + 1) % 2;
            if (dot + 1 < BK) {
                warptile_frags<BM, BN, MI, NI>(ra[next], rb[next], as[cur], bs[cur], dot + 1, t_row, t_col);
            } else if (more) {
                warptile_stash<BM, BN, BK, THREADS>(as[cur ^ 1], bs[cur ^ 1], va, vb);
                __syncthreads();
                warptile_frags<BM, BN, MI, NI>(ra[next], rb[next], as[cur ^ 1], bs[cur ^ 1], 0, t_row, t_col);
            }
            warptile_fma<MI, NI>(acc, ra[dot % 2], rb[dot % 2]);
        }
    }
    warptile_store<MI, NI>(s, c, acc, row0 + t_row, col0 + t_col);
}

/* ---------------------------------------------------------------- launchers */
/* (gemm.h declared the functions below extern "C", so they keep C linkage.) */

static unsigned blocks_for(int n, int per_block)
{
    return (unsigned)((n + per_block - 1) / per_block);
}

/* The grid of the tiled stages: blockIdx.x along the columns of C, y down its rows. */
static dim3 tile_grid(const gemm_shape *s, int bm, int bn)
{
    return dim3(blocks_for(s->n, bn), blocks_for(s->m, bm));
}

void gemm_gpu_naive(const gemm_gpu_args *g)
{
    naive_kernel<<<dim3(blocks_for(g->s.m, TILE), blocks_for(g->s.n, TILE)), dim3(TILE, TILE)>>>(g->s, g->a, g->b,
                                                                                                  g->c);
    CUDA_CHECK_LAUNCH();
}

void gemm_gpu_coalesced(const gemm_gpu_args *g)
{
    coalesced_kernel<<<tile_grid(&g->s, TILE, TILE), dim3(TILE, TILE)>>>(g->s, g->a, g->b, g->c);
    CUDA_CHECK_LAUNCH();
}

void gemm_gpu_shared_tiles(const gemm_gpu_args *g)
{
    shared_tiles_kernel<<<tile_grid(&g->s, TILE, TILE), dim3(TILE, TILE)>>>(g->s, g->a, g->b, g->c);
    CUDA_CHECK_LAUNCH();
}

void gemm_gpu_blocktile_1d(const gemm_gpu_args *g)
{
    constexpr int BM = 64, BN = 64, BK = 8, TM = 8;
    blocktile_1d_kernel<BM, BN, BK, TM><<<tile_grid(&g->s, BM, BN), BM * BN / TM>>>(g->s, g->a, g->b, g->c);
    CUDA_CHECK_LAUNCH();
}

void gemm_gpu_blocktile_2d(const gemm_gpu_args *g)
{
    constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
    blocktile_2d_kernel<BM, BN, BK, TM, TN><<<tile_grid(&g->s, BM, BN), BM * BN / (TM * TN)>>>(g->s, g->a, g->b,
                                                                                              g->c);
    CUDA_CHECK_LAUNCH();
}

void gemm_gpu_vectorised(const gemm_gpu_args *g)
{
    constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
    vectorised_kernel<BM, BN, BK, TM, TN><<<tile_grid(&g->s, BM, BN), BM * BN / (TM * TN)>>>(g->s, g->a, g->b, g->c);
    CUDA_CHECK_LAUNCH();
}

/* warptile and double-buffer: one tile shape, 8 warps of 32 x 64 */
#define WARPTILE_SHAPE 128, 128, 8, 32, 64

void gemm_gpu_warptile(const gemm_gpu_args *g)
{
    warptile_kernel<WARPTILE_SHAPE><<<tile_grid(&g->s, 128, 128), 256>>>(g->s, g->a, g->b, g->c);
    CUDA_CHECK_LAUNCH();
}

void gemm_gpu_double_buffer(const gemm_gpu_args *g)
{
    double_buffer_kernel<WARPTILE_SHAPE><<<tile_grid(&g->s, 128, 128), 256>>>(g->s, g->a, g->b, g->c);
    CUDA_CHECK_LAUNCH();
}

/* cuBLAS is column-major, and a row-major matrix read column-major is its
 * transpose: C = A B row-major is C^T = B^T A^T column-major. So both library
 * rows ask for the n x m product of B (n x k to cuBLAS, leading dimension
 * ldb) and A (k x m, lda), which lands in C as the row-major m x n result.
 * The handle's math mode is set to CUBLAS_DEFAULT_MATH each time (another
 * stage may have changed it): SGEMM then runs in pure FP32, no TF32. */
static void cublas_gemm(const gemm_gpu_args *g, cublasComputeType_t compute)
{
    cublasHandle_t handle = (cublasHandle_t)g->cublas;
    const float one = 1.0f, zero = 0.0f;
    CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));
    if (compute == CUBLAS_COMPUTE_32F) {
        CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, g->s.n, g->s.m, g->s.k, &one, g->b, g->s.ldb,
                                 g->a, g->s.lda, &zero, g->c, g->s.ldc));
        return;
    }
    CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, g->s.n, g->s.m, g->s.k, &one, g->b, CUDA_R_32F,
                              g->s.ldb, g->a, CUDA_R_32F, g->s.lda, &zero, g->c, CUDA_R_32F, g->s.ldc, compute,
                              CUBLAS_GEMM_DEFAULT));
}

/* ---- cublas-sgemm: the yardstick, cublasSgemm in FP32 on the CUDA cores. */
void gemm_cublas_sgemm(const gemm_gpu_args *g)
{
    cublas_gemm(g, CUBLAS_COMPUTE_32F);
}

/* ---- cublas-tf32: the same FP32 inputs, with the library allowed to round
 * them to TF32 (10-bit mantissas) and multiply on the tensor cores, summing
 * in FP32: another precision, compared only with itself. */
void gemm_cublas_tf32(const gemm_gpu_args *g)
{
    cublas_gemm(g, CUBLAS_COMPUTE_32F_FAST_TF32);
}
