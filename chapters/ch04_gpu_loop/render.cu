/* render.cu - ch04's kernels: one thread per pixel, 2-D blocks. */
#include "card.h"
#include "render.h"

#include "../../common/cuda_util.h"

/* Deep enough for the card's longest chain of mirror bounces with room to
 * spare; every resident thread reserves this much local memory. */
#define STACK_BYTES 8192

template <int RECURSIVE>
__global__ void render_kernel(unsigned char *rgb, int *bad, camera cam, int spp)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col >= cam.width || row >= cam.height)
        return;
    unsigned char *out = rgb + 3 * ((size_t)row * cam.width + col);
    if (!render_picture_pixel(&cam, col, row, spp, RECURSIVE, out))
        atomicAdd(bad, 1);
}

static const void *kernel_for(int recursive)
{
    return recursive ? (const void *)render_kernel<1> : (const void *)render_kernel<0>;
}

extern "C" {

int gpu_prepare_stack(void)
{
    CUDA_CHECK(cudaDeviceSetLimit(cudaLimitStackSize, STACK_BYTES));
    return STACK_BYTES;
}

void gpu_kernel_info(int recursive, int block_x, int block_y, kernel_info *out)
{
    cudaFuncAttributes a;
    int device, max_threads, blocks;
    const void *k = kernel_for(recursive);
    CUDA_CHECK(cudaFuncGetAttributes(&a, k));
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerMultiProcessor, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k, block_x * block_y, 0));
    out->registers = a.numRegs;
    out->local_bytes = (int)a.localSizeBytes;
    out->blocks_per_sm = blocks;
    out->occupancy = (double)blocks * block_x * block_y / max_threads;
}

void gpu_render(int recursive, unsigned char *d_rgb, int *d_bad, int width, int height, int spp, int block_x,
                int block_y)
{
    camera cam = make_camera(width, height);
    dim3 block(block_x, block_y), grid((width + block_x - 1) / block_x, (height + block_y - 1) / block_y);
    if (recursive)
        render_kernel<1><<<grid, block>>>(d_rgb, d_bad, cam, spp);
    else
        render_kernel<0><<<grid, block>>>(d_rgb, d_bad, cam, spp);
    CUDA_CHECK_LAUNCH();
}

int cpu_render_picture_pixel(int recursive, int col, int row, int width, int height, int spp, unsigned char *out)
{
    camera cam = make_camera(width, height);
    return render_picture_pixel(&cam, col, row, spp, recursive, out);
}

} /* extern "C" */
