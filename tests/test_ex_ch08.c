/* test_ex_ch08.c - exercise ch08: one light sample, against the analytic
 * light a sphere sheds on a diffuse point. A sphere of radius a and radiance
 * le at distance D, at angle theta from the normal and wholly above the
 * horizon, gives the point the irradiance pi le (a/D)^2 cos(theta), so the
 * point reflects rho le (a/D)^2 cos(theta). For each case, 2^18 samples from a
 * stratified grid jittered with a fixed seed (0xC08) must average to that
 * within 0.5% (the estimator's own standard error here is below 0.1%).
 * Every sample must be finite, and the visible cap's mean right for every
 * orientation of its axis: along each coordinate axis, both signs, nearly
 * along them, and oblique (the frame around the axis must be orthonormal).
 *
 * A right mean alone does not show that the answer samples: the analytic
 * value times zero-mean noise has it too. So each sample is also checked as
 * what it must be, f / pdf at its own point. The answer returns only a number,
 * but its point p depends on the cap and (u1, u2) alone, not on x's normal n,
 * and the sample is C cos_x with C = le (rho/pi) cos_p / d^2 x area (0 where
 * p faces away from x). So the test asks for the same (u1, u2) again with
 * n = +-x, +-y, +-z: one of each pair must be 0 (p lies on one side), and
 * their differences are C times the direction from x to p. That direction
 * must meet the sphere at a point of the cap, C must be f / pdf there (pdf =
 * 1 / the cap's area), the sample with x's own n must be C cos_x (0 below the
 * horizon), the same question asked twice must get the same answer, and the
 * points must cover the cap uniformly by area (height and angle, each and
 * together; on the whole sphere, the share of samples facing away from x
 * too). Every sample of a 2^14 grid is checked so for several caps, and a
 * fixed scattered 1/64 of the samples every mean is made of, so that no
 * sample the mean counts could be told apart from a checked one. The samples'
 * variance must also be the one uniform sampling of the cap gives, which the
 * test integrates itself.
 * Every call into the answer goes through harness_answer (harness.h, "the
 * probe and the judge"): for grading, the checks run in a process the answer
 * never ran in. */
#include "harness.h"

#include "light_sample.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SIDE 512  /* SIDE^2 = 2^18 samples */
#define PSIDE 128 /* the grid whose every sample is checked: 2^14 */
static const double RHO = 0.6, LE = 5.0;

/* One placement: the point x with normal n, the sphere (centre c, radius a),
 * and the cap sampled on it (axis, cos_min). */
typedef struct {
    double x[3], n[3], c[3], a, axis[3], cos_min;
} scene;

typedef struct {
    double mean, var;
} estimate;

static double dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void unit(double v[3])
{
    double l = sqrt(dot(v, v));
    for (int k = 0; k < 3; k++)
        v[k] /= l;
}

static double cap_area(const scene *s)
{
    return 2 * EX_PI * s->a * s->a * (1 - s->cos_min);
}

/* The stratified, jittered grid of (u1, u2) every run uses: side^2 pairs. */
static void grid(int side, double *u1, double *u2)
{
    test_rng r = {0xC08};
    for (int i = 0; i < side; i++)
        for (int j = 0; j < side; j++) {
            u1[i * side + j] = (i + test_rng_uniform(&r, 0, 1)) / side;
            u2[i * side + j] = (j + test_rng_uniform(&r, 0, 1)) / side;
        }
}

/* Two unit vectors perpendicular to w and each other (the test's own: w
 * crossed with the coordinate axis least along it). */
static void frame(const double w[3], double t[3], double b[3])
{
    int k = fabs(w[0]) <= fabs(w[1]) && fabs(w[0]) <= fabs(w[2]) ? 0 : fabs(w[1]) <= fabs(w[2]) ? 1 : 2;
    double e[3] = {0, 0, 0};
    e[k] = 1;
    t[0] = w[1] * e[2] - w[2] * e[1];
    t[1] = w[2] * e[0] - w[0] * e[2];
    t[2] = w[0] * e[1] - w[1] * e[0];
    unit(t);
    b[0] = w[1] * t[2] - w[2] * t[1];
    b[1] = w[2] * t[0] - w[0] * t[2];
    b[2] = w[0] * t[1] - w[1] * t[0];
}

/* f at the sphere's point c + a q: the light it sends x, per unit area. */
static double integrand(const scene *s, const double q[3])
{
    double d[3];
    for (int k = 0; k < 3; k++)
        d[k] = s->c[k] + s->a * q[k] - s->x[k];
    double dist2 = dot(d, d), dist = sqrt(dist2), cos_x = dot(s->n, d) / dist, cos_p = -dot(q, d) / dist;
    return cos_x > 0 && cos_p > 0 ? LE * RHO / EX_PI * cos_x * cos_p / dist2 : 0;
}

