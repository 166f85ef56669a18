/* render.h - ch08's renders, callable from C: the CPU stage (cpu.c) and the
 * GPU kernels (render.cu). Every render writes smallpt's image: width x
 * height, spp samples per pixel (spp / 4 in each of 2x2 subpixels), bytes
 * after gamma 2.2; `seed` picks independent random streams. */
#ifndef CH08_RENDER_H
#define CH08_RENDER_H

#include "../../common/gpu/kernel_info.h"

#include "scene.h"

#include "../../common/image.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a GPU stage runs: precision, radiance function, loop shape. */
enum {
    KERNEL_RECURSIVE_F64 = 0, /* smallpt as written, recursion splitting at glass */
    KERNEL_LOOP_F64,          /* a loop: no stack */
    KERNEL_REGENERATE_F64,    /* one loop over samples and bounces: no idle lanes between samples */
    KERNEL_CAPPED_F64,        /* the same, at most 64 registers a thread */
    KERNEL_REGENERATE_F32,    /* the same in float */
    KERNEL_LIGHT_F32,         /* and a shadow ray to the light at every diffuse surface */
    KERNEL_CAP56_F64,         /* KERNEL_CAPPED_F64's code at most 56 registers a thread */
    KERNEL_CAP80_F64,         /* and at most 80 */
    KERNEL_COUNT
};
/* A stage on the CPU (no kernel): smallpt's recursion, or gpu-loop's loop with
 * roulette at glass (the GPU's best estimator, for a like-for-like ratio). */
enum { ON_CPU = -1, ON_CPU_LOOP = -2 };
static inline int on_cpu(int kernel) { return kernel < 0; }


/* Smallest hit distance and how far off a surface a new ray starts: smallpt's
 * values in double; float needs more (path.h's make_world says why). */
#define EPS_F64 1e-4
#define OFFSET_F64 0.0
#define EPS_F32 1e-3f
#define OFFSET_F32 5e-2f

/* The noise test (problem.c explains it): an image A of a stage passes against
 * the converged reference if MSE(A, ref) <= noise_bound(MSE(A, B), n_ref),
 * B the same stage with other random streams, n_ref the reference's noise. */
#define NOISE_FACTOR 1.25
#define NOISE_SLACK 2.0
static inline double noise_bound(double mse_a_b, double reference_noise)
{
    return NOISE_FACTOR * mse_a_b / 2 + reference_noise + NOISE_SLACK;
}

/* ---------------------------------------------------------------- CPU (cpu.c, cpu_f32.c) */
/* Renders with `threads` POSIX threads taking rows on demand, in double:
 * smallpt's recursive radiance (ON_CPU) or the loop (ON_CPU_LOOP). Progress on
 * stderr unless quiet. Returns the number of pixels with a NaN or infinite
 * sample. */
long cpu_render(int kernel, const scene *sc, image *img, int spp, unsigned int seed, int threads, const char *label,
                int quiet);

/* One pixel as GPU kernel `kernel` computes it, by the same functions
 * (path.h) compiled for the CPU; KERNEL_RECURSIVE_F64 is cpu_render's own
 * pixel. 0 if a sample was NaN or infinite. */
int cpu_kernel_pixel(int kernel, const scene *sc, int col, int row, int width, int height, int spp,
                     unsigned int seed, unsigned char *out);
int cpu_kernel_pixel_f32(int kernel, const scene *sc, int col, int row, int width, int height, int spp,
                         unsigned int seed, unsigned char *out);

/* The linear radiance of a pixel's samples as kernel `kernel` estimates it
 * (unclamped, before gamma): sum[c] and sum2[c] gain the sum of the spp
 * samples and of their squares, for means and standard errors over regions. */
typedef struct {
    double sum[3], sum2[3];
    long samples;
} radiance_sums;
void cpu_kernel_radiance(int kernel, const scene *sc, int col, int row, int width, int height, int spp,
                         unsigned int seed, radiance_sums *acc);
void cpu_kernel_radiance_f32(int kernel, const scene *sc, int col, int row, int width, int height, int spp,
                             unsigned int seed, radiance_sums *acc);

/* ---------------------------------------------------------------- GPU (render.cu) */
/* kernel_info: registers, local frame and occupancy (common/gpu/kernel_info.h) */

/* Copies the scene to constant memory (both precisions) for width x height. */
void gpu_set_scene(const scene *sc, int width, int height);

/* Launches kernel `kernel` into d_rgb (device, width*height*3 bytes) and adds
 * the number of bad pixels to *d_bad (device). Asynchronous. d_linear: NULL,
 * or width*height*3 floats (device) for each pixel's unclamped mean radiance.
 * info, if not NULL, is filled for this kernel at this block shape. */
void gpu_render(int kernel, unsigned char *d_rgb, float *d_linear, int *d_bad, int width, int height, int spp,
                unsigned int seed, int block_x, int block_y, kernel_info *info);

/* The recursive kernel's stack per thread (cudaLimitStackSize), set once. */
int gpu_prepare_stack(void);

#ifdef __cplusplus
}
#endif

#endif
