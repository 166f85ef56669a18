/* render_approx_sqrt.cu - ch05's kernels (kernels.h) built with -prec-sqrt=false alone: approximate square root
 * (chapter.mk's CH05_FLAGS_approx_sqrt). */
#include "kernels.h"

extern "C" void gpu_render_approx_sqrt(int flags, int lanes, unsigned char *d_rgb, int *d_bad, int width, int height, int spp,
                                       int block_x, int block_y, kernel_info *info)
{
    launch_render(flags, lanes, d_rgb, d_bad, width, height, spp, block_x, block_y, info);
}
