/* Exercise ch09: a NaN check that fast math cannot delete.
 *
 * Every program in this course checks its results for NaN and infinity. Under
 * gcc's or clang's -ffast-math that check can vanish: -ffast-math includes
 * -ffinite-math-only, a promise that no value is ever NaN or infinite, so the
 * compiler may replace isfinite(x) by 1 (both do: tests/test_ch09.c shows it
 * on your machine). nvcc's -use_fast_math makes no such promise; clang's
 * -ffast-math on CUDA code does.
 *
 * Write ex_finite(value): 1 if the float stored at `value` is finite (zero,
 * subnormals, the largest float), 0 if it is NaN (any payload, either sign) or
 * +-infinity, such that it stays right when this header is compiled with -O2
 * -ffast-math, by gcc and by clang. The value is passed by address, as a
 * result buffer read back from a GPU would be. The test compiles your header
 * with $(CC) -O2 -ffast-math (and clang, when installed) and feeds it the
 * cases. Then: make grade EX=ch09
 */
#ifndef EX_CH09_FINITE_H
#define EX_CH09_FINITE_H

#include <math.h>

static inline int ex_finite(const float *value)
{
    return isfinite(*value); /* TODO: right without fast math, deleted with it */
}

#endif
