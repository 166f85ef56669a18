/* cpu_gemm.c - ch12's CPU stages: C = A x B on the host, from the textbook
 * triple loop to the structure every fast BLAS has (GotoBLAS, BLIS, OpenBLAS):
 * the loops reordered for unit stride, then blocked for the caches, then the
 * operands packed into the order a register-held micro-kernel reads them,
 * then that on every core; and OpenBLAS itself, loaded at run time, as the
 * yardstick. Every stage writes C's m x n elements and nothing past them, and
 * reads A only in its k columns and B only in its n columns (the padding
 * holds NaN). */
#define _GNU_SOURCE /* dladdr: the OpenBLAS row's note names the file that was loaded */
#include "gemm.h"

#include "../../common/cpu_ceiling.h"
#include "../../common/status.h"
#include "../../common/team.h"

#include <dlfcn.h>
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t idx(int row, int ld, int col)
{
    return (size_t)row * (size_t)ld + (size_t)col;
}

static int min_int(int x, int y)
{
    return x < y ? x : y;
}

/* Zeroes C's m x n (the padding is left alone): the stages that add into C. */
static void zero_c(const gemm_shape *s, float *c)
{
    for (int i = 0; i < s->m; i++)
        memset(c + idx(i, s->ldc, 0), 0, (size_t)s->n * sizeof(float));
}

/* ---------------------------------------------------------------- naive */

/* One dot product per element of C: row i of A against column j of B. The
 * inner loop walks B down a column, ldb floats apart, so every multiply-add
 * touches a new cache line of B (and, for a wide B, a new page): 2 flops per
 * 64 bytes brought in. */
void gemm_cpu_naive(const gemm_shape *s, const float *a, const float *b, float *c, int threads)
{
    (void)threads;
    for (int i = 0; i < s->m; i++)
        for (int j = 0; j < s->n; j++) {
            float sum = 0.0f;
            for (int p = 0; p < s->k; p++)
                sum += a[idx(i, s->lda, p)] * b[idx(p, s->ldb, j)];
            c[idx(i, s->ldc, j)] = sum;
        }
}

/* ---------------------------------------------------------------- loop order */

/* c[0..n) += x * b[0..n): the inner loop of the i-k-j order. Eight columns a
 * trip in an inner loop of known length: gcc's -O2 vectoriser (its
 * "very cheap" model) only vectorises a loop whose trip count it can see is
 * a multiple of the vector width, and this one is (two SSE vectors of four,
 * the ISA every x86-64 has); restrict says c and b do not overlap, so no
 * run-time overlap test is needed either. The last n % 8 go one at a time. */
static void add_scaled_row(float *restrict c, const float *restrict b, float x, int n)
{
    int j = 0;
    for (; j + 8 <= n; j += 8)
        for (int v = 0; v < 8; v++)
            c[j + v] += x * b[j + v];
    for (; j < n; j++)
        c[j] += x * b[j];
}

/* The same sums, the loops in i-k-j order: element a[i][p] times row p of B is
 * added into row i of C. Both B and C are now read along a row, unit stride,
 * every byte of a cache line used, and the inner loop is a vector loop (no
 * dependence between columns). Each element's sum is still added in order of
 * p: the same sums as the naive stage's, in the same order. */
void gemm_cpu_loop_order(const gemm_shape *s, const float *a, const float *b, float *c, int threads)
{
    (void)threads;
    zero_c(s, c);
    for (int i = 0; i < s->m; i++)
        for (int p = 0; p < s->k; p++)
            add_scaled_row(c + idx(i, s->ldc, 0), b + idx(p, s->ldb, 0), a[idx(i, s->lda, p)], s->n);
}

/* ---------------------------------------------------------------- blocked */

/* The tile of B the blocked loops keep in cache: BLOCK_K rows of B by BLOCK_N
 * columns, 64 x 2048 floats = 512 KB, a quarter of a server Xeon's 2 MB L2,
 * so it stays there while every row of A passes over it; the strip of a C
 * row it adds into, BLOCK_N floats = 8 KB, stays in the 48 KB L1 for all
 * BLOCK_K of its updates. Few rows and long ones, because B's rows are ldb
 * floats apart in memory, not side by side: at ldb = 4096 (16 KB) every
 * eighth row falls on the same L2 sets, so a tile of 64 rows asks 8 lines of
 * each set it uses, half of its 16 ways, where 256 rows would ask 32 and
 * evict one another. (Packing, two stages on, removes the stride itself.) */
