/* gpu_hopper.cu - ch12's Hopper stages: bf16 in, FP32 accumulate, on the
 * tensor cores through Hopper's own machinery, from a plain load-then-multiply
 * loop to within reach of cuBLAS. Each stage's comment says the one thing it
 * changes from the stage before and why that pays.
 *
 * Three pieces of Hopper (sm_90a) hardware do the work:
 *
 * - wgmma (warpgroup MMA): the four warps of a warpgroup (128 threads,
 *   starting at a warp index divisible by 4) issue one 64 x 256 x 16 multiply
 *   together, wgmma.mma_async.m64n256k16, reading A and B straight from shared
 *   memory through two 64-bit "matrix descriptors" and adding into 128 FP32
 *   accumulators per thread. No ldmatrix, no operand fragments in registers:
 *   the tensor cores read shared memory themselves, asynchronously; the
 *   warpgroup commits its multiplies as a group and waits for the group later.
 *
 * - TMA (the tensor memory accelerator, cp.async.bulk.tensor): one thread
 *   hands the copy engine a "tensor map" (the matrix's address, sizes and
 *   stride, made on the host by cuTensorMapEncodeTiled) and the coordinates
 *   of a box; the engine copies the whole box into shared memory, fills the
 *   part of the box outside the matrix with zeros, lays the rows out in the
 *   128-byte swizzle that wgmma reads without bank conflicts, and counts the
 *   bytes it delivered on an mbarrier.
 *
 * - mbarrier: a 64-bit barrier object in shared memory with a phase bit. A
 *   waiter spins with try_wait.parity until the phase it waits for completes:
 *   when the expected arrivals have arrived and (for TMA) the expected bytes
 *   have landed (arrive.expect_tx announces them).
 *
 * Tiles. A block computes a 128 x 256 tile of C, k in steps of 64 (BK). Per
 * step it holds in shared memory
 *   A: 128 rows x 64 bf16 = 128 rows of 128 bytes, 16 KiB, one TMA box
 *      {64, 128}; row r at byte 128 r, and the 16-byte chunk j of a row stored
 *      at chunk j ^ (r % 8) (the 128-byte swizzle). This is wgmma's "K-major"
 *      layout: k contiguous, as A is in memory.
 *   B: 64 k-rows x 256 columns, as four boxes {64 columns, 64 k-rows} of
 *      8 KiB each (a swizzled box is at most 128 bytes = 64 bf16 wide), box q
 *      holding columns 64q..64q+63 at byte 8192 q; within a box k-row r at
 *      byte 128 r, chunks swizzled the same way. B is row-major k x n in
 *      memory, so n is contiguous: this is wgmma's "MN-major" layout for B,
 *      which the instruction reads with its transpose bit for B set (tnspB = 1,
 *      allowed for 16-bit types). No transposed copy of B is ever made.
 * Every tile starts 1024-byte aligned, so the swizzle pattern (which repeats
 * every 8 rows of 128 bytes = 1024 bytes) starts at the tile's first row, as
 * the descriptors below assume (their base-offset field is 0).
 *
 * Edges. The tensor maps' sizes are the matrices' real ones (k x m for A,
 * n x k for B, innermost first), not the padded leading dimensions, so every
 * element of a box past column k-1 of A, past row k-1 or column n-1 of B is
 * loaded as zero: the NaN padding never reaches a sum. A B box that lies
 * wholly past column n-1 (and, in the cluster stage, an A box wholly past
 * row m-1) is not loaded at all: it would only feed columns (rows) of C that
 * are never stored. Stores to C are predicated per element on row < m and
 * col < n.
 *
 * Ordering. The tiles in shared memory are written only by the copy engine
 * and read only by the tensor cores, both of which access memory through the
 * "async proxy"; the mbarriers order the two (a consumer's wait on a stage's
 * full barrier acquires the copy's bytes, its arrival on the empty barrier
 * after wgmma.wait_group says its reads are done). The one ordinary
 * (generic-proxy) write the async side reads is the barriers' initialisation,
 * hence fence.mbarrier_init and fence.proxy.async after it. A kernel that
 * wrote a tile with ordinary stores would need fence.proxy.async.shared::cta
 * between those stores and the wgmma that reads them.
 *
 * The kernels need sm_90a machine code (-gencode=arch=compute_90a,code=sm_90a).
 * Compiled for any other target (sm_80, plain sm_90) they are empty and trap,
 * and gemm_hopper_supported says the stages cannot run.
 */
#include "gemm.h"

#include "../../common/cuda_util.h"

#include <stdio.h>
#include <cuda.h>         /* CUtensorMap and its enums (types only: no -lcuda) */
#include <cudaTypedefs.h> /* PFN_cuTensorMapEncodeTiled, the driver entry point's type */

