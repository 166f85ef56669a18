/* Exercise ch08: next-event estimation, the one sample behind
 * gpu-light-sampling.
 *
 * A diffuse surface point x (unit normal n, facing the light's side; albedo
 * rho) is lit by a sphere of centre c and radius a that emits radiance le from
 * every point of its surface. Return ONE sample of the light the point
 * reflects towards any viewer, using the random numbers u1, u2 in [0, 1):
 *
 *   1. Pick a point p uniformly by area on the cap of the sphere made of the
 *      points q with (q - c) . axis >= cos_min * a  (axis a unit vector;
 *      cos_min = -1 is the whole sphere). Archimedes: on a sphere, area is
 *      uniform in the height along the axis.
 *   2. Light leaves p towards x only if p faces x, and x receives it only if
 *      it arrives from above x's surface; otherwise the sample is 0. (The
 *      sphere's far side, seen through its near side, counts as not facing.)
 *   3. Otherwise the sample is the integrand divided by p's probability
 *      density (1 / the cap's area): le * (rho / pi) * cos(at x) * cos(at p)
 *      / |p - x|^2.
 *
 * The mean of many samples is then rho * le * (a / D)^2 * cos(theta) for a
 * sphere at distance D, at angle theta from n, wholly above the horizon
 * (whatever cap contains what x can see). The test checks that, and that the
 * cap of what x can see (axis towards x, cos_min = a / D) has less variance
 * than the whole sphere, and it tries the cap's axis along every coordinate
 * axis (both signs), nearly along them and oblique: the frame you build
 * around the axis must be orthonormal, and every sample finite, for all of
 * them. Then: make grade EX=ch08
 */
#ifndef EX_CH08_LIGHT_SAMPLE_H
#define EX_CH08_LIGHT_SAMPLE_H

#include <math.h>

#define EX_PI 3.14159265358979323846

static inline double ex_light_sample(const double x[3], const double n[3], double rho, const double c[3], double a,
                                     double le, const double axis[3], double cos_min, double u1, double u2)
{
    (void)x, (void)n, (void)rho, (void)c, (void)a, (void)le, (void)axis, (void)cos_min, (void)u1, (void)u2;
    return 0; /* TODO */
}

#endif