#define BLOCK_K 64
#define BLOCK_N 2048

/* The loop-order stage with its k and j loops cut into tiles: for each tile
 * of B, every row of C adds in that tile's BLOCK_K rows. Without blocking, one
 * row of C reads all of B (k x n floats: 64 MB at 4096) before the next row
 * reads it again, so B comes from memory m times; now each tile is fetched
 * from memory once and read from L2 m times, and the C strip it updates
 * is read from L1 BLOCK_K times in a row instead of from memory. */
void gemm_cpu_blocked(const gemm_shape *s, const float *a, const float *b, float *c, int threads)
{
    (void)threads;
    zero_c(s, c);
    for (int j0 = 0; j0 < s->n; j0 += BLOCK_N) {
        int cols = min_int(BLOCK_N, s->n - j0);
        for (int p0 = 0; p0 < s->k; p0 += BLOCK_K) {
            int depth = min_int(BLOCK_K, s->k - p0);
            for (int i = 0; i < s->m; i++)
                for (int p = p0; p < p0 + depth; p++)
                    add_scaled_row(c + idx(i, s->ldc, j0), b + idx(p, s->ldb, j0), a[idx(i, s->lda, p)], cols);
        }
    }
}

/* ---------------------------------------------------------------- packed */

/* The micro-kernels: an MR x NR tile of C held in vector registers for the
 * whole k loop. Per step p it loads NR floats of B's packed sliver (NR/16 or
 * NR/8 vectors), broadcasts each of the MR floats of A's packed micro-panel,
 * and does MR x NR/lanes FMAs: 14 x 2 = 28 FMAs for 2 vector loads and 14
 * broadcasts (AVX-512, 28 of the 32 registers accumulate), 6 x 2 = 12 for 2
 * and 6 (AVX2, 12 of 16). Enough independent FMAs (an FMA waits 4 cycles for
 * its input; two FMA pipes need 8 in flight) and few enough loads per FMA
 * that the FMA pipes, not the loads, are the limit. The packed operands are
 * read at unit stride: a for MR floats a step, b for NR. At the end the tile
 * is added into C (accumulate) or stored over it (the first block of k). */
typedef void micro_kernel(int kc, const float *a, const float *b, float *c, size_t ldc, int accumulate);

#define MR_512 14
#define NR_512 32
#define MR_256 6
#define NR_256 16
#define PREFETCH_A_STEPS 8 /* how far ahead in k a micro-kernel prefetches its A micro-panel */

__attribute__((target("avx512f,fma"))) static void kernel_14x32(int kc, const float *a, const float *b, float *c,
                                                                size_t ldc, int accumulate)
{
    __m512 acc[MR_512][2];
#pragma GCC unroll 14
    for (int i = 0; i < MR_512; i++) {
        _mm_prefetch((const char *)(c + i * ldc), _MM_HINT_T0); /* C's lines arrive while the loop runs */
        _mm_prefetch((const char *)(c + i * ldc + NR_512 - 1), _MM_HINT_T0);
        acc[i][0] = acc[i][1] = _mm512_setzero_ps();
    }
    for (int p = 0; p < kc; p++, a += MR_512, b += NR_512) {
        _mm_prefetch((const char *)(a + PREFETCH_A_STEPS * MR_512), _MM_HINT_T0);
        __m512 b0 = _mm512_load_ps(b), b1 = _mm512_load_ps(b + 16);
#pragma GCC unroll 14
        for (int i = 0; i < MR_512; i++) {
            __m512 ai = _mm512_set1_ps(a[i]);
            acc[i][0] = _mm512_fmadd_ps(ai, b0, acc[i][0]);
            acc[i][1] = _mm512_fmadd_ps(ai, b1, acc[i][1]);
        }
    }
#pragma GCC unroll 14
    for (int i = 0; i < MR_512; i++) {
        float *ci = c + i * ldc;
        if (accumulate) {
            acc[i][0] = _mm512_add_ps(acc[i][0], _mm512_loadu_ps(ci));
            acc[i][1] = _mm512_add_ps(acc[i][1], _mm512_loadu_ps(ci + 16));
        }
        _mm512_storeu_ps(ci, acc[i][0]);
        _mm512_storeu_ps(ci + 16, acc[i][1]);
    }
}

