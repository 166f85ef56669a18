/* test_ex_ch05.c - exercise ch05: ex_shade without FP64.
 *
 * 1. The machine code: nvcc -ptx of tests/ex_ch05_kernel.cu (a kernel calling
 *    ex_shade); every PTX instruction that names an .f64 type is counted (the
 *    register declarations are not instructions). Want: 0.
 * 2. The values: 200000 inputs from seed 5050 (dir_z in [-1, 1], spec_base in
 *    [-1, 1], lambert in [-0.5, 1], px, py in [-40, 40]) against the same
 *    formula computed here in double: |got - want| <= 1e-4 * (|sky| +
 *    |specular| + |floor term|) + 1e-6. Float carries 2^-24 relative per
 *    operation; x^99 by squaring carries up to 98 of them, powf about one.
 * No GPU needed: nvcc compiles to PTX without one.
 */
#include "harness.h"

#include "shade.h"

#include <math.h>
#include <unistd.h>

START_TEST(no_fp64_instruction_in_the_ptx)
{
    char *ptx = harness_nvcc(NVCC, CUDA_ARCH, EX_DIR, NULL, PROJECT_DIR "/tests/ex_ch05_kernel.cu", "ptx");
    ck_assert_msg(ptx != NULL, "your shade.h does not compile for the GPU (nvcc -ptx)");
    int fp64 = 0;
    char first[200] = "";
    for (char *line = strtok(ptx, "\n"); line; line = strtok(NULL, "\n")) {
        while (*line == ' ' || *line == '\t')
            line++;
        if (strncmp(line, ".reg", 4) == 0 || strncmp(line, "//", 2) == 0 || !strstr(line, ".f64"))
            continue;
        if (!fp64++)
            snprintf(first, sizeof first, "%s", line);
    }
    ck_assert_msg(fp64 == 0, "got: %d FP64 instructions in the PTX (the first: %s); want: 0", fp64, first);
    free(ptx);
}
END_TEST

START_TEST(values_match_double_within_float_accuracy)
{
    test_rng r = {5050};
    for (int i = 0; i < 200000; i++) {
        double dz = test_rng_uniform(&r, -1, 1), sb = test_rng_uniform(&r, -1, 1), lam = test_rng_uniform(&r, -0.5, 1);
        double px = test_rng_uniform(&r, -40, 40), py = test_rng_uniform(&r, -40, 40);
        float fdz = (float)dz, fsb = (float)sb, flam = (float)lam, fpx = (float)px, fpy = (float)py;
        double sky = 0.7 * pow(1 - (double)fdz, 4), spec = flam > 0 ? pow((double)fsb, 99) : 0;
        int odd = (int)(ceil((double)fpx * 0.2) + ceil((double)fpy * 0.2)) & 1;
        double floor_term = ((double)flam * 0.2 + 0.1) * (odd ? 3 : 1) / sqrt((double)fpx * fpx + (double)fpy * fpy + 1);
        double want = sky + spec + floor_term, got = ex_shade(fdz, fsb, flam, fpx, fpy);
        double bound = 1e-4 * (fabs(sky) + fabs(spec) + fabs(floor_term)) + 1e-6;
        ck_assert_msg(fabs(got - want) <= bound, "input %d (%g, %g, %g, %g, %g): got %.9g, want %.9g", i, fdz, fsb, flam,
                      fpx, fpy, got, want);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("exercise ch05");
    TCase *tc = tcase_create("no fp64");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, no_fp64_instruction_in_the_ptx);
    tcase_add_test(tc, values_match_double_within_float_accuracy);
    suite_add_tcase(s, tc);
    return harness_run(s, "exercise-ch05", 0);
}