#define BM 128 /* block tile rows: two consumer warpgroups of 64 rows */
#define BN 256 /* block tile columns: one m64n256k16 wgmma wide */
#define BK 64  /* k per stage: 64 bf16 = 128 bytes, one swizzle row */
#define WG_ROWS 64                        /* rows of C per consumer warpgroup: one m64 wgmma */
#define A_BYTES (BM * BK * 2)             /* 16 KiB */
#define B_BOX_COLS 64                     /* columns of B per TMA box (128 bytes: the swizzle's width) */
#define B_BOX_BYTES (BK * B_BOX_COLS * 2) /* 8 KiB */
#define B_BOXES (BN / B_BOX_COLS)         /* 4 */
#define B_BYTES (B_BOXES * B_BOX_BYTES)   /* 32 KiB */
#define STAGE_BYTES (A_BYTES + B_BYTES)   /* 48 KiB */
#define RING 4    /* stages of the ring: 4 x 48 KiB = 192 KiB of the 227 KiB a block may have */
#define GROUP 8   /* the persistent stage's tile order: 8 tile-rows per group */
#define CLUSTER 2 /* blocks per cluster in the persistent stage */

/* Dynamic shared memory: 1 KiB of slack to align the tiles to 1024 bytes,
 * the stages, then the mbarriers (8 bytes each: a full and an empty per stage). */
#define SMEM_BYTES(stages) (1024 + (stages) * STAGE_BYTES + (stages) * 16)

/* 1 in the machine code built for sm_90a, 0 in any other: which code the
 * device runs is read back by gemm_hopper_supported. */
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define HOPPER_SM90A_CODE 1
#else
#define HOPPER_SM90A_CODE 0
#endif
__device__ int hopper_sm90a_code = HOPPER_SM90A_CODE;

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

/* ---------------- Device helpers: thin wrappers over the PTX ---------------- */

extern __shared__ __align__(1024) unsigned char hopper_smem[];

static __device__ __forceinline__ uint32_t smem_addr(const void *p)
{
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

/* The first 1024-byte-aligned shared address of the block's dynamic memory
 * (the same in every block of a cluster: the same kernel, the same layout). */
static __device__ __forceinline__ uint32_t tiles_base()
{
    return (smem_addr(hopper_smem) + 1023u) & ~1023u;
}

/* mbarrier: init with the number of arrivals that complete a phase. */
static __device__ __forceinline__ void bar_init(uint32_t bar, uint32_t arrivals)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(arrivals) : "memory");
}

/* After init: make the barriers visible to the copy engine (the async proxy)
 * and to the other blocks of the cluster before anyone uses them. */
static __device__ __forceinline__ void bar_init_fence()
{
    asm volatile("fence.mbarrier_init.release.cluster;\n\tfence.proxy.async.shared::cta;" ::: "memory");
}

/* One arrival that also announces `bytes` more to come by TMA this phase. */
static __device__ __forceinline__ void bar_expect_bytes(uint32_t bar, uint32_t bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}

static __device__ __forceinline__ void bar_arrive(uint32_t bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}

/* An arrival on the barrier at the same address in block `rank` of the cluster. */
static __device__ __forceinline__ void bar_arrive_in(uint32_t bar, uint32_t rank)
{
    asm volatile("{\n\t.reg .b32 remote;\n\t"
                 "mapa.shared::cluster.u32 remote, %0, %1;\n\t"
                 "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remote];\n\t}" ::"r"(bar),
                 "r"(rank)
                 : "memory");
}

/* Waits until the phase of parity `parity` has completed. A fresh barrier is
 * in phase 0, so waiting for parity 1 returns at once ("the phase before"). */
static __device__ __forceinline__ void bar_wait(uint32_t bar, uint32_t parity)
{
    uint32_t done = 0;
    do {
        asm volatile("{\n\t.reg .pred p;\n\t"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    } while (!done);
}

/* The same wait, acquiring at cluster scope: for a barrier that the other
 * block's threads arrive on (their reads of their tiles then come before our
 * copy engine's writes into them). */
static __device__ __forceinline__ void bar_wait_cluster(uint32_t bar, uint32_t parity)
{
    uint32_t done = 0;
    do {
        asm volatile("{\n\t.reg .pred p;\n\t"
                     "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    } while (!done);
}

/* TMA: the box of `map` whose first element is at (x, y) (x the inner,
 * contiguous coordinate) into shared memory at dst; its bytes counted on bar. */
static __device__ __forceinline__ void tma_load(uint32_t dst, const CUtensorMap *map, int x, int y, uint32_t bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
                 "l"(reinterpret_cast<uint64_t>(map)), "r"(x), "r"(y), "r"(bar)
                 : "memory");
}

/* The same box written to dst in every block of the cluster named in mask
 * (bit r: block rank r), each counting the bytes on its own barrier at bar. */
static __device__ __forceinline__ void tma_load_multicast(uint32_t dst, const CUtensorMap *map, int x, int y,
                                                          uint32_t bar, uint16_t mask)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
                 " [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(dst),
                 "l"(reinterpret_cast<uint64_t>(map)), "r"(x), "r"(y), "r"(bar), "h"(mask)
                 : "memory");
}

/* Matrix descriptor of a tile in shared memory, 64 bits:
 *   bits  0-13  start address >> 4 (a shared address, 16-byte aligned)
 *   bits 16-29  leading-dimension byte offset >> 4 (LBO)
 *   bits 32-45  stride-dimension byte offset >> 4 (SBO)
 *   bits 49-51  base offset: 0, every tile is 1024-byte aligned
 *   bits 62-63  swizzle: 1 = 128-byte swizzle (2 = 64B, 3 = 32B, 0 = none)
 * The swizzled layouts are built of "atoms" of 8 rows x 128 bytes (1024
 * bytes); LBO and SBO say where the next atom is along each direction. */