__attribute__((target("avx2,fma"))) static void kernel_6x16(int kc, const float *a, const float *b, float *c,
                                                            size_t ldc, int accumulate)
{
    __m256 acc[MR_256][2];
#pragma GCC unroll 6
    for (int i = 0; i < MR_256; i++) {
        _mm_prefetch((const char *)(c + i * ldc), _MM_HINT_T0);
        _mm_prefetch((const char *)(c + i * ldc + NR_256 - 1), _MM_HINT_T0);
        acc[i][0] = acc[i][1] = _mm256_setzero_ps();
    }
    for (int p = 0; p < kc; p++, a += MR_256, b += NR_256) {
        _mm_prefetch((const char *)(a + PREFETCH_A_STEPS * MR_256), _MM_HINT_T0);
        __m256 b0 = _mm256_load_ps(b), b1 = _mm256_load_ps(b + 8);
#pragma GCC unroll 6
        for (int i = 0; i < MR_256; i++) {
            __m256 ai = _mm256_broadcast_ss(a + i);
            acc[i][0] = _mm256_fmadd_ps(ai, b0, acc[i][0]);
            acc[i][1] = _mm256_fmadd_ps(ai, b1, acc[i][1]);
        }
    }
#pragma GCC unroll 6
    for (int i = 0; i < MR_256; i++) {
        float *ci = c + i * ldc;
        if (accumulate) {
            acc[i][0] = _mm256_add_ps(acc[i][0], _mm256_loadu_ps(ci));
            acc[i][1] = _mm256_add_ps(acc[i][1], _mm256_loadu_ps(ci + 8));
        }
        _mm256_storeu_ps(ci, acc[i][0]);
        _mm256_storeu_ps(ci + 8, acc[i][1]);
    }
}

/* A micro-kernel and the cache blocks sized for it, for a server Xeon (48 KB
 * L1 and 2 MB L2 per core, a shared L3 of tens of MB):
 * - kc: B's sliver, kc x NR floats, is what the micro-kernel rereads for every
 *   micro-panel of A, so it is to stay in L1: half of it (the rest for the A
 *   micro-panel streaming past and the C tile): 192 x 32 x 4 B = 24 KB; with
 *   AVX2's 16-wide sliver 256 x 16 x 4 B = 16 KB, half of a Zen's 32 KB L1.
 * - mc: the packed block of A, mc x kc, is reread for every sliver of B, so
 *   it is to stay in L2: 672 x 192 x 4 B = 516 KB, a quarter of 2 MB
 *   (AVX2: 240 x 256 x 4 B = 240 KB, half a Zen's 512 KB). A multiple of MR.
 * - nc: B's packed panel, kc x nc, is read by every block of A (every thread's
 *   rows): in L3, 192 x 4096 x 4 B = 3 MB. A multiple of NR. */
typedef struct {
    int mr, nr, mc, kc, nc;
    micro_kernel *kernel;
} packed_plan;

static const packed_plan plan_avx512 = {MR_512, NR_512, 48 * MR_512, 192, 4096, kernel_14x32};
static const packed_plan plan_avx2 = {MR_256, NR_256, 40 * MR_256, 256, 4096, kernel_6x16};

/* The widest plan this CPU runs (CPU_ISA=avx2 asks for the AVX2 one on an
 * AVX-512 machine); NULL without AVX2 + FMA. */
static const packed_plan *packed_plan_here(void)
{
    const char *isa = cpu_widest_isa();
    return strcmp(isa, "avx512") == 0 ? &plan_avx512 : strcmp(isa, "avx2") == 0 ? &plan_avx2 : NULL;
}

int gemm_cpu_packed_supported(char *why, size_t size)
{
    if (packed_plan_here())
        return 1;
    snprintf(why, size, "needs AVX2 + FMA or AVX-512 (this CPU has neither, or CPU_ISA=scalar)");
    return 0;
}

