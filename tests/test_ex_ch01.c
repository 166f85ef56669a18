/* test_ex_ch01.c - exercise ch01, the vector functions.
 *
 * Built against solutions/ch01 (must pass) and exercises/ch01 (the untouched
 * stub must fail); `make grade` builds it against exercises/ch01.
 *
 * Inputs: 10000 vectors per test from the xorshift generator in harness.h,
 * seed 20261121, components uniform in [-100, 100). Expectations are computed
 * here in double and compared with bounds from float rounding (u = 2^-24):
 *   add, scale: exact (one rounding, the same as C's float + and *);
 *   dot: |err| <= 4u * (|ax bx| + |ay by| + |az bz|)  (three products, two sums);
 *   cross: per component |err| <= 3u * (|p1| + |p2|);
 *   normalize: per component |err| <= 8u (the result has length 1);
 *   reflect: per component |err| <= 16u * |d| (n is made unit in double first).
 * And no double anywhere: the test and vec.c are built -O0 (at -O1 the
 * compiler folds some stray doubles away, e.g. -2.0 * dot turned back into
 * float, so the source's own arithmetic is read at -O0), and the assembly of
 * vec.c that the values came from (in a grading, the probe's, kept by gcc
 * -save-temps; by hand, compiled here the same way) must
 * hold no double-precision instruction (cvtss2sd, cvtsd2ss, mulsd, sqrtsd, ...,
 * x87) and no call to a double libm function (sqrt rather than sqrtf, ...).
 * Every call into the answer goes through ANSWER (harness.h, "the probe and
 * the judge"): for grading, the checks run in a process the answer never ran in.
 */
#include "harness.h"

#include "vec.h"

#include <ctype.h>
#include <math.h>

#define SEED 20261121ULL
#define COUNT 10000
#define U 0x1.0p-24

static vec random_vec(test_rng *r)
{
    vec v = {(float)test_rng_uniform(r, -100, 100), (float)test_rng_uniform(r, -100, 100),
             (float)test_rng_uniform(r, -100, 100)};
    return v;
}

START_TEST(add_is_exact)
{
    test_rng r = {SEED};
    for (int i = 0; i < COUNT; i++) {
        vec a = random_vec(&r), b = random_vec(&r), s;
        ANSWER(s, vec_add(a, b));
        ck_assert_msg(s.x == a.x + b.x && s.y == a.y + b.y && s.z == a.z + b.z,
                      "vec_add((%g %g %g), (%g %g %g)): got (%g %g %g), want (%g %g %g) exactly", a.x, a.y, a.z, b.x,
                      b.y, b.z, s.x, s.y, s.z, a.x + b.x, a.y + b.y, a.z + b.z);
    }
}
END_TEST

START_TEST(scale_is_exact)
{
    test_rng r = {SEED + 1};
    for (int i = 0; i < COUNT; i++) {
        vec a = random_vec(&r);
        float k = (float)test_rng_uniform(&r, -3, 3);
        vec s;
        ANSWER(s, vec_scale(a, k));
        ck_assert_msg(s.x == a.x * k && s.y == a.y * k && s.z == a.z * k,
                      "vec_scale((%g %g %g), %g): got (%g %g %g), want (%g %g %g) exactly", a.x, a.y, a.z, k, s.x, s.y,
                      s.z, a.x * k, a.y * k, a.z * k);
    }
}
END_TEST

START_TEST(dot_within_bound)
{
    test_rng r = {SEED + 2};
    for (int i = 0; i < COUNT; i++) {
        vec a = random_vec(&r), b = random_vec(&r);
        double exact = (double)a.x * b.x + (double)a.y * b.y + (double)a.z * b.z;
        double bound = 4 * U * (fabs((double)a.x * b.x) + fabs((double)a.y * b.y) + fabs((double)a.z * b.z));
        float got;
        ANSWER(got, vec_dot(a, b));
        ck_assert_msg(fabs(got - exact) <= bound, "vec_dot((%g %g %g), (%g %g %g)): got %.9g, want %.9g (+- %.2g)", a.x,
                      a.y, a.z, b.x, b.y, b.z, got, exact, bound);
    }
}
END_TEST

