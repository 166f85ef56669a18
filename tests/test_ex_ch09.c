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

static const char *kind_of(uint32_t bits)
{
    int exp_all_ones = (bits & 0x7f800000u) == 0x7f800000u, mantissa = (bits & 0x007fffffu) != 0;
    return exp_all_ones ? (mantissa ? "a NaN" : "an infinity") : (bits & 0x7f800000u) ? "a normal float"
           : mantissa                                                              ? "a subnormal"
                                                                                   : "a zero";
}

/* Builds the driver with `compiler -O2 -ffast-math` and runs it. Returns the
 * number of wrong answers (-1: it could not be built or run) and describes the
 * first in `first` (got / want, in the student's terms). */
static int wrong_answers(const char *compiler, char *first, size_t first_size)
{
    const char *dir = harness_scratch("test_ex_ch09");
    char src[300], exe[300], out[300];
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
    snprintf(first, first_size, "%s -O2 -ffast-math: your finite.h does not compile, or the program did not run",
             compiler);
    int rc = harness_shell("%s -std=c11 -O2 -ffast-math -I%s %s -o %s && %s%s > %s", compiler, harness_q(EX_DIR),
                           harness_q(src), harness_q(exe), harness_q(exe), args, harness_q(out));
    int wrong = -1;
    if (rc == 0 && (f = fopen(out, "r")) != NULL) {
        wrong = 0;
        for (size_t i = 0; i < CASES; i++) {
            int got = -1;
            if (fscanf(f, "%d", &got) != 1 || got != cases[i].finite) {
                if (wrong++ == 0)
                    snprintf(first, first_size, "%s -O2 -ffast-math: bits %08x (%s): got %s, want %s", compiler,
                             (unsigned)cases[i].bits, kind_of(cases[i].bits), got ? "finite" : "not finite",
                             cases[i].finite ? "finite" : "not finite");
            }
        }
        fclose(f);
    }
    return wrong;
}

static void right_under_fast_math(const char *compiler)
{
    char first[300];
    int wrong = wrong_answers(compiler, first, sizeof first);
    ck_assert_msg(wrong == 0, "%s (%d of %zu cases wrong)", first, wrong, CASES);
}

START_TEST(right_under_fast_math_with_cc)
{
    right_under_fast_math(CC_NAME);
}
END_TEST

START_TEST(right_under_fast_math_with_clang)
{
    right_under_fast_math(harness_shell("command -v clang-22 > /dev/null") == 0 ? "clang-22" : "clang");
}
END_TEST

/* Reading the float's bits through a pointer of another type is undefined
 * behaviour (the aliasing rules), whatever it happens to print: the compiler
 * may reorder or drop such a read. gcc says so at -Wstrict-aliasing=1; memcpy
 * (or a union) is the defined way, and gets no warning. (-Werror=strict-aliasing
 * comes first: after -Wstrict-aliasing=1 it would reset the level to 3.) */
START_TEST(bits_read_without_breaking_aliasing)
{
    const char *dir = harness_scratch("test_ex_ch09");
    char path[300];
    snprintf(path, sizeof path, "%s/alias.c", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("#include \"finite.h\"\nint probe(float x) { return ex_finite(&x); }\n", f);
    fclose(f);
    int rc = harness_shell("cd %s && gcc -std=c11 -O2 -Werror=strict-aliasing -Wstrict-aliasing=1 -I%s -c alias.c "
                           "-o /dev/null > alias.txt 2>&1", harness_q(dir), harness_q(EX_DIR));
    if (rc != 0) {
        snprintf(path, sizeof path, "%s/alias.txt", dir);
        char *text = harness_read_file(path), *line = text ? strstr(text, "error:") : NULL;
        if (line && strchr(line, '\n'))
            *strchr(line, '\n') = '\0';
        ck_abort_msg("gcc -Wstrict-aliasing=1 on your finite.h: %s (read the bits with memcpy instead)",
                     line ? line : "it does not compile");
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ex_ch09");
    TCase *tc = tcase_create("ex_ch09");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, right_under_fast_math_with_cc);
    tcase_add_test(tc, bits_read_without_breaking_aliasing);
    int skipped = 0;
    if (harness_shell("command -v clang-22 > /dev/null || command -v clang > /dev/null") == 0)
        tcase_add_test(tc, right_under_fast_math_with_clang);
    else
        skipped = 1, printf("no clang: its half of the test is skipped\n");
    suite_add_tcase(s, tc);
    return harness_run(s, "ex_ch09", skipped);
}
