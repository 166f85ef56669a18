/* test_ch10.c - ch10 without a GPU: the expression compiler's rules and
 * derivatives, the generated step against the hand-written one, NVRTC on every
 * generated kernel (to PTX: no GPU needed), the physics of the hole, every CPU
 * stage's image, and the host's FMA ceiling in the program's table.
 * Random inputs from a fixed seed (0x10B1AC). */
#include "harness.h"

#include "expr.h"
#include "gen.h"
#include "kernels.h"
#include "render.h"
#include "stages.h"

#include "cpu_ceiling.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const xy[] = {"x", "y"};

/* Floats that break rules: signed zeros, infinities, NaN, subnormals. */
static const float specials[] = {0.0f, -0.0f, 1.0f, -1.0f, 1e-45f, -1e-45f, 3.4e38f, -3.4e38f, 1.5f, -2.25f};

static uint32_t bits(float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    return u;
}

static float value(int i)
{
    if (i < (int)(sizeof specials / sizeof specials[0]))
        return specials[i];
    float inf = INFINITY;
    return i == 10 ? inf : i == 11 ? -inf : NAN;
}
#define VALUES 13

/* Every strict rule is exact: x*1, 1*x, x/1, x-0, -(-x), x*-1, powi(x,1), and
 * folding, each evaluated with the rules on and off, for every pair of special
 * values (NaN compared as NaN, everything else bit for bit). */
typedef ex build_fn(ex_ctx *c, ex x, ex y);
static ex b_mul_one(ex_ctx *c, ex x, ex y) { (void)y; return ex_add(c, ex_mul(c, x, ex_const(c, 1)), ex_mul(c, ex_const(c, 1), x)); }
static ex b_div_one(ex_ctx *c, ex x, ex y) { (void)y; return ex_div(c, x, ex_const(c, 1)); }
static ex b_sub_zero(ex_ctx *c, ex x, ex y) { (void)y; return ex_sub(c, x, ex_const(c, 0)); }
static ex b_neg_neg(ex_ctx *c, ex x, ex y) { (void)y; return ex_neg(c, ex_neg(c, x)); }
static ex b_mul_minus_one(ex_ctx *c, ex x, ex y) { return ex_mul(c, ex_mul(c, x, ex_const(c, -1)), y); }
static ex b_powi(ex_ctx *c, ex x, ex y) { return ex_add(c, ex_powi(c, x, 1), ex_powi(c, y, 3)); }
static ex b_fold(ex_ctx *c, ex x, ex y)
{
    ex k = ex_div(c, ex_sqrt(c, ex_const(c, 2)), ex_sub(c, ex_const(c, 7), ex_mul(c, ex_const(c, 0.1f), ex_const(c, 3))));
    return ex_add(c, ex_mul(c, k, x), y);
}
static ex b_share(ex_ctx *c, ex x, ex y) { return ex_mul(c, ex_add(c, x, y), ex_add(c, x, y)); }
static build_fn *const strict_cases[] = {b_mul_one, b_div_one, b_sub_zero, b_neg_neg, b_mul_minus_one, b_powi, b_fold,
                                         b_share};

START_TEST(strict_rules_are_exact)
{
    for (int i = 0; i < VALUES; i++)
        for (int j = 0; j < VALUES; j++) {
            float in[2] = {value(i), value(j)}, plain, strict;
            ex_ctx a, b;
            ex_init(&a, EX_NONE, 2, xy);
            ex_init(&b, EX_STRICT, 2, xy);
            ex fa = strict_cases[_i](&a, ex_input(&a, 0), ex_input(&a, 1));
            ex fb = strict_cases[_i](&b, ex_input(&b, 0), ex_input(&b, 1));
            ex_eval(&a, &fa, 1, in, &plain);
            ex_eval(&b, &fb, 1, in, &strict);
            ck_assert_msg((isnan(plain) && isnan(strict)) || bits(plain) == bits(strict),
                          "case %d, x = %g, y = %g: %g unsimplified, %g simplified", _i, in[0], in[1], plain, strict);
            ck_assert_int_le(ex_live_count(&b, &fb, 1), ex_live_count(&a, &fa, 1));
            ex_free(&a);
            ex_free(&b);
        }
}
END_TEST

