/* cpu_simd.c - the vectorised CPU stages: a row's rays W at a time, one in
 * each lane of a vector, stepped together by bh.h's own step (its `real`
 * made a vector: every + - * / acts on all lanes at once).
 *
 * chapter.mk builds this file four times: SIMD_REAL float or double, each
 * with -mavx512f (64-byte vectors: 16 or 8 rays) and with -mavx2 (32 bytes:
 * 8 or 4), and cpu.c calls the widest this CPU has (cpu_widest_isa). The
 * function it defines is SIMD_NAME. Nothing here runs unless chosen, so an
 * object built for AVX-512 is safe to link on any x86-64.
 *
 * The one change from the scalar stage: the step runs in the lanes. Each
 * operation is still one IEEE operation, rounded on its own (-ffp-contract=off,
 * and + - * / on vectors are exact lane by lane), so each lane computes what
 * trace_ray computes for its ray: the image is the scalar stage's, byte for
 * byte (tests/test_ch10.c). The price: a vector steps until its last ray has
 * finished, and the lanes whose ray has finished step along for nothing.
 * What happens once, at a ray's start and end (the camera's tan and sqrt, the
 * sky's atan2, asin, cos and sin), stays per ray, in the lane's own scalar
 * code. */
#include "render.h"

#include <immintrin.h>
#include <string.h>
#include <tgmath.h> /* float functions for float, as cpu_float.c */

#ifndef SIMD_REAL
#error "chapter.mk builds cpu_simd.c with -DSIMD_REAL=float|double and -DSIMD_NAME=..."
#endif

#ifdef __AVX512F__
#define VBYTES 64
#else
#define VBYTES 32
#endif
#define W ((int)(VBYTES / sizeof(SIMD_REAL))) /* rays per vector */

typedef SIMD_REAL vreal __attribute__((vector_size(VBYTES)));
/* a lane mask: all ones or zero per lane, integer lanes as wide as the reals
 * (a comparison's result, cast to it: its own type differs between compilers) */
typedef __typeof__(__builtin_choose_expr(sizeof(SIMD_REAL) == 8, (long long)0, 0)) lane_int;
typedef lane_int vmask __attribute__((vector_size(VBYTES)));
#define SPLAT(x) ((vreal){0} + (SIMD_REAL)(x)) /* x in every lane */

/* ---- the step, on vectors: bh.h's text, `real` a vector, R(x) broadcast */
#define real vreal
#define R(x) SPLAT(x)
#define BH_FN static inline
#define BH_STEP_ONLY
#define step_by_hand vector_step
#define step_length vector_step_length
#include "bh.h"
#undef real
#undef R
#undef BH_STEP_ONLY
#undef step_by_hand
#undef step_length

/* ---- the rest of a ray, per lane: bh.h again, `real` a scalar */
typedef SIMD_REAL real;
#define R(x) ((SIMD_REAL)(x))
#include "bh.h"

/* Whether any lane of m is set. */
static inline int any(vmask m)
{
#ifdef __AVX512F__
    return _mm512_test_epi64_mask((__m512i)m, (__m512i)m) != 0;
#else
    return !_mm256_testz_si256((__m256i)m, (__m256i)m);
#endif
}

enum { RUNNING, FELL, ESCAPED, NO_RAY };

/* One vector of rays, the pixels col0 .. col0 + W - 1 of the row (past the
 * image's edge: a copy of its last pixel, traced and dropped). Writes each
 * lane's colour (0..1, three per lane) and returns how many went NaN. */
static long trace_vector(int col0, int row, int width, int height, double *rgb)
{
    SIMD_REAL E[W], L[W], pr0[W], tx[W], ty[W], end_r[W], end_phi[W], end_pr[W];
    int fate[W];
    vmask active = {0};
    for (int k = 0; k < W; k++) {
        int col = col0 + k < width ? col0 + k : width - 1;
        tx[k] = ty[k] = 0;
        fate[k] = camera_ray(col, row, width, height, &E[k], &L[k], &pr0[k], &tx[k], &ty[k]) ? RUNNING : NO_RAY;
        active[k] = fate[k] == RUNNING ? -1 : 0;
    }
    vreal r = SPLAT(BH_R0), phi = SPLAT(0), pr, vE, vL;
    const vreal horizon = SPLAT(BH_HORIZON_STOP), escape = SPLAT(BH_ESCAPE), zero = SPLAT(0);
    memcpy(&pr, pr0, sizeof pr);
    memcpy(&vE, E, sizeof vE);
    memcpy(&vL, L, sizeof vL);
    for (int n = 1; n <= BH_MAX_STEPS && any(active); n++) {
        vector_step(&r, &phi, &pr, vE, vL, vector_step_length(r));
        vmask fell = ~(vmask)(r > horizon) & active, out = (vmask)(r > escape) & (vmask)(pr > zero) & ~fell & active;
        if (!any(fell | out))
            continue;
        for (int k = 0; k < W; k++) /* a ray ends: its state kept, its lane parked at the start */
            if (fell[k] || out[k]) {
                fate[k] = fell[k] ? FELL : ESCAPED;
                end_r[k] = r[k], end_phi[k] = phi[k], end_pr[k] = pr[k];
                active[k] = 0;
                r[k] = R(BH_R0), phi[k] = 0, pr[k] = pr0[k]; /* finite from here on: no NaN, no subnormals */
            }
    }
    long bad = 0;
    for (int k = 0; k < W; k++) {
        SIMD_REAL c[3] = {0, 0, 0}; /* black: fell in, never left, or the centre's ray */
        if (fate[k] == ESCAPED)
            escaped_colour(end_r[k], end_phi[k], end_pr[k], L[k], tx[k], ty[k], c);
        else if (fate[k] == FELL && end_r[k] != end_r[k])
            bad += col0 + k < width; /* NaN (trace_ray's 0) */
        for (int j = 0; j < 3; j++)
            rgb[3 * k + j] = c[j];
    }
    return bad;
}

long SIMD_NAME(int row, int width, int height, unsigned char *out)
{
    long bad = 0;
    for (int col0 = 0; col0 < width; col0 += W) {
        double c[3 * W];
        bad += trace_vector(col0, row, width, height, c);
        for (int k = 0; k < W && col0 + k < width; k++)
            for (int j = 0; j < 3; j++)
                out[3 * (col0 + k) + j] = colour_byte(c[3 * k + j]);
    }
    return bad;
}
