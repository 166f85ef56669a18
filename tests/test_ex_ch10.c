/* test_ex_ch10.c - exercise ch10: the rule x + (-y) -> x - y. It must fire on
 * both orders, not fire on a plain sum, and give the same bits as the sum it
 * replaces (NaN as NaN) for every pair of special values and for 2^18 pairs
 * of random bit patterns (seed 0xE10). */
#include "harness.h"

#include "expr.c"
#include "rule.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static const char *const names[] = {"x", "y"};

START_TEST(fires_on_both_orders_and_only_there)
{
    ex_ctx c;
    ex_init(&c, EX_STRICT, 2, names);
    ex x = ex_input(&c, 0), y = ex_input(&c, 1);
    ex r1 = ex_rule_add_of_negation(&c, x, ex_neg(&c, y)), r2 = ex_rule_add_of_negation(&c, ex_neg(&c, y), x);
    ck_assert_msg(r1 >= 0 && c.nodes[r1].op == OP_SUB && c.nodes[r1].a == x && c.nodes[r1].b == y,
                  "x + (-y) did not become x - y");
    ck_assert_msg(r2 >= 0 && c.nodes[r2].op == OP_SUB && c.nodes[r2].a == x && c.nodes[r2].b == y,
                  "(-y) + x did not become x - y");
    ck_assert_msg(ex_rule_add_of_negation(&c, x, y) == -1, "the rule fired on x + y");
    ex_free(&c);
}
END_TEST

static uint32_t bits_of_float(float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    return u;
}

/* Evaluates x + (-y), (-y) + x and the rule's results, all at once. */
static void check_pair(ex_ctx *c, const ex *out, float x, float y)
{
    float in[2] = {x, y}, v[4];
    ex_eval(c, out, 4, in, v);
    for (int k = 2; k < 4; k++)
        ck_assert_msg((isnan(v[0]) && isnan(v[k])) || bits_of_float(v[0]) == bits_of_float(v[k]),
                      "x = %a, y = %a: the sum gives %a, the rewrite %a", x, y, v[0], v[k]);
}

START_TEST(gives_the_sums_bits)
{
    ex_ctx c;
    ex_init(&c, EX_NONE, 2, names); /* no other rule: only this one rewrites */
    ex x = ex_input(&c, 0), y = ex_input(&c, 1), ny = ex_neg(&c, y);
    ex r1 = ex_rule_add_of_negation(&c, x, ny), r2 = ex_rule_add_of_negation(&c, ny, x);
    ck_assert_msg(r1 >= 0 && r2 >= 0, "the rule did not fire");
    ex out[4] = {ex_add(&c, x, ny), ex_add(&c, ny, x), r1, r2};
    const float specials[] = {0.0f, -0.0f, 1.0f, -1.0f, 1e-45f, -1e-45f, 3.4e38f, -3.4e38f, INFINITY, -INFINITY, NAN};
    for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++)
        for (size_t j = 0; j < sizeof specials / sizeof specials[0]; j++)
            check_pair(&c, out, specials[i], specials[j]);
    test_rng r = {0xE10};
    for (int n = 0; n < (1 << 18); n++) {
        uint64_t w = test_rng_next(&r);
        uint32_t a = (uint32_t)w, b = (uint32_t)(w >> 32);
        float x_, y_;
        memcpy(&x_, &a, 4);
        memcpy(&y_, &b, 4);
        check_pair(&c, out, x_, y_);
    }
    ex_free(&c);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ex_ch10");
    TCase *tc = tcase_create("ex_ch10");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, fires_on_both_orders_and_only_there);
    tcase_add_test(tc, gives_the_sums_bits);
    suite_add_tcase(s, tc);
    return harness_run(s, "ex_ch10", 0);
}
