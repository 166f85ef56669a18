/* render.cu - ch04's kernels: one thread per pixel, 2-D blocks. */
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
    if (!render_picture_pixel(&cam, col, row, spp, F == SAMPLER_RECURSIVE, out))
        atomicAdd(bad, 1);
}

static const void *kernel_for(int flags)
{
    return flags == SAMPLER_RECURSIVE ? (const void *)render_kernel<SAMPLER_RECURSIVE>
                                      : (const void *)render_kernel<SAMPLER_LOOP>;
}

extern "C" {

int gpu_prepare_stack(int bytes)
{
    CUDA_CHECK(cudaDeviceSetLimit(cudaLimitStackSize, (size_t)bytes));
    return bytes;
}

void gpu_render(int flags, unsigned char *d_rgb, int *d_bad, int width, int height, int spp, int block_x, int block_y,
                kernel_info *info)
{
    camera cam = make_camera(width, height);
    dim3 block(block_x, block_y), grid((width + block_x - 1) / block_x, (height + block_y - 1) / block_y);
    void *args[] = {&d_rgb, &d_bad, &cam, &spp};
    CUDA_CHECK(cudaLaunchKernel(kernel_for(flags), grid, block, args, 0, 0));
    if (info)
        gpu_describe_kernel(kernel_for(flags), block_x * block_y, info);
}

int cpu_render_picture_pixel(int flags, int col, int row, int width, int height, int spp, unsigned char *out)
{
    camera cam = make_camera(width, height);
    return render_picture_pixel(&cam, col, row, spp, flags == SAMPLER_RECURSIVE, out);
}

} /* extern "C" */
