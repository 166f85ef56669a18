/* test_ex_ch02.c - exercise ch02: gcc -O1 inlines the vector helpers and the
 * picture does not change.
 *
 * 1. gcc -O1 -S of the exercise's card.c: inside trace() and sample() there is
 *    no call to a function whose name starts with vec_ (calls to sqrtf and pow
 *    stay: they are libc's).
 * 2. The exercise's card.c, built at -O0 and at -O1 with a small driver
 *    (tests/ex_ch02_driver.c), renders 64x48 at 4 spp byte for byte as ch01's
 *    card.c built at -O0 (the course's baseline, itself byte-identical to
 *    Kensler's original at 512x512x64). A build that fails shows gcc's own
 *    first 10 lines (at -O0 nothing is inlined: a plain `inline` definition,
 *    without static, gives the linker no function to call).
 * Compiled here with the system's gcc: no GPU needed.
 */
#include "harness.h"

#include <unistd.h>

static const char *work; /* the suite's scratch folder, made in main() */

/* The first `max` lines of file `path` on one line, joined by " | " (the
 * graders show a failure's first line), malloc'd; "" when it cannot be read. */
static char *first_lines(const char *path, int max)
{
    char *text = harness_read_file(path);
    if (!text)
        return strdup("");
    char *joined = (char *)malloc(3 * strlen(text) + 1), *line = text;
    joined[0] = '\0';
    for (int n = 0; n < max && *line; n++) {
        char *end = strchr(line, '\n');
        if (end)
            *end = '\0';
        if (n)
            strcat(joined, " | ");
        strcat(joined, line);
        if (!end)
            break;
        line = end + 1;
    }
    free(text);
    return joined;
}

/* Builds the driver with card.c from `dir` at `level`; renders to out. A
 * build that fails shows the compiler's and linker's own first 10 lines (an
 * undefined reference says which function has no definition to link). */
static void render_with(const char *dir, const char *level, const char *out)
{
    int rc = harness_shell("cd %s && gcc -std=c11 -D_POSIX_C_SOURCE=200809L %s -I%s/common -I%s "
                           "%s/tests/ex_ch02_driver.c %s/card.c %s/common/image.c -o driver -lm > build.txt 2>&1",
                           harness_q(work), level, harness_q(PROJECT_DIR), harness_q(dir), harness_q(PROJECT_DIR),
                           harness_q(dir), harness_q(PROJECT_DIR));
    if (rc != 0) {
        char path[512];
        snprintf(path, sizeof path, "%s/build.txt", work);
        char *log = first_lines(path, 10);
        ck_abort_msg("%s/card.c does not build at %s with the test's driver (tests/ex_ch02_driver.c); gcc says: %s",
                     dir, level, log);
    }
    ck_assert_msg(harness_shell("cd %s && ./driver 64 48 4 %s", harness_q(work), harness_q(out)) == 0,
                  "%s/card.c at %s: the render failed",
                  dir, level);
}

/* The lines of function `name`'s body in an assembly file. */
static char *function_body(const char *asm_text, const char *name)
{
    char label[64];
    snprintf(label, sizeof label, "\n%s:\n", name);
    const char *start = strstr(asm_text, label);
    if (!start)
        return NULL;
    start += strlen(label);
    const char *end = strstr(start, "\t.size\t");
    size_t n = end ? (size_t)(end - start) : strlen(start);
    char *body = (char *)malloc(n + 1);
    memcpy(body, start, n);
    body[n] = '\0';
    return body;
}

START_TEST(o1_inlines_the_vector_helpers)
{
    ck_assert_msg(harness_shell("gcc -std=c11 -O1 -S -fno-asynchronous-unwind-tables -I%s/common -I%s %s/card.c "
                                "-o %s/card.s",
                                harness_q(PROJECT_DIR), harness_q(EX_DIR), harness_q(EX_DIR), harness_q(work)) == 0,
                  "your card.c does not compile at -O1");
    char path[512];
    snprintf(path, sizeof path, "%s/card.s", work);
    char *text = harness_read_file(path);
    ck_assert_ptr_nonnull(text);
    const char *functions[] = {"trace", "sample"};
    for (int f = 0; f < 2; f++) {
        char *body = function_body(text, functions[f]);
        if (!body)
            continue; /* inlined itself into its caller: no calls of its own left */
        int calls = 0;
        for (char *p = strstr(body, "call\tvec_"); p; p = strstr(p + 1, "call\tvec_"))
            calls++;
        ck_assert_msg(calls == 0, "got: %d calls to vec_* inside %s() at gcc -O1; want: 0", calls, functions[f]);
        free(body);
    }
    free(text);
}
END_TEST

START_TEST(picture_unchanged_at_o0_and_o1)
{
    render_with(PROJECT_DIR "/chapters/ch01_baseline", "-O0", "ref.ppm");
    render_with(EX_DIR, "-O0", "o0.ppm");
    render_with(EX_DIR, "-O1", "o1.ppm");
    ck_assert_msg(harness_shell("cd %s && cmp -s ref.ppm o0.ppm", harness_q(work)) == 0,
                  "64x48x4 at -O0: your card.c's image differs from ch01's (want: byte-identical)");
    ck_assert_msg(harness_shell("cd %s && cmp -s ref.ppm o1.ppm", harness_q(work)) == 0,
                  "64x48x4 at -O1: your card.c's image differs from ch01's at -O0 (want: byte-identical)");
}
END_TEST

int main(void)
{
    work = harness_scratch("test_ex_ch02");
    Suite *s = suite_create("exercise ch02");
    TCase *tc = tcase_create("inline");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, o1_inlines_the_vector_helpers);
    tcase_add_test(tc, picture_unchanged_at_o0_and_o1);
    suite_add_tcase(s, tc);
    return harness_run(s, "exercise-ch02", 0);
}
