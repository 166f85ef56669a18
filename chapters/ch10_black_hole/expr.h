/* expr.h - ch10's expression compiler: float expressions as a DAG of nodes,
 * built through functions that simplify as they build, differentiated
 * symbolically, evaluated by an interpreter, and printed as CUDA C.
 *
 * Every rule that rewrites an expression is named and can be switched off.
 * The IEEE-exact ones (EX_STRICT) never change a result, for any input, NaN
 * and infinities included, provided the printed code is compiled without
 * contraction into FMAs (NVRTC's --fmad=false): x * 1 -> x, x / 1 -> x,
 * x - 0 -> x, -(-x) -> x, x * -1 -> -x, powi(x, 1) -> x, folding + - * /
 * sqrt of constants in float (IEEE operations are correctly rounded, so the
 * CPU gets the GPU's bits), and sharing equal subexpressions (hash-consing).
 * The others (EX_RELAXED) are exact only for finite operands of the usual
 * sign: x * 0 -> 0 (wrong for NaN, inf, and gives +0 for negative x), x + 0
 * -> x (wrong for x = -0), x - x -> 0 and x / x -> 1 (NaN, inf, 0).
 *
 * The same tree always prints the same text: nodes are numbered in the order
 * they were made, and printed in that order, one temporary per node.
 */
#ifndef CH10_EXPR_H
#define CH10_EXPR_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    OP_CONST, OP_INPUT, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_NEG, OP_SQRT, OP_RSQRT, OP_SIN, OP_COS, OP_POWI,
    OP_LESS, /* a < b ? 1 : 0 */
    OP_SELECT /* a != 0 ? b : c */
} ex_op;

/* The rules, by bit. */
enum {
    RULE_SHARE = 1 << 0,     /* equal subexpressions are one node (hash-consing) */
    RULE_FOLD = 1 << 1,      /* + - * / neg sqrt of constants computed in float */
    RULE_MUL_ONE = 1 << 2,   /* x * 1 -> x, 1 * x -> x */
    RULE_DIV_ONE = 1 << 3,   /* x / 1 -> x */
    RULE_SUB_ZERO = 1 << 4,  /* x - 0 -> x */
    RULE_NEG_NEG = 1 << 5,   /* -(-x) -> x */
    RULE_MUL_MINUS_ONE = 1 << 6, /* x * -1 -> -x */
    RULE_POWI_ONE = 1 << 7,  /* powi(x, 1) -> x */
    RULE_MUL_ZERO = 1 << 8,  /* x * 0 -> 0 (relaxed) */
    RULE_ADD_ZERO = 1 << 9,  /* x + 0 -> x, 0 + x -> x (relaxed) */
    RULE_SUB_SELF = 1 << 10, /* x - x -> 0 (relaxed) */
    RULE_DIV_SELF = 1 << 11, /* x / x -> 1 (relaxed) */
    RULE_COUNT = 12
};
#define EX_NONE 0u
#define EX_STRICT (RULE_SHARE | RULE_FOLD | RULE_MUL_ONE | RULE_DIV_ONE | RULE_SUB_ZERO | RULE_NEG_NEG | \
                   RULE_MUL_MINUS_ONE | RULE_POWI_ONE)
#define EX_RELAXED (EX_STRICT | RULE_MUL_ZERO | RULE_ADD_ZERO | RULE_SUB_SELF | RULE_DIV_SELF)

extern const char *const ex_rule_names[RULE_COUNT];

typedef int ex; /* a node's number */

typedef struct {
    ex_op op;
    ex a, b, c;  /* operands, or -1 */
    float value; /* OP_CONST */
    int k;       /* OP_INPUT: the input's number; OP_POWI: the exponent */
} ex_node;

typedef struct {
    ex_node *nodes;
    int count, cap;
    int *table, table_size; /* hash-consing: node numbers, -1 empty */
    unsigned rules;
    long fired[RULE_COUNT]; /* how often each rule rewrote something */
    int inputs;
    const char *const *input_names;
} ex_ctx;

/* An empty context with these rules and inputs (names used when printing). */
void ex_init(ex_ctx *c, unsigned rules, int inputs, const char *const *input_names);
void ex_free(ex_ctx *c);

ex ex_const(ex_ctx *c, float v);
ex ex_input(ex_ctx *c, int k);
ex ex_add(ex_ctx *c, ex a, ex b);
ex ex_sub(ex_ctx *c, ex a, ex b);
ex ex_mul(ex_ctx *c, ex a, ex b);
ex ex_div(ex_ctx *c, ex a, ex b);
ex ex_neg(ex_ctx *c, ex a);
ex ex_sqrt(ex_ctx *c, ex a);
ex ex_rsqrt(ex_ctx *c, ex a);
ex ex_sin(ex_ctx *c, ex a);
ex ex_cos(ex_ctx *c, ex a);
ex ex_powi(ex_ctx *c, ex a, int k); /* k >= 0: a * a * ... (k factors; powi(a, 0) = 1) */
ex ex_less(ex_ctx *c, ex a, ex b);
ex ex_select(ex_ctx *c, ex cond, ex a, ex b);

/* d f / d input k, built in c with c's rules. */
ex ex_diff(ex_ctx *c, ex f, int k);

/* f with input k replaced by map[k] (where map[k] >= 0), rebuilt with c's rules. */
ex ex_subst(ex_ctx *c, ex f, const ex *map);

/* Evaluates outputs[0..n) for the given inputs, in float, as the printed
 * code computes them (without FMA contraction); writes results[0..n). */
void ex_eval(const ex_ctx *c, const ex *outputs, int n, const float *inputs, float *results);

/* The number of nodes the outputs depend on (what the printed code computes). */
int ex_live_count(const ex_ctx *c, const ex *outputs, int n);

/* Prints the outputs as C statements: "const float tN = ...;" per live node
 * in order, inputs read as input_names[k], then "out_names[i] = tN;". */
void ex_print(const ex_ctx *c, const ex *outputs, int n, const char *const *out_names, FILE *f);

#ifdef __cplusplus
}
#endif

#endif
