/* render.h - ch10's CPU renders and checks (cpu.c), callable from C. */
#ifndef CH10_RENDER_H
#define CH10_RENDER_H

#include "../../common/image.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The reference image, in double, with `threads` threads; returns the number
 * of pixels whose ray went NaN. */
long cpu_render(image *img, int threads, const char *label, int quiet);

/* One pixel's ray in double: its colour (0..1) and steps (bh.h's trace_ray). */
int cpu_trace(int col, int row, int width, int height, double *rgb);

/* Follows a ray from the observer with constants E, L and first p_r: 1 if it
 * escapes, -1 if it falls in, 0 if neither within max_steps; the radius it
 * ended at, and the largest drift of H (0 for light) on the way, relative to
 * the size of its terms: |H - H0| / ((E^2 / f + f p_r^2 + L^2 / r^2) / 2). */
int cpu_fate(double E, double L, double pr, int max_steps, double *r_end, double *hamiltonian_drift);

#ifdef __cplusplus
}
#endif

#endif