/* And the relaxed ones are not: each has a counterexample among the specials. */
START_TEST(relaxed_rules_are_not_exact)
{
    struct { const char *what; float x; } bad[] = {{"x * 0 with x = inf", INFINITY}, {"x + 0 with x = -0", -0.0f},
                                                   {"x - x with x = inf", INFINITY}, {"x / x with x = 0", 0.0f}};
    for (int k = 0; k < 4; k++) {
        float plain, relaxed;
        ex_ctx a, b;
        ex_init(&a, EX_NONE, 1, xy);
        ex_init(&b, EX_RELAXED, 1, xy);
        ex f[2];
        for (int m = 0; m < 2; m++) {
            ex_ctx *c = m ? &b : &a;
            ex x = ex_input(c, 0);
            f[m] = k == 0 ? ex_mul(c, x, ex_const(c, 0)) : k == 1 ? ex_add(c, x, ex_const(c, 0))
                 : k == 2 ? ex_sub(c, x, x) : ex_div(c, x, x);
        }
        ex_eval(&a, &f[0], 1, &bad[k].x, &plain);
        ex_eval(&b, &f[1], 1, &bad[k].x, &relaxed);
        ck_assert_msg(bits(plain) != bits(relaxed), "%s: the relaxed rule gave the same bits", bad[k].what);
        ex_free(&a);
        ex_free(&b);
    }
}
END_TEST

/* Sharing: the same expression built twice is one node with the rule, two without. */
START_TEST(sharing_makes_equal_expressions_one_node)
{
    ex_ctx a, b;
    ex_init(&a, RULE_SHARE, 2, xy);
    ex_init(&b, EX_NONE, 2, xy);
    ck_assert_int_eq(ex_mul(&a, ex_input(&a, 0), ex_input(&a, 1)), ex_mul(&a, ex_input(&a, 0), ex_input(&a, 1)));
    ck_assert_int_ne(ex_mul(&b, ex_input(&b, 0), ex_input(&b, 1)), ex_mul(&b, ex_input(&b, 0), ex_input(&b, 1)));
    ex_free(&a);
    ex_free(&b);
}
END_TEST

/* d/dx [sin(x) x^3 / (1 + y^2) + sqrt(x)] against its closed form, and
 * d/dy too, at fixed-seed points, with every rule setting. */
START_TEST(derivatives_match_their_closed_form)
{
    unsigned settings[] = {EX_NONE, EX_STRICT, EX_RELAXED};
    test_rng r = {0x10B1AC};
    for (int s = 0; s < 3; s++)
        for (int n = 0; n < 200; n++) {
            ex_ctx c;
            ex_init(&c, settings[s], 2, xy);
            ex x = ex_input(&c, 0), y = ex_input(&c, 1);
            ex f = ex_add(&c, ex_div(&c, ex_mul(&c, ex_sin(&c, x), ex_powi(&c, x, 3)),
                                     ex_add(&c, ex_const(&c, 1), ex_mul(&c, y, y))),
                          ex_sqrt(&c, x));
            ex d[2] = {ex_diff(&c, f, 0), ex_diff(&c, f, 1)};
            float in[2] = {(float)test_rng_uniform(&r, 0.1, 3), (float)test_rng_uniform(&r, -2, 2)}, got[2];
            ex_eval(&c, d, 2, in, got);
            double X = in[0], Y = in[1], q = 1 + Y * Y;
            double dx = (cos(X) * X * X * X + 3 * X * X * sin(X)) / q + 0.5 / sqrt(X);
            double dy = -sin(X) * X * X * X * 2 * Y / (q * q);
            ck_assert_msg(fabs(got[0] - dx) <= 1e-5 * (1 + fabs(dx)), "d/dx at %g, %g: %g, want %g", X, Y, got[0], dx);
            ck_assert_msg(fabs(got[1] - dy) <= 1e-5 * (1 + fabs(dy)), "d/dy at %g, %g: %g, want %g", X, Y, got[1], dy);
            ex_free(&c);
        }
}
END_TEST

/* ---------------------------------------------------------------- the generated step */
static const char *const step_inputs[IN_COUNT] = {"r", "phi", "pr", "E", "L", "h"};

