/* render_fast.cu - ch05's kernels (kernels.h) built with -use_fast_math: its three flags below, and fast library functions
 * (chapter.mk's CH05_FLAGS_fast). */
#include "kernels.h"

extern "C" void gpu_render_fast(int flags, int lanes, unsigned char *d_rgb, int *d_bad, int width, int height, int spp,
                                int block_x, int block_y, kernel_info *info)
{
    launch_render(flags, lanes, d_rgb, d_bad, width, height, spp, block_x, block_y, info);
}