static const packed_plan *packed_plan_or_exit(void)
{
    const packed_plan *pl = packed_plan_here();
    if (!pl) {
        fprintf(stderr, "error: the packed stages need AVX2 + FMA or AVX-512 (%s:%d)\n", __FILE__, __LINE__);
        exit(EXIT_CHECK_FAIL);
    }
    return pl;
}

static void *alloc_or_exit(size_t bytes, const char *file, int line)
{
    size_t rounded = (bytes + 63) / 64 * 64; /* aligned_alloc: a multiple of the alignment */
    void *p = aligned_alloc(64, rounded > 0 ? rounded : 64);
    if (!p) {
        fprintf(stderr, "%s:%d: error: cannot allocate %zu bytes for a packing buffer\n", file, line, bytes);
        exit(EXIT_CHECK_FAIL);
    }
    return p;
}
#define ALLOC_FLOATS(count) ((float *)alloc_or_exit((count) * sizeof(float), __FILE__, __LINE__))

/* B's rows pc..pc+kc-1, columns jc..jc+nc-1, as slivers of nr columns: sliver
 * t holds, for each of the kc rows, its nr floats side by side (a micro-
 * kernel step's vector loads), zeros past column n-1 so the last sliver is a
 * full one. Slivers first..last-1 (a thread's share). */
static void pack_b(const gemm_shape *s, const float *b, int pc, int kc, int jc, int nc, int nr, int first,
                   int last, float *packed)
{
    for (int t = first; t < last; t++) {
        int j0 = jc + t * nr, cols = min_int(nr, jc + nc - j0);
        float *dst = packed + (size_t)t * (size_t)kc * (size_t)nr;
        for (int p = 0; p < kc; p++, dst += nr) {
            memcpy(dst, b + idx(pc + p, s->ldb, j0), (size_t)cols * sizeof(float));
            memset(dst + cols, 0, (size_t)(nr - cols) * sizeof(float));
        }
    }
}

/* A's rows ic..ic+mc-1, columns pc..pc+kc-1, as micro-panels of mr rows:
 * panel q holds, for each of the kc columns, its mr floats side by side (what
 * a micro-kernel step broadcasts), zeros past row m-1 (past row ic+mc-1). */
static void pack_a(const gemm_shape *s, const float *a, int ic, int mc, int pc, int kc, int mr, float *packed)
{
    for (int i0 = 0; i0 < mc; i0 += mr, packed += (size_t)kc * (size_t)mr) {
        int rows = min_int(mr, mc - i0);
        for (int i = 0; i < mr; i++) {
            const float *src = a + idx(ic + i0 + i, s->lda, pc);
            for (int p = 0; p < kc; p++)
                packed[(size_t)p * (size_t)mr + (size_t)i] = i < rows ? src[p] : 0.0f;
        }
    }
}

/* A tile at C's edge (fewer than mr rows or nr columns left): the micro-
 * kernel runs the full tile into a local buffer (the packed zeros give zeros
 * there), and only the tile's rows x cols are added into C. */
static void edge_tile(const packed_plan *pl, int kc, const float *ap, const float *bp, float *c, size_t ldc, int rows,
                      int cols, int accumulate)
{
    _Alignas(64) float tile[MR_512 * NR_512]; /* the largest plan's tile */
    pl->kernel(kc, ap, bp, tile, (size_t)pl->nr, 0);
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            c[(size_t)i * ldc + (size_t)j] = (accumulate ? c[(size_t)i * ldc + (size_t)j] : 0.0f) + tile[i * pl->nr + j];
}

/* The macro-kernel: the packed block of A (mc x kc) times B's packed panel
 * (kc x nc) into C's mc x nc, tile by tile. The sliver of B is the outer loop:
 * it stays in L1 while every micro-panel of A streams past it from L2. */