/* Component `name` of vec_cross(a, b), got, against p1 - p2 computed in double. */
static void check_component(char name, double got, double p1, double p2, vec a, vec b)
{
    double bound = 3 * U * (fabs(p1) + fabs(p2));
    ck_assert_msg(fabs(got - (p1 - p2)) <= bound,
                  "vec_cross((%g %g %g), (%g %g %g)): component %c got %.9g, want %.9g (+- %.2g)", a.x, a.y, a.z, b.x,
                  b.y, b.z, name, got, p1 - p2, bound);
}

START_TEST(cross_within_bound)
{
    test_rng r = {SEED + 3};
    for (int i = 0; i < COUNT; i++) {
        vec a = random_vec(&r), b = random_vec(&r), c;
        ANSWER(c, vec_cross(a, b));
        check_component('x', c.x, (double)a.y * b.z, (double)a.z * b.y, a, b);
        check_component('y', c.y, (double)a.z * b.x, (double)a.x * b.z, a, b);
        check_component('z', c.z, (double)a.x * b.y, (double)a.y * b.x, a, b);
    }
    /* right-handed: x cross y = z */
    vec x = {1, 0, 0}, y = {0, 1, 0}, z;
    ANSWER(z, vec_cross(x, y));
    ck_assert_msg(z.x == 0 && z.y == 0 && z.z == 1, "vec_cross((1 0 0), (0 1 0)): got (%g %g %g), want (0 0 1) "
                                                    "(right-handed: x cross y = z)", z.x, z.y, z.z);
}
END_TEST

START_TEST(normalize_within_bound)
{
    test_rng r = {SEED + 4};
    for (int i = 0; i < COUNT; i++) {
        vec a = random_vec(&r), n;
        ANSWER(n, vec_normalize(a));
        double len = sqrt((double)a.x * a.x + (double)a.y * a.y + (double)a.z * a.z);
        ck_assert_msg(fabs(n.x - a.x / len) <= 8 * U && fabs(n.y - a.y / len) <= 8 * U &&
                          fabs(n.z - a.z / len) <= 8 * U,
                      "vec_normalize((%g %g %g)): got (%.9g %.9g %.9g), want (%.9g %.9g %.9g) (+- 8 ulp)", a.x, a.y, a.z,
                      n.x, n.y, n.z, a.x / len, a.y / len, a.z / len);
    }
}
END_TEST

START_TEST(reflect_within_bound)
{
    test_rng r = {SEED + 5};
    for (int i = 0; i < COUNT; i++) {
        vec d = random_vec(&r), m = random_vec(&r);
        double ml = sqrt((double)m.x * m.x + (double)m.y * m.y + (double)m.z * m.z);
        vec n = {(float)(m.x / ml), (float)(m.y / ml), (float)(m.z / ml)};
        double dn = (double)d.x * n.x + (double)d.y * n.y + (double)d.z * n.z;
        double ex = d.x - 2 * dn * n.x, ey = d.y - 2 * dn * n.y, ez = d.z - 2 * dn * n.z;
        double dl = sqrt((double)d.x * d.x + (double)d.y * d.y + (double)d.z * d.z);
        vec got;
        ANSWER(got, vec_reflect(d, n));
        double bound = 16 * U * dl;
        ck_assert_msg(fabs(got.x - ex) <= bound && fabs(got.y - ey) <= bound && fabs(got.z - ez) <= bound,
                      "vec_reflect((%g %g %g), n = (%g %g %g)): got (%g %g %g), want (%g %g %g)", d.x, d.y, d.z, n.x,
                      n.y, n.z, got.x, got.y, got.z, ex, ey, ez);
    }
}
END_TEST

/* x86-64 mnemonics (AT&T, with or without AVX's v) that compute in double.
 * Not movsd/movlpd: clang moves a pair of floats with them. */
