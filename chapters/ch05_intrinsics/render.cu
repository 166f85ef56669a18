/* render.cu - ch05's kernels: ch04's loop kernel, templated on the stage's changes. */
#include "card.h"
#include "render.h"

#include "../../common/cuda_util.h"

/* This file is compiled once per set of floating-point flags (chapter.mk):
 * plainly, and as a flags build (FLAGS_BUILD) with -DBUILD_fast
 * (-use_fast_math), -DBUILD_ftz (-ftz=true), -DBUILD_approx_div
 * (-prec-div=false) or -DBUILD_approx_sqrt (-prec-sqrt=false), each of which
 * exports its launcher under its own name (below); the CPU side is in the
 * plain build only. */

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

#ifndef FLAGS_BUILD
/* The CPU's pixel with `lanes` lanes (1, 2, 4 ... 32). */
template <int F>
static int cpu_lanes_pixel(const camera *cam, int lanes, int col, int row, int spp, unsigned char *out)
{
    if (lanes == 1)
        return render_picture_pixel<F>(cam, col, row, spp, out);
    vec part[32];
    for (int l = 0; l < lanes; l++)
        part[l] = lane_samples<F>(cam, cam->width - 1 - col, cam->height - 1 - row, spp, l, lanes);
    return store_colour(add_lanes(part, lanes), out);
}

#endif

extern "C" {

#if defined(BUILD_fast)
void gpu_render_fast(int flags, int lanes, unsigned char *d_rgb, int *d_bad, int width, int height, int spp,
                     int block_x, int block_y, kernel_info *info)
#elif defined(BUILD_ftz)
void gpu_render_ftz(int flags, int lanes, unsigned char *d_rgb, int *d_bad, int width, int height, int spp,
                    int block_x, int block_y, kernel_info *info)
#elif defined(BUILD_approx_div)
void gpu_render_approx_div(int flags, int lanes, unsigned char *d_rgb, int *d_bad, int width, int height, int spp,
                           int block_x, int block_y, kernel_info *info)
#elif defined(BUILD_approx_sqrt)
void gpu_render_approx_sqrt(int flags, int lanes, unsigned char *d_rgb, int *d_bad, int width, int height, int spp,
                            int block_x, int block_y, kernel_info *info)
#else
void gpu_render(int flags, int lanes, unsigned char *d_rgb, int *d_bad, int width, int height, int spp, int block_x,
                int block_y, kernel_info *info)
#endif
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
        describe_kernel(kernel_for(flags, lanes), block_x * lanes, block_y, info);
}

#ifndef FLAGS_BUILD /* the CPU side once, in the plain build */
int cpu_render_picture_pixel(int flags, int lanes, int col, int row, int width, int height, int spp,
                             unsigned char *out)
{
    camera cam = make_camera(width, height);
#define CPU_CASE(name, value) \
    case name: return cpu_lanes_pixel<name>(&cam, lanes, col, row, spp, out);
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

unsigned long long cpu_sphere_tests(void)
{
    return host_sphere_tests;
}

void cpu_primary_box_misses(int width, int height, int block_x, int block_y, int lanes, double *ray_share,
                            double *warp_share)
{
    int warp_pixels = 32 / lanes; /* a warp's 32 threads: 32 / lanes consecutive pixels of the block, x fastest */
    camera cam = make_camera(width, height);
    long rays = 0, ray_misses = 0, warps = 0, warp_misses = 0;
    int per_block = block_x * block_y, blocks_x = (width + block_x - 1) / block_x;
    int blocks = blocks_x * ((height + block_y - 1) / block_y);
    for (int b = 0; b < blocks; b++)
        for (int w0 = 0; w0 < per_block; w0 += warp_pixels) {
            int pixels = 0, missed = 0;
            for (int t = w0; t < w0 + warp_pixels && t < per_block; t++) {
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
                pixels++;
                missed += miss;
            }
            if (pixels == 0)
                continue;
            rays += pixels;
            ray_misses += missed;
            warps++;
            warp_misses += missed == pixels;
        }
    *ray_share = rays ? (double)ray_misses / rays : 0;
    *warp_share = warps ? (double)warp_misses / warps : 0;
}
#endif

} /* extern "C" */
