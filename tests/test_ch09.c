/* test_ch09.c - ch09 without a GPU: the fast-math lesson on this machine's
 * compilers, and that ./ch09 holds both compilers' builds, renamed. */
#include "harness.h"

#include <stdio.h>
#include <string.h>

#ifndef REFERENCE_DIR
#define REFERENCE_DIR "data/reference"
#endif
#define PROJECT REFERENCE_DIR "/../.."

/* The clang the build chose for CUDA (the Makefile's trial compile), used here
 * as a C compiler; "" when there is none, and then its checks are skipped. */
#ifndef CH09_CLANG
#define CH09_CLANG ""
#endif
static const char *const compilers[] = {"gcc", CH09_CLANG " -x c"};
static int have_clang(void)
{
    return CH09_CLANG[0] != '\0';
}

/* isfinite(NaN) and isfinite(inf) as a program built with `flags` answers them
 * ("00" is right), the NaN read at run time so nothing is known at compile time. */
static void probe(const char *compiler, const char *flags, char *answer)
{
    char dir[] = "/tmp/test_ch09.XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char cmd[1200];
    snprintf(cmd, sizeof cmd,
             "cd %s && printf '#include <math.h>\\n#include <stdio.h>\\n#include <stdlib.h>\\n"
             "int main(int c, char **v) { for (int i = 1; i < c; i++) printf(\"%%%%d\", isfinite(strtof(v[i], 0)) ? 1 : 0); "
             "return 0; }\\n' > p.c && %s %s p.c -o p && ./p nan inf > out.txt",
             dir, compiler, flags);
    ck_assert_msg(harness_shell("%s", cmd) == 0, "%s %s: could not build or run the probe", compiler, flags);
    char path[300];
    snprintf(path, sizeof path, "%s/out.txt", dir);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fscanf(f, "%2s", answer), 1);
    fclose(f);
    harness_shell("rm -rf %s", dir);
}

/* The lesson, measured here: -ffast-math lets gcc and clang answer "finite"
 * for NaN and infinity (it includes -ffinite-math-only); -fno-finite-math-only
 * brings the check back. If a compiler stops doing this, the book's claim
 * must change, and this test says so. */
START_TEST(fast_math_deletes_isfinite)
{
    const char *cc = compilers[_i];
    char plain[4], fast[4], kept[4];
    probe(cc, "-O2", plain);
    probe(cc, "-O2 -ffast-math", fast);
    probe(cc, "-O2 -ffast-math -fno-finite-math-only", kept);
    ck_assert_msg(strcmp(plain, "00") == 0, "%s -O2: isfinite(nan), isfinite(inf) = %s", cc, plain);
    ck_assert_msg(strcmp(fast, "11") == 0, "%s -O2 -ffast-math no longer deletes the check (%s): update the book", cc,
                  fast);
    ck_assert_msg(strcmp(kept, "00") == 0, "%s -ffast-math -fno-finite-math-only: %s", cc, kept);
}
END_TEST

/* Worse, with clang: under -ffast-math it marks float arguments and return
 * values as never NaN or infinite, and then folds even a test of the bits of
 * such an argument. gcc keeps that one. (The exercise reads the bits from
 * memory instead.) */
START_TEST(clang_folds_a_bit_test_on_a_float_argument)
{
    char dir[] = "/tmp/test_ch09.XXXXXX", path[300], got[2][4];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    for (int c = 0; c < 2; c++) {
        ck_assert_int_eq(harness_shell("cd %s && printf '#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
                                       "#include <string.h>\n__attribute__((noinline)) static int bits_finite(float x) "
                                       "{ uint32_t b; memcpy(&b, &x, 4); return (b & 0x7f800000u) != 0x7f800000u; }\n"
                                       "int main(int c, char **v) { for (int i = 1; i < c; i++) "
                                       "printf(\"%%%%d\", bits_finite(strtof(v[i], 0))); return 0; }\n' > b.c && "
                                       "%s -O2 -ffast-math b.c -o b 2> /dev/null && ./b nan inf > out%d.txt",
                                       dir, compilers[c], c),
                         0);
        snprintf(path, sizeof path, "%s/out%d.txt", dir, c);
        FILE *f = fopen(path, "r");
        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq(fscanf(f, "%3s", got[c]), 1);
        fclose(f);
    }
    harness_shell("rm -rf %s", dir);
    ck_assert_msg(strcmp(got[0], "00") == 0, "gcc -ffast-math: the bit test on an argument said %s", got[0]);
    ck_assert_msg(strcmp(got[1], "11") == 0, "%s -ffast-math no longer folds the bit test (%s): update the book",
                  compilers[1], got[1]);
}
END_TEST

/* ./ch09 links both builds of each source: each object exports only its own
 * functions, renamed <function>_<compiler>, and the program lists a stage per
 * kernel per compiler it was built with. */
START_TEST(both_builds_renamed_and_listed)
{
    ck_assert_int_eq(harness_shell("nm -g --defined-only %s/build/ch09/ch07-nvcc.o | awk '$2 ~ /^[TDBR]$/ {print $3}' | "
                                   "sort | tr '\\n' ' ' | grep -qx 'gpu_naive_forces_nvcc gpu_tiled_forces_nvcc "
                                   "gpu_tiled_ftz_forces_nvcc '",
                                   PROJECT),
                     0);
    ck_assert_int_eq(harness_shell("nm %s/ch09 | grep -q ' T gpu_render_nvcc$'", PROJECT), 0);
    ck_assert_int_eq(harness_shell("[ $(%s/ch09 --help | grep -c '^  ch0[567]-.*-nvcc ') -eq 9 ]", PROJECT), 0);
    if (harness_shell("%s/ch09 --help | grep -q -- '-clang '", PROJECT) == 0) {
        ck_assert_int_eq(harness_shell("nm %s/ch09 | grep -q ' T gpu_render_clang$'", PROJECT), 0);
        ck_assert_int_eq(harness_shell("[ $(%s/ch09 --help | grep -c '^  ch0[567]-.*-clang ') -eq 9 ]", PROJECT), 0);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ch09");
    TCase *tc = tcase_create("ch09");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, fast_math_deletes_isfinite, 0, have_clang() ? 2 : 1);
    tcase_add_test(tc, both_builds_renamed_and_listed);
    int skipped = 0;
    if (have_clang())
        tcase_add_test(tc, clang_folds_a_bit_test_on_a_float_argument);
    else
        skipped = 2, printf("no clang that compiles CUDA chosen by the build: its 2 fast-math checks are skipped\n");
    suite_add_tcase(s, tc);
    return harness_run(s, "ch09", skipped);
}
