/* test_ex_ch10.c - exercise ch10: the rule x + (-y) -> x - y. It must fire on
 * both orders, not fire on a plain sum, and be exact: whatever it rewrites,
 * the rewrite must give the same bits (NaN as NaN) as the sum it replaces.
 *
 * A rule can be right on the shapes it is asked for and wrong on others it
 * also fires on ((-x) + (-y) -> -(x + y) gives -0 for +0 + -0; x + (-x) -> 0
 * gives 0 for an infinity, the sum NaN). So the rule is asked about a family
 * of sums: every ordered pair of a set of terms (x, -y, -x, -(-y), -(x * y),
 * -(x + y), ...), terms with constants, and pairs of constants, each under no
 * other rule and under the strict set. For every one it fires on, the
 * rewrite is evaluated against the sum on every tuple of special values for
 * the inputs it reads (signed zeros, subnormals, the largest floats,
 * infinities, NaN: so y = x and y = -x too), then on random bit patterns
 * (seed 0xE10; 2^18 for x + (-y) and (-y) + x), each also with y = x and y = -x.
 *
 * Every call into the rule goes through call_rule: the probe records what the
 * rule returned and every node of the context after it (a flattened array);
 * the judge checks that array ("the probe and the judge", harness.h). */
#include "harness.h"

#include "expr.c"
#include "rule.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

enum { INPUTS = 3, MAX_NODES = 1 << 12, MAX_POWI = 64 };
static const char *const names[INPUTS] = {"x", "y", "z"};

/* ---------------------------------------------------------------- calls into the rule, recorded */
typedef struct {
    int32_t op, a, b, c, k;
    uint32_t value; /* the float's bits */
} node_rec;
typedef struct {
    int32_t result, count; /* what the rule returned; the context's nodes after it */
} call_head;

static node_rec flat(const ex_node *n)
{
    node_rec r = {(int32_t)n->op, n->a, n->b, n->c, n->k, bits_of(n->value)};
    return r;
}

static int arity(int op)
{
    switch (op) {
    case OP_CONST: case OP_INPUT: return 0;
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: case OP_LESS: return 2;
    case OP_SELECT: return 3;
    default: return 1;
    }
}

/* The nodes the rule left must be the old ones, unchanged (other expressions
 * share them), then nodes the compiler can make: operands older than the
 * node, inputs that exist. */
static void check_nodes(const char *shape, const node_rec *old, int before, const node_rec *got, int count)
{
    for (int i = 0; i < before; i++)
        ck_assert_msg(memcmp(&old[i], &got[i], sizeof *old) == 0, "%s: the rule changed node %d, made before it was "
                      "called (other expressions share it): a rule may only add nodes", shape, i);
    for (int i = before; i < count; i++) {
        const node_rec *n = &got[i];
        ck_assert_msg(n->op >= OP_CONST && n->op <= OP_SELECT, "%s: node %d has kind %d: no kind of expr.h's",
                      shape, i, n->op);
        const int32_t operand[3] = {n->a, n->b, n->c};
        for (int j = 0; j < arity(n->op); j++)
            ck_assert_msg(operand[j] >= 0 && operand[j] < i, "%s: node %d's operand %d is node %d: a node's "
                          "operands are older nodes (0 .. %d), as ex_add and friends make them", shape, i, j + 1,
                          operand[j], i - 1);
        ck_assert_msg(n->op != OP_INPUT || (n->k >= 0 && n->k < INPUTS), "%s: node %d reads input %d: there are %d",
                      shape, i, n->k, INPUTS);
        ck_assert_msg(n->op != OP_POWI || (n->k >= 0 && n->k <= MAX_POWI), "%s: node %d is powi(t, %d): not a "
                      "node this rule has any reason to make", shape, i, n->k);
    }
}

/* c's nodes become got[0 .. count) (in the judge: the probe's). */
static void install(ex_ctx *c, const node_rec *got, int count)
{
    free(c->nodes);
    c->nodes = grow(NULL, (size_t)count * sizeof(ex_node));
    for (int i = 0; i < count; i++) {
        ex_node n = {(ex_op)got[i].op, got[i].a, got[i].b, got[i].c, 0.0f, got[i].k};
        memcpy(&n.value, &got[i].value, sizeof n.value);
        c->nodes[i] = n;
    }
    c->count = c->cap = count;
    if (c->rules & RULE_SHARE) /* the table finds the new nodes too (rehash doubles it) */
        do
            rehash(c);
        while (2 * (c->count + 1) > c->table_size);
}

/* The rule on a + b in c: returns what it returned, and c then holds the
 * nodes it left, checked (in the judge, those the probe recorded). */