static __device__ __forceinline__ uint64_t smem_desc(uint32_t addr, uint32_t lbo, uint32_t sbo)
{
    return (uint64_t)((addr & 0x3FFFF) >> 4) | (uint64_t)(lbo >> 4) << 16 | (uint64_t)(sbo >> 4) << 32 | 1ull << 62;
}

/* A, K-major (k contiguous): one instruction reads 64 rows x 16 k = 32 bytes
 * of each 128-byte row, inside one swizzle atom's width, so LBO (the next
 * atom along k) is unused: 16 by convention. SBO = 1024: from rows 0-7 to
 * rows 8-15. Step kk of the 4 per stage starts 32 kk bytes into the row; the
 * hardware applies the swizzle to the full address, which is why the tile
 * must be 1024-byte aligned. */
static __device__ __forceinline__ uint64_t a_desc(uint32_t tile)
{
    return smem_desc(tile, 16, 1024);
}

/* B, MN-major (n contiguous), read with tnspB = 1: an atom is 64 columns
 * (128 bytes) x 8 k-rows. LBO = 8192: from columns 0-63 to 64-127, the next
 * box. SBO = 1024: from k-rows 0-7 to 8-15. Step kk starts 16 kk rows in:
 * 2048 kk bytes, still 1024-aligned. */
static __device__ __forceinline__ uint64_t b_desc(uint32_t tile)
{
    return smem_desc(tile, B_BOX_BYTES, 1024);
}

static __device__ __forceinline__ void wgmma_fence()
{
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}

static __device__ __forceinline__ void wgmma_commit()
{
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}

/* Waits until at most `pending` committed groups of this warpgroup are unfinished. */
template <int pending>
static __device__ __forceinline__ void wgmma_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(pending) : "memory");
}

/* Pins the accumulators in place around the asynchronous multiplies, so that
 * the compiler moves no read or write of them across a fence or wait. */
static __device__ __forceinline__ void fence_accumulators(float (&d)[128])
{
#pragma unroll
    for (int i = 0; i < 128; i++)
        asm volatile("" : "+f"(d[i])::"memory");
}

#define ACC8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
                "+f"(d[i + 6]), "+f"(d[i + 7])

/* d (64 x 256, FP32) = A (64 x 16, K-major) x B (16 x 256, MN-major) + d if
 * accumulate, else the product alone. The last four numbers: scale A by 1,
 * scale B by 1, tnspA = 0 (A as stored, K-major), tnspB = 1 (B MN-major). */
static __device__ __forceinline__ void wgmma_64x256x16(float (&d)[128], uint64_t da, uint64_t db, int accumulate)
{
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %130, 0;\n\t"
                 "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
                 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
                 "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
                 "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
                 "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
                 "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "
                 "%128, %129, p, 1, 1, 0, 1;\n\t}"
                 : ACC8(0), ACC8(8), ACC8(16), ACC8(24), ACC8(32), ACC8(40), ACC8(48), ACC8(56), ACC8(64), ACC8(72),
                   ACC8(80), ACC8(88), ACC8(96), ACC8(104), ACC8(112), ACC8(120)
                 : "l"(da), "l"(db), "r"(accumulate));
}

/* setmaxnreg: hand registers back to the pool (a producer needs few) or take
 * more from it (consumers hold 128 accumulators each). Per warpgroup. */
template <int regs>
static __device__ __forceinline__ void registers_down()
{
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(regs));
}

template <int regs>
static __device__ __forceinline__ void registers_up()
{
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(regs));
}

static __device__ __forceinline__ uint32_t cluster_rank()
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}

static __device__ __forceinline__ uint32_t cluster_id()
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(r));
    return r;
}

static __device__ __forceinline__ uint32_t cluster_count()
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(r));
    return r;
}

/* All threads of all blocks of the cluster meet here. */
static __device__ __forceinline__ void cluster_sync()
{
    asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
}

/* ---------------- Device helpers: the GEMM's pieces ---------------- */

/* Shared-memory layout of stage s of `stages`: A's tile, then B's four boxes;
 * after all stages, the full barriers, then the empty ones. */
static __device__ __forceinline__ uint32_t a_tile(uint32_t base, uint32_t s)
{
    return base + s * STAGE_BYTES;
}

static __device__ __forceinline__ uint32_t b_tile(uint32_t base, uint32_t s)
{
    return base + s * STAGE_BYTES + A_BYTES;
}

static __device__ __forceinline__ uint32_t full_bar(uint32_t base, uint32_t stages, uint32_t s)
{
    return base + stages * STAGE_BYTES + 8 * s;
}

static __device__ __forceinline__ uint32_t empty_bar(uint32_t base, uint32_t stages, uint32_t s)
{
    return base + stages * STAGE_BYTES + 8 * (stages + s);
}

/* B boxes of the tile starting at column n0 that hold any column < n (1..4). */
static __device__ __forceinline__ int b_boxes(int n0, int n)
{
    int left = (n - n0 + B_BOX_COLS - 1) / B_BOX_COLS;
    return left < B_BOXES ? left : B_BOXES;
}

/* Issued by one thread: the copy of k-step kt of the block's A rows (from m0)
 * and B columns (from n0) into a stage, counted on its full barrier. */
