/* cpu_float.c - bh.h in float on the CPU: the cpu-threads-float stage. Its
 * arithmetic is the strict GPU stages': IEEE float, every operation rounded
 * on its own (chapter.mk builds this file with -ffp-contract=off, as NVRTC
 * compiles them with --fmad=false). <tgmath.h> makes bh.h's sqrt, tan, atan2
 * ... the float functions, as CUDA's overloads do on the GPU. So a GPU stage
 * can be set beside a CPU stage of its own precision (the double reference is
 * another precision, not a like-for-like baseline). */
#include "render.h"

#include <tgmath.h>

typedef float real;
#define R(x) ((float)(x))
#define BH_FN static inline
#include "bh.h"

int cpu_trace_float(int col, int row, int width, int height, double *rgb)
{
    float c[3];
    int steps = trace_ray(col, row, width, height, c);
    for (int k = 0; k < 3; k++)
        rgb[k] = c[k];
    return steps;
}