/* The mean and variance of f / pdf for a point uniform by area on the cap,
 * integrated by the test: the midpoint rule in the height z along the axis and
 * the angle phi around it (area on a sphere is a^2 dz dphi). */
static estimate expected(const scene *s)
{
    enum { NZ = 1024, NPHI = 512 };
    double t[3], b[3], area = cap_area(s), s1 = 0, s2 = 0;
    frame(s->axis, t, b);
    for (int i = 0; i < NZ; i++) {
        double z = s->cos_min + (1 - s->cos_min) * (i + 0.5) / NZ, ring = sqrt(fmax(0, 1 - z * z));
        for (int j = 0; j < NPHI; j++) {
            double phi = 2 * EX_PI * (j + 0.5) / NPHI, q[3];
            for (int k = 0; k < 3; k++)
                q[k] = z * s->axis[k] + ring * (cos(phi) * t[k] + sin(phi) * b[k]);
            double v = integrand(s, q) * area;
            s1 += v;
            s2 += v * v;
        }
    }
    double m = s1 / (NZ * NPHI);
    return (estimate){m, s2 / (NZ * NPHI) - m * m};
}

/* ------------------------------------------------------------ each sample
 * The answer's samples for one grid pair: at x's own normal (twice), and at
 * the normals +e_k and -e_k (k = x, y, z), the same cap and (u1, u2). */
typedef struct {
    double own, again, plus[3], minus[3];
} probed;

static double ask(const scene *s, const double n[3], double u1, double u2)
{
    return ex_light_sample(s->x, n, RHO, s->c, s->a, LE, s->axis, s->cos_min, u1, u2);
}

/* The rest of a grid pair's questions, after its sample at x's own normal. */
static void ask_again(const scene *s, double u1, double u2, probed *g)
{
    for (int d = 0; d < 3; d++) {
        double e[3] = {0, 0, 0};
        e[d] = 1;
        g->plus[d] = ask(s, e, u1, u2);
        e[d] = -1;
        g->minus[d] = ask(s, e, u1, u2);
    }
    g->again = ask(s, s->n, u1, u2);
}

/* Where a sample's point is, as its values say (seen: 0 where they are all
 * 0, a point facing away from x): the direction from x, C (the sample per
 * unit cos at x), where that direction meets the sphere first (the point
 * c + a q, its distance, the light's cosine there), and f / pdf there with the
 * slack the direction's precision leaves it (see meet). */
typedef struct {
    int seen;
    double dir[3], strength, q[3], dist, cos_p, want, slack;
} located;

/* The direction is read from the answer's own cosines at x, good to about
 * 1e-7 where it computes in float (1e-16 in double): the test allows 1e-6. */
#define DIR_PRECISION 1e-6

/* Where the ray from x along dir meets the sphere first, the discriminant
 * of its quadratic shifted by shift (clamped at 0: a tangent ray): the point
 * c + a q, its distance from x, the light's cosine there; returns f / pdf.
 * Near the rim of what x sees the ray is nearly tangent and the point moves
 * fast with the direction, so the checks take the discriminant +-(its error). */
static double meet(const scene *s, const double dir[3], double shift, double q[3], double *dist, double *cos_p)
{
    double oc[3];
    for (int d = 0; d < 3; d++)
        oc[d] = s->x[d] - s->c[d];
    double bq = dot(dir, oc), disc = bq * bq - (dot(oc, oc) - s->a * s->a) + shift;
    *dist = -bq - sqrt(fmax(0, disc));
    for (int d = 0; d < 3; d++)
        q[d] = (s->x[d] + *dist * dir[d] - s->c[d]) / s->a;
    *cos_p = -dot(q, dir);
    return LE * RHO / EX_PI * fmax(0, *cos_p) / (*dist * *dist) * cap_area(s);
}

/* For the messages: which cap, and which (u1, u2). */
static const char *where_cap(const scene *s)
{
    static char text[200];
    snprintf(text, sizeof text, "the cap's axis (%.9g, %.9g, %.9g), cos_min %.9g", s->axis[0], s->axis[1], s->axis[2],
             s->cos_min);
    return text;
}

static const char *where(const scene *s, double u1, double u2)
{
    static char text[300];
    snprintf(text, sizeof text, "%s, u1 %.9g, u2 %.9g", where_cap(s), u1, u2);
    return text;
}

/* The values must be finite, >= 0, the same when asked twice, and 0 for one
 * normal of each pair (the point lies on one side of x's surface). */
