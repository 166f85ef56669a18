/* render.cu - ch08's kernels: one thread per pixel, 2-D blocks, the scene in
 * constant memory. path.h is compiled twice, in double (namespace f64) and in
 * float (namespace f32); each kernel is one of render.h's KERNEL_*. */
#include "render.h"

#include "../../common/cuda_util.h"

#include <math.h>

namespace f64 {
typedef double real;
#define R(x) (x)
#include "path.h"
#undef R
} // namespace f64

namespace f32 {
typedef float real;
#define R(x) ((float)(x))
#include "path.h"
#undef R
} // namespace f32

/* Room for the recursion: each level's frame is a few hundred bytes, and
 * PT_MAX_DEPTH caps the depth; every resident thread reserves this much local
 * memory, which is the cost the loop removes. */
#define STACK_BYTES 16384

__constant__ f64::world world64;
__constant__ f32::world world32;

template <int K>
__device__ int render_one(int col, int row, int spp, unsigned int seed, unsigned char *out, float *lin)
{
    switch (K) {
    case KERNEL_RECURSIVE_F64: return f64::render_pixel(&world64, PT_RECURSIVE_SPLIT, col, row, spp, seed, out, lin);
    case KERNEL_LOOP_F64: return f64::render_pixel(&world64, PT_LOOP, col, row, spp, seed, out, lin);
    case KERNEL_REGENERATE_F64:
    case KERNEL_CAPPED_F64:
    case KERNEL_CAP56_F64:
    case KERNEL_CAP80_F64: return f64::render_pixel_regenerating(&world64, 0, col, row, spp, seed, out, lin);
    case KERNEL_REGENERATE_F32: return f32::render_pixel_regenerating(&world32, 0, col, row, spp, seed, out, lin);
    default: return f32::render_pixel_regenerating(&world32, 1, col, row, spp, seed, out, lin);
    }
}

/* K below LINEAR_KERNELS: kernel K as the stages time it; K + LINEAR_KERNELS:
 * the same kernel also writing each pixel's unclamped mean radiance
 * (--linear-out, --linear-reference). Two instantiations, so the pointer and
 * its stores cost the timed kernels nothing (under the 64-register cap even
 * one more live pointer means spills). */
#define LINEAR_KERNELS 16
template <int K>
__device__ void render_thread(unsigned char *rgb, float *linear, int *bad, int width, int height, int spp,
                              unsigned int seed)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col >= width || row >= height)
        return;
    size_t at = 3 * ((size_t)row * width + col);
    float *lin = K >= LINEAR_KERNELS ? linear + at : NULL;
    if (!render_one<K % LINEAR_KERNELS>(col, row, spp, seed, rgb + at, lin))
        atomicAdd(bad, 1);
}

template <int K>
__global__ void render_kernel(unsigned char *rgb, float *linear, int *bad, int width, int height, int spp,
                              unsigned int seed)
{
    render_thread<K>(rgb, linear, bad, width, height, spp, seed);
}

/* The same, with blocks of up to 512 threads of which two must fit on an SM:
 * 65536 registers / 1024 threads = at most 64 registers a thread. The double
 * loop wants 106, so only a quarter of the SM's warps fit; capped, it gets
 * half, and the compiler keeps what does not fit in local memory (spills). */
#define CAPPED_THREADS 512
#define CAPPED_BLOCKS 2
template <int K>
__global__ void __launch_bounds__(CAPPED_THREADS, CAPPED_BLOCKS)
    render_kernel_capped(unsigned char *rgb, float *linear, int *bad, int width, int height, int spp, unsigned int seed)
{
    render_thread<K>(rgb, linear, bad, width, height, spp, seed);
}

/* gpu-registers-56 and gpu-registers-80: the cap moved either way from 64.
 * __maxnreg__ caps the registers alone, promising no block size: 56 leave
 * room for more warps and spill more; 80 spill less and fit fewer warps
 * (65536 registers an SM / 80 = 819 threads: 12 blocks of 8 x 8). clang
 * knows no such attribute and ignores it (here only, and said: its rows'
 * notes give the registers its uncapped kernels use). */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wunknown-attributes"
#endif
template <int K, int REGS>
__global__ void __maxnreg__(REGS)
    render_kernel_regs(unsigned char *rgb, float *linear, int *bad, int width, int height, int spp, unsigned int seed)
{
    render_thread<K>(rgb, linear, bad, width, height, spp, seed);
}
#if defined(__clang__)
#pragma clang diagnostic pop
#endif

/* The kernels by render.h's KERNEL_*, plain and (+ LINEAR_KERNELS) with linear output. */
#define KERNEL_SET(L)                                                                                                 \
    (const void *)render_kernel<KERNEL_RECURSIVE_F64 + (L)>, (const void *)render_kernel<KERNEL_LOOP_F64 + (L)>,     \
        (const void *)render_kernel<KERNEL_REGENERATE_F64 + (L)>,                                                     \
        (const void *)render_kernel_capped<KERNEL_CAPPED_F64 + (L)>,                                                  \
        (const void *)render_kernel_capped<KERNEL_REGENERATE_F32 + (L)>,                                              \
        (const void *)render_kernel_capped<KERNEL_LIGHT_F32 + (L)>,                                                   \
        (const void *)render_kernel_regs<KERNEL_CAP56_F64 + (L), 56>,                                                 \
        (const void *)render_kernel_regs<KERNEL_CAP80_F64 + (L), 80>
static const void *kernel_for(int k, int linear)
{
    static const void *const kernels[2][KERNEL_COUNT] = {{KERNEL_SET(0)}, {KERNEL_SET(LINEAR_KERNELS)}};
    return kernels[linear != 0][k];
}

extern "C" {

int gpu_prepare_stack(void)
{
    CUDA_CHECK(cudaDeviceSetLimit(cudaLimitStackSize, STACK_BYTES));
    return STACK_BYTES;
}

void gpu_set_scene(const scene *sc, int width, int height)
{
    f64::world w64 = f64::make_world(sc, width, height, EPS_F64, OFFSET_F64);
    f32::world w32 = f32::make_world(sc, width, height, EPS_F32, OFFSET_F32);
    CUDA_CHECK(cudaMemcpyToSymbol(world64, &w64, sizeof w64));
    CUDA_CHECK(cudaMemcpyToSymbol(world32, &w32, sizeof w32));
}

void gpu_render(int kernel, unsigned char *d_rgb, float *d_linear, int *d_bad, int width, int height, int spp,
                unsigned int seed, int block_x, int block_y, kernel_info *info)
{
    dim3 block(block_x, block_y), grid((width + block_x - 1) / block_x, (height + block_y - 1) / block_y);
    void *args[] = {&d_rgb, &d_linear, &d_bad, &width, &height, &spp, &seed};
    const void *k = kernel_for(kernel, d_linear != NULL);
    CUDA_CHECK(cudaLaunchKernel(k, grid, block, args, 0, 0));
    if (info)
        gpu_describe_kernel(k, block_x * block_y, info);
}

} /* extern "C" */
