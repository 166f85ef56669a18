/* test_ex_ch05.c - exercise ch05: x^99 by squaring and an inverse square root.
 *
 * ex_pow99 on 100000 x in [-1, 1] (seed 5050): within 98u of pow() in double
 * (u = 2^-24: repeated squaring doubles the relative error at each step, so
 * x^64 carries 63u, x^32 31u, x^2 u, and three more products 3u), for results
 * above 1e-36 (below, float's subnormals lose relative precision); the sign of
 * a negative x kept. ex_inverse_sqrt on 100000 x spread over [1e-6, 1e6]:
 * within 1e-6 relative of 1/sqrt in double. ex_normalize: length within 2e-6
 * of 1 and direction within 2e-6 of the exact one.
 */
#include "harness.h"

#include "fast_math.h"

#include <math.h>

START_TEST(pow99_within_bound)
{
    test_rng r = {5050};
    const double u = 0x1.0p-24;
    for (int i = 0; i < 100000; i++) {
        float x = (float)test_rng_uniform(&r, -1, 1);
        double want = pow((double)x, 99);
        float got = ex_pow99(x);
        if (fabs(want) > 1e-36)
            ck_assert_msg(fabs(got - want) <= 98 * u * fabs(want), "x=%a: got %g, want %g", x, got, want);
        ck_assert_msg(x >= 0 || got <= 0, "x=%a: the sign was lost", x);
    }
    ck_assert(ex_pow99(1.0f) == 1.0f && ex_pow99(-1.0f) == -1.0f);
}
END_TEST

START_TEST(inverse_sqrt_within_bound)
{
    test_rng r = {5051};
    for (int i = 0; i < 100000; i++) {
        float x = (float)pow(10, test_rng_uniform(&r, -6, 6));
        double want = 1 / sqrt((double)x);
        float got = ex_inverse_sqrt(x);
        ck_assert_msg(fabs(got - want) <= 1e-6 * want, "x=%g: got %.9g, want %.9g", x, got, want);
    }
}
END_TEST

START_TEST(normalize_within_bound)
{
    test_rng r = {5052};
    for (int i = 0; i < 100000; i++) {
        ex_vec a = {(float)test_rng_uniform(&r, -100, 100), (float)test_rng_uniform(&r, -100, 100),
                    (float)test_rng_uniform(&r, -100, 100)};
        double len = sqrt((double)a.x * a.x + (double)a.y * a.y + (double)a.z * a.z);
        if (len < 1e-3)
            continue;
        ex_vec n = ex_normalize(a);
        ck_assert_msg(fabs(n.x - a.x / len) <= 2e-6 && fabs(n.y - a.y / len) <= 2e-6 && fabs(n.z - a.z / len) <= 2e-6,
                      "vector %d", i);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("exercise ch05");
    TCase *tc = tcase_create("fast math");
    tcase_add_test(tc, pow99_within_bound);
    tcase_add_test(tc, inverse_sqrt_within_bound);
    tcase_add_test(tc, normalize_within_bound);
    suite_add_tcase(s, tc);
    return harness_run(s, "exercise-ch05", 0);
}