/* The step from the Hamiltonian equals the hand-written one (bh.h's, in
 * double) to float accuracy; the strict step equals the unsimplified one bit
 * for bit; at fixed-seed states of light rays (H = 0) between r = 1.2 and 40. */
START_TEST(generated_step_is_the_hand_written_one)
{
    ex_ctx none, strict;
    ex o0[3], o1[3];
    ex_init(&none, EX_NONE, IN_COUNT, step_inputs);
    ex_init(&strict, EX_STRICT, IN_COUNT, step_inputs);
    gen_step(&none, o0);
    gen_step(&strict, o1);
    test_rng g = {0x10B1AC};
    for (int n = 0; n < 500; n++) {
        double r = test_rng_uniform(&g, 1.2, 40), L = test_rng_uniform(&g, 0, 8), f = 1 - 1 / r, E = 1;
        double pr2 = (E * E / f - L * L / (r * r)) / f; /* H = 0 */
        if (pr2 < 0)
            continue;
        double pr = (n & 1 ? 1 : -1) * sqrt(pr2), h = 0.05 * (r - 1);
        float in[IN_COUNT] = {(float)r, 0.3f, (float)pr, (float)E, (float)L, (float)h}, a[3], b[3];
        ex_eval(&none, o0, 3, in, a);
        ex_eval(&strict, o1, 3, in, b);
        for (int k = 0; k < 3; k++)
            ck_assert_msg(bits(a[k]) == bits(b[k]), "output %d at r = %g: %a unsimplified, %a strict", k, r, a[k], b[k]);
        /* the hand-written step in double, through the CPU's fate function's code */
        double R_ = in[0], PHI = in[1], PR = in[2], want[3];
        {
            double k4[4][3], y[3] = {R_, PHI, PR}, s[3];
            for (int i = 0; i < 4; i++) {
                double step = i == 0 ? 0 : i == 3 ? in[5] : 0.5 * in[5];
                for (int j = 0; j < 3; j++)
                    s[j] = i == 0 ? y[j] : y[j] + step * k4[i - 1][j];
                double ff = 1 - 1 / s[0];
                k4[i][0] = ff * s[2];
                k4[i][1] = L / (s[0] * s[0]);
                k4[i][2] = L * L / (s[0] * s[0] * s[0]) - (E * E / (ff * ff) + s[2] * s[2]) / (2 * s[0] * s[0]);
            }
            for (int j = 0; j < 3; j++)
                want[j] = y[j] + in[5] / 6 * (k4[0][j] + 2 * k4[1][j] + 2 * k4[2][j] + k4[3][j]);
        }
        for (int k = 0; k < 3; k++)
            ck_assert_msg(fabs(a[k] - want[k]) <= 2e-4 * (1 + fabs(want[k])), "output %d at r = %g: %g, want %g", k, r,
                          a[k], want[k]);
    }
    ex_free(&none);
    ex_free(&strict);
}
END_TEST

/* ---------------------------------------------------------------- the relaxed rules and the picture
 * The source text's claim: its transforms, IEEE-inexact ones such as
 * x - x -> 0 among them, leave the result unaltered, since what they remove
 * matters only for NaN, infinities and signed zeros. Here: the picture traced
 * with the relaxed step and with the unsimplified one (both evaluated by
 * ex_eval, in float, on the CPU) at 48x48: every byte the same.
 * And if a non-finite value reaches the step: x * 0 -> 0 turns NaN * 0 into
 * 0 (relaxed_rules_are_not_exact shows it), so a NaN could vanish where the
 * product it removed was its only way to the output. In this step every
 * input also reaches each output by paths the rules leave alone: set to
 * +-infinity, NaN or +-0 one at a time, each input gives the two steps the
 * same outputs, NaN for NaN, so the NaN check sees what it saw before. */
#define RELAXED_LEVELS 0
static const ex_ctx *traced_ctx;
static const ex *traced_out;
static void tree_step(float *r, float *phi, float *pr, float E, float L, float h)
{
    float in[IN_COUNT] = {*r, *phi, *pr, E, L, h}, out[3];
    ex_eval(traced_ctx, traced_out, 3, in, out);
    *r = out[0], *phi = out[1], *pr = out[2];
}
#define real float
#define R(x) ((float)(x))
#define BH_FN static __attribute__((unused))
#define BH_STEP tree_step
#include "bh.h"
#undef real
#undef R

