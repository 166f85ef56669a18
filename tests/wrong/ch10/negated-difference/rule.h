/* WRONG ANSWER (ch10, negated-difference): (-x) + y rewritten as -(x - y): equal in value, except for the sign of a zero result */
/* Exercise ch10: one more rule for the expression compiler (a solution;
 * exercises/ch10/rule.h says what is asked and why it is exact). */
#ifndef EX_CH10_RULE_H
#define EX_CH10_RULE_H

#include "expr.h"

static inline ex ex_rule_add_of_negation(ex_ctx *c, ex a, ex b)
{
    if (c->nodes[b].op == OP_NEG)
        return ex_sub(c, a, c->nodes[b].a);
    if (c->nodes[a].op == OP_NEG)
        return ex_neg(c, ex_sub(c, c->nodes[a].a, b));
    return -1;
}

#endif
