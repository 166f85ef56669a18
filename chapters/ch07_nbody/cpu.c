/* cpu.c - ch07's CPU stages: scalar, AVX2 + FMA, AVX2 on every core, and
 * AVX-512 on every core: in pieces, with the Newton step folded, two vectors
 * of targets a source, the mass folded into the factor's constants, and each
 * pair once (the force on j from the force on i): in blocks of two tiles, of
 * eight, and of eight with the compiler's instruction scheduler. */
#define _GNU_SOURCE
/* common/'s headers, not problem.h, which brings in the CUDA runtime's: ch11's
 * ring exercise compiles this file with mpicc alone (tests/test_ex_ch11.c). */
#include "../../common/cli.h"
#include "../../common/cpu_ceiling.h"
#include "../../common/nbody/nbody.h"
#include "../../common/report.h"
#include "../../common/team.h"

#include <immintrin.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Targets [i0, i1) of t pulled by the ns bodies of src (ch07's stages: both
 * all n bodies), each sum started from zero, or from a[i] (add = 1: ch11's
 * ranks sum the other ranks' blocks one at a time). */
static void scalar_range(const body *t, const body *src, int ns, vec3 *a, int i0, int i1, int add)
{
    for (int i = i0; i < i1; i++) {
        vec3 acc = add ? a[i] : (vec3){0, 0, 0};
        for (int j = 0; j < ns; j++)
            body_body_accel(&acc, t[i], src[j]);
        a[i] = acc;
    }
}

void cpu_scalar_forces(const body *b, vec3 *a, int n, int threads)
{
    (void)threads;
    scalar_range(b, b, n, a, 0, n, 0);
}

int cpu_simd_supported(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

/* Targets i0 .. i0+7 in the 8 lanes; every source j broadcast to all lanes.
 * The reciprocal square root is _mm256_rsqrt_ps (12 bits) plus one Newton
 * step (about 23 bits), as a GPU's rsqrtf does in hardware. The sums are
 * written, or added to a (add = 1), after the loop: the loop is the same. */
__attribute__((target("avx2,fma"))) static void simd_block(const body *t, const body *src, int ns, vec3 *a, int i0,
                                                           int add)
{
    float xs[8], ys[8], zs[8];
    for (int k = 0; k < 8; k++) {
        xs[k] = t[i0 + k].x;
        ys[k] = t[i0 + k].y;
        zs[k] = t[i0 + k].z;
    }
    __m256 xi = _mm256_loadu_ps(xs), yi = _mm256_loadu_ps(ys), zi = _mm256_loadu_ps(zs);
    __m256 ax = _mm256_setzero_ps(), ay = _mm256_setzero_ps(), az = _mm256_setzero_ps();
    const __m256 eps2 = _mm256_set1_ps(SOFTENING2), half = _mm256_set1_ps(0.5f), three_halves = _mm256_set1_ps(1.5f);
    for (int j = 0; j < ns; j++) {
        __m256 rx = _mm256_sub_ps(_mm256_set1_ps(src[j].x), xi);
        __m256 ry = _mm256_sub_ps(_mm256_set1_ps(src[j].y), yi);
        __m256 rz = _mm256_sub_ps(_mm256_set1_ps(src[j].z), zi);
        __m256 d2 = _mm256_fmadd_ps(rz, rz, _mm256_fmadd_ps(ry, ry, _mm256_fmadd_ps(rx, rx, eps2)));
        __m256 inv = _mm256_rsqrt_ps(d2);
        /* Newton: inv = inv * (1.5 - 0.5 d2 inv^2) */
        inv = _mm256_mul_ps(inv, _mm256_fnmadd_ps(_mm256_mul_ps(half, d2), _mm256_mul_ps(inv, inv), three_halves));
        __m256 s = _mm256_mul_ps(_mm256_set1_ps(src[j].m), _mm256_mul_ps(inv, _mm256_mul_ps(inv, inv)));
        ax = _mm256_fmadd_ps(rx, s, ax);
        ay = _mm256_fmadd_ps(ry, s, ay);
        az = _mm256_fmadd_ps(rz, s, az);
    }
    _mm256_storeu_ps(xs, ax);
    _mm256_storeu_ps(ys, ay);
    _mm256_storeu_ps(zs, az);
    for (int k = 0; k < 8; k++)
        a[i0 + k] = add ? (vec3){a[i0 + k].x + xs[k], a[i0 + k].y + ys[k], a[i0 + k].z + zs[k]}
                        : (vec3){xs[k], ys[k], zs[k]};
}

/* Targets [i0, i1): blocks of 8 with AVX2, the rest (fewer than 8) scalar. */
static void simd_range(const body *t, const body *src, int ns, vec3 *a, int i0, int i1, int add)
{
    int i = i0;
    for (; i + 8 <= i1; i += 8)
        simd_block(t, src, ns, a, i, add);
    scalar_range(t, src, ns, a, i, i1, add);
}

void cpu_simd_forces(const body *b, vec3 *a, int n, int threads)
{
    (void)threads;
    simd_range(b, b, n, a, 0, n, 0);
}

/* ch11's CPU ranks (its forces.h declares it): the nt targets pulled by one
 * block of ns sources, checked for AVX2 here since no stage row does it. */
void cpu_simd_block_forces(const body *targets, int nt, const body *sources, int ns, vec3 *a, int add)
{
    if (cpu_simd_supported())
        simd_range(targets, sources, ns, a, 0, nt, add);
    else
        scalar_range(targets, sources, ns, a, 0, nt, add);
}

typedef struct {
    const body *b;
    vec3 *a;
    int n;
} work;

/* Thread t of T: a contiguous range of bodies, cut at multiples of 8. */
static void simd_worker(void *p, int t, int threads)
{
    work *w = p;
    int blocks = (w->n + 7) / 8;
    int i0 = 8 * (int)((long)blocks * t / threads), i1 = 8 * (int)((long)blocks * (t + 1) / threads);
    simd_range(w->b, w->b, w->n, w->a, i0 < w->n ? i0 : w->n, i1 < w->n ? i1 : w->n, 0);
}

void cpu_simd_threads_forces(const body *b, vec3 *a, int n, int threads)
{
    work w = {b, a, n};
    team_run(threads, simd_worker, &w);
}

/* 16 targets' coordinates as three vectors, and their accelerations back. */
__attribute__((target("avx512f"), always_inline)) static inline void load_targets(const body *b, __m512 t[3])
{
    float xs[16], ys[16], zs[16];
    for (int k = 0; k < 16; k++)
        xs[k] = b[k].x, ys[k] = b[k].y, zs[k] = b[k].z;
    t[0] = _mm512_loadu_ps(xs), t[1] = _mm512_loadu_ps(ys), t[2] = _mm512_loadu_ps(zs);
}

__attribute__((target("avx512f"), always_inline)) static inline void store_forces(vec3 *a, const __m512 acc[3])
{
    float xs[16], ys[16], zs[16];
    _mm512_storeu_ps(xs, acc[0]), _mm512_storeu_ps(ys, acc[1]), _mm512_storeu_ps(zs, acc[2]);
    for (int k = 0; k < 16; k++)
        a[k] = (vec3){xs[k], ys[k], zs[k]};
}

/* What every AVX-512 block of targets reads: all n bodies, and for the
 * blocks that use it (cpu-avx512-mass-table's) 0.6 m a body, else NULL. */
typedef struct {
    const body *b;
    const float *mass06;
    int n;
} sources;

/* AVX-512: 16 targets in the lanes, the rest as simd_block. The source's
 * coordinates are broadcast from memory inside the subtraction (AVX-512's
 * embedded broadcast: no separate instruction), and _mm512_rsqrt14_ps is
 * good to 14 bits, so one Newton step gives about 24. */
__attribute__((target("avx512f"))) static void simd512_block(const sources *src, vec3 *a, int i0)
{
    const body *b = src->b;
    int n = src->n;
    __m512 t[3];
    load_targets(b + i0, t);
    __m512 xi = t[0], yi = t[1], zi = t[2];
    __m512 ax = _mm512_setzero_ps(), ay = _mm512_setzero_ps(), az = _mm512_setzero_ps();
    const __m512 eps2 = _mm512_set1_ps(SOFTENING2), half = _mm512_set1_ps(0.5f), three_halves = _mm512_set1_ps(1.5f);
    for (int j = 0; j < n; j++) {
        __m512 rx = _mm512_sub_ps(_mm512_set1_ps(b[j].x), xi);
        __m512 ry = _mm512_sub_ps(_mm512_set1_ps(b[j].y), yi);
        __m512 rz = _mm512_sub_ps(_mm512_set1_ps(b[j].z), zi);
        __m512 d2 = _mm512_fmadd_ps(rz, rz, _mm512_fmadd_ps(ry, ry, _mm512_fmadd_ps(rx, rx, eps2)));
        __m512 inv = _mm512_rsqrt14_ps(d2);
        inv = _mm512_mul_ps(inv, _mm512_fnmadd_ps(_mm512_mul_ps(half, d2), _mm512_mul_ps(inv, inv), three_halves));
        __m512 s = _mm512_mul_ps(_mm512_set1_ps(b[j].m), _mm512_mul_ps(inv, _mm512_mul_ps(inv, inv)));
        ax = _mm512_fmadd_ps(rx, s, ax);
        ay = _mm512_fmadd_ps(ry, s, ay);
        az = _mm512_fmadd_ps(rz, s, az);
    }
    store_forces(a + i0, (const __m512[3]){ax, ay, az});
}

/* Thread t of T: a contiguous range of bodies cut at multiples of 16, blocks
 * of 16 with AVX-512, what is left as simd_range does it. */
static void simd512_worker(void *p, int t, int threads)
{
    work *w = p;
    int blocks = (w->n + 15) / 16;
    int i0 = 16 * (int)((long)blocks * t / threads), i1 = 16 * (int)((long)blocks * (t + 1) / threads);
    i0 = i0 < w->n ? i0 : w->n, i1 = i1 < w->n ? i1 : w->n;
    int i = i0;
    for (; i + 16 <= i1; i += 16)
        simd512_block(&(sources){w->b, NULL, w->n}, w->a, i);
    simd_range(w->b, w->b, w->n, w->a, i, i1, 0);
}

/* Where the CPU has no AVX-512 (or CPU_ISA=avx2 asks), the AVX2 stage's work:
 * its row's note says which ran (cpu_isa_note; cpu-avx512-scheduled's:
 * cpu_scheduled_note). */
void cpu_avx512_threads_forces(const body *b, vec3 *a, int n, int threads)
{
    work w = {b, a, n};
    team_run(threads, strcmp(cpu_widest_isa(), "avx512") == 0 ? simd512_worker : simd_worker, &w);
}

/* What the AVX-512 interactions from cpu-avx512-folded on begin with (their
 * changes lie between): r = source - target, 16 pairs at once, and
 * d2 = |r|^2 + eps^2 as three FMAs started from eps^2. */
__attribute__((target("avx512f"), always_inline)) static inline __m512 separation_of(__m512 sx, __m512 sy, __m512 sz,
                                                                                    const __m512 t[3], __m512 r[3])
{
    const __m512 eps2 = _mm512_set1_ps(SOFTENING2);
    r[0] = _mm512_sub_ps(sx, t[0]);
    r[1] = _mm512_sub_ps(sy, t[1]);
    r[2] = _mm512_sub_ps(sz, t[2]);
    return _mm512_fmadd_ps(r[2], r[2], _mm512_fmadd_ps(r[1], r[1], _mm512_fmadd_ps(r[0], r[0], eps2)));
}

/* One source for 16 targets: its coordinates broadcast from memory. */
__attribute__((target("avx512f"), always_inline)) static inline __m512 separation(const body *bj, const __m512 t[3],
                                                                                 __m512 r[3])
{
    return separation_of(_mm512_set1_ps(bj->x), _mm512_set1_ps(bj->y), _mm512_set1_ps(bj->z), t, r);
}

/* ... and ends with: acc += r s, three FMAs. */
__attribute__((target("avx512f"), always_inline)) static inline void accumulate(const __m512 r[3], __m512 s,
                                                                                __m512 acc[3])
{
    acc[0] = _mm512_fmadd_ps(r[0], s, acc[0]);
    acc[1] = _mm512_fmadd_ps(r[1], s, acc[1]);
    acc[2] = _mm512_fmadd_ps(r[2], s, acc[2]);
}

/* ---- cpu-avx512-folded: the Newton step folded into the cube. After
 * rsqrt14, y0 = (1 - e)^(1/2) / d with |e| < 2^-13, where e = 1 - d2 y0^2.
 * The Newton step makes y1 = y0 (1 + e/2), and the force wants y1^3 =
 * y0^3 (1 + e/2)^3 = y0^3 (1 + 1.5 e) + O(e^2) = y0^3 (2.5 - 1.5 d2 y0^2),
 * exact to within 0.75 e^2 < 2^-26, under float's rounding: the same
 * accuracy as the step done first and cubed after, with one instruction
 * fewer (16 an interaction: 3 subtractions, 3 FMAs for d2, rsqrt14, y0^2,
 * d2 y0^2, the factor, three products with the mass, 3 FMAs). */
__attribute__((target("avx512f"), always_inline)) static inline void folded_interaction(const body *bj,
                                                                                        const __m512 t[3],
                                                                                        __m512 acc[3])
{
    const __m512 three_halves = _mm512_set1_ps(1.5f), five_halves = _mm512_set1_ps(2.5f);
    __m512 r[3], d2 = separation(bj, t, r);
    __m512 y = _mm512_rsqrt14_ps(d2), y2 = _mm512_mul_ps(y, y);
    __m512 factor = _mm512_fnmadd_ps(_mm512_mul_ps(d2, y2), three_halves, five_halves);
    accumulate(r, _mm512_mul_ps(_mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(bj->m), y), y2), factor), acc);
}

