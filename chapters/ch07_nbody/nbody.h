/* nbody.h - ch07's bodies, the 20-flop interaction, and the stages' functions.
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
#ifndef CH07_NBODY_H
#define CH07_NBODY_H

#include "../../common/stage.h"

#include <math.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SOFTENING2 1e-4f
#define FLOPS_PER_INTERACTION 20.0

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

/* The initial state (fixed seed). */
void nbody_init(body *b, vec3 *v, int n);

/* One step of leapfrog (kick-drift): v += a dt, p += v dt, for i in [0, n). */
void nbody_integrate_cpu(body *b, vec3 *v, const vec3 *a, int n, float dt);

/* Every stage computes the accelerations a of all n bodies b. CPU stages take
 * host arrays and `threads`; GPU stages take device arrays, ignore `threads`
 * and return without synchronising. The stages' functions are declared with
 * their rows (stages.h); gpu.cu defines its ones extern "C". */
typedef void forces_fn(const body *b, vec3 *a, int n, int threads);
int cpu_simd_supported(void); /* AVX2 and FMA at run time */
/* Forces on nt targets from ns sources, written into a (add = 0) or added to
 * it (add = 1): cpu-simd's loop (scalar without AVX2), for ch11's ranks. */
void cpu_simd_block_forces(const body *targets, int nt, const body *sources, int ns, vec3 *a, int add);
void gpu_integrate(body *d_b, vec3 *d_v, const vec3 *d_a, int n, float dt);

/* multi-gpu: `steps` steps of gpu-tiled-ftz's kernel + integration, the bodies
 * split across `devices` GPUs, positions exchanged through the host every
 * step, the GPUs driven as `mode` says (gpu.cu). Updates b and v; returns
 * seconds. */
enum { MULTI_THREADS, MULTI_THREADS_PINNED, MULTI_ONE_THREAD };
double multi_gpu_run(body *b, vec3 *v, int n, int steps, float dt, int devices, vec3 *first_forces, int mode);

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

/* A stage (the table is stages.h). A STAGE_ALL_GPUS stage runs
 * multi_gpu_run with gpu-tiled-ftz's kernel. */
typedef struct stage { /* STAGE_ZERO: see stage.h */
    stage_info info;
    forces_fn *run;
    int output STAGE_ZERO; /* output.h's OUTPUT_*: how each step's positions reach the host (0: they do not) */
    int multi STAGE_ZERO;  /* a STAGE_ALL_GPUS stage: how the host drives the GPUs (MULTI_*) */
} stage;

/* One stage at n bodies, as measure_stage resets, runs and checks it
 * (problem.c: reset_bodies puts them back to the start; steps.c: run_steps makes
 * `steps` leapfrog steps, and check_forces checks they stayed finite and the
 * forces on the initial bodies (multi-gpu: its first step's) are within the
 * bound. */
#define DT 1e-4f
typedef struct {
    body *d_b;
    vec3 *d_v, *d_a;
} gpu_buffers;
typedef struct {
    int n, steps, threads, devices;
    body *b;
    vec3 *v, *a;
    reference ref;
    const stage *s;
    gpu_buffers g;
    struct output_run *out; /* an output stage's buffers and streams (output.h), or NULL */
} problem;
void reset_bodies(void *problem);
void run_steps(void *problem);
int check_forces(void *problem, char *note, size_t size);
int positions_finite(const body *b, int n);

#ifdef __cplusplus
}
#endif

#endif
