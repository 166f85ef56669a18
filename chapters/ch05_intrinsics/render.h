/* render.h - ch05's GPU and CPU renders, callable from C (problem.c).
 * The kernels (kernels.h) are built once per set of floating-point flags, each
 * build exporting its render_fn: gpu_render (as is: render.cu), gpu_render_fast
 * (-use_fast_math) and one for each of the three flags -use_fast_math turns on
 * alone (gpu_render_ftz, gpu_render_approx_div, gpu_render_approx_sqrt). */
#ifndef CH05_RENDER_H
#define CH05_RENDER_H

#include "../../common/gpu/kernel_info.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The changes a stage can make (card.h says what each does and why). */
enum { FLOAT_ONLY = 1, INTRINSICS = 2, POW_SQUARING = 4, BOUNDING_BOX = 8, SPHERE_LIST = 16, SPHERE_ALGEBRA = 32,
       LETTER_BOXES = 64 };

/* Every set of changes a stage (or a test) uses, each named after the stage
 * that adds its last change. One list: it generates these names, the GPU
 * kernels and the CPU renders (render.cu), so no stage can miss one. */
#define CH05_FLAG_SETS(X)                                                                                      \
    X(SET_LOOP, 0)                                                                                             \
    X(SET_FLOAT_ONLY, FLOAT_ONLY)                                                                              \
    X(SET_INTRINSICS, SET_FLOAT_ONLY | INTRINSICS)                                                             \
    X(SET_POW_SQUARING, SET_INTRINSICS | POW_SQUARING)                                                         \
    X(SET_SPHERE_LIST, SET_POW_SQUARING | SPHERE_LIST)                                                         \
    X(SET_SPHERE_ALGEBRA, SET_SPHERE_LIST | SPHERE_ALGEBRA)                                                    \
    X(SET_BOUNDING_BOX, SET_SPHERE_LIST | BOUNDING_BOX)                                                        \
    X(SET_ALGEBRA_BOX, SET_SPHERE_ALGEBRA | BOUNDING_BOX)                                                      \
    X(SET_LETTER_BOXES, SET_BOUNDING_BOX | LETTER_BOXES)
#define CH05_DEFINE_SET(name, value) name = (value),
enum { CH05_FLAG_SETS(CH05_DEFINE_SET) };

/* kernel_info: registers, local frame and occupancy (common/gpu/kernel_info.h) */

/* Renders into d_rgb (device, width*height*3 bytes) and counts NaN/Inf pixels
 * into *d_bad (device int, added to). Asynchronous. lanes threads per pixel
 * (1, 2, 4 ... 32), each with its share of the samples (card.h's
 * lane_samples); blocks of block_x x block_y pixels, block_x * lanes x block_y
 * threads. If info is not NULL, also fills it for this kernel and block. */
typedef void render_fn(int flags, int lanes, unsigned char *d_rgb, int *d_bad, int width, int height, int spp,
                       int block_x, int block_y, kernel_info *info);
render_fn gpu_render, gpu_render_fast, gpu_render_ftz, gpu_render_approx_div, gpu_render_approx_sqrt;

/* The same code on the CPU for one picture pixel, the lanes' sums added in
 * the GPU's order; returns 0 on NaN/Inf. */
int cpu_render_picture_pixel(int flags, int lanes, int col, int row, int width, int height, int spp,
                             unsigned char *out);

/* trace() calls the CPU has made so far, and of
 * those, the ones that skipped the spheres because the ray missed their box. */
unsigned long long cpu_trace_calls(void);
unsigned long long cpu_box_skips(void);
unsigned long long cpu_sphere_tests(void); /* test_sphere calls, the CPU's so far */

/* Of the first sample's camera rays, the share that miss the spheres' box, and
 * of the warps (32 consecutive threads of a block of block_x x block_y pixels,
 * `lanes` threads per pixel: 32 / lanes pixels), the share whose every ray
 * misses it: the warps the box lets skip the spheres whole. (A warp with one
 * ray in the box pays for all 49 spheres.) */
void cpu_primary_box_misses(int width, int height, int block_x, int block_y, int lanes, double *ray_share,
                            double *warp_share);

#ifdef __cplusplus
}
#endif

#endif
