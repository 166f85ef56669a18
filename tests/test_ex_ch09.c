/* test_ex_ch09.c - exercise ch09: ex_finite, compiled with -O2
 * -ffast-math by the C compiler (and by clang-22 or clang when installed),
 * against NaNs (quiet, signalling, negative, with payloads), infinities and
 * finite values (zero, -zero, the smallest subnormal, the largest float). The
 * driver is written and built here, so the header is compiled exactly as a
 * fast-math program would compile it.
 *
 * The answer runs only as that program, never in this process (harness.h,
 * "the probe and the judge"): every test here runs in the judge alone. The
 * program runs through harness_answer_shell in a fresh folder of its own,
 * holding only its input (the values, as raw bytes) and its output; the
 * driver's source and build stay in the judge's folder beside it, and what
 * each value must give is worked out here from its bits, never read from the
 * program. Besides the fixed cases (each twice: the same bits must get the
 * same answer) the program gets 256 more (NaNs with random payloads, either
 * sign; normal and subnormal floats), all in a shuffled order, drawn with a
 * seed made from the bytes of the answer's finite.h: the same answer always
 * meets the same values (a failure repeats), but an answer cannot know them
 * in advance, so it cannot pass by replaying the right answers in call
 * order, or by listing the test's NaNs. */
#include "harness.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The fixed cases as bit patterns, and what a finite test must answer. */
static const struct {
    uint32_t bits;
    int finite;
} cases[] = {{0x7fc00000u, 0}, {0xffc00000u, 0}, {0x7f800001u, 0}, {0x7fbfffffu, 0}, {0x7f800000u, 0},
             {0xff800000u, 0}, {0x00000000u, 1}, {0x80000000u, 1}, {0x00000001u, 1}, {0x7f7fffffu, 1},
             {0x3f800000u, 1}, {0xc2c80000u, 1}};
#define CASES (sizeof cases / sizeof cases[0])
enum { DRAWN_PER_KIND = 64, KINDS = 4, DRAWN = KINDS * DRAWN_PER_KIND, VALUES = 2 * CASES + DRAWN };

/* What the judge says a float is: NaN or infinite exactly when its 8
 * exponent bits are all ones (IEEE 754 single). */
static int finite_bits(uint32_t bits)
{
    return (bits >> 23 & 0xffu) != 0xffu; /* not the model answer's words: a release must not hold them */
}

static const char *kind_of(uint32_t bits)
{
    int exp_all_ones = (bits & 0x7f800000u) == 0x7f800000u, mantissa = (bits & 0x007fffffu) != 0;
    return exp_all_ones ? (mantissa ? "a NaN" : "an infinity") : (bits & 0x7f800000u) ? "a normal float"
           : mantissa                                                              ? "a subnormal"
                                                                                   : "a zero";
}

/* The values the program is fed, in canonical order (the fixed cases, the
 * drawn ones, the fixed cases again), and the order it gets them in:
 * order[k] is the canonical index of the k-th value in its input. The seed is
 * the answer's finite.h (FNV-1a of its bytes). */
typedef struct {
    uint32_t bits[VALUES];
    int order[VALUES];
} feed;

static void make_feed(feed *f)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/finite.h", EX_DIR);
    char *text = harness_read_file(path);
    ck_assert_msg(text != NULL, "cannot read your finite.h (%s)", path);
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char *c = text; *c; c++)
        h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
    free(text);
    test_rng r = {h | 1};
    for (size_t i = 0; i < CASES; i++) {
        ck_assert_msg(finite_bits(cases[i].bits) == cases[i].finite, "the test's own case %08x is listed wrong",
                      (unsigned)cases[i].bits);
        f->bits[i] = f->bits[CASES + DRAWN + i] = cases[i].bits;
    }
    for (int k = 0; k < DRAWN; k++) {
        uint32_t x = (uint32_t)(test_rng_next(&r) >> 32), sign = x & 0x80000000u, mantissa = x & 0x007fffffu;
        uint32_t exponent = (uint32_t)(test_rng_next(&r) >> 40) % 254 + 1; /* 1 .. 254: a normal float */
        switch (k % KINDS) {
        case 0: /* a NaN, any payload (not 0: that is infinity), either sign */
            f->bits[CASES + k] = sign | 0x7f800000u | (mantissa ? mantissa : 1);
            break;
        case 1: /* a NaN again: half of what is drawn is not finite */
            f->bits[CASES + k] = sign | 0x7f800000u | (mantissa | 0x00400000u);
            break;
        case 2: /* a normal float, up to the largest exponent */
            f->bits[CASES + k] = sign | exponent << 23 | mantissa;
            break;
        default: /* a subnormal */
            f->bits[CASES + k] = sign | (mantissa ? mantissa : 1);
        }
    }
    for (int k = 0; k < VALUES; k++)
        f->order[k] = k;
    for (int k = VALUES - 1; k > 0; k--) { /* Fisher-Yates */
        int j = (int)(test_rng_next(&r) % (unsigned long long)(k + 1)), t = f->order[k];
        f->order[k] = f->order[j];
        f->order[j] = t;
    }
}