static void macro_kernel(const packed_plan *pl, int mc, int nc, int kc, const float *ap, const float *bp, float *c,
                         size_t ldc, int accumulate)
{
    for (int j = 0; j < nc; j += pl->nr) {
        const float *sliver = bp + (size_t)(j / pl->nr) * (size_t)kc * (size_t)pl->nr;
        for (int i = 0; i < mc; i += pl->mr) {
            const float *panel = ap + (size_t)(i / pl->mr) * (size_t)kc * (size_t)pl->mr;
            float *tile = c + (size_t)i * ldc + (size_t)j;
            if (mc - i >= pl->mr && nc - j >= pl->nr)
                pl->kernel(kc, panel, sliver, tile, ldc, accumulate);
            else
                edge_tile(pl, kc, panel, sliver, tile, ldc, min_int(pl->mr, mc - i), min_int(pl->nr, nc - j),
                          accumulate);
        }
    }
}

/* One call's packing buffers and work, shared by its threads. B's panel is
 * double-buffered on more than one thread: block s+1 is packed into the
 * buffer block s-1 used, which every thread has finished with by the time it
 * reaches block s's barrier, so one barrier a block is enough. */
typedef struct {
    const gemm_shape *s;
    const float *a, *b;
    float *c;
    const packed_plan *pl;
    float *b_packed[2];
    int b_buffers;
    float *a_packed;       /* one block of A per thread, a_floats apart */
    size_t a_floats;
    int panels_per_thread; /* micro-panels of A's rows: a thread's share, at most */
    pthread_barrier_t packed; /* every thread's share of B's panel is packed */
} packed_job;

/* Thread t's rows of C: whole micro-panels of mr rows, the panels dealt
 * evenly, so threads own disjoint rows of C and write nothing another reads. */
static void thread_rows(const packed_job *job, int t, int threads, int *begin, int *end)
{
    long long panels = (job->s->m + job->pl->mr - 1) / job->pl->mr;
    *begin = (int)(panels * t / threads) * job->pl->mr;
    *end = min_int((int)(panels * (t + 1) / threads) * job->pl->mr, job->s->m);
}

/* The GotoBLAS loops, as thread t of `threads` runs them: for each nc-wide
 * panel of B and each kc-deep block of k, the threads pack B's panel together
 * (each its share of slivers) and wait for one another; then each packs its
 * own rows of A, mc at a time, and runs the macro-kernel into its rows of C. */
static void packed_worker(void *context, int t, int threads)
{
    packed_job *job = context;
    const gemm_shape *s = job->s;
    const packed_plan *pl = job->pl;
    int row0, row1, block = 0;
    thread_rows(job, t, threads, &row0, &row1);
    float *ap = job->a_packed + (size_t)t * job->a_floats;
    for (int jc = 0; jc < s->n; jc += pl->nc) {
        int nc = min_int(pl->nc, s->n - jc), slivers = (nc + pl->nr - 1) / pl->nr;
        for (int pc = 0; pc < s->k; pc += pl->kc, block++) {
            int kc = min_int(pl->kc, s->k - pc);
            float *bp = job->b_packed[block % job->b_buffers];
            pack_b(s, job->b, pc, kc, jc, nc, pl->nr, (int)((long long)slivers * t / threads),
                   (int)((long long)slivers * (t + 1) / threads), bp);
            pthread_barrier_wait(&job->packed);
            for (int ic = row0; ic < row1; ic += pl->mc) {
                int mc = min_int(pl->mc, row1 - ic);
                pack_a(s, job->a, ic, mc, pc, kc, pl->mr, ap);
                macro_kernel(pl, mc, nc, kc, ap, bp, job->c + idx(ic, s->ldc, jc), (size_t)s->ldc, pc > 0);
            }
        }
    }
}