static void consistent(const scene *s, const probed *g, double u1, double u2, const char *context)
{
    const char axis_name[3] = {'x', 'y', 'z'};
    const double all[8] = {g->own, g->again, g->plus[0], g->plus[1], g->plus[2], g->minus[0], g->minus[1], g->minus[2]};
    for (int m = 0; m < 8; m++)
        ck_assert_msg(isfinite(all[m]) && all[m] >= 0, "a sample of %g (%s, x's normal %s): want a finite number >= 0%s",
                      all[m], where(s, u1, u2), m < 2 ? "its own" : "along a coordinate axis", context);
    ck_assert_msg(g->own == g->again,
                  "%s: the same sample asked for twice gave %.17g, then %.17g: a sample must depend on its inputs "
                  "alone (u1 and u2 are its random numbers: no state kept between calls, no random numbers of its "
                  "own)%s",
                  where(s, u1, u2), g->own, g->again, context);
    for (int d = 0; d < 3; d++)
        ck_assert_msg(!(g->plus[d] > 0 && g->minus[d] > 0),
                      "%s: with x's normal +%c the sample is %.9g, with -%c %.9g. The point a sample picks lies on one "
                      "side of x's surface, so one of them must be 0: light arriving from below the surface counts 0 "
                      "(cos at x not positive: no light), and a sample is the light of ONE point of the cap, which "
                      "(u1, u2) and the cap alone decide (not an average of points, not a formula in the normal)%s",
                      where(s, u1, u2), axis_name[d], g->plus[d], axis_name[d], g->minus[d], context);
}

/* One sample's point, from its values at the normals +-x, +-y, +-z (see the
 * top), which must describe one point of the cap. hidden_ok: the cap has
 * points that face away from x (their samples are 0 for every normal). */
static located locate(const scene *s, const probed *g, double u1, double u2, int hidden_ok, const char *context)
{
    consistent(s, g, u1, u2, context);
    located at = {0};
    double w[3], oc[3];
    for (int d = 0; d < 3; d++) {
        w[d] = g->plus[d] - g->minus[d];
        oc[d] = s->x[d] - s->c[d];
    }
    at.strength = sqrt(dot(w, w));
    ck_assert_msg(at.strength > 0 || g->own == 0,
                  "%s: the sample is %.9g with x's own normal but 0 with each of +-x, +-y, +-z: the point cannot be "
                  "on the sphere, or the sample is not the light of one point times cos at x%s",
                  where(s, u1, u2), g->own, context);
    ck_assert_msg(at.strength > 0 || hidden_ok,
                  "%s: the sample is 0 for every normal at x, so its point does not face x; but every point of this "
                  "cap faces x. Is the point on the cap (its height along the axis between cos_min and 1, p = c + a "
                  "(z axis + sqrt(1 - z^2) (cos phi t + sin phi b))), and the light's cosine taken against its "
                  "outward normal (p - c) / a and the direction from p to x?%s",
                  where(s, u1, u2), context);
    if (at.strength == 0)
        return at;
    at.seen = 1;
    for (int d = 0; d < 3; d++)
        at.dir[d] = w[d] / at.strength;
    double bq = dot(at.dir, oc), disc = bq * bq - (dot(oc, oc) - s->a * s->a), err = 2 * dot(oc, oc) * DIR_PRECISION;
    ck_assert_msg(disc > -err,
                  "%s: the direction from x to the sample's point, (%.9g, %.9g, %.9g) (its cosines at x: the samples "
                  "with the normals +-x, +-y, +-z), misses the sphere: the point is not on the light. Is the frame "
                  "around the axis orthonormal?%s",
                  where(s, u1, u2), at.dir[0], at.dir[1], at.dir[2], context);
    double qn[3], qf[3], dn, df, cn, cf;
    at.want = meet(s, at.dir, 0, at.q, &at.dist, &at.cos_p);
    double near = meet(s, at.dir, err, qn, &dn, &cn), far = meet(s, at.dir, -err, qf, &df, &cf);
    at.slack = fmax(fabs(near - at.want), fabs(far - at.want));
    double z = dot(at.q, s->axis), z_most = fmax(z, fmax(dot(qn, s->axis), dot(qf, s->axis)));
    ck_assert_msg(z_most >= s->cos_min - DIR_PRECISION,
                  "%s: the sample's point (where its direction from x meets the sphere) is at height %.9g along the "
                  "cap's axis, below cos_min: outside the cap you were asked to sample (heights cos_min to 1)%s",
                  where(s, u1, u2), z, context);
    return at;
}

/* A sampler picks different points: if every sample's point is the same,
 * the values are not samples of the cap at all. */