static const char *const double_ops[] = {
    "cvtss2sd", "cvtsd2ss", "cvtps2pd", "cvtpd2ps", "cvtsi2sd", "cvtsi2sdl", "cvtsi2sdq", "cvttsd2si", "cvtsd2si",
    "addsd",    "subsd",    "mulsd",    "divsd",    "sqrtsd",   "minsd",     "maxsd",     "comisd",    "ucomisd",
    "addpd",    "subpd",    "mulpd",    "divpd",    "sqrtpd",   "cvtdq2pd",  NULL};
/* libm's double functions (their float forms end in f). */
static const char *const double_calls[] = {"sqrt", "pow",  "hypot", "fabs", "fma", "fmin", "fmax", "exp", "log",
                                           "cbrt", "sin",  "cos",   "tan",  "atan2", "acos", "asin", "floor",
                                           "ceil", "round", "trunc", "copysign", NULL};

/* Why one assembly instruction (mnemonic op, first operand arg) computes in
 * double, or NULL when it does not. */
static const char *double_reason(const char *op, const char *arg, char *why, size_t size)
{
#if defined(__x86_64__) || defined(__i386__)
    const char *m = op[0] == 'v' ? op + 1 : op;
    for (int i = 0; double_ops[i]; i++)
        if (strcmp(m, double_ops[i]) == 0) {
            snprintf(why, size, "%s (a double-precision instruction)", op);
            return why;
        }
    if (strncmp(m, "vfmadd", 6) == 0 || strncmp(m, "vfmsub", 6) == 0 || strncmp(m, "vfnmadd", 7) == 0 ||
        strncmp(m, "vfnmsub", 7) == 0) {
        size_t n = strlen(m);
        if (n > 2 && (strcmp(m + n - 2, "sd") == 0 || strcmp(m + n - 2, "pd") == 0)) {
            snprintf(why, size, "%s (a double-precision FMA)", op);
            return why;
        }
    }
    if (op[0] == 'f') {
        snprintf(why, size, "%s (an x87 instruction: long double)", op);
        return why;
    }
    int is_call = strncmp(op, "call", 4) == 0 || strncmp(op, "jmp", 3) == 0;
#elif defined(__aarch64__)
    /* a floating-point instruction on a d register (fcvt d0, s0; fmul d0, ...) */
    if (op[0] == 'f' && arg[0] == 'd' && isdigit((unsigned char)arg[1])) {
        snprintf(why, size, "%s %s (a double-precision instruction)", op, arg);
        return why;
    }
    int is_call = strcmp(op, "bl") == 0 || strcmp(op, "b") == 0;
#else
    int is_call = 0;
#endif
    if (!is_call)
        return NULL;
    char name[64];
    size_t n = 0;
    while (arg[n] && n < sizeof name - 1 && (isalnum((unsigned char)arg[n]) || arg[n] == '_'))
        n++;
    memcpy(name, arg, n);
    name[n] = '\0';
    for (int i = 0; double_calls[i]; i++)
        if (strcmp(name, double_calls[i]) == 0) {
            snprintf(why, size, "a call to %s, libm's double function (its float one is %sf)", name, name);
            return why;
        }
    return NULL;
}

static const char *work; /* the suite's scratch folder, made in main() */

/* vec.c compiled here as the probe is (-O0), its object's path in path:
 * for a run by hand, outside a grading. */
static void compile_here(char *path, size_t size)
{
    snprintf(path, size, "%s/vec.o", work);
    if (harness_shell("%s -std=c11 -O0 -c -I%s %s/vec.c -o %s > %s/vec.log 2>&1", harness_q(CC_NAME),
                      harness_q(EX_DIR), harness_q(EX_DIR), harness_q(path), harness_q(work)) == 0)
        return;
    char log_path[512];
    snprintf(log_path, sizeof log_path, "%s/vec.log", work);
    char *log = harness_read_file(log_path);
    for (char *p = log; p && *p; p++) /* the graders show a failure's first line: one line */
        if (*p == '\n')
            *p = ' ';
    ck_abort_msg("your vec.c does not compile with %s -O0 -c; it says: %.600s", CC_NAME, log ? log : "");
}