static ex call_rule(ex_ctx *c, ex a, ex b, const char *shape)
{
    int before = c->count;
    node_rec *old = grow(NULL, (size_t)before * sizeof *old);
    for (int i = 0; i < before; i++)
        old[i] = flat(&c->nodes[i]);
    call_head h = {-1, 0};
    if (HARNESS_CALLS_ANSWER) {
        h.result = ex_rule_add_of_negation(c, a, b);
        h.count = c->count;
    }
    harness_answer(&h, sizeof h);
    ck_assert_msg(h.count >= before && h.count <= MAX_NODES, "%s: after the rule the context has %d nodes (it had "
                  "%d before; a rule adds a few)", shape, h.count, before);
    node_rec *got = grow(NULL, (size_t)h.count * sizeof *got);
    if (HARNESS_CALLS_ANSWER)
        for (int i = 0; i < h.count; i++)
            got[i] = flat(&c->nodes[i]);
    harness_answer(got, (size_t)h.count * sizeof *got);
    check_nodes(shape, old, before, got, h.count);
    ck_assert_msg(h.result >= -1 && h.result < h.count, "%s: the rule returned %d: neither a node (0 .. %d) nor -1 "
                  "(does not apply)", shape, h.result, h.count - 1);
    install(c, got, h.count);
    free(old);
    free(got);
    return h.result;
}

/* ---------------------------------------------------------------- the family of sums */
typedef enum {
    T_INPUT, T_NEG, T_NEG_NEG, T_MUL, T_NEG_MUL, T_ADD, T_NEG_ADD, T_SUB, T_NEG_SUB, T_ADD_NEG, T_CONST, T_NEG_CONST
} term_kind;
typedef struct {
    term_kind kind;
    int k;   /* the input (T_INPUT .. T_NEG_NEG) */
    float v; /* T_CONST, T_NEG_CONST */
} term;

static const float specials[] = {0.0f,     -0.0f,    1.0f,      -1.0f,     0x1p-149f, -0x1p-149f,
                                 0x1.fffffcp-127f,   -0x1.fffffcp-127f,     3.4e38f,   -3.4e38f,
                                 FLT_MAX,  -FLT_MAX, INFINITY,  -INFINITY, NAN,       -NAN};
enum { SPECIALS = sizeof specials / sizeof specials[0] };

/* The symbolic terms; x + (-y) is made as a plain sum (ex_add applies no rule of this kind). */
static const term symbolic[] = {
    {T_INPUT, 0, 0}, {T_INPUT, 1, 0}, {T_INPUT, 2, 0}, {T_NEG, 0, 0}, {T_NEG, 1, 0}, {T_NEG, 2, 0},
    {T_NEG_NEG, 1, 0}, {T_MUL, 0, 0}, {T_NEG_MUL, 0, 0}, {T_ADD, 0, 0}, {T_NEG_ADD, 0, 0}, {T_SUB, 0, 0},
    {T_NEG_SUB, 0, 0}, {T_ADD_NEG, 0, 0}};
enum { SYMBOLIC = sizeof symbolic / sizeof symbolic[0] };

static ex build(ex_ctx *c, term t)
{
    const ex x = 0, y = 1; /* make_sum makes the inputs first */
    switch (t.kind) {
    case T_INPUT: return t.k;
    case T_NEG: return ex_neg(c, t.k);
    case T_NEG_NEG: return ex_neg(c, ex_neg(c, t.k));
    case T_MUL: return ex_mul(c, x, y);
    case T_NEG_MUL: return ex_neg(c, ex_mul(c, x, y));
    case T_ADD: return ex_add(c, x, y);
    case T_NEG_ADD: return ex_neg(c, ex_add(c, x, y));
    case T_SUB: return ex_sub(c, x, y);
    case T_NEG_SUB: return ex_neg(c, ex_sub(c, x, y));
    case T_ADD_NEG: return ex_add(c, x, ex_neg(c, y));
    case T_CONST: return ex_const(c, t.v);
    default: return ex_neg(c, ex_const(c, t.v));
    }
}

