/* test_ex_ch08.c - exercise ch08: one light sample, against the analytic
 * light a sphere sheds on a diffuse point. A sphere of radius a and radiance
 * le at distance D, at angle theta from the normal and wholly above the
 * horizon, gives the point the irradiance pi le (a/D)^2 cos(theta), so the
 * point reflects rho le (a/D)^2 cos(theta). For each case, 2^18 samples from a
 * stratified grid jittered with a fixed seed (0xC08) must average to that
 * within 0.5% (the estimator's own standard error here is below 0.1%). */
#include "harness.h"

#include "light_sample.h"

#include <math.h>

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
            ck_assert_msg(isfinite(v) && v >= 0, "a sample of %g", v);
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

int main(void)
{
    Suite *s = suite_create("ex_ch08");
    TCase *tc = tcase_create("ex_ch08");
    tcase_add_loop_test(tc, the_mean_is_the_light_the_point_reflects, 0, sizeof cases / sizeof cases[0]);
    tcase_add_test(tc, a_light_below_the_horizon_gives_nothing);
    suite_add_tcase(s, tc);
    return harness_run(s, "ex_ch08", 0);
}
