/* problem.h - one ch12 problem: the inputs, the reference, the output's
 * check (problem.c), as the measure loop and the rows (problem.c's program)
 * see them. */
#ifndef CH12_PROBLEM_H
#define CH12_PROBLEM_H

#include "gemm.h"

#include <stddef.h>
#include <stdint.h>

/* What a stage multiplies, and so which reference and bound check it:
 * the FP32 values themselves, those rounded to bf16 (the tensor-core rows),
 * or rounded to TF32 by the library (cuBLAS's TF32 row). */
enum { INPUT_FP32, INPUT_BF16, INPUT_TF32 };

#ifdef __cplusplus
extern "C" {
#endif

/* The inputs of one size on the host, and the reference products in double
 * precision: of the FP32 values (ref32) and, where a bf16 stage runs, of the
 * bf16 values (ref16); beside each, sum_k |a_ik| |b_kj| (abs32, abs16), the
 * scale the error bound is stated against. */
typedef struct {
    gemm_shape s;
    float *a, *b;              /* m x lda, k x ldb; padding NaN */
    uint16_t *a16, *b16;       /* the same rounded to bf16 (NULL until problem_want_bf16) */
    double *ref32, *abs32;     /* m x n (dense, ld n) */
    double *ref16, *abs16;     /* NULL until problem_want_bf16 */
    float *c;                  /* a CPU stage's output, m x ldc; a GPU stage's copied back here */
    int threads;               /* the reference's threads */
} problem;

/* The inputs of shape m x n x k from the chapter's fixed seed: uniform in
 * [-1, 1), never 0 exactly (a stage that reads zeros instead of its input
 * cannot pass by luck), NaN in the padding; and their FP32 reference. */
void problem_init(problem *p, int m, int n, int k, int threads);
void problem_want_bf16(problem *p);
void problem_free(problem *p);

/* Round to bf16, to nearest even (NaN stays NaN). */
uint16_t bf16_from_float(float x);
float float_from_bf16(uint16_t h);

/* The output poisoned: NaN in every element, a distinct NaN in the padding. */
void problem_poison(float *c, const gemm_shape *s);

/* The check of an output in p->c against the reference of `input`: every
 * element finite, the padding untouched, and each element's error
 * |c - ref| / sum_k |a||b| within the bound for that input (problem.c
 * derives it). 1 if right; what it found goes in note. The largest error
 * is kept in *worst, and the error against the FP32 inputs' product (what
 * the precision costs) in *vs_fp32: both as that scaled error's maximum. */
int problem_check(const problem *p, int input, int tensor_cores, char *note, size_t size, double *worst,
                  double *vs_fp32);

/* The bound problem_check holds a stage to (see problem.c). */
double problem_bound(int k, int input, int tensor_cores);

#ifdef __cplusplus
}
#endif

#endif