/* e as text, for messages: (x + -(y)), -(3.4e+38), ... */
static void show(const ex_ctx *c, ex e, char *out, size_t size, int depth)
{
    static const char *const infix[] = {[OP_ADD] = "+", [OP_SUB] = "-", [OP_MUL] = "*", [OP_DIV] = "/",
                                        [OP_LESS] = "<"};
    static const char *const fn[] = {[OP_SQRT] = "sqrt", [OP_RSQRT] = "rsqrt", [OP_SIN] = "sin", [OP_COS] = "cos"};
    char l[200] = "", r[200] = "", s[200] = "";
    const ex_node *n = &c->nodes[e];
    if (depth > 5) {
        snprintf(out, size, "...");
        return;
    }
    if (arity(n->op) >= 1)
        show(c, n->a, l, sizeof l, depth + 1);
    if (arity(n->op) >= 2)
        show(c, n->b, r, sizeof r, depth + 1);
    if (arity(n->op) >= 3)
        show(c, n->c, s, sizeof s, depth + 1);
    switch (n->op) {
    case OP_CONST: snprintf(out, size, "%g", (double)n->value); break;
    case OP_INPUT: snprintf(out, size, "%s", names[n->k]); break;
    case OP_NEG: snprintf(out, size, "-(%s)", l); break;
    case OP_POWI: snprintf(out, size, "powi(%s, %d)", l, n->k); break;
    case OP_SELECT: snprintf(out, size, "(%s ? %s : %s)", l, r, s); break;
    case OP_SQRT: case OP_RSQRT: case OP_SIN: case OP_COS: snprintf(out, size, "%s(%s)", fn[n->op], l); break;
    default: snprintf(out, size, "(%s %s %s)", l, infix[n->op], r); break;
    }
}

/* One sum a + b of the family, made in a fresh context with these rules,
 * and what the rule made of it. */
typedef struct {
    ex_ctx c;
    ex a, b, r;
    char name[480];
    unsigned uses; /* bit k: input k is read by a, b or r */
} sum;

static void make_sum(sum *s, unsigned rules, term ta, term tb)
{
    ex_init(&s->c, rules, INPUTS, names);
    for (int k = 0; k < INPUTS; k++)
        ex_input(&s->c, k); /* inputs first: a term's nodes keep their numbers whatever the terms */
    s->a = build(&s->c, ta);
    s->b = build(&s->c, tb);
    char a[200], b[200];
    show(&s->c, s->a, a, sizeof a, 0);
    show(&s->c, s->b, b, sizeof b, 0);
    snprintf(s->name, sizeof s->name, "%s + %s (%s)", a, b, rules == EX_NONE ? "no other rule" : "strict rules");
    s->r = call_rule(&s->c, s->a, s->b, s->name);
    s->uses = 0;
    if (s->r < 0)
        return;
    ex out[3] = {s->a, s->b, s->r};
    unsigned char *live = live_set(&s->c, out, 3);
    for (int i = 0; i < s->c.count; i++)
        if (live[i] && s->c.nodes[i].op == OP_INPUT)
            s->uses |= 1u << s->c.nodes[i].k;
    free(live);
}

/* ---------------------------------------------------------------- exactness */
static uint32_t bits_of_float(float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    return u;
}

static float float_of_bits(uint32_t u)
{
    float v;
    memcpy(&v, &u, 4);
    return v;
}

/* The sum and the rewrite on these inputs: the same bits, or both NaN. */
static void check_inputs(const sum *s, const float *in, float *v)
{
    for (int i = 0; i < s->c.count; i++) /* operands are older: one pass in order */
        v[i] = apply(&s->c.nodes[i], v, in);
    volatile float want = v[s->a] + v[s->b];
    float got = v[s->r];
    if ((isnan(want) && isnan(got)) || bits_of_float(want) == bits_of_float(got))
        return;
    char r[200], at[160] = "";
    show(&s->c, s->r, r, sizeof r, 0);
    for (int k = 0, n = 0; k < INPUTS; k++) /* the inputs it reads */
        if (s->uses >> k & 1)
            n += snprintf(at + n, sizeof at - (size_t)n, "%s%s = %a", n ? ", " : " at ", names[k], (double)in[k]);
    if (at[0])
        strcat(at, ",");
    ck_abort_msg("%s: rewritten as %s;%s the sum gives %a, the rewrite %a: not the same bits, so the rewrite is "
                 "not exact", s->name, r, at, (double)want, (double)got);
}

/* Every tuple of special values for the inputs the sum or its rewrite reads
 * (the others stay 0), then `randoms` random ones, each also with y = x and
 * y = -x. */