/* The driver: reads the floats' bytes from the file it is given, prints one
 * 0 or 1 a line, ex_finite of each. */
static const char driver_source[] =
    "#include \"finite.h\"\n#include <stdio.h>\n#include <string.h>\n"
    "int main(int argc, char **argv) {\n"
    "    FILE *in = argc == 2 ? fopen(argv[1], \"rb\") : NULL;\n"
    "    unsigned char b[4];\n"
    "    if (!in) return 2;\n"
    "    while (fread(b, 1, 4, in) == 4) {\n"
    "        float x;\n"
    "        memcpy(&x, b, 4);\n"
    "        printf(\"%d\\n\", ex_finite(&x) ? 1 : 0);\n"
    "    }\n"
    "    fclose(in);\n"
    "    return 0;\n"
    "}\n";

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "cannot write %s", path);
    ck_assert_msg(fwrite(data, 1, n, f) == n && fclose(f) == 0, "cannot write %s", path);
}

/* The first line of a compiler's log that says error, for a message. */
static void first_error(const char *log_path, char *out, size_t size)
{
    char *text = harness_read_file(log_path), *line = text ? strstr(text, "error") : NULL;
    if (line && strchr(line, '\n'))
        *strchr(line, '\n') = '\0';
    snprintf(out, size, "%s", line ? line : "no error line");
    free(text);
}

/* Builds the driver with `compiler -O2 -ffast-math` in the judge's folder
 * for it (tag), runs it in a fresh folder of its own on the feed, and checks
 * each answer against the bits. */
