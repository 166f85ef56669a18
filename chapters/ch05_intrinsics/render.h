/* render.h - ch05's GPU and CPU renders, callable from C (main.c).
 * render.cu is compiled twice: as is, and with -use_fast_math, when its
 * functions get the suffix _fast. */
#ifndef CH05_RENDER_H
#define CH05_RENDER_H

#ifdef __cplusplus
extern "C" {
#endif

/* The stage's changes (card.h): a set of these bits. */
enum { STAGE_FLOAT_ONLY = 1, STAGE_INTRINSICS = 2, STAGE_POW_SQUARING = 4, STAGE_BOUNDING_BOX = 8, STAGE_SPHERE_LIST = 16,
       STAGE_SPHERE_ALGEBRA = 32 };

typedef struct {
    int registers, local_bytes, blocks_per_sm;
    double occupancy;
} kernel_info;

#define CH05_DECLARE(suffix)                                                                                     \
    void gpu_render##suffix(int flags, unsigned char *d_rgb, int *d_bad, int width, int height, int spp,         \
                            int block_x, int block_y);                                                           \
    void gpu_kernel_info##suffix(int flags, int block_x, int block_y, kernel_info *out);
CH05_DECLARE()
CH05_DECLARE(_fast)

/* The same code on the CPU for one picture pixel; returns 0 on NaN/Inf. */
int cpu_render_picture_pixel(int flags, int col, int row, int width, int height, int spp, unsigned char *out);

/* trace() calls the CPU has made so far (for the flop estimate). */
unsigned long long cpu_trace_calls(void);

#ifdef __cplusplus
}
#endif

#endif