static __device__ __forceinline__ void load_stage(const CUtensorMap *ta, const CUtensorMap *tb, uint32_t a_dst,
                                                  uint32_t b_dst, uint32_t full, int m0, int n0, int kt, int n)
{
    int boxes = b_boxes(n0, n);
    bar_expect_bytes(full, A_BYTES + boxes * B_BOX_BYTES);
    tma_load(a_dst, ta, kt * BK, m0, full);
    for (int q = 0; q < boxes; q++)
        tma_load(b_dst + q * B_BOX_BYTES, tb, n0 + q * B_BOX_COLS, kt * BK, full);
}

/* One stage's worth of multiplies for a warpgroup: 4 steps of k16 over its
 * 64 rows of A (a) and all of B (b), committed as one group. accumulate 0
 * starts the tile afresh (the first wgmma ignores d). */
static __device__ __forceinline__ void mma_stage(float (&d)[128], uint32_t a, uint32_t b, int accumulate)
{
    uint64_t da = a_desc(a), db = b_desc(b);
    fence_accumulators(d);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < BK / 16; kk++) /* start address +32 bytes (A), +2048 bytes (B): >> 4 in the descriptor */
        wgmma_64x256x16(d, da + (uint64_t)(2 * kk), db + (uint64_t)(128 * kk), accumulate || kk > 0);
    wgmma_commit();
}

/* C[row][col], C[row][col + 1] = x, y where inside m x n. */
static __device__ __forceinline__ void store_pair(float *c, int ldc, int m, int n, int row, int col, float x, float y)
{
    if (row >= m || col >= n)
        return;
    float *p = c + (size_t)row * ldc + col;
    if (col + 1 < n)
        *reinterpret_cast<float2 *>(p) = make_float2(x, y); /* col even, ldc a multiple of 8: 8-byte aligned */
    else
        p[0] = x;
}

/* A warpgroup's 64 x 256 accumulators to C at (row0, col0). wgmma's layout of
 * d: warp w of the warpgroup holds rows 16w..16w+15; lane l holds rows
 * 16w + l/4 and 16w + l/4 + 8, and in each 8-column group j the columns
 * 8j + 2(l%4) and the next: d[4j], d[4j+1] on the first row, d[4j+2], d[4j+3]
 * on the second. */
static __device__ __forceinline__ void store_tile(const float (&d)[128], float *c, int ldc, int m, int n, int row0,
                                                  int col0)
{
    int t = threadIdx.x % 128, warp = t / 32, lane = t % 32;
    int row = row0 + 16 * warp + lane / 4, col = col0 + 2 * (lane % 4);
#pragma unroll
    for (int j = 0; j < BN / 8; j++) {
        store_pair(c, ldc, m, n, row, col + 8 * j, d[4 * j], d[4 * j + 1]);
        store_pair(c, ldc, m, n, row + 8, col + 8 * j, d[4 * j + 2], d[4 * j + 3]);
    }
}

/* A consumer warpgroup gives a stage back: one arrival on its empty barrier
 * (on both blocks' when the stage was filled for the whole cluster). */
static __device__ __forceinline__ void release_stage(uint32_t empty, bool cluster)
{
    int t = threadIdx.x % 128;
    if (!cluster && t == 0)
        bar_arrive(empty);
    if (cluster && t < CLUSTER)
        bar_arrive_in(empty, (uint32_t)t);
}

/* A consumer warpgroup's k loop through the ring: wait for a stage, issue its
 * multiplies, then wait until only those are in flight, which means the
 * previous stage's are done, and release that one. `it` counts stages used
 * since the kernel began (stage it % RING, its phase (it / RING) % 2). */
static __device__ __forceinline__ void consume_tile(float (&d)[128], uint32_t base, int consumer, int ktiles,
                                                    uint32_t &it, bool cluster)
{
    int kt = 0;
    do { /* k >= 1: at least one stage. A loop that could be skipped makes ptxas serialise the wgmmas (C7515) */
        uint32_t s = it % RING;
        bar_wait(full_bar(base, RING, s), (it / RING) & 1);
        mma_stage(d, a_tile(base, s) + consumer * WG_ROWS * 128, b_tile(base, s), kt > 0);
        wgmma_wait<1>();
        if (kt > 0)
            release_stage(empty_bar(base, RING, (it - 1) % RING), cluster);
        it++;
    } while (++kt < ktiles);
    wgmma_wait<0>();
    fence_accumulators(d);
    release_stage(empty_bar(base, RING, (it - 1) % RING), cluster);
}

/* The producer's k loop for one tile: for each stage, wait until both
 * consumers (and in a cluster, the other block's too) have released it, then
 * refill it. */
static __device__ __forceinline__ void produce_tile(const CUtensorMap *ta, const CUtensorMap *tb, uint32_t base,
                                                    int m0, int n0, int ktiles, int n, uint32_t &it)
{
    for (int kt = 0; kt < ktiles; kt++, it++) {
        uint32_t s = it % RING;
        bar_wait(empty_bar(base, RING, s), ((it / RING) & 1) ^ 1);
        load_stage(ta, tb, a_tile(base, s), b_tile(base, s), full_bar(base, RING, s), m0, n0, kt, n);
    }
}

/* The cluster's version: this block loads its own A rows (unless wholly past
 * row m-1) and its half of B's boxes, multicast to both blocks, whose full
 * barriers each expect their A and all of B. */
