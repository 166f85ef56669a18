/* render.h - ch10's CPU renders and checks (cpu.c), callable from C. */
#ifndef CH10_RENDER_H
#define CH10_RENDER_H

#include "../../common/image.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One pixel's ray: its colour (0..1) and steps (bh.h's trace_ray; 0 if NaN). */
typedef int cpu_pixel_fn(int col, int row, int width, int height, double *rgb);
cpu_pixel_fn cpu_trace;       /* in double: the reference */
cpu_pixel_fn cpu_trace_float; /* in float, IEEE, no FMA contraction (cpu_float.c) */

/* A colour channel (0..1) as the byte every CPU stage writes. */
static inline unsigned char colour_byte(double c) { return (unsigned char)(int)(c * 255.0 + 0.5); }

/* One row's pixels, several rays at a time (cpu_simd.c): their bytes into
 * out (3 per pixel); returns how many rays went NaN. One per precision and
 * vector ISA: _float or _double, AVX-512 (16 or 8 rays a vector) or AVX2
 * (8 or 4). */
typedef long cpu_row_fn(int row, int width, int height, unsigned char *out);
cpu_row_fn cpu_simd_row_float_avx512, cpu_simd_row_float_avx2, cpu_simd_row_double_avx512,
    cpu_simd_row_double_avx2;

/* The row function of that precision at the widest ISA this CPU has
 * (common/cpu_ceiling.h's cpu_widest_isa, which CPU_ISA=avx2 narrows), its
 * rays per vector in *lanes and the ISA's name in *isa; NULL where the CPU
 * has neither AVX-512 nor AVX2 + FMA. */
cpu_row_fn *cpu_simd_row(int is_double, int *lanes, const char **isa);

/* The image by `threads` threads taking rows on demand, each pixel by trace;
 * returns the number of pixels whose ray went NaN. cpu_render: the
 * reference, cpu_render_with(cpu_trace, ...). cpu_render_rows: the same, a
 * row at a time by a row function. */
long cpu_render_with(cpu_pixel_fn *trace, image *img, int threads, const char *label, int quiet);
long cpu_render(image *img, int threads, const char *label, int quiet);
long cpu_render_rows(cpu_row_fn *trace_row, image *img, int threads, const char *label, int quiet);

/* Follows a ray from the observer with constants E, L and first p_r: 1 if it
 * escapes, -1 if it falls in, 0 if neither within max_steps; the radius it
 * ended at, and the largest drift of H (0 for light) on the way, relative to
 * the size of its terms: |H - H0| / ((E^2 / f + f p_r^2 + L^2 / r^2) / 2). */
int cpu_fate(double E, double L, double pr, int max_steps, double *r_end, double *hamiltonian_drift);

#ifdef __cplusplus
}
#endif

#endif
