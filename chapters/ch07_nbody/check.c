/* check.c - ch07's reference forces and the error measure.
 *
 * Every stage's forces are checked against a double-precision reference with
 * compensated (Neumaier) sums, on 66 bodies (0, n-1, and 64 from seed 0x5A3):
 *
 *   e_i = |a_i - ref_i| / S_i  <=  (16 sqrt(n) + 64) u,   u = 2^-24,
 *
 * where S_i = sum_j |term_j| is the sum of the magnitudes of the n terms. Each
 * term carries a few roundings of its own (the 64 u, which covers rsqrt's
 * approximation too), and the rounding errors of a float sum of n terms add
 * like a random walk, about sqrt(n) u S_i; 16 times that is a generous
 * statistical bound, not a worst case (which would be n u S_i). NaN fails.
 */
#include "nbody.h"

#include <math.h>

/* Neumaier's compensated sum: adds x to (*sum, *carry). */
static void add_compensated(double *sum, double *carry, double x)
{
    double t = *sum + x;
    *carry += fabs(*sum) >= fabs(x) ? (*sum - t) + x : (x - t) + *sum;
    *sum = t;
}

void make_reference(reference *r, const body *b, int n)
{
    unsigned long long x = 0x5A3;
    r->n = n;
    for (int s = 0; s < REFERENCE_SAMPLES; s++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        int i = s == 0 ? 0 : s == 1 ? n - 1 : (int)((x >> 33) % (unsigned long long)n);
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
        r->index[s] = i;
        for (int k = 0; k < 3; k++)
            r->ref[s][k] = sum[k] + carry[k];
        r->scale[s] = scale > 0 ? scale : 1e-30;
    }
}

/* Largest normalised error over the samples; NaN/Inf gives INFINITY. */
double force_error(const reference *r, const vec3 *a)
{
    double worst = 0;
    for (int s = 0; s < REFERENCE_SAMPLES; s++) {
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
    return (16 * sqrt((double)n) + 64) * 0x1.0p-24;
}
