/* check.c - the N-body core's reference forces and the error measure (ch07's
 * stages, ch09's ch07 kernels and ch11's ranks are all held to it).
 *
 * Every stage's forces are checked against a double-precision reference with
 * compensated (Neumaier) sums, body by body:
 *
 *   e_i = |a_i - ref_i| / S_i,   the error: the largest e_i (NaN fails),
 *
 * where S_i = sum_j |term_j| is the sum of the magnitudes of the n terms.
 * Every body is compared up to n = REFERENCE_EVERY_MAX (every test size and
 * the CPU stages' default n): a kernel that drops one body's pull, one tile,
 * or gets one body wrong fails there. Above it the reference would cost n^2
 * double interactions (2^17 bodies: a minute on one core), so it takes
 * REFERENCE_PAIRS / n bodies (at least 64): 0, n - 1 and the rest from
 * seed 0x5A3 (2048 at the GPU stages' default 2^17).
 *
 * The bound, from what was observed and a margin (u = 2^-24):
 *
 *   bound(n) = FORCE_ERROR_MARGIN (FORCE_ERROR_SUM sqrt(n) + FORCE_ERROR_TERM) u
 *
 * A float sum's rounding errors add like a random walk, so e grows as
 * sqrt(n) u; each term carries a few roundings of its own (the floor).
 * tests/test_ch07.cu prints e / (sqrt(n) u) for every stage at every test
 * size, and shows that forces with one body short, the last partial tile
 * skipped, eps^2 doubled or missing, or a 1e-4 scale error fail.
 */
#include "nbody.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The worst e / (sqrt(n) u) observed, every body compared: 0.61 (cpu-scalar
 * at n = 33; 0.50-0.58 at n = 4097 and 16384, cpu-scalar and cpu-simd, AMD
 * EPYC dev machine). On the H100, 66 sampled bodies at n = 2^17 gave 6.4e-6
 * (0.30; symmetric atomics 6.7e-6, 0.31); 66 samples see about half of the
 * every-body maximum (the H100 host's 2.1e-6 at 16384 against 3.9e-6 here). */
#define FORCE_ERROR_SUM 0.61
/* Each term's own roundings, in u: 1.5 observed at n = 2 (CPU); 8 leaves room
 * for the GPU's rsqrtf (relative error up to 2^-22.9, cubed in the term). */
#define FORCE_ERROR_TERM 8.0
/* The margin over the observed: 4. It keeps the bound below the smallest
 * fault the tests feed (a 1e-4 scale error: e = 8.3e-5 at every size, 1.6x
 * the bound at 2^17, 7x at 4097) while the GPU's every-body maximum, about
 * twice its 66-sample 6.4e-6, stays 4x inside. */
#define FORCE_ERROR_MARGIN 4.0

/* Neumaier's compensated sum: adds x to (*sum, *carry). */
static void add_compensated(double *sum, double *carry, double x)
{
    double t = *sum + x;
    *carry += fabs(*sum) >= fabs(x) ? (*sum - t) + x : (x - t) + *sum;
    *sum = t;
}

/* Reference force and scale of sample s (body r->index[s]). */
static void reference_one(reference *r, const body *b, int s)
{
    int i = r->index[s], n = r->n;
    double sum[3] = {0, 0, 0}, carry[3] = {0, 0, 0}, scale = 0;
    for (int j = 0; j < n; j++) {
        double rx = (double)b[j].x - b[i].x, ry = (double)b[j].y - b[i].y, rz = (double)b[j].z - b[i].z;
        double d2 = rx * rx + ry * ry + rz * rz + (double)SOFTENING2;
        double s3 = b[j].m / (d2 * sqrt(d2));
        add_compensated(&sum[0], &carry[0], rx * s3);
        add_compensated(&sum[1], &carry[1], ry * s3);
        add_compensated(&sum[2], &carry[2], rz * s3);
        scale += sqrt(rx * rx + ry * ry + rz * rz) * s3;
    }
    for (int k = 0; k < 3; k++)
        r->ref[s][k] = sum[k] + carry[k];
    r->scale[s] = scale > 0 ? scale : 1e-30;
}

typedef struct {
    reference *r;
    const body *b;
    int first, step;
} reference_work;

static void *reference_worker(void *p)
{
    reference_work *w = p;
    for (int s = w->first; s < w->r->count; s += w->step)
        reference_one(w->r, w->b, s);
    return NULL;
}

static void *allocate(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "ch07: out of memory (%zu bytes for the reference forces)\n", bytes);
        exit(1);
    }
    return p;
}

/* Which bodies are compared: all of them, or 0, n - 1 and a fixed-seed sample. */
static void choose_bodies(reference *r, int n)
{
    int sample = (int)(REFERENCE_PAIRS / n);
    r->count = n <= REFERENCE_EVERY_MAX ? n : sample > 64 ? sample : 64;
    r->index = allocate((size_t)r->count * sizeof *r->index);
    unsigned long long x = 0x5A3;
    for (int s = 0; s < r->count; s++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        r->index[s] = r->count == n ? s : s == 0 ? 0 : s == 1 ? n - 1 : (int)((x >> 33) % (unsigned long long)n);
    }
}

/* The bodies are shared out among the cores: 16384 bodies are 2^28 double
 * interactions, seconds on one core. */
void make_reference(reference *r, const body *b, int n)
{
    enum { MAX_THREADS = 64 };
    r->n = n;
    choose_bodies(r, n);
    r->ref = allocate((size_t)r->count * sizeof *r->ref);
    r->scale = allocate((size_t)r->count * sizeof *r->scale);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = cores < 1 ? 1 : cores > MAX_THREADS ? MAX_THREADS : (int)cores;
    pthread_t tid[MAX_THREADS];
    reference_work w[MAX_THREADS];
    int started[MAX_THREADS];
    for (int t = 0; t < threads; t++) {
        w[t] = (reference_work){r, b, t, threads};
        started[t] = t > 0 && pthread_create(&tid[t], NULL, reference_worker, &w[t]) == 0;
    }
    for (int t = 0; t < threads; t++)
        if (!started[t]) /* this thread's share, and any a thread could not be started for */
            reference_worker(&w[t]);
    for (int t = 0; t < threads; t++)
        if (started[t])
            pthread_join(tid[t], NULL);
}

void free_reference(reference *r)
{
    free(r->index);
    free(r->ref);
    free(r->scale);
    *r = (reference){0};
}

/* Largest normalised error over the bodies compared; NaN/Inf gives INFINITY. */
double force_error(const reference *r, const vec3 *a)
{
    double worst = 0;
    for (int s = 0; s < r->count; s++) {
        vec3 v = a[r->index[s]];
        if (!isfinite(v.x) || !isfinite(v.y) || !isfinite(v.z))
            return INFINITY;
        double dx = v.x - r->ref[s][0], dy = v.y - r->ref[s][1], dz = v.z - r->ref[s][2];
        worst = fmax(worst, sqrt(dx * dx + dy * dy + dz * dz) / r->scale[s]);
    }
    return worst;
}

double error_bound(int n)
{
    return FORCE_ERROR_MARGIN * (FORCE_ERROR_SUM * sqrt((double)n) + FORCE_ERROR_TERM) * 0x1.0p-24;
}
