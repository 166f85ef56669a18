/* render_approx_div.cu - ch05's kernels (kernels.h) built with -prec-div=false alone: approximate division
 * (chapter.mk's CH05_FLAGS_approx_div). */
#include "kernels.h"

extern "C" void gpu_render_approx_div(int flags, int lanes, unsigned char *d_rgb, int *d_bad, int width, int height, int spp,
                                      int block_x, int block_y, kernel_info *info)
{
    launch_render(flags, lanes, d_rgb, d_bad, width, height, spp, block_x, block_y, info);
}