static void check_exact(const sum *s, test_rng *rng, int randoms)
{
    float *v = grow(NULL, (size_t)s->c.count * sizeof(float));
    int n[INPUTS];
    for (int k = 0; k < INPUTS; k++)
        n[k] = s->uses >> k & 1 ? SPECIALS : 1;
    for (int i = 0; i < n[0]; i++)
        for (int j = 0; j < n[1]; j++)
            for (int l = 0; l < n[2]; l++) {
                float in[INPUTS] = {n[0] > 1 ? specials[i] : 0, n[1] > 1 ? specials[j] : 0,
                                    n[2] > 1 ? specials[l] : 0};
                check_inputs(s, in, v);
            }
    for (int t = 0; s->uses && t < randoms; t++) {
        uint64_t w = test_rng_next(rng), w2 = test_rng_next(rng);
        float x = float_of_bits((uint32_t)w), y = float_of_bits((uint32_t)(w >> 32)), z = float_of_bits((uint32_t)w2);
        float ins[3][INPUTS] = {{x, y, z}, {x, x, z}, {x, float_of_bits(bits_of_float(x) ^ 0x80000000u), z}};
        for (int k = 0; k < 3; k++)
            check_inputs(s, ins[k], v);
    }
    free(v);
}

/* ---------------------------------------------------------------- the tests */
static const term X = {T_INPUT, 0, 0}, Y = {T_INPUT, 1, 0}, NEG_Y = {T_NEG, 1, 0};

START_TEST(fires_on_both_orders_and_only_there)
{
    sum s;
    make_sum(&s, EX_STRICT, X, NEG_Y);
    const ex x = 0, y = 1; /* make_sum makes the inputs first */
    const ex_node *n = s.r >= 0 ? &s.c.nodes[s.r] : NULL;
    ck_assert_msg(n && n->op == OP_SUB && n->a == x && n->b == y, "x + (-y) did not become x - y");
    ex_free(&s.c);
    make_sum(&s, EX_STRICT, NEG_Y, X);
    n = s.r >= 0 ? &s.c.nodes[s.r] : NULL;
    ck_assert_msg(n && n->op == OP_SUB && n->a == x && n->b == y, "(-y) + x did not become x - y");
    ex_free(&s.c);
    make_sum(&s, EX_STRICT, X, Y);
    ck_assert_msg(s.r == -1, "the rule fired on x + y");
    ex_free(&s.c);
}
END_TEST

START_TEST(gives_the_sums_bits)
{
    test_rng rng = {0xE10};
    const unsigned rules = EX_NONE; /* no other rule: only this one rewrites */
    const term order[2][2] = {{X, NEG_Y}, {NEG_Y, X}};
    for (int o = 0; o < 2; o++) {
        sum s;
        make_sum(&s, rules, order[o][0], order[o][1]);
        ck_assert_msg(s.r >= 0, "the rule did not fire on %s", s.name);
        check_exact(&s, &rng, 1 << 18);
        ex_free(&s.c);
    }
}
END_TEST

/* Every sum of the family the rule fires on, under rule set _i (none, strict). */
static void check_family_sum(unsigned rules, term ta, term tb, test_rng *rng, int randoms)
{
    sum s;
    make_sum(&s, rules, ta, tb);
    if (s.r >= 0)
        check_exact(&s, rng, randoms);
    ex_free(&s.c);
}

START_TEST(every_sum_it_rewrites_is_exact)
{
    const unsigned rules = _i ? EX_STRICT : EX_NONE;
    test_rng rng = {0xE10 + (unsigned)_i};
    for (int i = 0; i < SYMBOLIC; i++)
        for (int j = 0; j < SYMBOLIC; j++)
            check_family_sum(rules, symbolic[i], symbolic[j], &rng, 1 << 12);
    const term with_constants[] = {X, {T_NEG, 0, 0}, NEG_Y};
    for (int v = 0; v < SPECIALS; v++)
        for (int neg = 0; neg < 2; neg++) {
            term cst = {neg ? T_NEG_CONST : T_CONST, 0, specials[v]};
            for (int t = 0; t < 3; t++) {
                check_family_sum(rules, with_constants[t], cst, &rng, 1 << 10);
                check_family_sum(rules, cst, with_constants[t], &rng, 1 << 10);
            }
        }
    for (int v = 0; v < SPECIALS; v++)
        for (int w = 0; w < SPECIALS; w++) {
            term c1 = {T_CONST, 0, specials[v]}, n1 = {T_NEG_CONST, 0, specials[v]};
            term c2 = {T_CONST, 0, specials[w]}, n2 = {T_NEG_CONST, 0, specials[w]};
            check_family_sum(rules, c1, n2, &rng, 1 << 8);
            check_family_sum(rules, n1, c2, &rng, 1 << 8);
            check_family_sum(rules, n1, n2, &rng, 1 << 8);
        }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ex_ch10");
    TCase *tc = tcase_create("ex_ch10");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, fires_on_both_orders_and_only_there);
    tcase_add_test(tc, gives_the_sums_bits);
    tcase_add_loop_test(tc, every_sum_it_rewrites_is_exact, 0, 2);
    suite_add_tcase(s, tc);
    return harness_run(s, "ex_ch10", 0);
}
