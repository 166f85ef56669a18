/* expr.c - see expr.h. */
#include "expr.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *const ex_rule_names[RULE_COUNT] = {
    "share", "fold", "mul-one", "div-one", "sub-zero", "neg-neg", "mul-minus-one", "powi-one",
    "mul-zero (relaxed)", "add-zero (relaxed)", "sub-self (relaxed)", "div-self (relaxed)"};

static void *grow(void *p, size_t bytes)
{
    void *q = realloc(p, bytes);
    if (!q) {
        fprintf(stderr, "%s:%d: out of memory (%zu bytes for expression nodes)\n", __FILE__, __LINE__, bytes);
        exit(1);
    }
    return q;
}

void ex_init(ex_ctx *c, unsigned rules, int inputs, const char *const *input_names)
{
    memset(c, 0, sizeof *c);
    c->rules = rules;
    c->inputs = inputs;
    c->input_names = input_names;
    c->table_size = 1 << 12;
    c->table = grow(NULL, (size_t)c->table_size * sizeof(int));
    memset(c->table, 0xff, (size_t)c->table_size * sizeof(int));
}

void ex_free(ex_ctx *c)
{
    free(c->nodes);
    free(c->table);
    memset(c, 0, sizeof *c);
}

static unsigned bits_of(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

static unsigned hash_node(const ex_node *n)
{
    unsigned h = (unsigned)n->op * 0x9e3779b9u;
    h = (h ^ (unsigned)n->a) * 0x85ebca6bu;
    h = (h ^ (unsigned)n->b) * 0xc2b2ae35u;
    h = (h ^ (unsigned)n->c) * 0x27d4eb2fu;
    h = (h ^ bits_of(n->value)) * 0x165667b1u;
    return (h ^ (unsigned)n->k ^ (h >> 15)) * 0x9e3779b9u;
}

static int same(const ex_node *x, const ex_node *y)
{
    return x->op == y->op && x->a == y->a && x->b == y->b && x->c == y->c &&
           bits_of(x->value) == bits_of(y->value) && x->k == y->k;
}

static void rehash(ex_ctx *c)
{
    c->table_size *= 2;
    c->table = grow(c->table, (size_t)c->table_size * sizeof(int));
    memset(c->table, 0xff, (size_t)c->table_size * sizeof(int));
    for (int i = 0; i < c->count; i++) {
        unsigned h = hash_node(&c->nodes[i]) & (unsigned)(c->table_size - 1);
        while (c->table[h] >= 0)
            h = (h + 1) & (unsigned)(c->table_size - 1);
        c->table[h] = i;
    }
}

/* The node n, shared with an equal one if RULE_SHARE is on, else new. */
static ex make(ex_ctx *c, ex_node n)
{
    unsigned h = 0;
    if (c->rules & RULE_SHARE) {
        if (2 * (c->count + 1) > c->table_size)
            rehash(c);
        h = hash_node(&n) & (unsigned)(c->table_size - 1);
        for (; c->table[h] >= 0; h = (h + 1) & (unsigned)(c->table_size - 1))
            if (same(&c->nodes[c->table[h]], &n)) {
                c->fired[0]++;
                return c->table[h];
            }
    }
    if (c->count == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 256;
        c->nodes = grow(c->nodes, (size_t)c->cap * sizeof(ex_node));
    }
    c->nodes[c->count] = n;
    if (c->rules & RULE_SHARE)
        c->table[h] = c->count;
    return c->count++;
}

static ex_node node(ex_op op, ex a, ex b, ex cc)
{
    ex_node n = {op, a, b, cc, 0.0f, 0};
    return n;
}

static int rule(ex_ctx *c, unsigned r)
{
    if (!(c->rules & r))
        return 0;
    for (int i = 0; i < RULE_COUNT; i++)
        if (r == 1u << i)
            c->fired[i]++;
    return 1;
}

static int is_const(const ex_ctx *c, ex a, float v)
{
    return c->nodes[a].op == OP_CONST && bits_of(c->nodes[a].value) == bits_of(v);
}

static int both_const(const ex_ctx *c, ex a, ex b)
{
    return c->nodes[a].op == OP_CONST && c->nodes[b].op == OP_CONST;
}

ex ex_const(ex_ctx *c, float v)
{
    ex_node n = node(OP_CONST, -1, -1, -1);
    n.value = v;
    return make(c, n);
}

ex ex_input(ex_ctx *c, int k)
{
    ex_node n = node(OP_INPUT, -1, -1, -1);
    n.k = k;
    return make(c, n);
}

/* volatile: the C compiler must round each fold to float, as the GPU does. */
static float fold(ex_op op, float x, float y)
{
    volatile float r;
    switch (op) {
    case OP_ADD: r = x + y; break;
    case OP_SUB: r = x - y; break;
    case OP_MUL: r = x * y; break;
    case OP_DIV: r = x / y; break;
    case OP_NEG: r = -x; break;
    default: r = sqrtf(x); break;
    }
    return r;
}

ex ex_add(ex_ctx *c, ex a, ex b)
{
    if (both_const(c, a, b) && rule(c, RULE_FOLD))
        return ex_const(c, fold(OP_ADD, c->nodes[a].value, c->nodes[b].value));
    if (is_const(c, b, 0.0f) && rule(c, RULE_ADD_ZERO))
        return a;
    if (is_const(c, a, 0.0f) && rule(c, RULE_ADD_ZERO))
        return b;
    return make(c, node(OP_ADD, a, b, -1));
}

ex ex_sub(ex_ctx *c, ex a, ex b)
{
    if (both_const(c, a, b) && rule(c, RULE_FOLD))
        return ex_const(c, fold(OP_SUB, c->nodes[a].value, c->nodes[b].value));
    if (is_const(c, b, 0.0f) && rule(c, RULE_SUB_ZERO))
        return a;
    if (a == b && rule(c, RULE_SUB_SELF))
        return ex_const(c, 0.0f);
    return make(c, node(OP_SUB, a, b, -1));
}

ex ex_mul(ex_ctx *c, ex a, ex b)
{
    if (both_const(c, a, b) && rule(c, RULE_FOLD))
        return ex_const(c, fold(OP_MUL, c->nodes[a].value, c->nodes[b].value));
    if (is_const(c, b, 1.0f) && rule(c, RULE_MUL_ONE))
        return a;
    if (is_const(c, a, 1.0f) && rule(c, RULE_MUL_ONE))
        return b;
    if ((is_const(c, a, 0.0f) || is_const(c, b, 0.0f)) && rule(c, RULE_MUL_ZERO))
        return ex_const(c, 0.0f);
    if (is_const(c, b, -1.0f) && rule(c, RULE_MUL_MINUS_ONE))
        return ex_neg(c, a);
    if (is_const(c, a, -1.0f) && rule(c, RULE_MUL_MINUS_ONE))
        return ex_neg(c, b);
    return make(c, node(OP_MUL, a, b, -1));
}

ex ex_div(ex_ctx *c, ex a, ex b)
{
    if (both_const(c, a, b) && rule(c, RULE_FOLD))
        return ex_const(c, fold(OP_DIV, c->nodes[a].value, c->nodes[b].value));
    if (is_const(c, b, 1.0f) && rule(c, RULE_DIV_ONE))
        return a;
    if (a == b && rule(c, RULE_DIV_SELF))
        return ex_const(c, 1.0f);
    if (is_const(c, a, 0.0f) && rule(c, RULE_MUL_ZERO)) /* 0 / x: the same relaxation */
        return a;
    return make(c, node(OP_DIV, a, b, -1));
}

ex ex_neg(ex_ctx *c, ex a)
{
    if (c->nodes[a].op == OP_CONST && rule(c, RULE_FOLD))
        return ex_const(c, fold(OP_NEG, c->nodes[a].value, 0));
    if (c->nodes[a].op == OP_NEG && rule(c, RULE_NEG_NEG))
        return c->nodes[a].a;
    return make(c, node(OP_NEG, a, -1, -1));
}

ex ex_sqrt(ex_ctx *c, ex a)
{
    if (c->nodes[a].op == OP_CONST && rule(c, RULE_FOLD))
        return ex_const(c, fold(OP_SQRT, c->nodes[a].value, 0));
    return make(c, node(OP_SQRT, a, -1, -1));
}

ex ex_rsqrt(ex_ctx *c, ex a) { return make(c, node(OP_RSQRT, a, -1, -1)); }
ex ex_sin(ex_ctx *c, ex a) { return make(c, node(OP_SIN, a, -1, -1)); }
ex ex_cos(ex_ctx *c, ex a) { return make(c, node(OP_COS, a, -1, -1)); }

ex ex_powi(ex_ctx *c, ex a, int k)
{
    if (k == 0)
        return ex_const(c, 1.0f); /* powi is a product of k factors: none is 1, for any a */
    if (k == 1 && rule(c, RULE_POWI_ONE))
        return a;
    ex_node n = node(OP_POWI, a, -1, -1);
    n.k = k;
    return make(c, n);
}

ex ex_less(ex_ctx *c, ex a, ex b) { return make(c, node(OP_LESS, a, b, -1)); }
ex ex_select(ex_ctx *c, ex cond, ex a, ex b) { return make(c, node(OP_SELECT, cond, a, b)); }

/* ---------------------------------------------------------------- derivatives */
static ex diff(ex_ctx *c, ex f, int k, ex *memo)
{
    if (memo[f] >= 0)
        return memo[f];
    ex_node n = c->nodes[f]; /* a copy: making nodes may move the array */
    ex d, zero = ex_const(c, 0.0f);
    switch (n.op) {
    case OP_CONST: d = zero; break;
    case OP_INPUT: d = ex_const(c, n.k == k ? 1.0f : 0.0f); break;
    case OP_ADD: d = ex_add(c, diff(c, n.a, k, memo), diff(c, n.b, k, memo)); break;
    case OP_SUB: d = ex_sub(c, diff(c, n.a, k, memo), diff(c, n.b, k, memo)); break;
    case OP_MUL:
        d = ex_add(c, ex_mul(c, diff(c, n.a, k, memo), n.b), ex_mul(c, n.a, diff(c, n.b, k, memo)));
        break;
    case OP_DIV: /* (a' b - a b') / b^2 */
        d = ex_div(c, ex_sub(c, ex_mul(c, diff(c, n.a, k, memo), n.b), ex_mul(c, n.a, diff(c, n.b, k, memo))),
                   ex_mul(c, n.b, n.b));
        break;
    case OP_NEG: d = ex_neg(c, diff(c, n.a, k, memo)); break;
    case OP_SQRT: d = ex_div(c, diff(c, n.a, k, memo), ex_mul(c, ex_const(c, 2.0f), f)); break;
    case OP_RSQRT: /* -a' / (2 a sqrt a) = -a' r^3 / 2 */
        d = ex_neg(c, ex_mul(c, ex_mul(c, ex_const(c, 0.5f), diff(c, n.a, k, memo)), ex_powi(c, f, 3)));
        break;
    case OP_SIN: d = ex_mul(c, ex_cos(c, n.a), diff(c, n.a, k, memo)); break;
    case OP_COS: d = ex_neg(c, ex_mul(c, ex_sin(c, n.a), diff(c, n.a, k, memo))); break;
    case OP_POWI:
        d = ex_mul(c, ex_mul(c, ex_const(c, (float)n.k), ex_powi(c, n.a, n.k - 1)), diff(c, n.a, k, memo));
        break;
    case OP_LESS: d = zero; break;
    default: d = ex_select(c, n.a, diff(c, n.b, k, memo), diff(c, n.c, k, memo)); break;
    }
    memo[f] = d;
    return d;
}

ex ex_diff(ex_ctx *c, ex f, int k)
{
    int before = c->count;
    ex *memo = grow(NULL, (size_t)(before > 0 ? before : 1) * sizeof(ex));
    for (int i = 0; i < before; i++)
        memo[i] = -1;
    ex d = diff(c, f, k, memo);
    free(memo);
    return d;
}

static ex subst(ex_ctx *c, ex f, const ex *map, ex *memo)
{
    if (memo[f] >= 0)
        return memo[f];
    ex_node n = c->nodes[f];
    ex a = n.a >= 0 ? subst(c, n.a, map, memo) : -1, b = n.b >= 0 ? subst(c, n.b, map, memo) : -1;
    ex cc = n.c >= 0 ? subst(c, n.c, map, memo) : -1, r;
    switch (n.op) {
    case OP_CONST: r = f; break;
    case OP_INPUT: r = map[n.k] >= 0 ? map[n.k] : f; break;
    case OP_ADD: r = ex_add(c, a, b); break;
    case OP_SUB: r = ex_sub(c, a, b); break;
    case OP_MUL: r = ex_mul(c, a, b); break;
    case OP_DIV: r = ex_div(c, a, b); break;
    case OP_NEG: r = ex_neg(c, a); break;
    case OP_SQRT: r = ex_sqrt(c, a); break;
    case OP_RSQRT: r = ex_rsqrt(c, a); break;
    case OP_SIN: r = ex_sin(c, a); break;
    case OP_COS: r = ex_cos(c, a); break;
    case OP_POWI: r = ex_powi(c, a, n.k); break;
    case OP_LESS: r = ex_less(c, a, b); break;
    default: r = ex_select(c, a, b, cc); break;
    }
    memo[f] = r;
    return r;
}

ex ex_subst(ex_ctx *c, ex f, const ex *map)
{
    int before = c->count;
    ex *memo = grow(NULL, (size_t)(before > 0 ? before : 1) * sizeof(ex));
    for (int i = 0; i < before; i++)
        memo[i] = -1;
    ex r = subst(c, f, map, memo);
    free(memo);
    return r;
}

/* ---------------------------------------------------------------- evaluation and printing */
static float powi_f(float x, int k)
{
    volatile float r = x;
    for (int i = 1; i < k; i++)
        r = r * x;
    return r;
}

static float apply(const ex_node *n, const float *v, const float *inputs)
{
    volatile float r;
    switch (n->op) {
    case OP_CONST: r = n->value; break;
    case OP_INPUT: r = inputs[n->k]; break;
    case OP_ADD: r = v[n->a] + v[n->b]; break;
    case OP_SUB: r = v[n->a] - v[n->b]; break;
    case OP_MUL: r = v[n->a] * v[n->b]; break;
    case OP_DIV: r = v[n->a] / v[n->b]; break;
    case OP_NEG: r = -v[n->a]; break;
    case OP_SQRT: r = sqrtf(v[n->a]); break;
    case OP_RSQRT: r = 1.0f / sqrtf(v[n->a]); break;
    case OP_SIN: r = sinf(v[n->a]); break;
    case OP_COS: r = cosf(v[n->a]); break;
    case OP_POWI: r = powi_f(v[n->a], n->k); break;
    case OP_LESS: r = v[n->a] < v[n->b] ? 1.0f : 0.0f; break;
    default: r = v[n->a] != 0 ? v[n->b] : v[n->c]; break;
    }
    return r;
}

static unsigned char *live_set(const ex_ctx *c, const ex *outputs, int n)
{
    unsigned char *live = grow(NULL, (size_t)(c->count > 0 ? c->count : 1));
    memset(live, 0, (size_t)c->count);
    for (int i = 0; i < n; i++)
        live[outputs[i]] = 1;
    for (int i = c->count - 1; i >= 0; i--) /* operands are always older than their node */
        if (live[i]) {
            const ex_node *nd = &c->nodes[i];
            if (nd->a >= 0) live[nd->a] = 1;
            if (nd->b >= 0) live[nd->b] = 1;
            if (nd->c >= 0) live[nd->c] = 1;
        }
    return live;
}

void ex_eval(const ex_ctx *c, const ex *outputs, int n, const float *inputs, float *results)
{
    unsigned char *live = live_set(c, outputs, n);
    float *v = grow(NULL, (size_t)(c->count > 0 ? c->count : 1) * sizeof(float));
    for (int i = 0; i < c->count; i++)
        if (live[i])
            v[i] = apply(&c->nodes[i], v, inputs);
    for (int i = 0; i < n; i++)
        results[i] = v[outputs[i]];
    free(v);
    free(live);
}

int ex_live_count(const ex_ctx *c, const ex *outputs, int n)
{
    unsigned char *live = live_set(c, outputs, n);
    int count = 0;
    for (int i = 0; i < c->count; i++)
        count += live[i] && c->nodes[i].op != OP_CONST && c->nodes[i].op != OP_INPUT;
    free(live);
    return count;
}

/* %a would be exact but unreadable; 9 significant digits round-trip a float. */
static void print_const(FILE *f, float v)
{
    char text[40];
    if (isnan(v))
        fprintf(f, "__int_as_float(0x7fc00000)");
    else if (isinf(v))
        fprintf(f, v > 0 ? "__int_as_float(0x7f800000)" : "__int_as_float(0xff800000)");
    else {
        snprintf(text, sizeof text, "%.9g", (double)v);
        fprintf(f, "%s%sf", text, strpbrk(text, ".eEn") ? "" : ".0");
    }
}

void ex_print(const ex_ctx *c, const ex *outputs, int n, const char *const *out_names, FILE *f)
{
    static const char *const infix[] = {[OP_ADD] = "+", [OP_SUB] = "-", [OP_MUL] = "*", [OP_DIV] = "/"};
    unsigned char *live = live_set(c, outputs, n);
    for (int i = 0; i < c->count; i++) {
        if (!live[i])
            continue;
        const ex_node *nd = &c->nodes[i];
        fprintf(f, "    const float t%d = ", i);
        switch (nd->op) {
        case OP_CONST: print_const(f, nd->value); break;
        case OP_INPUT: fprintf(f, "%s", c->input_names[nd->k]); break;
        case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV:
            fprintf(f, "t%d %s t%d", nd->a, infix[nd->op], nd->b);
            break;
        case OP_NEG: fprintf(f, "-t%d", nd->a); break;
        case OP_SQRT: fprintf(f, "sqrtf(t%d)", nd->a); break;
        case OP_RSQRT: fprintf(f, "rsqrtf(t%d)", nd->a); break;
        case OP_SIN: fprintf(f, "sinf(t%d)", nd->a); break;
        case OP_COS: fprintf(f, "cosf(t%d)", nd->a); break;
        case OP_POWI:
            fprintf(f, "t%d", nd->a);
            for (int k = 1; k < nd->k; k++)
                fprintf(f, " * t%d", nd->a);
            break;
        case OP_LESS: fprintf(f, "t%d < t%d ? 1.0f : 0.0f", nd->a, nd->b); break;
        default: fprintf(f, "t%d != 0.0f ? t%d : t%d", nd->a, nd->b, nd->c); break;
        }
        fprintf(f, ";\n");
    }
    for (int i = 0; i < n; i++)
        fprintf(f, "    %s = t%d;\n", out_names[i], outputs[i]);
    free(live);
}
