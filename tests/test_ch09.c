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
    harness_shell("rm -rf %s", harness_q(dir));
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
    harness_shell("rm -rf %s", harness_q(dir));
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
    ck_assert_int_eq(harness_shell("cd %s && nm -g --defined-only build/ch09/ch07-nvcc.o | awk '$2 ~ /^[TDBR]$/ {print $3}' | "
                                   "sort | tr '\\n' ' ' | grep -qx 'gpu_naive_forces_nvcc gpu_tiled_forces_nvcc "
                                   "gpu_tiled_ftz_forces_nvcc '",
                                   harness_q(PROJECT)),
                     0);
    ck_assert_int_eq(harness_shell("cd %s && nm ch09 | grep -q ' T gpu_render_nvcc$'", harness_q(PROJECT)), 0);
    ck_assert_int_eq(harness_shell("cd %s && [ $(./ch09 --help | grep -c '^  ch0[567]-.*-nvcc ') -eq 9 ]", harness_q(PROJECT)), 0);
    if (harness_shell("cd %s && ./ch09 --help | grep -q -- '-clang '", harness_q(PROJECT)) == 0) {
        ck_assert_int_eq(harness_shell("cd %s && nm ch09 | grep -q ' T gpu_render_clang$'", harness_q(PROJECT)), 0);
        ck_assert_int_eq(harness_shell("cd %s && [ $(./ch09 --help | grep -c '^  ch0[567]-.*-clang ') -eq 9 ]", harness_q(PROJECT)), 0);
    }
}
END_TEST

/* ---------------------------------------------------------------- the talk's optimisations, in PTX
 * build/ch09/talk-<compiler>.ptx, made with each compiler's flags (chapter.mk).
 * For each kernel of talk.cu, what the PTX must show: the 64-bit division's
 * 32-bit path beside the 64-bit one; four scalar loads without the alignment
 * promise and one 16-byte load with it; a plain load for pointers that may
 * alias and the read-only path (.nc) for const __restrict__. */
#ifndef CH09_BUILD
#define CH09_BUILD "build/ch09"
#endif

/* The text of the .entry whose name contains `name` (up to the next .entry). */
static char *entry_text(const char *ptx, const char *name)
{
    for (const char *e = strstr(ptx, ".entry"); e; e = strstr(e + 1, ".entry")) {
        const char *eol = strchr(e, '(');
        const char *next = strstr(e + 1, ".entry");
        size_t head = eol ? (size_t)(eol - e) : strlen(e);
        char *title = strndup(e, head);
        int match = strstr(title, name) != NULL;
        free(title);
        if (match)
            return strndup(e, next ? (size_t)(next - e) : strlen(e));
    }
    return NULL;
}

static int count_of(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, what)) != NULL; p++)
        n++;
    return n;
}

static const struct {
    const char *kernel, *present, *absent;
    int loads; /* how many ld.global instructions, or 0: not counted */
} talk_ptx[] = {
    {"divide_kernel", "div.u32", NULL, 0},
    {"divide_kernel", "div.s64", NULL, 0},
    {"sum_quads_kernelILi0", NULL, "ld.global.v4", 4},
    {"sum_quads_kernelILi1", "ld.global.v4", NULL, 1},
    {"scale_plain_kernel", "ld.global.", "ld.global.nc", 1},
    {"scale_restrict_kernel", "ld.global.nc", NULL, 1},
};
#define TALK_CASES (int)(sizeof talk_ptx / sizeof talk_ptx[0])

START_TEST(talk_optimisations_in_the_ptx)
{
    const char *compiler = _i / TALK_CASES == 0 ? "nvcc" : "clang";
    int c = _i % TALK_CASES;
    char path[600];
    snprintf(path, sizeof path, "%s/talk-%s.ptx", CH09_BUILD, compiler);
    char *ptx = harness_read_file(path);
    ck_assert_msg(ptx != NULL, "%s: not built", path);
    char *body = entry_text(ptx, talk_ptx[c].kernel);
    ck_assert_msg(body != NULL, "%s: no kernel %s", path, talk_ptx[c].kernel);
    if (talk_ptx[c].present)
        ck_assert_msg(strstr(body, talk_ptx[c].present), "%s, %s: no %s", compiler, talk_ptx[c].kernel,
                      talk_ptx[c].present);
    if (talk_ptx[c].absent)
        ck_assert_msg(!strstr(body, talk_ptx[c].absent), "%s, %s: %s present", compiler, talk_ptx[c].kernel,
                      talk_ptx[c].absent);
    if (talk_ptx[c].loads)
        ck_assert_msg(count_of(body, "ld.global.") == talk_ptx[c].loads, "%s, %s: %d global loads, want %d", compiler,
                      talk_ptx[c].kernel, count_of(body, "ld.global."), talk_ptx[c].loads);
    free(body);
    free(ptx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ch09");
    TCase *tc = tcase_create("ch09");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, fast_math_deletes_isfinite, 0, have_clang() ? 2 : 1);
    tcase_add_test(tc, both_builds_renamed_and_listed);
    tcase_add_loop_test(tc, talk_optimisations_in_the_ptx, 0, (have_clang() ? 2 : 1) * TALK_CASES);
    int skipped = 0;
    if (have_clang())
        tcase_add_test(tc, clang_folds_a_bit_test_on_a_float_argument);
    else
        skipped = 2, printf("no clang that compiles CUDA chosen by the build: its 2 fast-math checks are skipped\n");
    suite_add_tcase(s, tc);
    return harness_run(s, "ch09", skipped);
}
