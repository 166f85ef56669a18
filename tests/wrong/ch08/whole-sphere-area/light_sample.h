/* WRONG ANSWER (ch08, whole-sphere-area): the pdf of the whole sphere (4 pi a^2) while sampling only the visible cap */
/* Exercise ch08: next-event estimation, the one sample behind
 * gpu-light-sampling. A solution (exercises/ch08/light_sample.h says what is
 * asked). */
#ifndef EX_CH08_LIGHT_SAMPLE_H
#define EX_CH08_LIGHT_SAMPLE_H

#include <math.h>

#define EX_PI 3.14159265358979323846

static inline double ex_dot(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static inline double ex_light_sample(const double x[3], const double n[3], double rho, const double c[3], double a,
                                     double le, const double axis[3], double cos_min, double u1, double u2)
{
    /* a frame (axis, t, b) */
    double t[3], b[3], pick[3] = {fabs(axis[0]) > 0.1 ? 0 : 1, fabs(axis[0]) > 0.1 ? 1 : 0, 0};
    t[0] = pick[1] * axis[2] - pick[2] * axis[1];
    t[1] = pick[2] * axis[0] - pick[0] * axis[2];
    t[2] = pick[0] * axis[1] - pick[1] * axis[0];
    double len = sqrt(ex_dot(t, t));
    for (int k = 0; k < 3; k++)
        t[k] /= len;
    b[0] = axis[1] * t[2] - axis[2] * t[1];
    b[1] = axis[2] * t[0] - axis[0] * t[2];
    b[2] = axis[0] * t[1] - axis[1] * t[0];
    /* uniform by area: the height along the axis is uniform */
    double z = cos_min + (1 - cos_min) * u1, ring = sqrt(fmax(0, 1 - z * z)), phi = 2 * EX_PI * u2;
    double u[3], d[3];
    for (int k = 0; k < 3; k++) {
        u[k] = z * axis[k] + ring * (cos(phi) * t[k] + sin(phi) * b[k]);
        d[k] = c[k] + a * u[k] - x[k];
    }
    double dist2 = ex_dot(d, d), dist = sqrt(dist2);
    double cos_x = ex_dot(n, d) / dist, cos_p = -ex_dot(u, d) / dist;
    if (cos_x <= 0 || cos_p <= 0)
        return 0;
    double area = 4 * EX_PI * a * a;
    return le * rho / EX_PI * cos_x * cos_p / dist2 * area;
}

#endif