static void trace_with(const ex_ctx *c, const ex *out, unsigned char *rgb, int size)
{
    traced_ctx = c, traced_out = out;
    for (int row = 0; row < size; row++)
        for (int col = 0; col < size; col++) {
            float px[3];
            trace_ray(col, row, size, size, px);
            for (int k = 0; k < 3; k++) {
                float v = px[k] < 0 ? 0 : px[k] > 1 ? 1 : px[k];
                rgb[3 * (row * size + col) + k] = (unsigned char)(v * 255 + 0.5f);
            }
        }
}

START_TEST(relaxed_rules_keep_the_picture)
{
    enum { SIZE = 48 };
    ex_ctx none, relaxed;
    ex o0[3], o1[3];
    ex_init(&none, EX_NONE, IN_COUNT, step_inputs);
    ex_init(&relaxed, EX_RELAXED, IN_COUNT, step_inputs);
    gen_step(&none, o0);
    gen_step(&relaxed, o1);
    static unsigned char a[3 * SIZE * SIZE], b[3 * SIZE * SIZE];
    trace_with(&none, o0, a, SIZE);
    trace_with(&relaxed, o1, b, SIZE);
    int worst = 0, differ = 0;
    for (int i = 0; i < 3 * SIZE * SIZE; i++) {
        int d = abs(a[i] - b[i]);
        worst = d > worst ? d : worst;
        differ += d != 0;
    }
    printf("  relaxed against unsimplified, %dx%d: %d of %d bytes differ, by at most %d\n", SIZE, SIZE, differ,
           3 * SIZE * SIZE, worst);
    ck_assert_msg(worst <= RELAXED_LEVELS, "a byte differs by %d levels", worst);
    /* a non-finite or signed-zero input, one at a time, into a finite state */
    const float odd[] = {INFINITY, -INFINITY, NAN, 0.0f, -0.0f};
    for (int k = 0; k < IN_COUNT; k++)
        for (size_t j = 0; j < sizeof odd / sizeof odd[0]; j++) {
            float in[IN_COUNT] = {5.0f, 0.3f, -0.5f, 1.0f, 2.0f, 0.2f}, x[3], y[3];
            in[k] = odd[j];
            ex_eval(&none, o0, 3, in, x);
            ex_eval(&relaxed, o1, 3, in, y);
            for (int c = 0; c < 3; c++)
                ck_assert_msg(isnan(x[c]) == isnan(y[c]) && (isnan(x[c]) || bits(x[c]) == bits(y[c])),
                              "input %s = %g, output %d: unsimplified %g, relaxed %g", step_inputs[k], odd[j], c, x[c],
                              y[c]);
        }
    ex_free(&none);
    ex_free(&relaxed);
}
END_TEST

/* The same rules print the same text; other rules print other text. */
static char *source(int hand, unsigned rules)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    ck_assert_ptr_nonnull(f);
    gen_source(hand, 0, rules, f);
    fclose(f);
    return text;
}

START_TEST(printing_is_deterministic)
{
    char *a = source(0, EX_STRICT), *b = source(0, EX_STRICT), *c = source(0, EX_NONE);
    ck_assert_str_eq(a, b);
    ck_assert_str_ne(a, c);
    free(a);
    free(b);
    free(c);
}
END_TEST

