/* gen.h - ch10's generated kernels: the geodesic step built as an expression
 * tree from the Hamiltonian alone (expr.h), and the kernel source around it. */
#ifndef CH10_GEN_H
#define CH10_GEN_H

#include "expr.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The step's inputs, by number, as the generated code names them. */
enum { IN_R, IN_PHI, IN_PR, IN_E, IN_L, IN_H, IN_COUNT };

/* Builds the RK4 step in c (an ex_ctx made with inputs IN_COUNT and any
 * rules): out[0..3) are r, phi and p_r after one step of length h. */
void gen_step(ex_ctx *c, ex out[3]);

/* A kernel's whole source: the text of bh.h, the step (generated with
 * `rules`, or the hand-written one if hand is set), and the kernel
 * `render(rgb, bad, width, height)`, in float, or in double if is_double is
 * set (bh.h's `real`). Written to f. Returns the number of operations in the
 * generated step (0 for the hand-written one). */
int gen_source(int hand, int is_double, unsigned rules, FILE *f);

/* The text of bh.h, compiled into the program (build/ch10/bh_text.h). */
extern const char bh_text[];

#ifdef __cplusplus
}
#endif

#endif
