/* render.h - ch04's GPU and CPU renders, callable from C (problem.c). */
#ifndef CH04_RENDER_H
#define CH04_RENDER_H

#include "../../common/gpu/kernel_info.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The stage's choice (card.h): which sampler the kernel runs. */
enum { SAMPLER_LOOP = 0, SAMPLER_RECURSIVE = 1 };

/* kernel_info: registers, local frame and occupancy (common/gpu/kernel_info.h) */

/* Renders into d_rgb (device, width*height*3 bytes) and counts NaN/Inf pixels
 * into *d_bad (device int, added to). Asynchronous. If info is not NULL, also
 * fills it for this kernel at this block shape. */
typedef void render_fn(int flags, unsigned char *d_rgb, int *d_bad, int width, int height, int spp, int block_x,
                       int block_y, kernel_info *info);
render_fn gpu_render;

/* Sets the stack bytes per thread the recursive kernel gets
 * (cudaLimitStackSize) and returns them. STACK_BYTES, the chapter's: deep
 * enough for the card's longest chain of mirror bounces with room to spare;
 * every resident thread reserves this much local memory. */
#define STACK_BYTES 8192
#define STACK_TEXT "8192"
int gpu_prepare_stack(int bytes);

/* The same code on the CPU for one picture pixel; returns 0 on NaN/Inf. */
int cpu_render_picture_pixel(int flags, int col, int row, int width, int height, int spp, unsigned char *out);

#ifdef __cplusplus
}
#endif

#endif