/* The packed loops on `threads` threads; buffers sized to this call's problem. */
static void packed_gemm(const packed_plan *pl, const gemm_shape *s, const float *a, const float *b, float *c,
                        int threads)
{
    packed_job job = {.s = s, .a = a, .b = b, .c = c, .pl = pl};
    int kc = min_int(pl->kc, s->k);
    int nc = (min_int(pl->nc, s->n) + pl->nr - 1) / pl->nr * pl->nr;
    int blocks = (s->n + pl->nc - 1) / pl->nc * ((s->k + pl->kc - 1) / pl->kc);
    long long panels = (s->m + pl->mr - 1) / pl->mr;
    int rows = (int)((panels + threads - 1) / threads) * pl->mr; /* a thread's rows, at most */
    job.a_floats = (size_t)min_int(pl->mc, rows) * (size_t)kc;
    job.b_buffers = threads > 1 && blocks > 1 ? 2 : 1;
    for (int i = 0; i < job.b_buffers; i++)
        job.b_packed[i] = ALLOC_FLOATS((size_t)kc * (size_t)nc);
    /* the last thread's block has room past it for its micro-kernels' prefetches ahead */
    job.a_packed = ALLOC_FLOATS(job.a_floats * (size_t)threads + PREFETCH_A_STEPS * (size_t)pl->mr);
    int rc = pthread_barrier_init(&job.packed, NULL, (unsigned)threads);
    if (rc != 0) {
        fprintf(stderr, "error: pthread_barrier_init for %d threads: %s (%s:%d)\n", threads, strerror(rc),
                __FILE__, __LINE__);
        exit(EXIT_CHECK_FAIL);
    }
    team_run(threads, packed_worker, &job);
    pthread_barrier_destroy(&job.packed);
    free(job.a_packed);
    for (int i = 0; i < job.b_buffers; i++)
        free(job.b_packed[i]);
}

/* The blocked stage rebuilt the BLAS way, on one core. Blocking kept B's tile
 * in cache, but every multiply-add still loaded and stored C (three memory
 * operations per FMA, one FMA's worth of work per vector load). Now an MR x NR
 * tile of C stays in vector registers for a whole kc-deep block, updated by
 * MR x NR / lanes FMAs per step from only NR / lanes vector loads of B and MR
 * broadcasts of A (AVX-512: 28 FMAs, 2 loads, 14 broadcasts). To make those
 * loads unit stride and cache resident, the operands are first copied
 * (packed): B's kc x nc panel into NR-column slivers that fit L1, A's mc x kc
 * block into MR-row micro-panels that fit L2, zero-padded to whole tiles.
 * Packing costs O(mk + kn) copies against O(mnk) FMAs. */
void gemm_cpu_packed(const gemm_shape *s, const float *a, const float *b, float *c, int threads)
{
    (void)threads;
    packed_gemm(packed_plan_or_exit(), s, a, b, c, 1);
}

/* ---------------------------------------------------------------- threads */

/* The packed stage on `threads` cores. Each thread owns whole micro-panels of
 * C's rows (no two threads write the same element of C, no locks), packs its own
 * block of A into its own L2, and shares one packed panel of B, which the
 * threads pack together (a share of its slivers each) and which sits once in
 * the shared L3 instead of once per core. A barrier per kc block keeps
 * anyone from reading the panel before it is packed. The FMAs are independent
 * across tiles, so the rate scales with cores until the L3 and memory feeding
 * the packing are the limit, which at 4096^3 (each packed float of B feeds
 * m = 4096 FMAs) they are not. */
void gemm_cpu_threads(const gemm_shape *s, const float *a, const float *b, float *c, int threads)
{
    packed_gemm(packed_plan_or_exit(), s, a, b, c, threads);
}

/* ---------------------------------------------------------------- OpenBLAS */

/* cblas_sgemm, OpenBLAS's LP64 build (32-bit ints), and its thread count. The
 * library is loaded by its own name, never as libblas.so.3 (which on Debian is
 * the unoptimised reference BLAS unless the alternatives say otherwise). */
typedef void cblas_sgemm_fn(int order, int trans_a, int trans_b, int m, int n, int k, float alpha, const float *a,
                            int lda, const float *b, int ldb, float beta, float *c, int ldc);
enum { CBLAS_ROW_MAJOR = 101, CBLAS_NO_TRANS = 111 };

static struct {
    int tried, loaded;
    cblas_sgemm_fn *sgemm;
    void (*set_threads)(int);
    int (*get_threads)(void);
    int coretype_set; /* 1: ch12 set OPENBLAS_CORETYPE (choose_openblas_kernels) */
    char note[512]; /* the file and its config, or why none was loaded */
} openblas;

static const char *const openblas_names[] = {
    "libopenblas.so.0",                                          /* as the loader finds it */
    "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0", /* Debian, Ubuntu: libopenblas0-pthread */
    "/usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so.0",  /* libopenblas0-openmp */
    "libopenblasp.so.0",                                         /* Fedora, RHEL: the pthreads build */
};