static void right_under_fast_math(const char *compiler, const char *tag)
{
    static feed f;
    make_feed(&f);
    char dir[700], path[900], exe[800], run[800];
    snprintf(dir, sizeof dir, "%s/%s", harness_scratch("test_ex_ch09"), tag);
    ck_assert_msg(harness_shell("mkdir -p %s", harness_q(dir)) == 0, "cannot make %s", dir);
    snprintf(path, sizeof path, "%s/driver.c", dir);
    write_file(path, driver_source, strlen(driver_source));
    snprintf(exe, sizeof exe, "%s/driver", dir);
    int rc = harness_shell("cd %s && %s -std=c11 -O2 -ffast-math -I%s driver.c -o driver > build.txt 2>&1",
                           harness_q(dir), compiler, harness_q(EX_DIR));
    if (rc != 0) {
        char line[400];
        snprintf(path, sizeof path, "%s/build.txt", dir);
        first_error(path, line, sizeof line);
        ck_abort_msg("%s -std=c11 -O2 -ffast-math: a program that includes your finite.h does not compile: %s",
                     compiler, line);
    }
    /* the run's own folder: its input, its output, nothing of the judge's */
    snprintf(run, sizeof run, "%s/run.XXXXXX", dir);
    ck_assert_msg(mkdtemp(run) != NULL, "cannot make a folder for the run in %s", dir);
    unsigned char bytes[VALUES * 4];
    for (int k = 0; k < VALUES; k++)
        memcpy(bytes + 4 * k, &f.bits[f.order[k]], 4);
    snprintf(path, sizeof path, "%s/in.bin", run);
    write_file(path, bytes, sizeof bytes);
    rc = harness_answer_shell(run, "%s in.bin > out.txt 2> err.txt", harness_q(exe));
    ck_assert_msg(rc == 0, "%s -O2 -ffast-math: the program built from your finite.h (it prints ex_finite of each "
                  "of %d floats) ended with status %d", compiler, VALUES, rc);
    snprintf(path, sizeof path, "%s/out.txt", run);
    char *out = harness_read_file(path);
    ck_assert_msg(out != NULL, "%s -O2 -ffast-math: the program built from your finite.h wrote no output", compiler);
    /* one line "0" or "1" per value, nothing else: got[canonical index] */
    int got[VALUES], lines = 0, clean = 1;
    for (const char *p = out; *p; p++) {
        if ((*p == '0' || *p == '1') && p[1] == '\n') {
            if (lines < VALUES)
                got[f.order[lines]] = *p - '0';
            lines++, p++;
        } else {
            clean = 0;
            break;
        }
    }
    free(out);
    ck_assert_msg(clean && lines == VALUES,
                  "%s -O2 -ffast-math: the program built from your finite.h printed %s%d answers for %d values: it "
                  "prints one 0 or 1 a line, ex_finite of each, so your header must print nothing itself",
                  compiler, clean ? "" : "something other than 0 or 1 after ", lines, VALUES);
    for (size_t i = 0; i < CASES; i++)
        ck_assert_msg(got[i] == got[CASES + DRAWN + i],
                      "%s -O2 -ffast-math: bits %08x (%s) got %s once and %s another time: ex_finite must answer from "
                      "the value alone (no state kept between calls, no answers replayed in the order the test once "
                      "asked)",
                      compiler, (unsigned)cases[i].bits, kind_of(cases[i].bits), got[i] ? "finite" : "not finite",
                      got[CASES + DRAWN + i] ? "finite" : "not finite");
    int wrong = 0, first = -1;
    for (int i = 0; i < VALUES; i++)
        if (got[i] != finite_bits(f.bits[i]) && wrong++ == 0)
            first = i;
    if (wrong) {
        uint32_t bits = f.bits[first];
        ck_abort_msg("%s -O2 -ffast-math: bits %08x (%s): got %s, want %s (%d of %d values wrong: %zu fixed cases "
                     "twice, and NaNs with random payloads, normal floats and subnormals, in a shuffled order)",
                     compiler, (unsigned)bits, kind_of(bits), got[first] ? "finite" : "not finite",
                     finite_bits(bits) ? "finite" : "not finite", wrong, VALUES, CASES);
    }
}

START_TEST(right_under_fast_math_with_cc)
{
    HARNESS_JUDGE_ONLY;
    right_under_fast_math(CC_NAME, "cc");
}
END_TEST

START_TEST(right_under_fast_math_with_clang)
{
    HARNESS_JUDGE_ONLY;
    right_under_fast_math(harness_shell("command -v clang-22 > /dev/null") == 0 ? "clang-22" : "clang", "clang");
}
END_TEST

/* Reading the float's bits through a pointer of another type is undefined
 * behaviour (the aliasing rules), whatever it happens to print: the compiler
 * may reorder or drop such a read. gcc says so at -Wstrict-aliasing=1; memcpy
 * (or a union) is the defined way, and gets no warning. (-Werror=strict-aliasing
 * comes first: after -Wstrict-aliasing=1 it would reset the level to 3.)
 * Only compiled, never run. */
START_TEST(bits_read_without_breaking_aliasing)
{
    HARNESS_JUDGE_ONLY;
    char dir[700], path[800];
    snprintf(dir, sizeof dir, "%s/alias", harness_scratch("test_ex_ch09"));
    ck_assert_msg(harness_shell("mkdir -p %s", harness_q(dir)) == 0, "cannot make %s", dir);
    snprintf(path, sizeof path, "%s/alias.c", dir);
    const char *source = "#include \"finite.h\"\nint probe(float x) { return ex_finite(&x); }\n";
    write_file(path, source, strlen(source));
    int rc = harness_shell("cd %s && gcc -std=c11 -O2 -Werror=strict-aliasing -Wstrict-aliasing=1 -I%s -c alias.c "
                           "-o /dev/null > alias.txt 2>&1", harness_q(dir), harness_q(EX_DIR));
    if (rc != 0) {
        char line[400];
        snprintf(path, sizeof path, "%s/alias.txt", dir);
        first_error(path, line, sizeof line);
        ck_abort_msg("gcc -Wstrict-aliasing=1 on your finite.h: %s (read the bits with memcpy instead)",
                     strcmp(line, "no error line") ? line : "it does not compile");
    }
}
END_TEST

int main(void)
{
    /* made here, so this process removes it at its end (a test's forked child would leave it behind) */
    harness_scratch("test_ex_ch09");
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