__attribute__((target("avx512f"))) static void folded_block(const sources *src, vec3 *a, int i0)
{
    const body *b = src->b;
    int n = src->n;
    __m512 t[3], acc[3] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
    load_targets(b + i0, t);
    for (int j = 0; j < n; j++)
        folded_interaction(&b[j], t, acc);
    store_forces(a + i0, acc);
}

/* ---- cpu-avx512-two-vectors: 32 targets as two vectors, each source read
 * once for both: its broadcasts shared, and two independent chains of
 * arithmetic for the core to interleave. */
__attribute__((target("avx512f"))) static void two_vector_block(const sources *src, vec3 *a, int i0)
{
    const body *b = src->b;
    int n = src->n;
    __m512 t0[3], t1[3], acc0[3], acc1[3];
    acc0[0] = acc0[1] = acc0[2] = acc1[0] = acc1[1] = acc1[2] = _mm512_setzero_ps();
    load_targets(b + i0, t0);
    load_targets(b + i0 + 16, t1);
    for (int j = 0; j < n; j++) {
        folded_interaction(&b[j], t0, acc0);
        folded_interaction(&b[j], t1, acc1);
    }
    store_forces(a + i0, acc0);
    store_forces(a + i0 + 16, acc1);
}

/* y^3 (the rsqrt14 estimate cubed) and u = d2 y^2: what the factors of
 * cpu-avx512-mass-table and cpu-avx512-symmetric are made from. */
