/* cpu.c - ch07's CPU stages: scalar, AVX2 + FMA, AVX2 on every core, and
 * AVX-512 on every core. */
#define _GNU_SOURCE
#include "rows.h"

#include "../../common/cpu_ceiling.h"
#include "../../common/team.h"

#include <immintrin.h>
#include <stdatomic.h>
#include <string.h>

/* Bodies [i0, i1) pulled by all n. */
static void scalar_range(const body *b, int n, vec3 *a, int i0, int i1)
{
    for (int i = i0; i < i1; i++) {
        vec3 acc = {0, 0, 0};
        for (int j = 0; j < n; j++)
            body_body_accel(&acc, b[i], b[j]);
        a[i] = acc;
    }
}

void cpu_scalar_forces(const body *b, vec3 *a, int n, int threads)
{
    (void)threads;
    scalar_range(b, n, a, 0, n);
}

int cpu_simd_supported(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

/* Bodies i0 .. i0+7 in the 8 lanes; every body j broadcast to all lanes.
 * The reciprocal square root is _mm256_rsqrt_ps (12 bits) plus one Newton
 * step (about 23 bits), as a GPU's rsqrtf does in hardware. */
__attribute__((target("avx2,fma"))) static void simd_block(const body *b, int n, vec3 *a, int i0)
{
    float xs[8], ys[8], zs[8];
    for (int k = 0; k < 8; k++) {
        xs[k] = b[i0 + k].x;
        ys[k] = b[i0 + k].y;
        zs[k] = b[i0 + k].z;
    }
    __m256 xi = _mm256_loadu_ps(xs), yi = _mm256_loadu_ps(ys), zi = _mm256_loadu_ps(zs);
    __m256 ax = _mm256_setzero_ps(), ay = _mm256_setzero_ps(), az = _mm256_setzero_ps();
    const __m256 eps2 = _mm256_set1_ps(SOFTENING2), half = _mm256_set1_ps(0.5f), three_halves = _mm256_set1_ps(1.5f);
    for (int j = 0; j < n; j++) {
        __m256 rx = _mm256_sub_ps(_mm256_set1_ps(b[j].x), xi);
        __m256 ry = _mm256_sub_ps(_mm256_set1_ps(b[j].y), yi);
        __m256 rz = _mm256_sub_ps(_mm256_set1_ps(b[j].z), zi);
        __m256 d2 = _mm256_fmadd_ps(rz, rz, _mm256_fmadd_ps(ry, ry, _mm256_fmadd_ps(rx, rx, eps2)));
        __m256 inv = _mm256_rsqrt_ps(d2);
        /* Newton: inv = inv * (1.5 - 0.5 d2 inv^2) */
        inv = _mm256_mul_ps(inv, _mm256_fnmadd_ps(_mm256_mul_ps(half, d2), _mm256_mul_ps(inv, inv), three_halves));
        __m256 s = _mm256_mul_ps(_mm256_set1_ps(b[j].m), _mm256_mul_ps(inv, _mm256_mul_ps(inv, inv)));
        ax = _mm256_fmadd_ps(rx, s, ax);
        ay = _mm256_fmadd_ps(ry, s, ay);
        az = _mm256_fmadd_ps(rz, s, az);
    }
    _mm256_storeu_ps(xs, ax);
    _mm256_storeu_ps(ys, ay);
    _mm256_storeu_ps(zs, az);
    for (int k = 0; k < 8; k++)
        a[i0 + k] = (vec3){xs[k], ys[k], zs[k]};
}

/* Bodies [i0, i1): blocks of 8 with AVX2, the rest (fewer than 8) scalar. */
static void simd_range(const body *b, int n, vec3 *a, int i0, int i1)
{
    int i = i0;
    for (; i + 8 <= i1; i += 8)
        simd_block(b, n, a, i);
    scalar_range(b, n, a, i, i1);
}

void cpu_simd_forces(const body *b, vec3 *a, int n, int threads)
{
    (void)threads;
    simd_range(b, n, a, 0, n);
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
    simd_range(w->b, w->n, w->a, i0 < w->n ? i0 : w->n, i1 < w->n ? i1 : w->n);
}

void cpu_simd_threads_forces(const body *b, vec3 *a, int n, int threads)
{
    work w = {b, a, n};
    team_run(threads, simd_worker, &w);
}

/* AVX-512: 16 targets in the lanes, the rest as simd_block. The source's
 * coordinates are broadcast from memory inside the subtraction (AVX-512's
 * embedded broadcast: no separate instruction), and _mm512_rsqrt14_ps is
 * good to 14 bits, so one Newton step gives about 24. */
__attribute__((target("avx512f"))) static void simd512_block(const body *b, int n, vec3 *a, int i0)
{
    float xs[16], ys[16], zs[16];
    for (int k = 0; k < 16; k++) {
        xs[k] = b[i0 + k].x;
        ys[k] = b[i0 + k].y;
        zs[k] = b[i0 + k].z;
    }
    __m512 xi = _mm512_loadu_ps(xs), yi = _mm512_loadu_ps(ys), zi = _mm512_loadu_ps(zs);
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
    _mm512_storeu_ps(xs, ax);
    _mm512_storeu_ps(ys, ay);
    _mm512_storeu_ps(zs, az);
    for (int k = 0; k < 16; k++)
        a[i0 + k] = (vec3){xs[k], ys[k], zs[k]};
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
        simd512_block(w->b, w->n, w->a, i);
    simd_range(w->b, w->n, w->a, i, i1);
}

/* Where the CPU has no AVX-512 (or CPU_ISA=avx2 asks), the AVX2 stage's work:
 * its row's note says which ran (cpu_isa_note). */
void cpu_avx512_threads_forces(const body *b, vec3 *a, int n, int threads)
{
    work w = {b, a, n};
    team_run(threads, strcmp(cpu_widest_isa(), "avx512") == 0 ? simd512_worker : simd_worker, &w);
}

/* Pieces on demand: each thread takes the next PIECE_BODIES targets nobody
 * has taken until none is left, instead of one fixed range: on a virtual
 * machine's cores, unequal in speed, no thread then waits for the slowest. */
#define PIECE_BODIES 64

typedef struct {
    const body *b;
    vec3 *a;
    int n;
    atomic_int next; /* the first target of the next piece nobody has taken */
    int avx512;      /* else the AVX2 stage's code, as cpu-avx512-threads falls back */
} pieces;

static void pieces_worker(void *p, int t, int threads)
{
    (void)t, (void)threads;
    pieces *w = p;
    int i0;
    while ((i0 = atomic_fetch_add(&w->next, PIECE_BODIES)) < w->n) {
        int i1 = w->n - i0 < PIECE_BODIES ? w->n : i0 + PIECE_BODIES, i = i0;
        for (; w->avx512 && i + 16 <= i1; i += 16)
            simd512_block(w->b, w->n, w->a, i);
        simd_range(w->b, w->n, w->a, i, i1);
    }
}

void cpu_avx512_pieces_forces(const body *b, vec3 *a, int n, int threads)
{
    static pieces w; /* static: one stage at a time (team_run is not reentrant) */
    w.b = b, w.a = a, w.n = n, w.avx512 = strcmp(cpu_widest_isa(), "avx512") == 0;
    atomic_store(&w.next, 0);
    team_run(threads, pieces_worker, &w);
}

void cpu_isa_note(report_row *row)
{
    report_note(row, "; ran with %s", strcmp(cpu_widest_isa(), "avx512") == 0 ? "AVX-512" : "AVX2 (no AVX-512)");
}
