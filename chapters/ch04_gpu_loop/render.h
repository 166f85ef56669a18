/* render.h - ch04's GPU and CPU renders, callable from C (main.c). */
#ifndef CH04_RENDER_H
#define CH04_RENDER_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int registers;       /* per thread */
    int local_bytes;     /* per thread: spills and the static stack frame */
    int blocks_per_sm;   /* that fit at once, for the block shape */
    double occupancy;    /* resident warps / the SM's maximum */
} kernel_info;

/* sampler: 1 recursive, 0 loop. */
void gpu_kernel_info(int recursive, int block_x, int block_y, kernel_info *out);

/* Renders into d_rgb (device, width*height*3 bytes) and counts NaN/Inf pixels
 * into *d_bad (device int, added to). Asynchronous. */
void gpu_render(int recursive, unsigned char *d_rgb, int *d_bad, int width, int height, int spp, int block_x,
                int block_y);

/* Stack bytes per thread the recursive kernel gets (cudaLimitStackSize). */
int gpu_prepare_stack(void);

/* The same code on the CPU for one picture pixel; returns 0 on NaN/Inf. */
int cpu_render_picture_pixel(int recursive, int col, int row, int width, int height, int spp, unsigned char *out);

#ifdef __cplusplus
}
#endif

#endif