__attribute__((target("avx512f"), always_inline)) static inline __m512 cube_estimate(__m512 d2, __m512 *u)
{
    __m512 y = _mm512_rsqrt14_ps(d2), y2 = _mm512_mul_ps(y, y);
    *u = _mm512_mul_ps(d2, y2);
    return _mm512_mul_ps(y, y2);
}

/* ---- cpu-avx512-mass-table: the mass folded into the factor's constants.
 * m y^3 (2.5 - 1.5 u) = 2.5 y^3 (m - 0.6 m u), u = d2 y^2: with 0.6 m read
 * from a table made once a call (n floats) and m from the body, the factor
 * is one FMA whose two per-source operands come from memory (broadcast loads,
 * each serving both vectors of targets: the load ports' work, not the FMA
 * pipes'), and the multiply by the mass is gone: 15 vector instructions an
 * interaction. The 2.5 is applied once per target, at the end. */
__attribute__((target("avx512f"), always_inline)) static inline void table_interaction(const body *bj,
                                                                                       const float *mass06,
                                                                                       const __m512 t[3],
                                                                                       __m512 acc[3])
{
    __m512 r[3], d2 = separation(bj, t, r), u, y3 = cube_estimate(d2, &u);
    __m512 factor = _mm512_fnmadd_ps(u, _mm512_set1_ps(*mass06), _mm512_set1_ps(bj->m));
    accumulate(r, _mm512_mul_ps(y3, factor), acc);
}