/* NVRTC compiles every kernel ch10 makes, to PTX (compute_90: no GPU needed). */
START_TEST(nvrtc_compiles_every_kernel)
{
    unsigned rules[] = {EX_NONE, EX_STRICT, EX_RELAXED};
    /* each math configuration's arithmetic, seen in the PTX of the unsimplified step */
    int fmas[MATH_COUNT] = {0};
    static const char *const wanted[MATH_COUNT] = {"div.rn.f32", "fma.rn.f32", "div.full.f32", "fma.rn.f32",
                                                   "div.approx.ftz.f32"};
    for (int k = 0; k < 4; k++)
        for (int math = 0; math < MATH_COUNT; math++) {
            char *text = source(k == 3, k < 3 ? rules[k] : 0), err[8192];
            compiled c;
            ck_assert_msg(kernel_compile(text, "test.cu", math, 90, 1, &c, err, sizeof err) == 0, "%s", err);
            ck_assert_msg(c.size > 1000 && strstr(c.image, ".entry render"), "no kernel in the PTX");
            if (k == 0) {
                ck_assert_msg(strstr(c.image, wanted[math]), "math %s: no %s in the PTX", math_names[math],
                              wanted[math]);
                for (const char *p = c.image; (p = strstr(p, "fma.rn.f32")) != NULL; p++)
                    fmas[math]++;
            }
            free(text);
        }
    /* the library's own functions use fma under any option; contraction adds the step's */
    ck_assert_msg(fmas[MATH_FMA] > fmas[MATH_STRICT] && fmas[MATH_FMA_APPROX] > fmas[MATH_APPROX],
                  "fma.rn.f32: strict %d, fma %d, approx %d, fma-approx %d", fmas[MATH_STRICT], fmas[MATH_FMA],
                  fmas[MATH_APPROX], fmas[MATH_FMA_APPROX]);
}
END_TEST

/* gpu-hand-written-double's kernel computes in double: NVRTC's PTX divides
 * in f64 (IEEE, div.rn) and never in f32; the float kernel's the other way. */
START_TEST(the_double_kernel_is_double)
{
    for (int is_double = 0; is_double < 2; is_double++) {
        char *text = NULL, err[8192];
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);
        ck_assert_ptr_nonnull(f);
        gen_source(1, is_double, 0, f);
        fclose(f);
        compiled c;
        ck_assert_msg(kernel_compile(text, "test.cu", MATH_STRICT, 90, 1, &c, err, sizeof err) == 0, "%s", err);
        ck_assert_msg(!strstr(c.image, is_double ? "div.rn.f32" : "div.rn.f64") &&
                          strstr(c.image, is_double ? "div.rn.f64" : "div.rn.f32"),
                      "%s kernel: the PTX divides in the other precision", is_double ? "double" : "float");
        free(text);
    }
}
END_TEST

/* A compile error names the generated source's line and shows it. */
START_TEST(nvrtc_errors_show_the_source_line)
{
    const char *bad = "extern \"C\" __global__ void render()\n{\n    float x = undefined_thing;\n}\n";
    char err[8192];
    compiled c;
    ck_assert_int_eq(kernel_compile(bad, "bad.cu", 0, 90, 1, &c, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "bad.cu(3)") && strstr(err, "    3 |     float x = undefined_thing;"), "%s", err);
}
END_TEST

/* ---------------------------------------------------------------- physics */
/* A ray from the observer at r0 = 20 whose angle from the hole is a: E, L, p_r. */
static void ray_at(double a, double *E, double *L, double *pr)
{
    double f0 = 1 - 1.0 / 20;
    *E = sqrt(f0);
    *L = 20 * sin(a);
    *pr = -cos(a) / sqrt(f0);
}

/* The shadow's edge: sin a = (3 sqrt 3 / 2)(1 / r0) sqrt(1 - 1 / r0), where
 * the impact parameter L / E is 3 sqrt 3 / 2. A ray 0.1% inside falls in, one
 * 0.1% outside escapes. */
START_TEST(shadow_edge_is_where_the_theory_says)
{
    double edge = asin(1.5 * sqrt(3.0) / 20 * sqrt(1 - 1.0 / 20)), E, L, pr, r_end, drift;
    ray_at(edge * 0.999, &E, &L, &pr);
    ck_assert_msg(fabs(L / E / (1.5 * sqrt(3.0)) - 0.999) < 2e-3, "impact parameter %g", L / E);
    ck_assert_int_eq(cpu_fate(E, L, pr, 100000, &r_end, &drift), -1);
    ray_at(edge * 1.001, &E, &L, &pr);
    ck_assert_int_eq(cpu_fate(E, L, pr, 100000, &r_end, &drift), 1);
}
END_TEST

/* The null condition holds along the way: E and L are constants of the
 * integration (never updated), and H, zero at the start, drifts by less than
 * 1e-5 of the size of its terms (which grow as E^2 / f near the horizon) on
 * rays that escape or fall, away from the shadow's edge. (RK4 at 5% of r - 1
 * per step: about 1e-6 for a ray falling straight in, far less for the rest.) */