static __device__ __forceinline__ void produce_tile_shared(const CUtensorMap *ta, const CUtensorMap *tb,
                                                           uint32_t base, int m0, int n0, int ktiles, int m, int n,
                                                           uint32_t rank, uint32_t &it)
{
    int boxes = b_boxes(n0, n), half = B_BOXES / CLUSTER;
    uint32_t bytes = (m0 < m ? A_BYTES : 0) + boxes * B_BOX_BYTES;
    for (int kt = 0; kt < ktiles; kt++, it++) {
        uint32_t s = it % RING, full = full_bar(base, RING, s);
        bar_wait_cluster(empty_bar(base, RING, s), ((it / RING) & 1) ^ 1);
        bar_expect_bytes(full, bytes);
        if (m0 < m)
            tma_load(a_tile(base, s), ta, kt * BK, m0, full);
        for (int q = (int)rank * half; q < ((int)rank + 1) * half && q < boxes; q++)
            tma_load_multicast(b_tile(base, s) + q * B_BOX_BYTES, tb, n0 + q * B_BOX_COLS, kt * BK, full,
                               (uint16_t)((1u << CLUSTER) - 1));
    }
}

/* Tile t of the persistent walk, in groups of GROUP tile-rows: down a
 * group's column of tiles, then the next column, so the tiles in flight at
 * once share a few rows of A and a few columns of B, which stay in L2. */
static __device__ __forceinline__ void tile_at(int t, int tiles_m, int tiles_n, int *tm, int *tn)
{
    int per_group = GROUP * tiles_n, first = t / per_group * GROUP, in_group = t % per_group;
    int rows = tiles_m - first < GROUP ? tiles_m - first : GROUP;
    *tm = first + in_group % rows;
    *tn = in_group / rows;
}

static __device__ __forceinline__ void zero(float (&d)[128])
{
#pragma unroll
    for (int i = 0; i < 128; i++)
        d[i] = 0.0f;
}

#endif /* __CUDA_ARCH_FEAT_SM90_ALL */

/* What a kernel does where it was not compiled for sm_90a. */
#define NOT_SM90A                                                                                                \
    do {                                                                                                         \
        (void)ta, (void)tb, (void)c, (void)m, (void)n, (void)k, (void)ldc;                                       \
        __trap();                                                                                                \
    } while (0)

/* ---- wgmma-tma: Hopper's own instructions in place of mma.sync and
 * cp.async. tc-cp-async's warps fill registers from shared memory with
 * ldmatrix and multiply 16 x 8 x 16 at a time with mma.sync, and every thread
 * copies its own 16-byte pieces of the tiles. Here one thread has the copy
 * engine (TMA) bring a whole 128 x 64 tile of A and 64 x 256 of B (zero-filled
 * at the edges, swizzled), and each of two warpgroups multiplies its 64 x 256
 * slice with wgmma, whose tensor cores read both operands straight from
 * shared memory: one instruction does 128 times the work of an m16n8k16
 * mma.sync, A and B never pass through registers, and only this path runs
 * Hopper's tensor cores at their full rate. The pipeline is left out on
 * purpose (load, wait, multiply, wait: the copy and the multiplies never
 * overlap, one block per SM), to show what the instruction alone is worth;
 * the next stage brings it back in Hopper's form. */
__global__ void __launch_bounds__(256, 1)
    wgmma_tma_kernel(const __grid_constant__ CUtensorMap ta, const __grid_constant__ CUtensorMap tb, float *c,
                     int m, int n, int k, int ldc)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    uint32_t base = tiles_base(), full = full_bar(base, 1, 0);
    int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN, ktiles = (k + BK - 1) / BK, wg = threadIdx.x / 128;
    if (threadIdx.x == 0) {
        bar_init(full, 1);
        bar_init_fence();
    }
    __syncthreads();
    float d[128];
    zero(d);
    for (int kt = 0; kt < ktiles; kt++) {
        if (threadIdx.x == 0)
            load_stage(&ta, &tb, a_tile(base, 0), b_tile(base, 0), full, m0, n0, kt, n);
        bar_wait(full, kt & 1);
        mma_stage(d, a_tile(base, 0) + wg * WG_ROWS * 128, b_tile(base, 0), kt > 0);
        wgmma_wait<0>();
        fence_accumulators(d);
        __syncthreads(); /* both warpgroups done reading before the next copy overwrites the tiles */
    }
    store_tile(d, c, ldc, m, n, m0 + wg * WG_ROWS, n0);
#else
    NOT_SM90A;
#endif
}

/* ---- ring: + a ring of 4 stages, the copies ahead of the multiplies. Each
 * stage has a "full" mbarrier (the copy engine counts its bytes in) and an
 * "empty" one (each warpgroup arrives when its multiplies on the stage are
 * done). Thread 0 starts the copies of the first 3 k-steps; then at each
 * k-step both warpgroups wait for its stage to be full, issue its
 * multiplies, and (wgmma.wait_group 1: one group left in flight) release the
 * stage before; thread 0 waits until both have released it and refills it
 * with the k-step 3 ahead. The copies now overlap the multiplies. What is
 * left: thread 0 is also a consumer, so its warpgroup stalls at each k-step
 * until the other has released the stage (and while it issues the copy),
 * and its next multiplies wait with it. */