__attribute__((target("avx512f"))) static void mass_table_block(const sources *src, vec3 *a, int i0)
{
    const body *b = src->b;
    const float *mass06 = src->mass06;
    int n = src->n;
    __m512 t0[3], t1[3], acc0[3], acc1[3];
    acc0[0] = acc0[1] = acc0[2] = acc1[0] = acc1[1] = acc1[2] = _mm512_setzero_ps();
    load_targets(b + i0, t0);
    load_targets(b + i0 + 16, t1);
    for (int j = 0; j < n; j++) {
        table_interaction(&b[j], &mass06[j], t0, acc0);
        table_interaction(&b[j], &mass06[j], t1, acc1);
    }
    const __m512 five_halves = _mm512_set1_ps(2.5f);
    for (int k = 0; k < 3; k++)
        acc0[k] = _mm512_mul_ps(acc0[k], five_halves), acc1[k] = _mm512_mul_ps(acc1[k], five_halves);
    store_forces(a + i0, acc0);
    store_forces(a + i0 + 16, acc1);
}

/* Pieces on demand: each thread takes the next PIECE_BODIES targets nobody
 * has taken until none is left, instead of one fixed range: on a virtual
 * machine's cores, unequal in speed, no thread then waits for the slowest. */
#define PIECE_BODIES 64