static void not_one_point(const scene *s, const located *at, int count, const char *context)
{
    const located *first = NULL;
    double spread = 0;
    int seen = 0;
    for (int k = 0; k < count; k++) {
        if (!at[k].seen)
            continue;
        seen++;
        first = first ? first : &at[k];
        for (int d = 0; d < 3; d++)
            spread = fmax(spread, fabs(at[k].dir[d] - first->dir[d]));
    }
    ck_assert_msg(seen == 0 || spread > 1e-9,
                  "%s: every one of %d samples has its point in the same direction from x, (%.9g, %.9g, %.9g) (their "
                  "cosines at x: the samples with the normals +-x, +-y, +-z), at height %.9g along the cap's axis: "
                  "the samples do not pick points on the cap from u1 and u2 (an analytic value times noise does not "
                  "sample)%s",
                  where_cap(s), seen, first ? first->dir[0] : 0, first ? first->dir[1] : 0, first ? first->dir[2] : 0,
                  first ? dot(first->q, s->axis) : 0, context);
}

/* f / pdf, with the light's cosine taken the wrong way round, at the point
 * on the sphere's far side that the direction from x passes through last. */
static double far_side(const scene *s, const double dir[3])
{
    double oc[3], q[3];
    for (int d = 0; d < 3; d++)
        oc[d] = s->x[d] - s->c[d];
    double bq = dot(dir, oc), disc = bq * bq - (dot(oc, oc) - s->a * s->a), dist = -bq + sqrt(fmax(0, disc));
    for (int d = 0; d < 3; d++)
        q[d] = (s->x[d] + dist * dir[d] - s->c[d]) / s->a;
    return LE * RHO / EX_PI * fabs(dot(q, dir)) / (dist * dist) * cap_area(s);
}

/* What got / want is, when it is a known slip; far: the value at the far
 * side's point (far_side). */
static const char *slip(double got, double want, double far, const scene *s)
{
    double ratio = got / want, whole = 2 / (1 - s->cos_min);
    if (fabs(got / far - 1) < 1e-4)
        return " (that is the light of the point on the sphere's far side, seen through it: the light's cosine is "
               "taken against its outward normal (p - c) / a and the direction from p to x, and a point facing "
               "away gives 0)";
    if (fabs(ratio / EX_PI - 1) < 1e-4)
        return " (pi: the diffuse BRDF is rho / pi)";
    if (fabs(ratio / whole - 1) < 1e-4 && whole != 1)
        return " (the whole sphere's area over the cap's: the pdf must be 1 / the CAP's area, 2 pi a^2 (1 - cos_min))";
    if (fabs(ratio * cap_area(s) - 1) < 1e-4)
        return " (1 / the cap's area: f is not divided by the pdf)";
    return "";
}

/* Sample k is f / pdf at its point: C = le (rho/pi) cos_p / d^2 x area, and
 * the sample at x's own normal C cos_x (0 below x's horizon). */