__global__ void __launch_bounds__(256, 1)
    wgmma_ring_kernel(const __grid_constant__ CUtensorMap ta, const __grid_constant__ CUtensorMap tb, float *c,
                      int m, int n, int k, int ldc)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    uint32_t base = tiles_base();
    int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN, ktiles = (k + BK - 1) / BK, wg = threadIdx.x / 128;
    if (threadIdx.x == 0) {
        for (uint32_t s = 0; s < RING; s++) {
            bar_init(full_bar(base, RING, s), 1);  /* thread 0's arrive.expect_tx */
            bar_init(empty_bar(base, RING, s), 2); /* one arrival per warpgroup */
        }
        bar_init_fence();
        for (int j = 0; j < RING - 1 && j < ktiles; j++)
            load_stage(&ta, &tb, a_tile(base, j), b_tile(base, j), full_bar(base, RING, j), m0, n0, j, n);
    }
    __syncthreads();
    float d[128];
    zero(d);
    int kt = 0;
    do { /* k >= 1: at least one stage (see consume_tile) */
        uint32_t s = kt % RING;
        bar_wait(full_bar(base, RING, s), (kt / RING) & 1);
        mma_stage(d, a_tile(base, s) + wg * WG_ROWS * 128, b_tile(base, s), kt > 0);
        wgmma_wait<1>();
        int j = kt + RING - 1; /* the k-step that goes into the stage just released */
        if (kt > 0)
            release_stage(empty_bar(base, RING, (kt - 1) % RING), false);
        if (threadIdx.x == 0 && j < ktiles) {
            uint32_t r = j % RING;
            bar_wait(empty_bar(base, RING, r), ((j / RING) & 1) ^ 1);
            load_stage(&ta, &tb, a_tile(base, r), b_tile(base, r), full_bar(base, RING, r), m0, n0, j, n);
        }
    } while (++kt < ktiles);
    wgmma_wait<0>();
    fence_accumulators(d);
    store_tile(d, c, ldc, m, n, m0 + wg * WG_ROWS, n0);
#else
    NOT_SM90A;
#endif
}

/* ---- pipelined: + warp specialisation. One producer warpgroup (one thread
 * of it issuing TMA) keeps the ring's k-steps in flight and waits on the
 * empty barriers, while two consumer warpgroups do nothing but multiply:
 * no consumer waits for the other any more, or for a copy to be issued.
 * wgmma.wait_group 1 keeps one group of multiplies queued while the
 * stage before is released. setmaxnreg gives the producer's registers (it
 * needs ~40) to the consumers (128 accumulators each): 168 per thread at
 * launch, 40 for the producer, 232 for the consumers. */
__global__ void __launch_bounds__(384, 1)
    wgmma_pipelined_kernel(const __grid_constant__ CUtensorMap ta, const __grid_constant__ CUtensorMap tb, float *c,
                           int m, int n, int k, int ldc)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    uint32_t base = tiles_base(), it = 0;
    int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN, ktiles = (k + BK - 1) / BK, wg = threadIdx.x / 128;
    if (threadIdx.x == 0) {
        for (uint32_t s = 0; s < RING; s++) {
            bar_init(full_bar(base, RING, s), 1);  /* the producer's arrive.expect_tx */
            bar_init(empty_bar(base, RING, s), 2); /* one arrival per consumer warpgroup */
        }
        bar_init_fence();
    }
    __syncthreads();
    if (wg == 0) {
        registers_down<40>();
        if (threadIdx.x == 0)
            produce_tile(&ta, &tb, base, m0, n0, ktiles, n, it);
    } else {
        registers_up<232>();
        float d[128];
        zero(d);
        consume_tile(d, base, wg - 1, ktiles, it, false);
        store_tile(d, c, ldc, m, n, m0 + (wg - 1) * WG_ROWS, n0);
    }
#else
    NOT_SM90A;
#endif
}

/* ---- persistent: + a persistent grid of clusters of 2 blocks, tiles walked
 * in grouped order, B shared by TMA multicast. The grid is one cluster per
 * pair of SMs that can hold one, each looping over 256 x 256 tiles of C (a
 * 128-row half per block): barrier set-up and pipeline fill are paid once per
 * SM, not once per tile, and while the consumers store one tile the producer
 * is already loading the next. The tiles in flight at once are taken from a
 * few tile-rows (GROUP) at a time, so their rows of A and columns of B are
 * still in L2 when the next tiles need them. The two blocks of a cluster
 * need the same 64 x 256 tile of B at every k-step: each loads half of it
 * and the copy engine writes it to both blocks' shared memory (multicast),
 * so per block and k-step 32 KiB come from L2 instead of 48. A stage is
 * refilled only when all four consumer warpgroups of the cluster have
 * released it: each arrives on both blocks' empty barriers. */