typedef void block_fn(const sources *src, vec3 *a, int i0);

typedef struct {
    sources src;
    vec3 *a;
    atomic_int next; /* the first target of the next piece nobody has taken */
    block_fn *block; /* `width` targets at a time with AVX-512; NULL: the AVX2 stage's code, as
                      * cpu-avx512-threads falls back */
    int width;
} pieces;

static void pieces_worker(void *p, int t, int threads)
{
    (void)t, (void)threads;
    pieces *w = p;
    int i0, n = w->src.n;
    while ((i0 = atomic_fetch_add(&w->next, PIECE_BODIES)) < n) {
        int i1 = n - i0 < PIECE_BODIES ? n : i0 + PIECE_BODIES, i = i0;
        for (; w->block && i + w->width <= i1; i += w->width)
            w->block(&w->src, w->a, i);
        simd_range(w->src.b, w->src.b, n, w->a, i, i1, 0);
    }
}

static void in_pieces(const body *b, vec3 *a, int n, int threads, block_fn *block, int width, const float *mass06)
{
    static pieces w; /* static: one stage at a time (team_run is not reentrant) */
    w.src = (sources){b, mass06, n}, w.a = a, w.width = width;
    w.block = strcmp(cpu_widest_isa(), "avx512") == 0 ? block : NULL;
    atomic_store(&w.next, 0);
    team_run(threads, pieces_worker, &w);
}

void cpu_avx512_pieces_forces(const body *b, vec3 *a, int n, int threads)
{
    in_pieces(b, a, n, threads, simd512_block, 16, NULL);
}

void cpu_avx512_folded_forces(const body *b, vec3 *a, int n, int threads)
{
    in_pieces(b, a, n, threads, folded_block, 16, NULL);
}

void cpu_avx512_two_vectors_forces(const body *b, vec3 *a, int n, int threads)
{
    in_pieces(b, a, n, threads, two_vector_block, 32, NULL);
}

/* The table is made on every call, inside the timed work: n floats against n^2 interactions. */
void cpu_avx512_mass_table_forces(const body *b, vec3 *a, int n, int threads)
{
    float *mass06 = cli_alloc((size_t)(n > 0 ? n : 1) * sizeof(float), "the mass table");
    for (int j = 0; j < n; j++)
        mass06[j] = 0.6f * b[j].m;
    in_pieces(b, a, n, threads, mass_table_block, 32, mass06);
    free(mass06);
}

