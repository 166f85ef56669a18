/* kernels.h - ch05's kernels: ch04's loop kernel, templated on the stage's
 * changes, and their launcher. Included by one file per set of
 * floating-point flags (chapter.mk builds each with its own): render.cu
 * (plainly, and the CPU side), render_fast.cu (-use_fast_math),
 * render_ftz.cu (-ftz=true), render_approx_div.cu (-prec-div=false) and
 * render_approx_sqrt.cu (-prec-sqrt=false); each exports the launcher under
 * its build's name (render.h). */
#ifndef CH05_KERNELS_H
#define CH05_KERNELS_H

#include "card.h"
#include "render.h"

#include "../../common/cuda_util.h"

template <int F>
__global__ void render_kernel(unsigned char *rgb, int *bad, camera cam, int spp)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col >= cam.width || row >= cam.height)
        return;
    unsigned char *out = rgb + 3 * ((size_t)row * cam.width + col);
    if (!render_picture_pixel<F>(&cam, col, row, spp, out))
        atomicAdd(bad, 1);
}

/* One kernel per set of changes in render.h's list. */
/* lanes threads per pixel, side by side in a warp: thread x of the block is
 * lane x % lanes of pixel x / lanes. Every thread reaches the shuffles (a
 * thread past the picture's edge adds zeros), which add the lanes' sums in a
 * fixed order, the one add_lanes() follows on the CPU. */
template <int F>
__global__ void render_lanes_kernel(unsigned char *rgb, int *bad, camera cam, int spp, int lanes)
{
    int lane = threadIdx.x % lanes;
    int col = blockIdx.x * (blockDim.x / lanes) + threadIdx.x / lanes;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int inside = col < cam.width && row < cam.height;
    vec c = vec_make(0, 0, 0);
    if (inside)
        c = lane_samples<F>(&cam, cam.width - 1 - col, cam.height - 1 - row, spp, lane, lanes);
    for (int step = 1; step < lanes; step *= 2) {
        c.x += __shfl_xor_sync(0xffffffffu, c.x, step);
        c.y += __shfl_xor_sync(0xffffffffu, c.y, step);
        c.z += __shfl_xor_sync(0xffffffffu, c.z, step);
    }
    if (inside && lane == 0 && !store_colour(c, rgb + 3 * ((size_t)row * cam.width + col)))
        atomicAdd(bad, 1);
}

static const void *kernel_for(int flags, int lanes)
{
#define KERNEL_CASE(name, value) \
    case name: return lanes > 1 ? (const void *)render_lanes_kernel<name> : (const void *)render_kernel<name>;
    switch (flags) { CH05_FLAG_SETS(KERNEL_CASE) }
#undef KERNEL_CASE
    fprintf(stderr, "%s:%d: no kernel for stage flags %d\n", __FILE__, __LINE__, flags);
    exit(EXIT_CHECK_FAIL);
}

/* render.h's render_fn, for the build that includes this file. */
static void launch_render(int flags, int lanes, unsigned char *d_rgb, int *d_bad, int width, int height, int spp,
                          int block_x, int block_y, kernel_info *info)
{
    if (lanes < 1 || lanes > 32 || (lanes & (lanes - 1)) || (lanes > 1 && block_x * lanes % 32)) {
        fprintf(stderr, "%s:%d: %d lanes per pixel in blocks %d wide: lanes must be a power of 2 up to 32 and "
                "fill whole warps\n", __FILE__, __LINE__, lanes, block_x);
        exit(EXIT_CHECK_FAIL);
    }
    camera cam = make_camera(width, height);
    dim3 block(block_x * lanes, block_y), grid((width + block_x - 1) / block_x, (height + block_y - 1) / block_y);
    void *args[] = {&d_rgb, &d_bad, &cam, &spp, &lanes};
    CUDA_CHECK(cudaLaunchKernel(kernel_for(flags, lanes), grid, block, args, 0, 0));
    if (info)
        gpu_describe_kernel(kernel_for(flags, lanes), block_x * lanes * block_y, info);
}

#endif
