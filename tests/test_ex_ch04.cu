/* test_ex_ch04.cu - exercise ch04: the loop must equal the recursion.
 * 5000 random rays (seed 4040), half aimed at the letters; colours within
 * 1e-4 relative + 1e-3 absolute of sample_recursive(), and the same random
 * numbers consumed. Runs on the CPU (nvcc-built host code), so in CI too. */
#include "harness.h"

#include "sample_loop.h"

#include <math.h>

START_TEST(loop_equals_recursion)
{
    test_rng r = {4040};
    int reflections = 0;
    for (int i = 0; i < 5000; i++) {
        vec origin = vec_make((float)test_rng_uniform(&r, 0, 20), (float)test_rng_uniform(&r, 0, 20),
                              (float)test_rng_uniform(&r, 0.5, 10));
        vec aim = i % 2 ? vec_make((float)test_rng_uniform(&r, 0, 18), 0, (float)test_rng_uniform(&r, 4, 12))
                        : vec_make((float)test_rng_uniform(&r, -20, 40), (float)test_rng_uniform(&r, -20, 40),
                                   (float)test_rng_uniform(&r, -5, 20));
        vec dir = vec_normalize(vec_add(aim, vec_scale(origin, -1)));
        uint32_t s1 = (uint32_t)test_rng_next(&r), s2 = s1;
        vec want = sample_recursive(origin, dir, &s1), got = exercise_sample_loop(origin, dir, &s2);
        ck_assert_msg(fabsf(want.x - got.x) <= 1e-4f * fabsf(want.x) + 1e-3f &&
                          fabsf(want.y - got.y) <= 1e-4f * fabsf(want.y) + 1e-3f &&
                          fabsf(want.z - got.z) <= 1e-4f * fabsf(want.z) + 1e-3f,
                      "ray %d: want (%g %g %g), got (%g %g %g)", i, want.x, want.y, want.z, got.x, got.y, got.z);
        ck_assert_msg(s1 == s2, "ray %d: different random numbers were drawn", i);
        float t;
        vec n;
        reflections += trace(origin, dir, &t, &n) == HIT_SPHERE;
    }
    ck_assert_int_gt(reflections, 500);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("exercise ch04");
    TCase *tc = tcase_create("loop");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, loop_equals_recursion);
    suite_add_tcase(s, tc);
    return harness_run(s, "exercise-ch04", 0);
}