/* ---- cpu-avx512-symmetric: each pair once. The force on j is minus the
 * force on i with m_i for m_j (Newton's third law), so one r, d2 and y^3
 * serve both. Bodies in tiles of 16; a block of two target tiles meets each
 * later tile of sources 16 times, the sources turned one lane further each
 * time: at turn k, lane l pairs target l with source (l + k) mod 16, so every
 * lane meets every source once. The sources are loaded from their tile
 * written twice over (x0..x15 x0..x15: 16 floats from offset k); the
 * reaction's three sums turn with them, a permute each a turn. A pair: the
 * mass table's 15 vector instructions for the force on i, 5 for the force on
 * j (its factor, s, three FMAs), and the turn's 3 permutes shared by the
 * block's two vectors of targets: 21.5 arithmetic instructions for two
 * interactions, against 30.
 *
 * ---- cpu-avx512-eight-tiles: blocks of 8 target tiles, not 2. The permutes
 * are shared 8 ways (20.4 instructions a pair), and each turn holds 8
 * independent chains of arithmetic for the core to interleave, not 2; the
 * 24 sums of the targets no longer fit in the 32 registers, and the compiler
 * keeps some in memory (loads and stores: the load and store ports' work,
 * not the FMA pipes').
 *
 * ---- cpu-avx512-scheduled: the same block, compiled with gcc's instruction
 * scheduler run before register allocation (-fschedule-insns, with
 * -fsched-pressure to weigh the registers: off by default on x86, whose
 * cores reorder instructions themselves). As written, a turn is 8 chains of
 * about 20 dependent instructions, one after another, and gcc emits them in
 * that order (a turn's 8 rsqrt14 at instructions 14 to 188 of 208). The
 * likely cost: the core takes instructions in program order into a
 * scheduler of limited size, which can fill with the first chains' waiting
 * instructions while the later chains' ready ones queue behind them. Scheduled, the chains are
 * interleaved (the 8 rsqrt14 at 34 to 166 of 214), at the price of more sums
 * kept in memory (24 stores a turn, not 10). Counted in gcc 12's -O2
 * output; clang has no such pragma, and built with clang this stage's block
 * is eight-tiles'.
 *
 * Each thread adds its targets' sums and its reactions into sums of its own
 * (every body's, zeroed first), added up at the end, inside the timed work;
 * which thread takes which block varies, so the last bits of a result may
 * differ from run to run. */
enum { TILE = 16, WIDEST = 8, ROW_X = 0, ROW_Y = 32, ROW_Z = 64, ROW_M = 96, ROW_M06 = 128, TILE_FLOATS = 160,
       SUM_FLOATS = 48 };

/* sums (x[16], y[16], z[16]) += v */
__attribute__((target("avx512f"), always_inline)) static inline void add_to_sums(float *sums, const __m512 v[3])
{
    _mm512_storeu_ps(sums, _mm512_add_ps(_mm512_loadu_ps(sums), v[0]));
    _mm512_storeu_ps(sums + TILE, _mm512_add_ps(_mm512_loadu_ps(sums + TILE), v[1]));
    _mm512_storeu_ps(sums + 2 * TILE, _mm512_add_ps(_mm512_loadu_ps(sums + 2 * TILE), v[2]));
}

/* One turn: the 16 targets of tile t (x, y, z, m, 0.6 m: the first copy of
 * each row) against the sources loaded from src; the force on the targets
 * into acc, the reaction into react. */
__attribute__((target("avx512f"), always_inline)) static inline void pair_turn(const float *src, const float *t,
                                                                               __m512 acc[3], __m512 react[3])
{
    const __m512 targets[3] = {_mm512_loadu_ps(t + ROW_X), _mm512_loadu_ps(t + ROW_Y), _mm512_loadu_ps(t + ROW_Z)};
    __m512 r[3], d2 = separation_of(_mm512_loadu_ps(src + ROW_X), _mm512_loadu_ps(src + ROW_Y),
                                    _mm512_loadu_ps(src + ROW_Z), targets, r);
    __m512 u, y3 = cube_estimate(d2, &u);
    __m512 on_i = _mm512_mul_ps(y3, _mm512_fnmadd_ps(u, _mm512_loadu_ps(src + ROW_M06), _mm512_loadu_ps(src + ROW_M)));
    __m512 on_j = _mm512_mul_ps(y3, _mm512_fnmadd_ps(u, _mm512_loadu_ps(t + ROW_M06), _mm512_loadu_ps(t + ROW_M)));
    accumulate(r, on_i, acc);
    react[0] = _mm512_fnmadd_ps(r[0], on_j, react[0]);
    react[1] = _mm512_fnmadd_ps(r[1], on_j, react[1]);
    react[2] = _mm512_fnmadd_ps(r[2], on_j, react[2]);
}

/* `vectors` target tiles from t (a constant once inlined, so the loop over
 * them is unrolled and each sum is a variable of its own) against the source
 * tile at src, all 16 turns; the reaction added to the source tile's sums. */