/* A symbol vec.c's code may use: its own functions, float libm, the stack
 * guard, its sections' constants (a name starting with '.'). */
static int allowed_use(const char *name)
{
    static const char *const ok[] = {"sqrtf", "fabsf", "fmaf", "fminf", "fmaxf", "__stack_chk_fail", NULL};
    if (name[0] == '.' || strncmp(name, "vec_", 4) == 0)
        return 1;
    for (int i = 0; ok[i]; i++)
        if (strcmp(name, ok[i]) == 0)
            return 1;
    return 0;
}

/* found += "why in function()", once each; count the instances */
static void add_found(char *found, size_t size, int *count, const char *why, const char *function)
{
    char item[400];
    snprintf(item, sizeof item, "%s in %s()", why, function);
    if (!strstr(found, item) && strlen(found) + strlen(item) + 3 < size)
        snprintf(found + strlen(found), size - strlen(found), "%s%s", *count ? "; " : "", item);
    (*count)++;
}

START_TEST(no_double_in_the_machine_code)
{
    HARNESS_JUDGE_ONLY;
    /* in a grading, the object the probe was built from (-O0, gcc
     * -save-temps): the code whose values were checked. Its disassembly, not
     * the compiler's text: an instruction written in inline assembly however
     * it is spelled (behind a label, after a ';', as .byte) is one there */
    char object[512], dis[600];
    if (!harness_probe_kept("-vec.o", object, sizeof object))
        compile_here(object, sizeof object);
    snprintf(dis, sizeof dis, "%s/vec.dis", work);
    ck_assert_msg(harness_shell("objdump -d -r -w --no-show-raw-insn %s > %s", harness_q(object), harness_q(dis)) == 0,
                  "objdump -d could not read the object of your vec.c (is binutils installed?)");
    char *text = harness_read_file(dis);
    ck_assert_ptr_nonnull(text);
    /* every double instruction, and every use of a function vec.c may not
     * call (mprotect, to run data as code), named once, with its function */
    char function[128] = "?", why[256], found[1024] = "";
    int count = 0, instructions = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char op[32] = "", arg[128] = "", name[128] = "";
        unsigned long at;
        if (sscanf(line, "%lx <%127[^>]>:", &at, name) == 2) { /* a function begins */
            snprintf(function, sizeof function, "%s", name);
            continue;
        }
        if (sscanf(line, " %lx: R_%*s %127[^+-]", &at, name) == 2) { /* a relocation: a use of a symbol */
            if (double_reason("call", name, why, sizeof why))
                add_found(found, sizeof found, &count, why, function);
            else if (!allowed_use(name)) {
                snprintf(why, sizeof why, "a use of %s (vec.c is float arithmetic, sqrtf and fabsf)", name);
                add_found(found, sizeof found, &count, why, function);
            }
            continue;
        }
        if (sscanf(line, " %lx:\t%31s %127s", &at, op, arg) < 2)
            continue;
        instructions++;
        if (double_reason(op, arg, why, sizeof why))
            add_found(found, sizeof found, &count, why, function);
    }
    free(text);
    ck_assert_msg(instructions > 0, "objdump -d shows no instruction in the object of your vec.c");
    ck_assert_msg(count == 0,
                  "your vec.c computes in double (%s -O0, its object's disassembly): %s. The code is float: a literal "
                  "like 2.0 (write 2.0f) or sqrt (write sqrtf) converts to double and back",
                  CC_NAME, found);
}
END_TEST

int main(void)
{
    work = harness_scratch("test_ex_ch01");
    Suite *s = suite_create("exercise ch01");
    TCase *tc = tcase_create("vectors");
    tcase_add_test(tc, add_is_exact);
    tcase_add_test(tc, scale_is_exact);
    tcase_add_test(tc, dot_within_bound);
    tcase_add_test(tc, cross_within_bound);
    tcase_add_test(tc, normalize_within_bound);
    tcase_add_test(tc, reflect_within_bound);
    tcase_add_test(tc, no_double_in_the_machine_code);
    suite_add_tcase(s, tc);
    return harness_run(s, "exercise-ch01", 0);
}
