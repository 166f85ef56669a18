/* test_ex_ch07.c - exercise ch07, part 1: the AVX2 interaction, on the CPU.
 * 2000 random blocks of 8 bodies i and a body j (seed 7070), positions in
 * [-1, 1]^3, masses in [0.5, 1.5]; each lane's acceleration within 1e-5
 * relative of double precision (rsqrt + one Newton step is good to about
 * 2^-22; the rest is a few roundings). Counted as skipped on a CPU without
 * AVX2 + FMA.
 * And no division and no square root: the header is compiled here again
 * (CC_NAME -O2 -S, the test's own level) inside a small function that calls
 * ex_simd_accel once, and that assembly must hold no (v)sqrt* or (v)div*
 * instruction (nor x87's) and call no library function (sqrtf, powf, ...).
 * The rsqrt estimate (vrsqrtps) and the reciprocal estimate (vrcpps) are the
 * lesson and are allowed. This part needs no AVX2 CPU. */
#include "harness.h"

#include "simd_interaction.h"

#include <math.h>

/* The vector work needs the AVX2 target, like the code under test. */
__attribute__((target("avx2,fma"))) static void check_blocks(void)
{
    test_rng r = {7070};
    for (int block = 0; block < 2000; block++) {
        float xi[8], yi[8], zi[8], out[3][8];
        for (int k = 0; k < 8; k++) {
            xi[k] = (float)test_rng_uniform(&r, -1, 1);
            yi[k] = (float)test_rng_uniform(&r, -1, 1);
            zi[k] = (float)test_rng_uniform(&r, -1, 1);
        }
        float xj = (float)test_rng_uniform(&r, -1, 1), yj = (float)test_rng_uniform(&r, -1, 1),
              zj = (float)test_rng_uniform(&r, -1, 1), mj = (float)test_rng_uniform(&r, 0.5, 1.5);
        __m256 ax = _mm256_setzero_ps(), ay = _mm256_setzero_ps(), az = _mm256_setzero_ps();
        ex_simd_accel(_mm256_loadu_ps(xi), _mm256_loadu_ps(yi), _mm256_loadu_ps(zi), xj, yj, zj, mj, &ax, &ay, &az);
        _mm256_storeu_ps(out[0], ax);
        _mm256_storeu_ps(out[1], ay);
        _mm256_storeu_ps(out[2], az);
        for (int k = 0; k < 8; k++) {
            double rx = (double)xj - xi[k], ry = (double)yj - yi[k], rz = (double)zj - zi[k];
            double d2 = rx * rx + ry * ry + rz * rz + 1e-4, s = mj / (d2 * sqrt(d2));
            double want[3] = {rx * s, ry * s, rz * s}, size = sqrt(d2 - 1e-4) * s;
            for (int c = 0; c < 3; c++)
                ck_assert_msg(fabs(out[c][k] - want[c]) <= 1e-5 * size + 1e-30,
                              "body i = (%.6g, %.6g, %.6g) in lane %d, body j = (%.6g, %.6g, %.6g), mass %.6g: the "
                              "acceleration's %c component: got %.9g, want %.9g within %.2g (double precision, "
                              "softening^2 = 1e-4)",
                              xi[k], yi[k], zi[k], k, xj, yj, zj, mj, "xyz"[c], out[c][k], want[c], 1e-5 * size);
        }
    }
}

START_TEST(simd_interaction_within_bound)
{
    check_blocks();
}
END_TEST

static const char *work; /* the suite's scratch folder, made in main() */