__attribute__((target("avx512f"), always_inline)) static inline void meet_tile(const float *src, const float *t,
                                                                               int vectors, __m512 acc[][3],
                                                                               float *sums)
{
    const __m512i turn = _mm512_set_epi32(0, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1); /* lane l <- l + 1 */
    __m512 react[3] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
    for (int k = 0; k < TILE; k++) {
#pragma GCC unroll 8
        for (int v = 0; v < vectors; v++)
            pair_turn(src + k, t + v * TILE_FLOATS, acc[v], react);
        react[0] = _mm512_permutexvar_ps(turn, react[0]);
        react[1] = _mm512_permutexvar_ps(turn, react[1]);
        react[2] = _mm512_permutexvar_ps(turn, react[2]);
    }
    add_to_sums(sums, react);
}

/* A tile with itself: turns 1 to 15 (turn 0 is each body with itself), onto
 * the targets only; each pair is met twice, once from each side. */
__attribute__((target("avx512f"), always_inline)) static inline void meet_self(const float *t, __m512 acc[3])
{
    __m512 unused[3] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
    for (int k = 1; k < TILE; k++)
        pair_turn(t + k, t, acc, unused);
}

/* The block of `width` tiles from `first` (2 or 8, a constant once inlined):
 * each with itself and with the later ones of the block, one vector of
 * targets at a time; then all of them against every later tile, sharing each
 * turn's permutes; the targets' sums added after each part. */
__attribute__((target("avx512f"), always_inline)) static inline void symmetric_block(const float *tiles, int count,
                                                                                     int first, int width,
                                                                                     float *sums)
{
    const float *block = tiles + (size_t)first * TILE_FLOATS;
    for (int a = 0; a < width; a++) {
        __m512 acc[1][3] = {{_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()}};
        meet_self(block + a * TILE_FLOATS, acc[0]);
        for (int b = a + 1; b < width; b++)
            meet_tile(block + b * TILE_FLOATS, block + a * TILE_FLOATS, 1, acc, sums + (size_t)(first + b) * SUM_FLOATS);
        add_to_sums(sums + (size_t)(first + a) * SUM_FLOATS, acc[0]);
    }
    __m512 acc[WIDEST][3];
#pragma GCC unroll 8
    for (int v = 0; v < width; v++)
        acc[v][0] = acc[v][1] = acc[v][2] = _mm512_setzero_ps();
    for (int j = first + width; j < count; j++)
        meet_tile(tiles + (size_t)j * TILE_FLOATS, block, width, acc, sums + (size_t)j * SUM_FLOATS);
#pragma GCC unroll 8
    for (int v = 0; v < width; v++)
        add_to_sums(sums + (size_t)(first + v) * SUM_FLOATS, acc[v]);
}

typedef void tile_block_fn(const float *tiles, int count, int first, float *sums);

__attribute__((target("avx512f"))) static void block_of_two(const float *tiles, int count, int first, float *sums)
{
    symmetric_block(tiles, count, first, 2, sums);
}

__attribute__((target("avx512f"))) static void block_of_eight(const float *tiles, int count, int first, float *sums)
{
    symmetric_block(tiles, count, first, 8, sums);
}

/* cpu-avx512-scheduled: the same block, with gcc's scheduler before register
 * allocation (clang has no such pragma: the block is eight-tiles' there). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("schedule-insns", "sched-pressure")
#endif
__attribute__((target("avx512f"))) static void block_of_eight_scheduled(const float *tiles, int count, int first,
                                                                        float *sums)
{
    symmetric_block(tiles, count, first, 8, sums);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif

typedef struct {
    const body *b;
    vec3 *a;
    int n, count;  /* bodies, tiles */
    int width;     /* tiles a block */
    tile_block_fn *block;
    float *tiles;  /* count x TILE_FLOATS: x, y, z, m, 0.6 m, each row twice; count a multiple of width,
                    * the tiles padded with bodies of mass 0 at the origin, which pull nothing */
    float *sums;   /* threads x count x SUM_FLOATS: each thread's x, y, z sums of every body */
    atomic_int next; /* the first tile of the next block nobody has taken */
} symmetric_work;