START_TEST(the_null_condition_drifts_little)
{
    double angles[] = {0.05, 0.2, 0.3, 0.6, 1.0};
    for (int i = 0; i < 5; i++) {
        double E, L, pr, r_end, drift;
        ray_at(angles[i], &E, &L, &pr);
        int fate = cpu_fate(E, L, pr, 100000, &r_end, &drift);
        ck_assert_msg(fate != 0, "angle %g: neither fell nor escaped", angles[i]);
        ck_assert_msg(drift < 1e-5, "angle %g: |H| reached %g of its terms' size", angles[i], drift);
    }
}
END_TEST

/* The CPU image: no NaN, the centre black, the corners sky. */
START_TEST(cpu_image_has_a_hole_and_a_sky)
{
    image img;
    ck_assert_int_eq(image_alloc(&img, 33, 31), 0);
    ck_assert_int_eq(cpu_render(&img, 3, "test", 1), 0);
    const unsigned char *centre = img.rgb + 3 * (15 * 33 + 16), *corner = img.rgb;
    ck_assert(centre[0] == 0 && centre[1] == 0 && centre[2] == 0);
    ck_assert(corner[0] + corner[1] + corner[2] > 60);
    image_free(&img);
}
END_TEST

/* cpu-threads-float: the same picture as the double reference (no NaN, at
 * least 30 dB, the check a GPU stage passes), yet computed in another
 * precision: some pixel differs (a float build that quietly ran in double
 * would be byte-identical). */
START_TEST(float_cpu_image_is_the_picture_in_float)
{
    image ref, flt;
    ck_assert_int_eq(image_alloc(&ref, 65, 63), 0);
    ck_assert_int_eq(image_alloc(&flt, 65, 63), 0);
    ck_assert_int_eq(cpu_render(&ref, 3, "test", 1), 0);
    ck_assert_int_eq(cpu_render_with(cpu_trace_float, &flt, 3, "test", 1), 0);
    image_diff d;
    image_compare(&flt, &ref, &d);
    ck_assert_msg(d.psnr >= 30, "float vs double: %.1f dB", d.psnr);
    ck_assert_msg(memcmp(flt.rgb, ref.rgb, image_bytes(&ref)) != 0, "the float image equals the double one byte for byte");
    image_free(&ref);
    image_free(&flt);
}
END_TEST

/* Every CPU stage of the table, at odd sizes (a row's last vector part
 * filled; 1x1: the centre's ray alone, which never starts), under the widest
 * vector ISA this CPU has (_i = 0) and under CPU_ISA=avx2 (_i = 1): its image
 * is the scalar stage's of its precision byte for byte (the vectorised stages
 * change where the operations run, not which), and passes the chapter's check
 * against the double reference (no NaN, PSNR >= 30 dB). */
static const int cpu_sizes[][2] = {{37, 29}, {17, 3}, {1, 1}};

