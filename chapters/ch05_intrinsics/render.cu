/* render.cu - ch05's kernels (kernels.h) built plainly, and the CPU side.
 * The same kernels built with other floating-point flags are in
 * render_fast.cu, render_ftz.cu, render_approx_div.cu and render_approx_sqrt.cu. */
#include "kernels.h"

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

extern "C" {

void gpu_render(int flags, int lanes, unsigned char *d_rgb, int *d_bad, int width, int height, int spp, int block_x,
                int block_y, kernel_info *info)
{
    launch_render(flags, lanes, d_rgb, d_bad, width, height, spp, block_x, block_y, info);
}

/* The CPU side, once: in this plain build. */
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
} /* extern "C" */