/* What is wrong with one instruction (mnemonic op, first operand arg), or NULL. */
static const char *forbidden(const char *op, const char *arg, const char *defined, char *why, size_t size)
{
    const char *m = op[0] == 'v' ? op + 1 : op;
    if (strncmp(m, "sqrt", 4) == 0 || strncmp(op, "fsqrt", 5) == 0) {
        snprintf(why, size, "%s, a square root instruction", op);
        return why;
    }
    if (strncmp(m, "div", 3) == 0 && (strcmp(m + 3, "ps") == 0 || strcmp(m + 3, "ss") == 0 ||
                                      strcmp(m + 3, "pd") == 0 || strcmp(m + 3, "sd") == 0)) {
        snprintf(why, size, "%s, a division instruction", op);
        return why;
    }
    if (strncmp(op, "fdiv", 4) == 0) {
        snprintf(why, size, "%s, an x87 division", op);
        return why;
    }
    if (strncmp(op, "call", 4) == 0 || strncmp(op, "jmp", 3) == 0) {
        char name[128], label[140];
        size_t n = 0;
        while (arg[n] && n < sizeof name - 1 && arg[n] != '@' && arg[n] != ',')
            n++;
        memcpy(name, arg, n);
        name[n] = '\0';
        snprintf(label, sizeof label, "\n%s:", name);
        if (name[0] == '.' || name[0] == '*' || strstr(defined, label) || strcmp(name, "__stack_chk_fail") == 0)
            return NULL; /* a jump inside the file, or a function of the header's own */
        snprintf(why, size, "a call to %s (a library function: the interaction is AVX2 + FMA instructions only)", name);
        return why;
    }
    return NULL;
}

START_TEST(no_division_or_square_root_in_the_machine_code)
{
    char path[512];
    snprintf(path, sizeof path, "%s/probe.c", work);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("#include \"simd_interaction.h\"\n"
          "__attribute__((target(\"avx2,fma\"))) void ex_probe(const float *p, float *a)\n"
          "{\n"
          "    __m256 ax = _mm256_loadu_ps(a), ay = _mm256_loadu_ps(a + 8), az = _mm256_loadu_ps(a + 16);\n"
          "    ex_simd_accel(_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8), _mm256_loadu_ps(p + 16), p[24], p[25], "
          "p[26], p[27], &ax, &ay, &az);\n"
          "    _mm256_storeu_ps(a, ax);\n"
          "    _mm256_storeu_ps(a + 8, ay);\n"
          "    _mm256_storeu_ps(a + 16, az);\n"
          "}\n",
          f);
    fclose(f);
    ck_assert_msg(harness_shell("%s -std=c11 -O2 -S -fno-asynchronous-unwind-tables -I%s %s/probe.c -o %s/probe.s "
                                "2>&1",
                                harness_q(CC_NAME), harness_q(EX_DIR), harness_q(work), harness_q(work)) == 0,
                  "your simd_interaction.h does not compile with %s -O2 -S (in a function that calls ex_simd_accel)",
                  CC_NAME);
    snprintf(path, sizeof path, "%s/probe.s", work);
    char *text = harness_read_file(path);
    ck_assert_ptr_nonnull(text);
    size_t size = strlen(text);
    char *defined = (char *)malloc(size + 2); /* "\n" + the text: every label is "\nname:" */
    ck_assert_ptr_nonnull(defined);
    defined[0] = '\n';
    memcpy(defined + 1, text, size + 1);
    char why[256], found[1024] = "";
    int count = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char op[32] = "", arg[128] = "";
        if (sscanf(line, " %31s %127s", op, arg) < 1 || op[0] == '.' || op[0] == '#' || strchr(op, ':'))
            continue;
        if (forbidden(op, arg, defined, why, sizeof why)) {
            if (!strstr(found, why) && strlen(found) + strlen(why) + 3 < sizeof found)
                snprintf(found + strlen(found), sizeof found - strlen(found), "%s%s", count ? "; " : "", why);
            count++;
        }
    }
    free(defined);
    free(text);
    ck_assert_msg(count == 0,
                  "ex_simd_accel's machine code (%s -O2 -S) has %s. No division and no square root: "
                  "_mm256_rsqrt_ps gives 1/sqrt(d2) to 12 bits, and a Newton step refines it",
                  CC_NAME, found);
}
END_TEST

int main(void)
{
    work = harness_scratch("test_ex_ch07");
    Suite *s = suite_create("exercise ch07 (AVX2)");
    TCase *tc = tcase_create("simd");
    int skipped = 0;
    tcase_add_test(tc, no_division_or_square_root_in_the_machine_code);
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        tcase_add_test(tc, simd_interaction_within_bound);
    else
        skipped = 1; /* this CPU cannot run the code under test */
    suite_add_tcase(s, tc);
    return harness_run(s, "exercise-ch07", skipped);
}
