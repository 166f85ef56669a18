/* test_ex_ch09.c - exercise ch09: ex_finite, compiled with -O2
 * -ffast-math by the C compiler (and by clang-22 or clang when installed),
 * against NaNs (quiet, signalling, negative, with payloads), infinities and
 * finite values (zero, -zero, the smallest subnormal, the largest float). The
 * driver is written and built here, so the header is compiled exactly as a
 * fast-math program would compile it. */
#include "harness.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The cases as bit patterns, and what a finite test must answer. */
static const struct {
    uint32_t bits;
    int finite;
} cases[] = {{0x7fc00000u, 0}, {0xffc00000u, 0}, {0x7f800001u, 0}, {0x7fbfffffu, 0}, {0x7f800000u, 0},
             {0xff800000u, 0}, {0x00000000u, 1}, {0x80000000u, 1}, {0x00000001u, 1}, {0x7f7fffffu, 1},
             {0x3f800000u, 1}, {0xc2c80000u, 1}};
#define CASES (sizeof cases / sizeof cases[0])

/* Builds the driver with `compiler -O2 -ffast-math` and runs it; returns the
 * number of wrong answers (or -1 if it could not be built or run). */
static int wrong_answers(const char *compiler)
{
    char dir[] = "/tmp/test_ex_ch09.XXXXXX", src[300], exe[300], out[300];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(src, sizeof src, "%s/driver.c", dir);
    snprintf(exe, sizeof exe, "%s/driver", dir);
    snprintf(out, sizeof out, "%s/out.txt", dir);
    FILE *f = fopen(src, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "#include \"finite.h\"\n#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
               "int main(int argc, char **argv) {\n"
               "    for (int i = 1; i < argc; i++) {\n"
               "        uint32_t b = (uint32_t)strtoul(argv[i], NULL, 16); float x; memcpy(&x, &b, 4);\n"
               "        printf(\"%%d\\n\", ex_finite(&x) ? 1 : 0);\n"
               "    }\n    return 0;\n}\n");
    fclose(f);
    char args[400] = "";
    for (size_t i = 0; i < CASES; i++)
        snprintf(args + strlen(args), sizeof args - strlen(args), " %08x", (unsigned)cases[i].bits);
    printf("  %s -O2 -ffast-math -I%s\n", compiler, EX_DIR);
    int rc = harness_shell("%s -std=c11 -O2 -ffast-math -I'%s' '%s' -o '%s' && '%s'%s > '%s'", compiler, EX_DIR, src, exe,
                           exe, args, out);
    int wrong = -1;
    if (rc == 0 && (f = fopen(out, "r")) != NULL) {
        wrong = 0;
        for (size_t i = 0; i < CASES; i++) {
            int got = -1;
            if (fscanf(f, "%d", &got) != 1 || got != cases[i].finite) {
                printf("  bits %08x: got %d, want %d\n", (unsigned)cases[i].bits, got, cases[i].finite);
                wrong++;
            }
        }
        fclose(f);
    }
    harness_shell("rm -rf '%s'", dir);
    return wrong;
}

START_TEST(right_under_fast_math_with_cc)
{
    ck_assert_int_eq(wrong_answers(CC_NAME), 0);
}
END_TEST

START_TEST(right_under_fast_math_with_clang)
{
    const char *clang = harness_shell("command -v clang-22 > /dev/null") == 0 ? "clang-22" : "clang";
    ck_assert_int_eq(wrong_answers(clang), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ex_ch09");
    TCase *tc = tcase_create("ex_ch09");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, right_under_fast_math_with_cc);
    int skipped = 0;
    if (harness_shell("command -v clang-22 > /dev/null || command -v clang > /dev/null") == 0)
        tcase_add_test(tc, right_under_fast_math_with_clang);
    else
        skipped = 1, printf("no clang: its half of the test is skipped\n");
    suite_add_tcase(s, tc);
    return harness_run(s, "ex_ch09", skipped);
}