static void f_over_pdf(const scene *s, double own, const located *p, double u1, double u2, const char *context)
{
    if (!p->seen)
        return;
    ck_assert_msg(fabs(p->strength - p->want) <= 1e-5 * p->want + p->slack,
                  "%s: the sample is %.9g times cos at x (the samples with the normals +-x, +-y, +-z say), want %.9g: "
                  "f / pdf at the point its direction meets, le (rho/pi) cos_p / d^2 = %.6g x %.6g / %.6g^2 times "
                  "the cap's area %.6g; got / want = %.9g%s. Is the point on the sphere (the frame orthonormal) and "
                  "the pdf 1 / the cap's area?%s",
                  where(s, u1, u2), p->strength, p->want, LE * RHO / EX_PI, p->cos_p, p->dist, cap_area(s),
                  p->strength / p->want, slip(p->strength, p->want, far_side(s, p->dir), s), context);
    double cos_x = dot(s->n, p->dir), want = cos_x > 0 ? p->strength * cos_x : 0;
    ck_assert_msg(cos_x > -DIR_PRECISION || own == 0,
                  "%s: the sample's point is below x's horizon (its cosine at x is %.6g), yet the sample is %.9g: want "
                  "0, light from below the surface does not reach x%s",
                  where(s, u1, u2), cos_x, own, context);
    ck_assert_msg(fabs(own - want) <= 1e-5 * p->strength,
                  "%s: with x's own normal the sample is %.9g, want %.9g: the samples with the normals +-x, +-y, +-z "
                  "put its point in the direction (%.9g, %.9g, %.9g) at %.9g per unit cos at x, and cos at x is %.9g "
                  "there. The point must not depend on the normal, and the sample is the light times cos at x%s",
                  where(s, u1, u2), own, want, p->dir[0], p->dir[1], p->dir[2], p->strength, cos_x, context);
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The largest gap between the fraction of v[] below a value and the
 * fraction of a uniform variable on [lo, hi) below it (Kolmogorov-Smirnov),
 * with where it is: the value, the fraction got, the fraction wanted. Sorts v. */
static double ks_uniform(double *v, int count, double lo, double hi, double *at, double *below, double *want)
{
    qsort(v, (size_t)count, sizeof *v, compare_double);
    double worst = -1;
    for (int k = 0; k < count; k++) {
        double f = (v[k] - lo) / (hi - lo), gap = fmax(fabs(f - (double)k / count), fabs(f - (double)(k + 1) / count));
        if (gap > worst)
            worst = gap, *at = v[k], *below = (double)k / count, *want = f;
    }
    return worst;
}

/* The points seen uniform by area on the cap `view` (the cap sampled, or on
 * the whole sphere the part x sees): the heights along its axis uniform
 * between cos_min and 1, the angles around it uniform, and the two together
 * (cells of both). For a right answer on this stratified grid the distances
 * are far below the bounds, which even independent random points would meet
 * (KS 4 / sqrt(points) is 2.5 times its 1% level; chi-square twice its
 * degrees of freedom). */
static void uniform_on_the_cap(const scene *view, const located *at, int count, double *z, double *phi)
{
    enum { CELLS = 16 };
    static int cell[CELLS][CELLS];
    memset(cell, 0, sizeof cell);
    double t[3], b[3];
    frame(view->axis, t, b);
    int seen = 0;
    for (int k = 0; k < count; k++) {
        if (!at[k].seen)
            continue;
        double r[3], h = dot(at[k].q, view->axis);
        for (int d = 0; d < 3; d++)
            r[d] = at[k].q[d] - h * view->axis[d];
        double angle = atan2(dot(r, b), dot(r, t));
        z[seen] = h;
        phi[seen] = angle < 0 ? angle + 2 * EX_PI : angle;
        int i = (int)((h - view->cos_min) / (1 - view->cos_min) * CELLS), j = (int)(phi[seen] / (2 * EX_PI) * CELLS);
        cell[i < 0 ? 0 : i >= CELLS ? CELLS - 1 : i][j < 0 ? 0 : j >= CELLS ? CELLS - 1 : j]++;
        seen++;
    }
    double chi2 = 0, expect = (double)seen / (CELLS * CELLS), value, below, want, ks;
    for (int i = 0; i < CELLS; i++)
        for (int j = 0; j < CELLS; j++)
            chi2 += (cell[i][j] - expect) * (cell[i][j] - expect) / expect;
    ck_assert_msg(seen > 0, "%s: no sample's point faces x", where_cap(view));
    double bound = 4 / sqrt(seen);
    ks = ks_uniform(z, seen, view->cos_min, 1, &value, &below, &want);
    ck_assert_msg(ks < bound,
                  "%s: the points' heights along the cap's axis are not uniform between cos_min and 1: %.2f%% of "
                  "them are below height %.6g, want %.2f%% (Kolmogorov-Smirnov distance %.4f, want below %.4f). "
                  "Area on a sphere is uniform in the height (Archimedes): the height must be drawn uniformly (the "
                  "angle from the axis drawn uniformly, or any other density, is not uniform by area, and its pdf "
                  "is not 1 / the cap's area)",
                  where_cap(view), 100 * below, value, 100 * want, ks, bound);
    ks = ks_uniform(phi, seen, 0, 2 * EX_PI, &value, &below, &want);
    ck_assert_msg(ks < bound,
                  "%s: the points' angles around the cap's axis are not uniform: %.2f%% of them are below %.6g "
                  "radians, want %.2f%% (Kolmogorov-Smirnov distance %.4f, want below %.4f): the angle must be 2 pi "
                  "times a uniform number",
                  where_cap(view), 100 * below, value, 100 * want, ks, bound);
    double dof = CELLS * CELLS - 1;
    ck_assert_msg(chi2 < 2 * dof,
                  "%s: the points do not cover the cap evenly: over %d cells of height and angle, chi-square %.1f, "
                  "want below %.0f (each height and each angle alone is uniform): draw them independently, one "
                  "from u1 and the other from u2",
                  where_cap(view), CELLS * CELLS, chi2, 2 * dof);
}

/* The cap x can see: its axis towards x, cos_min = a / D. */
static void visible_cap(scene *s)
{
    double D = 0;
    for (int k = 0; k < 3; k++)
        D += (s->x[k] - s->c[k]) * (s->x[k] - s->c[k]);
    D = sqrt(D);
    for (int k = 0; k < 3; k++)
        s->axis[k] = (s->x[k] - s->c[k]) / D;
    s->cos_min = s->a / D;
}

/* On the whole sphere, the share of samples whose point faces away from x
 * must be that of the sphere's area, 1 - (1 - a/D) / 2 (a right answer on
 * this grid is within 0.1%; independent points within 2% too). */
static void hidden_share(const scene *s, const located *at, int count)
{
    scene view = *s;
    visible_cap(&view);
    int hidden = 0;
    for (int k = 0; k < count; k++)
        hidden += !at[k].seen;
    double got = (double)hidden / count, want = 1 - (1 - view.cos_min) / 2;
    ck_assert_msg(fabs(got - want) < 0.02,
                  "the whole sphere (%s): %.2f%% of the samples are 0 for every normal at x (their points face away "
                  "from x), want %.2f%%, the share of the sphere's area x cannot see: the points are not uniform "
                  "over the sphere (the height along the axis uniform from -1 to 1)",
                  where_cap(s), 100 * got, 100 * want);
}

/* ------------------------------------------------------------- the samples
 * The answer's samples at x's own normal, one per grid pair, and for a fixed
 * scattered 1/64 of them (which the answer cannot tell when it is asked at
 * x's own normal) the rest of the questions, each checked as above. hidden_ok:
 * the cap has points that face away from x; context: what to add to a
 * message about one of those. */
static int checked_here(int k)
{
    return (uint32_t)((uint32_t)k * 2654435761u) >> 26 == 0;
}

#define MEAN_SAMPLE " (one of the samples whose mean is checked)"

static estimate run(const scene *s, int hidden_ok, const char *context)
{
    static double u1[SIDE * SIDE], u2[SIDE * SIDE], v[SIDE * SIDE];
    static probed got[SIDE * SIDE / 32];
    static located at[SIDE * SIDE / 32];
    int which[SIDE * SIDE / 32], count = 0;
    for (int k = 0; k < SIDE * SIDE && count < SIDE * SIDE / 32; k++)
        if (checked_here(k))
            which[count++] = k;
    grid(SIDE, u1, u2);
    if (HARNESS_CALLS_ANSWER)
        for (int k = 0, j = 0; k < SIDE * SIDE; k++) {
            v[k] = ask(s, s->n, u1[k], u2[k]);
            if (j < count && which[j] == k)
                ask_again(s, u1[k], u2[k], &got[j++]);
        }
    harness_answer(v, sizeof v);
    harness_answer(got, (size_t)count * sizeof *got);
    double sum = 0, sq = 0;
    for (int k = 0; k < SIDE * SIDE; k++) {
        if (!(isfinite(v[k]) && v[k] >= 0))
            ck_abort_msg("a sample of %g (the cap's axis (%.17g, %.17g, %.17g), cos_min %g, u1 %.9g, u2 %.9g): "
                         "want a finite number >= 0%s",
                         v[k], s->axis[0], s->axis[1], s->axis[2], s->cos_min, u1[k], u2[k],
                         isfinite(v[k]) ? ""
                                        : "; is the frame around the axis degenerate for this axis (crossed with a "
                                          "helper vector parallel to it)?");
        sum += v[k];
        sq += v[k] * v[k];
    }
    for (int j = 0; j < count; j++) {
        int k = which[j];
        got[j].own = v[k];
        at[j] = locate(s, &got[j], u1[k], u2[k], hidden_ok, context);
    }
    not_one_point(s, at, count, context);
    for (int j = 0; j < count; j++)
        f_over_pdf(s, v[which[j]], &at[j], u1[which[j]], u2[which[j]], context);
    double m = sum / (SIDE * SIDE);
    return (estimate){m, sq / (SIDE * SIDE) - m * m};
}

/* The samples' variance must be what uniform sampling of the cap by area
 * gives (a mean can be right with any spread). A right answer comes within
 * 0.01% here; 2% would hold even for points that were not stratified (the
 * variance of 2^18 independent samples strays by about 0.5%). */
static void variance_is_the_caps(const char *what, double theta, estimate got, const scene *s)
{
    estimate want = expected(s);
    ck_assert_msg(fabs(got.var / want.var - 1) < 0.02,
                  "%s, theta %g: the samples' variance is %.6g, want %.6g (within 2%%), the variance of f / pdf at "
                  "points picked uniformly by area on the cap (pdf 1 / its area %.6g). The mean is right, but the "
                  "samples are not that estimator: each must be le (rho/pi) cos_x cos_p / d^2 / pdf at ONE point "
                  "of the cap (not an analytic value with noise, not an average of many points, not another pdf)",
                  what, theta, got.var, want.var, cap_area(s));
}

static const struct {
    double theta_deg, distance, radius;
} cases[] = {{0, 10, 2}, {40, 10, 2}, {65, 30, 5}, {20, 3, 1}};

/* x at (1, 2, 3) with the normal +z; the sphere's centre at distance D, at
 * angle theta from the normal (in the xz plane). */
static void place(scene *s, double theta_deg, double D, double a)
{
    double th = theta_deg * EX_PI / 180;
    *s = (scene){{1, 2, 3}, {0, 0, 1}, {0, 0, 0}, a, {0, 0, 0}, 0};
    s->c[0] = s->x[0] + D * sin(th);
    s->c[1] = s->x[1];
    s->c[2] = s->x[2] + D * cos(th);
}

START_TEST(the_mean_is_the_light_the_point_reflects)
{
    double th = cases[_i].theta_deg * EX_PI / 180, D = cases[_i].distance, a = cases[_i].radius;
    double want = RHO * LE * (a / D) * (a / D) * cos(th);
    /* the whole sphere (any axis), and the cap x can see: axis towards x, cos_min = a / D */
    scene whole_s, cap_s;
    place(&whole_s, cases[_i].theta_deg, D, a);
    whole_s.axis[1] = 1, whole_s.cos_min = -1;
    cap_s = whole_s;
    visible_cap(&cap_s);
    estimate whole = run(&whole_s, 1, MEAN_SAMPLE), cap = run(&cap_s, 0, MEAN_SAMPLE);
    ck_assert_msg(fabs(whole.mean / want - 1) < 0.005, "whole sphere, theta %g: mean %.6g, want %.6g",
                  cases[_i].theta_deg, whole.mean, want);
    ck_assert_msg(fabs(cap.mean / want - 1) < 0.005, "visible cap, theta %g: mean %.6g, want %.6g",
                  cases[_i].theta_deg, cap.mean, want);
    ck_assert_msg(cap.var < whole.var, "theta %g: the visible cap's variance %.3g is not below the whole sphere's %.3g",
                  cases[_i].theta_deg, cap.var, whole.var);
    variance_is_the_caps("whole sphere", cases[_i].theta_deg, whole, &whole_s);
    variance_is_the_caps("visible cap", cases[_i].theta_deg, cap, &cap_s);
}
END_TEST

/* A light wholly below the horizon sheds nothing. */
START_TEST(a_light_below_the_horizon_gives_nothing)
{
    scene s = {{0, 0, 0}, {0, 0, 1}, {0, 0, -10}, 2, {0, 0, 1}, -1};
    estimate e = run(&s, 1, MEAN_SAMPLE);
    ck_assert_msg(e.mean == 0, "mean %g", e.mean);
}
END_TEST

/* Every sample of the PSIDE grid located and checked (see the top), and the
 * points' spread over the cap (on the whole sphere, over the part x sees). */
static void each_sample_at_its_point(const scene *s)
{
    static double u1[PSIDE * PSIDE], u2[PSIDE * PSIDE], z[PSIDE * PSIDE], phi[PSIDE * PSIDE];
    static probed got[PSIDE * PSIDE];
    static located at[PSIDE * PSIDE];
    const int count = PSIDE * PSIDE, whole = s->cos_min == -1;
    grid(PSIDE, u1, u2);
    if (HARNESS_CALLS_ANSWER)
        for (int k = 0; k < count; k++) {
            got[k].own = ask(s, s->n, u1[k], u2[k]);
            ask_again(s, u1[k], u2[k], &got[k]);
        }
    harness_answer(got, sizeof got);
    for (int k = 0; k < count; k++)
        at[k] = locate(s, &got[k], u1[k], u2[k], whole, "");
    not_one_point(s, at, count, "");
    for (int k = 0; k < count; k++)
        f_over_pdf(s, got[k].own, &at[k], u1[k], u2[k], "");
    if (whole)
        hidden_share(s, at, count);
    scene view = *s;
    if (whole)
        visible_cap(&view);
    uniform_on_the_cap(&view, at, count, z, phi);
}

/* Placements: theta, D, a as above; the cap the visible one (half 0), one
 * inside it, its axis tilted from towards x (out of the xz plane) and its
 * half-angle given, or the whole sphere (half 180, its axis oblique). At
 * theta 85 part of the light is below x's horizon. */
static const struct {
    double theta_deg, distance, radius, tilt_deg, half_deg;
} sampled[] = {{0, 10, 2, 0, 0},   {40, 10, 2, 0, 0},   {20, 3, 1, 0, 0},   {65, 30, 5, 0, 0},
               {85, 10, 2, 0, 0},  {30, 10, 2, 25, 45}, {0, 10, 2, 0, 180}, {40, 3, 1, 0, 180}};

START_TEST(each_sample_is_f_over_pdf_at_its_own_point)
{
    scene s;
    place(&s, sampled[_i].theta_deg, sampled[_i].distance, sampled[_i].radius);
    visible_cap(&s);
    if (sampled[_i].half_deg == 180) {
        const double oblique[3] = {1.0 / 3, 2.0 / 3, 2.0 / 3};
        memcpy(s.axis, oblique, sizeof oblique);
        s.cos_min = -1;
    } else if (sampled[_i].half_deg > 0) {
        double tilt = sampled[_i].tilt_deg * EX_PI / 180;
        s.axis[0] *= cos(tilt), s.axis[2] *= cos(tilt), s.axis[1] = sin(tilt); /* the towards axis has y = 0 */
        unit(s.axis);
        s.cos_min = cos(sampled[_i].half_deg * EX_PI / 180);
    }
    each_sample_at_its_point(&s);
}
END_TEST

/* The frame around the cap's axis, for every orientation: the axis along
 * each coordinate axis, both signs (a construction that crosses the axis with
 * a fixed helper vector is degenerate for one of them: NaN), nearly along
 * them (tilted by 1e-9 and 1e-3), and a few oblique ones (a frame that is not
 * normalised or not perpendicular to the axis puts the samples off the cap).
 * For each, the sphere sits straight above x (n points at it, theta 0) with
 * the axis towards x, and the visible cap's mean must be the analytic light
 * (and the samples checked one by one in run() must each be f / pdf at a
 * point of the cap). */
START_TEST(the_frame_works_for_every_axis)
{
    enum { BASES = 6, TILTS = 3 };
    double axes[BASES * TILTS + 4][3];
    int count = 0;
    const double tilts[TILTS] = {0, 1e-9, 1e-3};
    for (int b = 0; b < BASES; b++)
        for (int t = 0; t < TILTS; t++) {
            double *w = axes[count++];
            w[0] = w[1] = w[2] = 0;
            w[b / 2] = b % 2 ? -1 : 1;
            w[(b / 2 + 1) % 3] += tilts[t];     /* towards the next coordinate axis */
            w[(b / 2 + 2) % 3] -= tilts[t] / 2; /* and a little the other way */
            unit(w);
        }
    const double oblique[4][3] = {{1, 2, 3}, {-3, 1, -2}, {0.3, -0.4, 5}, {-1, -1, -1}};
    for (int k = 0; k < 4; k++) {
        double *w = axes[count++];
        memcpy(w, oblique[k], sizeof oblique[k]);
        unit(w);
    }
    /* The geometry is the same around every axis, so the means agree unless the frame is wrong: an estimator
     * that is off for every axis alike (a factor, a sign) is the other tests' business. */
    const double D = 10, a = 2, want = RHO * LE * (a / D) * (a / D);
    double mean[BASES * TILTS + 4];
    int worst = 0, best = 0;
    for (int k = 0; k < count; k++) {
        const double *w = axes[k];
        scene sc = {{1, 2, 3}, {-w[0], -w[1], -w[2]}, {0, 0, 0}, a, {w[0], w[1], w[2]}, a / D};
        for (int d = 0; d < 3; d++)
            sc.c[d] = sc.x[d] - D * w[d];
        mean[k] = run(&sc, 0,
                      " (one of the samples whose mean is checked; the light straight above x, the cap's axis towards "
                      "it: if only some axes fail, the frame around this one is not orthonormal)")
                      .mean;
        if (fabs(mean[k] - want) > fabs(mean[worst] - want))
            worst = k;
        if (fabs(mean[k] - want) < fabs(mean[best] - want))
            best = k;
    }
    const double *w = axes[worst], *v = axes[best];
    int alike = fabs(mean[worst] - mean[best]) <= 0.005 * fabs(mean[best]);
    ck_assert_msg(fabs(mean[worst] / want - 1) < 0.005 || alike,
                  "the light straight above the point, the cap's axis towards it: with the axis (%.17g, %.17g, "
                  "%.17g) the mean is %.6g, with the axis (%.9g, %.9g, %.9g) %.6g; want %.6g for every axis. The "
                  "frame around the first axis is not orthonormal (two unit vectors perpendicular to the axis and "
                  "to each other)",
                  w[0], w[1], w[2], mean[worst], v[0], v[1], v[2], mean[best], want);
    ck_assert_msg(fabs(mean[worst] / want - 1) < 0.005,
                  "the light straight above the point, the cap's axis towards it: the mean is %.6g for every "
                  "orientation of the axis (%d tried), want %.6g: the frame is not at fault, the estimate is (see "
                  "the other tests)",
                  mean[worst], count, want);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ex_ch08");
    TCase *tc = tcase_create("ex_ch08");
    tcase_add_loop_test(tc, the_mean_is_the_light_the_point_reflects, 0, sizeof cases / sizeof cases[0]);
    tcase_add_test(tc, a_light_below_the_horizon_gives_nothing);
    tcase_add_loop_test(tc, each_sample_is_f_over_pdf_at_its_own_point, 0, sizeof sampled / sizeof sampled[0]);
    tcase_add_test(tc, the_frame_works_for_every_axis);
    suite_add_tcase(s, tc);
    return harness_run(s, "ex_ch08", 0);
}
