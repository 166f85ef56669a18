/* test_ex_ch08.c - exercise ch08: one light sample, against the analytic
 * light a sphere sheds on a diffuse point. A sphere of radius a and radiance
 * le at distance D, at angle theta from the normal and wholly above the
 * horizon, gives the point the irradiance pi le (a/D)^2 cos(theta), so the
 * point reflects rho le (a/D)^2 cos(theta). For each case, 2^18 samples from a
 * stratified grid jittered with a fixed seed (0xC08) must average to that
 * within 0.5% (the estimator's own standard error here is below 0.1%).
 * Every sample must be finite, and the visible cap's mean right for every
 * orientation of its axis: along each coordinate axis, both signs, nearly
 * along them, and oblique (the frame around the axis must be orthonormal). */
#include "harness.h"

#include "light_sample.h"

#include <math.h>
#include <string.h>

#define SIDE 512 /* SIDE^2 = 2^18 samples */

typedef struct {
    double mean, var;
} estimate;

static estimate run(const double x[3], const double n[3], const double c[3], double a, const double axis[3],
                    double cos_min)
{
    test_rng r = {0xC08};
    double sum = 0, sq = 0;
    for (int i = 0; i < SIDE; i++)
        for (int j = 0; j < SIDE; j++) {
            double u1 = (i + test_rng_uniform(&r, 0, 1)) / SIDE, u2 = (j + test_rng_uniform(&r, 0, 1)) / SIDE;
            double v = ex_light_sample(x, n, 0.6, c, a, 5.0, axis, cos_min, u1, u2);
            if (!(isfinite(v) && v >= 0))
                ck_abort_msg("a sample of %g (the cap's axis (%.17g, %.17g, %.17g), cos_min %g, u1 %.9g, u2 %.9g): "
                             "want a finite number >= 0%s",
                             v, axis[0], axis[1], axis[2], cos_min, u1, u2,
                             isfinite(v) ? ""
                                         : "; is the frame around the axis degenerate for this axis (crossed with a "
                                           "helper vector parallel to it)?");
            sum += v;
            sq += v * v;
        }
    double m = sum / (SIDE * SIDE);
    return (estimate){m, sq / (SIDE * SIDE) - m * m};
}

static const struct {
    double theta_deg, distance, radius;
} cases[] = {{0, 10, 2}, {40, 10, 2}, {65, 30, 5}, {20, 3, 1}};

START_TEST(the_mean_is_the_light_the_point_reflects)
{
    double th = cases[_i].theta_deg * EX_PI / 180, D = cases[_i].distance, a = cases[_i].radius;
    double x[3] = {1, 2, 3}, n[3] = {0, 0, 1};
    double c[3] = {x[0] + D * sin(th), x[1], x[2] + D * cos(th)};
    double want = 0.6 * 5.0 * (a / D) * (a / D) * cos(th);
    /* the whole sphere (any axis), and the cap x can see: axis towards x, cos_min = a / D */
    double up[3] = {0, 1, 0}, towards[3] = {(x[0] - c[0]) / D, (x[1] - c[1]) / D, (x[2] - c[2]) / D};
    estimate whole = run(x, n, c, a, up, -1), cap = run(x, n, c, a, towards, a / D);
    ck_assert_msg(fabs(whole.mean / want - 1) < 0.005, "whole sphere, theta %g: mean %.6g, want %.6g",
                  cases[_i].theta_deg, whole.mean, want);
    ck_assert_msg(fabs(cap.mean / want - 1) < 0.005, "visible cap, theta %g: mean %.6g, want %.6g",
                  cases[_i].theta_deg, cap.mean, want);
    ck_assert_msg(cap.var < whole.var, "theta %g: the visible cap's variance %.3g is not below the whole sphere's %.3g",
                  cases[_i].theta_deg, cap.var, whole.var);
}
END_TEST

/* A light wholly below the horizon sheds nothing. */
START_TEST(a_light_below_the_horizon_gives_nothing)
{
    double x[3] = {0, 0, 0}, n[3] = {0, 0, 1}, c[3] = {0, 0, -10}, axis[3] = {0, 0, 1};
    estimate e = run(x, n, c, 2, axis, -1);
    ck_assert_msg(e.mean == 0, "mean %g", e.mean);
}
END_TEST

/* The frame around the cap's axis, for every orientation: the axis along
 * each coordinate axis, both signs (a construction that crosses the axis with
 * a fixed helper vector is degenerate for one of them: NaN), nearly along
 * them (tilted by 1e-9 and 1e-3), and a few oblique ones (a frame that is not
 * normalised or not perpendicular to the axis puts the samples off the cap).
 * For each, the sphere sits straight above x (n points at it, theta 0) with
 * the axis towards x, and the visible cap's mean must be the analytic light. */
static void unit(double v[3])
{
    double l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int k = 0; k < 3; k++)
        v[k] /= l;
}

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
    const double D = 10, a = 2, x[3] = {1, 2, 3}, want = 0.6 * 5.0 * (a / D) * (a / D);
    double mean[BASES * TILTS + 4];
    int worst = 0, best = 0;
    for (int k = 0; k < count; k++) {
        const double *w = axes[k];
        double c[3] = {x[0] - D * w[0], x[1] - D * w[1], x[2] - D * w[2]}, n[3] = {-w[0], -w[1], -w[2]};
        mean[k] = run(x, n, c, a, w, a / D).mean;
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
    tcase_add_test(tc, the_frame_works_for_every_axis);
    suite_add_tcase(s, tc);
    return harness_run(s, "ex_ch08", 0);
}