/* Opens `name`; keeps it if it is a threaded OpenBLAS (cblas_sgemm and
 * openblas_set_num_threads, and not a single-threaded build). */
static int try_openblas(const char *name)
{
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return 0;
    cblas_sgemm_fn *sgemm = (cblas_sgemm_fn *)dlsym(h, "cblas_sgemm");
    void (*set_threads)(int) = (void (*)(int))dlsym(h, "openblas_set_num_threads");
    int (*parallel)(void) = (int (*)(void))dlsym(h, "openblas_get_parallel");
    char *(*config)(void) = (char *(*)(void))dlsym(h, "openblas_get_config");
    char *(*corename)(void) = (char *(*)(void))dlsym(h, "openblas_get_corename");
    if (!sgemm || !set_threads || (parallel && parallel() == 0)) {
        dlclose(h);
        return 0;
    }
    Dl_info info;
    const char *file = dladdr((void *)sgemm, &info) && info.dli_fname ? info.dli_fname : name;
    char *real = realpath(file, NULL); /* the file behind the alternatives' links: which build it is */
    snprintf(openblas.note, sizeof openblas.note, "%s (%s; kernels for %s%s)", real ? real : file,
             config ? config() : "no openblas_get_config", corename ? corename() : "?", openblas.coretype_set ?
             ", OPENBLAS_CORETYPE=SkylakeX set by ch12" : "");
    free(real);
    openblas.sgemm = sgemm;
    openblas.set_threads = set_threads;
    openblas.get_threads = (int (*)(void))dlsym(h, "openblas_get_num_threads");
    return 1;
}

/* Debian's OpenBLAS picks its kernels by the CPU model it knows; a CPU it
 * does not know (a newer Xeon, or one a virtual machine names oddly) gets
 * generic ones. A yardstick runs at its best: on a CPU with AVX-512 and no
 * choice made by the user, it is told to use its AVX-512 (SkylakeX) kernels.
 * The row's note says which kernels ran, and whether ch12 chose them. */
static void choose_openblas_kernels(void)
{
    if (getenv("OPENBLAS_CORETYPE") || strcmp(cpu_widest_isa(), "avx512") != 0)
        return;
    if (setenv("OPENBLAS_CORETYPE", "SkylakeX", 0) != 0) {
        fprintf(stderr, "error: setenv OPENBLAS_CORETYPE failed (%s:%d)\n", __FILE__, __LINE__);
        exit(EXIT_CHECK_FAIL);
    }
    openblas.coretype_set = 1;
}

static int load_openblas(void)
{
    if (!openblas.tried) {
        openblas.tried = 1;
        choose_openblas_kernels();
        for (size_t i = 0; i < sizeof openblas_names / sizeof openblas_names[0] && !openblas.loaded; i++)
            openblas.loaded = try_openblas(openblas_names[i]);
        if (!openblas.loaded)
            snprintf(openblas.note, sizeof openblas.note,
                     "OpenBLAS not found: apt-get install libopenblas0-pthread");
    }
    return openblas.loaded;
}

int gemm_openblas_supported(char *why, size_t size)
{
    if (load_openblas())
        return 1;
    snprintf(why, size, "%s", openblas.note);
    return 0;
}

const char *gemm_openblas_library(void)
{
    load_openblas();
    return openblas.note;
}

/* The yardstick: OpenBLAS's SGEMM (the same GotoBLAS structure, with micro-
 * kernels written in assembly for each CPU) on `threads` threads. */
void gemm_openblas(const gemm_shape *s, const float *a, const float *b, float *c, int threads)
{
    if (!load_openblas()) {
        fprintf(stderr, "error: %s (%s:%d)\n", openblas.note, __FILE__, __LINE__);
        exit(EXIT_CHECK_FAIL);
    }
    openblas.set_threads(threads);
    if (openblas.get_threads && openblas.get_threads() != threads) {
        fprintf(stderr, "error: OpenBLAS runs %d threads where %d were asked for (%s:%d)\n", openblas.get_threads(),
                threads, __FILE__, __LINE__);
        exit(EXIT_CHECK_FAIL);
    }
    openblas.sgemm(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, s->m, s->n, s->k, 1.0f, a, s->lda, b, s->ldb,
                   0.0f, c, s->ldc);
}
