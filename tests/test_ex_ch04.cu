/* test_ex_ch04.cu - exercise ch04: tinted mirrors as a loop without a stack.
 * 5000 random rays (seed 4040), half aimed at the letters; colours within
 * 1e-4 relative + 1e-3 absolute of tinted_sample_recursive(), and the same
 * random numbers consumed. Runs on the CPU (nvcc-built host code), so in CI
 * too. Then the machine code: tests/ex_ch04_kernel.cu, which calls the
 * exercise's loop, compiled with ptxas -v; every function it reports must have
 * 0 bytes of stack frame and no spill (recursion needs a stack frame). */
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
        vec want = tinted_sample_recursive(origin, dir, &s1), got = exercise_sample_loop(origin, dir, &s2);
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

START_TEST(no_stack_frame_in_the_machine_code)
{
    char *text = harness_nvcc(NVCC, CUDA_ARCH, EX_DIR, PROJECT_DIR "/chapters/ch04_gpu_loop",
                              PROJECT_DIR "/tests/ex_ch04_kernel.cu", "ptxas");
    ck_assert_msg(text != NULL, "your sample_loop.h does not compile for the GPU (nvcc)");
    int functions = 0;
    for (char *p = strstr(text, "bytes stack frame"); p; p = strstr(p + 1, "bytes stack frame")) {
        const char *line = p;
        while (line > text && line[-1] != '\n')
            line--;
        int stack = -1, spills = -1;
        ck_assert(sscanf(line, " %d bytes stack frame, %d bytes spill stores", &stack, &spills) == 2);
        ck_assert_msg(stack == 0 && spills == 0, "got: %d bytes of stack frame, %d bytes of spill stores in a function "
                      "(ptxas -v); want: 0 and 0 (a recursion needs a stack)", stack, spills);
        functions++;
    }
    ck_assert_int_gt(functions, 0);
    free(text);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("exercise ch04");
    TCase *tc = tcase_create("loop");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, loop_equals_recursion);
    tcase_add_test(tc, no_stack_frame_in_the_machine_code);
    suite_add_tcase(s, tc);
    return harness_run(s, "exercise-ch04", 0);
}