/* Thread t: its sums zeroed, and its share of the tiles written. */
static void symmetric_prepare(void *p, int t, int threads)
{
    symmetric_work *w = p;
    memset(w->sums + (size_t)t * w->count * SUM_FLOATS, 0, (size_t)w->count * SUM_FLOATS * sizeof(float));
    for (int j = (int)((long)w->count * t / threads); j < (int)((long)w->count * (t + 1) / threads); j++) {
        float *tile = w->tiles + (size_t)j * TILE_FLOATS;
        for (int l = 0; l < TILE; l++) {
            int i = TILE * j + l;
            body bi = i < w->n ? w->b[i] : (body){0, 0, 0, 0};
            const float row[5] = {bi.x, bi.y, bi.z, bi.m, 0.6f * bi.m};
            for (int c = 0; c < 5; c++)
                tile[2 * TILE * c + l] = tile[2 * TILE * c + TILE + l] = row[c];
        }
    }
}

/* Blocks on demand, the largest (the first) first. */
static void symmetric_worker(void *p, int t, int threads)
{
    (void)threads;
    symmetric_work *w = p;
    float *sums = w->sums + (size_t)t * w->count * SUM_FLOATS;
    int first;
    while ((first = atomic_fetch_add(&w->next, w->width)) < w->count)
        w->block(w->tiles, w->count, first, sums);
}

/* Thread t's share of the bodies: every thread's sums added, times 2.5. */
static void symmetric_finish(void *p, int t, int threads)
{
    symmetric_work *w = p;
    for (int i = (int)((long)w->n * t / threads); i < (int)((long)w->n * (t + 1) / threads); i++) {
        const float *s = w->sums + (size_t)(i / TILE) * SUM_FLOATS + i % TILE;
        float sum[3] = {0, 0, 0};
        for (int u = 0; u < threads; u++, s += (size_t)w->count * SUM_FLOATS)
            for (int c = 0; c < 3; c++)
                sum[c] += s[TILE * c];
        w->a[i] = (vec3){2.5f * sum[0], 2.5f * sum[1], 2.5f * sum[2]};
    }
}

/* The tiles and sums are made on every call, inside the timed work. Without
 * AVX-512, the AVX2 stage's work, as the other AVX-512 stages. */
static void symmetric_forces(const body *b, vec3 *a, int n, int threads, tile_block_fn *block, int width)
{
    if (strcmp(cpu_widest_isa(), "avx512") != 0) {
        in_pieces(b, a, n, threads, NULL, TILE, NULL);
        return;
    }
    static symmetric_work w; /* static: one stage at a time (team_run is not reentrant) */
    w.b = b, w.a = a, w.n = n, w.width = width, w.block = block;
    w.count = (n + TILE * width - 1) / (TILE * width) * width;
    size_t tiles = (size_t)(w.count > 0 ? w.count : 1);
    w.tiles = cli_alloc(tiles * TILE_FLOATS * sizeof(float), "the source tiles");
    w.sums = cli_alloc((size_t)threads * tiles * SUM_FLOATS * sizeof(float), "each thread's sums");
    atomic_store(&w.next, 0);
    team_run(threads, symmetric_prepare, &w);
    team_run(threads, symmetric_worker, &w);
    team_run(threads, symmetric_finish, &w);
    free(w.tiles);
    free(w.sums);
}

void cpu_avx512_symmetric_forces(const body *b, vec3 *a, int n, int threads)
{
    symmetric_forces(b, a, n, threads, block_of_two, 2);
}

void cpu_avx512_eight_tiles_forces(const body *b, vec3 *a, int n, int threads)
{
    symmetric_forces(b, a, n, threads, block_of_eight, 8);
}

void cpu_avx512_scheduled_forces(const body *b, vec3 *a, int n, int threads)
{
    symmetric_forces(b, a, n, threads, block_of_eight_scheduled, 8);
}

void cpu_isa_note(report_row *row)
{
    report_note(row, "; ran with %s", strcmp(cpu_widest_isa(), "avx512") == 0 ? "AVX-512" : "AVX2 (no AVX-512)");
}

void cpu_scheduled_note(report_row *row)
{
    cpu_isa_note(row);
#if defined(__clang__)
    if (strcmp(cpu_widest_isa(), "avx512") == 0)
        report_note(row, "; built by clang, which has no such pragma: eight-tiles' block, not scheduled");
#endif
}