__global__ void __launch_bounds__(384, 1)
    wgmma_persistent_kernel(const __grid_constant__ CUtensorMap ta, const __grid_constant__ CUtensorMap tb, float *c,
                            int m, int n, int k, int ldc)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    uint32_t base = tiles_base(), it = 0, rank = cluster_rank();
    int ktiles = (k + BK - 1) / BK, wg = threadIdx.x / 128;
    int tiles_m = (m + CLUSTER * BM - 1) / (CLUSTER * BM), tiles_n = (n + BN - 1) / BN, tiles = tiles_m * tiles_n;
    int first = (int)cluster_id(), step = (int)cluster_count();
    if (threadIdx.x == 0) {
        for (uint32_t s = 0; s < RING; s++) {
            bar_init(full_bar(base, RING, s), 1);
            bar_init(empty_bar(base, RING, s), 2 * CLUSTER); /* both consumers of both blocks */
        }
        bar_init_fence();
    }
    cluster_sync(); /* no block arrives on, or copies into, the other's barriers before they exist */
    if (wg == 0) {
        registers_down<40>();
        if (threadIdx.x == 0) {
            for (int t = first; t < tiles; t += step) {
                int tm, tn;
                tile_at(t, tiles_m, tiles_n, &tm, &tn);
                produce_tile_shared(&ta, &tb, base, (tm * CLUSTER + (int)rank) * BM, tn * BN, ktiles, m, n, rank,
                                    it);
            }
        }
    } else {
        registers_up<232>();
        float d[128];
        zero(d);
        for (int t = first; t < tiles; t += step) {
            int tm, tn;
            tile_at(t, tiles_m, tiles_n, &tm, &tn);
            consume_tile(d, base, wg - 1, ktiles, it, true);
            store_tile(d, c, ldc, m, n, (tm * CLUSTER + (int)rank) * BM + (wg - 1) * WG_ROWS, tn * BN);
        }
    }
    cluster_sync(); /* the other block's last arrivals on our barriers land before we exit */
#else
    NOT_SM90A;
#endif
}

/* ---------------------------------------------------------------- launchers */
/* (gemm.h declared the stage functions below extern "C", so they keep C linkage.) */

/* cuTensorMapEncodeTiled is a driver function: asked of the runtime, so the
 * program needs no -lcuda. */
static PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder(void)
{
    static PFN_cuTensorMapEncodeTiled_v12000 encode;
    if (!encode) {
        void *fn = NULL;
        cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
        CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found));
        if (found != cudaDriverEntryPointSuccess || !fn) {
            fprintf(stderr, "%s:%d: the driver has no cuTensorMapEncodeTiled (CUDA 12.0 or newer needed)\n", __FILE__,
                    __LINE__);
            exit(EXIT_CHECK_FAIL);
        }
        encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
    }
    return encode;
}

/* A tensor map of a row-major bf16 matrix, rows x cols with leading dimension
 * ld, read in boxes of 64 columns (128 bytes) x box_rows rows with the
 * 128-byte swizzle; elements outside rows x cols read as zero. The last one
 * made for each matrix is kept: host time before the launch falls between the
 * timer's events, and the map depends only on these numbers. */
typedef struct {
    const void *p;
    int rows, cols, ld, box_rows;
    CUtensorMap map;
} tensor_map_cache;

static const CUtensorMap *tensor_map(tensor_map_cache *cache, const uint16_t *p, int rows, int cols, int ld,
                                     int box_rows)
{
    if (cache->p == p && cache->rows == rows && cache->cols == cols && cache->ld == ld && cache->box_rows == box_rows)
        return &cache->map;
    cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows}; /* innermost first */
    cuuint64_t strides[1] = {(cuuint64_t)ld * 2};              /* bytes from row to row: a multiple of 16 */
    cuuint32_t box[2] = {64, (cuuint32_t)box_rows}, steps[2] = {1, 1};
    CUresult r = tensor_map_encoder()(&cache->map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<uint16_t *>(p), dims,
                                      strides, box, steps, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        fprintf(stderr, "%s:%d: cuTensorMapEncodeTiled failed (CUresult %d) for %d x %d, ld %d\n", __FILE__, __LINE__,
                (int)r, rows, cols, ld);
        exit(EXIT_CHECK_FAIL);
    }
    cache->p = p;
    cache->rows = rows;
    cache->cols = cols;
    cache->ld = ld;
    cache->box_rows = box_rows;
    return &cache->map;
}

static tensor_map_cache a_maps, b_maps;

/* A in boxes of 128 rows x 64 k; B in boxes of 64 k-rows x 64 columns. */
static const CUtensorMap *map_a(const gemm_gpu_args *g)
{
    return tensor_map(&a_maps, g->a16, g->s.m, g->s.k, g->s.lda, BM);
}

static const CUtensorMap *map_b(const gemm_gpu_args *g)
{
    return tensor_map(&b_maps, g->b16, g->s.k, g->s.n, g->s.ldb, BK);
}

typedef void hopper_kernel(const CUtensorMap, const CUtensorMap, float *, int, int, int, int);

/* Lets the kernel have more than 48 KiB of dynamic shared memory (once). */
static void allow_smem(hopper_kernel *kernel, int bytes, int *done)
{
    if (!*done)
        CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    *done = 1;
}

static dim3 tile_grid(const gemm_shape *s)
{
    return dim3((unsigned)((s->n + BN - 1) / BN), (unsigned)((s->m + BM - 1) / BM));
}

/* A kernel of one tile of C per block, with `stages` stages of shared
 * memory, launched on g's problem. */
static void launch_tiles(hopper_kernel *kernel, int threads, int stages, int *ready, const gemm_gpu_args *g)
{
    const gemm_shape *s = &g->s;
    const CUtensorMap *ta = map_a(g), *tb = map_b(g);
    allow_smem(kernel, SMEM_BYTES(stages), ready);
    kernel<<<tile_grid(s), threads, SMEM_BYTES(stages)>>>(*ta, *tb, g->c, s->m, s->n, s->k, s->ldc);
    CUDA_CHECK_LAUNCH();
}

