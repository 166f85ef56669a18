/* render.cu - ch05's kernels: ch04's loop kernel, templated on the stage's changes. */
#include "card.h"
#include "render.h"

#include "../../common/cuda_util.h"

/* This file is compiled once per set of floating-point flags (chapter.mk):
 * plainly, and with -DBUILD_SUFFIX=_fast (-use_fast_math), _ftz (-ftz=true),
 * _approx_div (-prec-div=false) or _approx_sqrt (-prec-sqrt=false), which
 * renames its C functions. */
#define PASTE_(a, b) a##b
#define PASTE(a, b) PASTE_(a, b)
#ifdef BUILD_SUFFIX
#define NAMED(name) PASTE(name, BUILD_SUFFIX)
#else
#define NAMED(name) name
#endif

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
static const void *kernel_for(int flags)
{
#define KERNEL_CASE(name, value) \
    case name: return (const void *)render_kernel<name>;
    switch (flags) { CH05_FLAG_SETS(KERNEL_CASE) }
#undef KERNEL_CASE
    fprintf(stderr, "%s:%d: no kernel for stage flags %d\n", __FILE__, __LINE__, flags);
    exit(EXIT_CHECK_FAIL);
}

static void describe_kernel(const void *k, int block_x, int block_y, kernel_info *out)
{
    cudaFuncAttributes a;
    int device, max_threads, blocks;
    CUDA_CHECK(cudaFuncGetAttributes(&a, k));
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerMultiProcessor, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k, block_x * block_y, 0));
    out->registers = a.numRegs;
    out->local_bytes = (int)a.localSizeBytes;
    out->blocks_per_sm = blocks;
    out->occupancy = (double)blocks * block_x * block_y / max_threads;
}

extern "C" {

void NAMED(gpu_render)(int flags, unsigned char *d_rgb, int *d_bad, int width, int height, int spp, int block_x,
                       int block_y, kernel_info *info)
{
    camera cam = make_camera(width, height);
    dim3 block(block_x, block_y), grid((width + block_x - 1) / block_x, (height + block_y - 1) / block_y);
    void *args[] = {&d_rgb, &d_bad, &cam, &spp};
    CUDA_CHECK(cudaLaunchKernel(kernel_for(flags), grid, block, args, 0, 0));
    if (info)
        describe_kernel(kernel_for(flags), block_x, block_y, info);
}

#ifndef BUILD_SUFFIX /* the CPU side once, in the plain build */
int cpu_render_picture_pixel(int flags, int col, int row, int width, int height, int spp, unsigned char *out)
{
    camera cam = make_camera(width, height);
#define CPU_CASE(name, value) \
    case name: return render_picture_pixel<name>(&cam, col, row, spp, out);
    switch (flags) { CH05_FLAG_SETS(CPU_CASE) }
#undef CPU_CASE
    fprintf(stderr, "%s:%d: no CPU render for stage flags %d\n", __FILE__, __LINE__, flags);
    exit(EXIT_CHECK_FAIL);
}

unsigned long long cpu_trace_calls(void)
{
    return host_trace_calls;
}

unsigned long long cpu_box_skips(void)
{
    return host_box_skips;
}

void cpu_primary_box_misses(int width, int height, int block_x, int block_y, double *ray_share, double *warp_share)
{
    camera cam = make_camera(width, height);
    long rays = 0, ray_misses = 0, warps = 0, warp_misses = 0;
    int per_block = block_x * block_y, blocks_x = (width + block_x - 1) / block_x;
    int blocks = blocks_x * ((height + block_y - 1) / block_y);
    for (int b = 0; b < blocks; b++)
        for (int w0 = 0; w0 < per_block; w0 += 32) { /* a warp: 32 consecutive threads of the block, x fastest */
            int lanes = 0, missed = 0;
            for (int t = w0; t < w0 + 32 && t < per_block; t++) {
                int col = (b % blocks_x) * block_x + t % block_x, row = (b / blocks_x) * block_y + t / block_x;
                if (col >= width || row >= height)
                    continue;
                /* the first sample's ray, drawn as render_pixel draws it */
                int x = width - 1 - col, y = height - 1 - row;
                uint32_t rng = pixel_seed(x, y, width);
                float lens_up = random_unit(&rng), lens_right = random_unit(&rng);
                vec offset = vec_add(vec_scale(vec_scale(cam.right, lens_right - .5f), cam.lens),
                                     vec_scale(vec_scale(cam.up, lens_up - .5f), cam.lens));
                float jitter_y = random_unit(&rng), jitter_x = random_unit(&rng);
                vec target = vec_scale(
                    vec_add(vec_add(vec_scale(cam.right, jitter_x + x), vec_scale(cam.up, y + jitter_y)), cam.corner), 16);
                vec dir = normalize<0>(vec_add(vec_scale(offset, -1), target));
                int miss = !meets_sphere_box(vec_add(vec_make(17, 16, 8), offset), dir);
                lanes++;
                missed += miss;
            }
            if (lanes == 0)
                continue;
            rays += lanes;
            ray_misses += missed;
            warps++;
            warp_misses += missed == lanes;
        }
    *ray_share = rays ? (double)ray_misses / rays : 0;
    *warp_share = warps ? (double)warp_misses / warps : 0;
}
#endif

} /* extern "C" */