START_TEST(every_cpu_stage_renders_the_scalar_bytes)
{
    if (_i == 1)
        ck_assert_int_eq(setenv("CPU_ISA", "avx2", 1), 0);
    for (size_t z = 0; z < sizeof cpu_sizes / sizeof cpu_sizes[0]; z++) {
        int w = cpu_sizes[z][0], h = cpu_sizes[z][1], checked = 0;
        image ref, flt, img;
        ck_assert_int_eq(image_alloc(&ref, w, h), 0);
        ck_assert_int_eq(image_alloc(&flt, w, h), 0);
        ck_assert_int_eq(image_alloc(&img, w, h), 0);
        ck_assert_int_eq(cpu_render(&ref, 2, "test", 1), 0);
        ck_assert_int_eq(cpu_render_with(cpu_trace_float, &flt, 2, "test", 1), 0);
        for (size_t i = 0; i < STAGE_COUNT; i++) {
            const stage *s = &stages[i];
            if (s->info.where != STAGE_CPU)
                continue;
            memset(img.rgb, 0xEE, image_bytes(&img)); /* poison: every byte must be written */
            const image *want = s->kind == ON_CPU || s->kind == ON_CPU_SIMD ? &ref : &flt;
            long bad;
            if (s->kind == ON_CPU || s->kind == ON_CPU_FLOAT) {
                bad = cpu_render_with(s->kind == ON_CPU ? cpu_trace : cpu_trace_float, &img, 3, "test", 1);
            } else {
                ck_assert_msg(s->kind == ON_CPU_SIMD || s->kind == ON_CPU_SIMD_FLOAT,
                              "%s: a CPU stage of a kind this test does not know", s->info.name);
                int lanes;
                const char *isa;
                cpu_row_fn *row = cpu_simd_row(s->kind == ON_CPU_SIMD, &lanes, &isa);
                if (!row) {
                    printf("  %s: this CPU has no AVX2: not rendered\n", s->info.name);
                    continue;
                }
                ck_assert_str_eq(isa, _i == 1 ? "avx2" : cpu_widest_isa());
                ck_assert_int_eq(lanes, (strcmp(isa, "avx512") == 0 ? 64 : 32) / (s->kind == ON_CPU_SIMD ? 8 : 4));
                bad = cpu_render_rows(row, &img, 3, "test", 1);
            }
            image_diff d;
            image_compare(&img, &ref, &d);
            ck_assert_msg(bad == 0 && d.psnr >= 30, "%s at %dx%d: %ld NaN rays, %.1f dB", s->info.name, w, h, bad,
                          d.psnr);
            ck_assert_msg(memcmp(img.rgb, want->rgb, image_bytes(&img)) == 0,
                          "%s at %dx%d (%s): not the scalar bytes", s->info.name, w, h, cpu_widest_isa());
            checked++;
        }
        ck_assert_int_ge(checked, 2);
        image_free(&ref);
        image_free(&flt);
        image_free(&img);
    }
}
END_TEST

/* The program prints the host's FMA ceiling beside its CPU stages, at their
 * thread count, at the ISA this CPU has (the note says which, and the host's
 * CPUs), as a reference row (check n/a), in its table and its CSV. */
#ifndef PROGRAM_DIR
#define PROGRAM_DIR "."
#endif
#include "fma_ceiling_row.h"

START_TEST(the_fma_ceiling_row_is_printed)
{
    check_fma_ceiling_row("ch10",
                          "--stage cpu-threads-simd-float --width 33 --height 31 --threads 3 --repeat 1 --quiet",
                          "cpu-threads-simd-float", "ch10,ceiling-cpu-fma,33x31,3,");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ch10");
    TCase *tc = tcase_create("ch10");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, strict_rules_are_exact, 0, sizeof strict_cases / sizeof strict_cases[0]);
    tcase_add_test(tc, relaxed_rules_are_not_exact);
    tcase_add_test(tc, sharing_makes_equal_expressions_one_node);
    tcase_add_test(tc, derivatives_match_their_closed_form);
    tcase_add_test(tc, generated_step_is_the_hand_written_one);
    tcase_add_test(tc, relaxed_rules_keep_the_picture);
    tcase_add_test(tc, printing_is_deterministic);
    tcase_add_test(tc, nvrtc_compiles_every_kernel);
    tcase_add_test(tc, nvrtc_errors_show_the_source_line);
    tcase_add_test(tc, the_double_kernel_is_double);
    tcase_add_test(tc, shadow_edge_is_where_the_theory_says);
    tcase_add_test(tc, the_null_condition_drifts_little);
    tcase_add_test(tc, cpu_image_has_a_hole_and_a_sky);
    tcase_add_test(tc, float_cpu_image_is_the_picture_in_float);
    tcase_add_loop_test(tc, every_cpu_stage_renders_the_scalar_bytes, 0, 2);
    int skipped = 0;
    if (harness_shell("%s/ch10 --list-stages > /dev/null 2>&1", harness_q(PROGRAM_DIR)) == 0) {
        tcase_add_test(tc, the_fma_ceiling_row_is_printed);
    } else {
        printf("%s/ch10 cannot run (not built?): the ceiling row's test skipped\n", PROGRAM_DIR);
        skipped++;
    }
    suite_add_tcase(s, tc);
    return harness_run(s, "ch10", skipped);
}
