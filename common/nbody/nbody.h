/* nbody.h - the N-body core ch07 and ch11 share (ch09 compiles ch07's
 * kernels against it too): the bodies, the 20-flop interaction, leapfrog
 * integration, the fixed-seed initial state, and the check against a
 * double-precision reference (check.c).
 *
 * Units: G = 1. Positions uniform in [-1, 1]^3, masses uniform in
 * [0.5, 1.5] / n, velocities zero, from a fixed-seed generator (seed 0x7B0D7).
 * Softened gravity: a_i = sum_j m_j r_ij / (|r_ij|^2 + eps^2)^(3/2), r_ij =
 * p_j - p_i, with eps^2 = 1e-4 (eps = 0.01, a quarter of the mean spacing of
 * 2^17 bodies). Softening keeps close pairs finite and makes j = i add exactly
 * zero (r = 0), so no loop needs a branch for it.
 *
 * Rates count 20 flops per interaction: a convention (the GPU N-body literature
 * and NVIDIA's sample use it), not this code's count. 3 subtractions, 3
 * multiply-adds for r.r + eps^2 (6), the cube and the mass (3), 3 multiply-adds
 * into the sum (6): 18, and the reciprocal square root counted as 2.
 */
#ifndef COMMON_NBODY_H
#define COMMON_NBODY_H

#include <math.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SOFTENING2 1e-4f
#define FLOPS_PER_INTERACTION 20.0
#define DT 1e-4f /* the time step of every run */

typedef struct {
    float x, y, z, m; /* 16 bytes: loads as one float4 on the GPU */
} body;

typedef struct {
    float x, y, z;
} vec3;

#ifdef __CUDACC__
#define NBODY_FN __host__ __device__ static inline
#else
#define NBODY_FN static inline
#endif

/* a += the acceleration body j gives body i. */
NBODY_FN void body_body_accel(vec3 *a, body bi, body bj)
{
    float rx = bj.x - bi.x, ry = bj.y - bi.y, rz = bj.z - bi.z;
    float d2 = rx * rx + ry * ry + rz * rz + SOFTENING2;
    float inv = 1.0f / sqrtf(d2);
    float s = bj.m * inv * inv * inv;
    a->x += rx * s;
    a->y += ry * s;
    a->z += rz * s;
}

/* Leapfrog (kick-drift) for one body: v += a dt, then p += v dt. */
NBODY_FN void integrate_body(body *b, vec3 *v, vec3 a, float dt)
{
    v->x += a.x * dt;
    v->y += a.y * dt;
    v->z += a.z * dt;
    b->x += v->x * dt;
    b->y += v->y * dt;
    b->z += v->z * dt;
}

/* nbody.c: the initial state (fixed seed); one leapfrog step of bodies
 * [0, n) on the host; whether every position is finite. */
void nbody_init(body *b, vec3 *v, int n);
void nbody_integrate_cpu(body *b, vec3 *v, const vec3 *a, int n, float dt);
int positions_finite(const body *b, int n);

/* The check (check.c): a double-precision reference with compensated sums
 * for every body up to REFERENCE_EVERY_MAX bodies, above it for
 * REFERENCE_PAIRS / n of them, and the normalised error of a float result
 * against it; check.c states the bound and what it rests on. */
#define REFERENCE_EVERY_MAX 16384
#define REFERENCE_PAIRS ((double)REFERENCE_EVERY_MAX * REFERENCE_EVERY_MAX)
typedef struct {
    int n, count;      /* count: the bodies compared */
    int *index;        /* [count]: which bodies */
    double (*ref)[3];  /* [count]: their reference forces */
    double *scale;     /* [count]: sum_j |term_j| */
} reference;
void make_reference(reference *r, const body *b, int n); /* allocates (out of memory: exit 1) */
void free_reference(reference *r);
double force_error(const reference *r, const vec3 *a); /* INFINITY on NaN/Inf */
double error_bound(int n);

#ifdef __cplusplus
}
#endif

#endif