void gemm_hopper_wgmma_tma(const gemm_gpu_args *g)
{
    static int ready;
    launch_tiles(wgmma_tma_kernel, 256, 1, &ready, g);
}

void gemm_hopper_ring(const gemm_gpu_args *g)
{
    static int ready;
    launch_tiles(wgmma_ring_kernel, 256, RING, &ready, g);
}

void gemm_hopper_pipelined(const gemm_gpu_args *g)
{
    static int ready;
    launch_tiles(wgmma_pipelined_kernel, 384, RING, &ready, g);
}

/* The launch of the persistent kernel: `clusters` clusters of CLUSTER blocks. */
static void persistent_config(cudaLaunchConfig_t *cfg, cudaLaunchAttribute *attr, int clusters)
{
    *cfg = cudaLaunchConfig_t{};
    *attr = cudaLaunchAttribute{};
    attr->id = cudaLaunchAttributeClusterDimension;
    attr->val.clusterDim.x = CLUSTER;
    attr->val.clusterDim.y = 1;
    attr->val.clusterDim.z = 1;
    cfg->gridDim = dim3((unsigned)(clusters * CLUSTER));
    cfg->blockDim = dim3(384);
    cfg->dynamicSmemBytes = SMEM_BYTES(RING);
    cfg->stream = 0;
    cfg->attrs = attr;
    cfg->numAttrs = 1;
}

/* Clusters that fit on the GPU at once (asked once), at most sms / CLUSTER. */
static int resident_clusters(int sms)
{
    static int clusters;
    int most = sms / CLUSTER > 0 ? sms / CLUSTER : 1;
    if (!clusters) {
        cudaLaunchConfig_t cfg;
        cudaLaunchAttribute attr;
        persistent_config(&cfg, &attr, most);
        CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, wgmma_persistent_kernel, &cfg));
        if (clusters < 1 || clusters > most)
            clusters = most;
    }
    return clusters;
}

/* What the last persistent launch was: its row's note says it (problem.c). */
static char persistent_launch[128];

const char *gemm_hopper_persistent_note(void)
{
    return persistent_launch;
}

void gemm_hopper_persistent(const gemm_gpu_args *g)
{
    static int ready;
    const gemm_shape *s = &g->s;
    const CUtensorMap *ta = map_a(g), *tb = map_b(g);
    allow_smem(wgmma_persistent_kernel, SMEM_BYTES(RING), &ready);
    long tiles = (long)((s->m + CLUSTER * BM - 1) / (CLUSTER * BM)) * ((s->n + BN - 1) / BN);
    int clusters = resident_clusters(g->sms);
    if (clusters > tiles)
        clusters = (int)tiles;
    snprintf(persistent_launch, sizeof persistent_launch, "%d clusters of %d blocks over %ld tiles of %dx%d: %.2f "
             "rounds", clusters, CLUSTER, tiles, CLUSTER * BM, BN, (double)tiles / clusters);
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    persistent_config(&cfg, &attr, clusters);
    CUDA_CHECK(cudaLaunchKernelEx(&cfg, wgmma_persistent_kernel, *ta, *tb, g->c, s->m, s->n, s->k, s->ldc));
    CUDA_CHECK_LAUNCH();
}

/* Runs only on compute capability 9.0, and only where the code the device
 * loaded for these kernels is sm_90a's (binary version 90, built with the
 * sm_90a features). */
int gemm_hopper_supported(char *why, size_t size)
{
    int device = 0, major = 0, minor = 0, code = 0;
    struct cudaDeviceProp p;
    if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&p, device) != cudaSuccess) {
        cudaGetLastError();
        snprintf(why, size, "needs a Hopper GPU (compute capability 9.0); no CUDA device was found");
        return 0;
    }
    major = p.major;
    minor = p.minor;
    if (major != 9 || minor != 0) {
        snprintf(why, size, "needs a Hopper GPU (compute capability 9.0); this is %s, compute capability %d.%d", p.name,
                 major, minor);
        return 0;
    }
    struct cudaFuncAttributes a1, a2, a3;
    if (cudaFuncGetAttributes(&a1, wgmma_tma_kernel) != cudaSuccess ||
        cudaFuncGetAttributes(&a2, wgmma_pipelined_kernel) != cudaSuccess ||
        cudaFuncGetAttributes(&a3, wgmma_persistent_kernel) != cudaSuccess ||
        cudaMemcpyFromSymbol(&code, hopper_sm90a_code, sizeof code) != cudaSuccess) {
        cudaGetLastError();
        snprintf(why, size, "built without sm_90a (no machine code for this GPU: build with "
                            "-gencode=arch=compute_90a,code=sm_90a)");
        return 0;
    }
    if (a1.binaryVersion != 90 || a2.binaryVersion != 90 || a3.binaryVersion != 90 || code != 1) {
        snprintf(why, size, "built without sm_90a (the kernels here are sm_%d's, without wgmma and TMA: build with "
                            "-gencode=arch=compute_90a,code=sm_90a)",
                 a1.binaryVersion);
        return 0;
    }
    return 1;
}
