/* gpu_picture.h - a GPU raytracer chapter's picture and its check (ch04,
 * ch05): the image on the device with a count of its NaN/Inf pixels,
 * poisoned before every run, then fetched and checked against
 *   - the CPU running the same code on GPU_PICTURE_SPOT_PIXELS pixels whose
 *     positions come from a fixed seed (0xC4EC4): PSNR >= GPU_PICTURE_CPU_DB;
 *   - at the standard workload, the original program's image (ch01's):
 *     PSNR >= GPU_PICTURE_ORIGINAL_DB;
 *   - no NaN/Inf pixel, counted on the device and on the CPU.
 * Header only, like cuda_util.h and raytracer.h (CUDA runtime calls from C). */
#ifndef COMMON_GPU_PICTURE_H
#define COMMON_GPU_PICTURE_H

#include "cuda_util.h"
#include "raytracer.h"

#include <math.h>
#include <stdio.h>

#define GPU_PICTURE_SPOT_PIXELS 256
#define GPU_PICTURE_CPU_DB 35.0
#define GPU_PICTURE_ORIGINAL_DB 38.0

typedef struct {
    image host, original;
    int have_original; /* the standard workload: the original's image was read */
    unsigned char *d_rgb;
    int *d_bad; /* NaN/Inf pixels the kernel met */
} gpu_picture;

/* The CPU's render of one pixel (col, row) into rgb; 0 if it met a NaN/Inf. */
typedef int gpu_picture_pixel_fn(void *context, int col, int row, unsigned char rgb[3]);

/* After the device opened: the host image, the original's (at the standard workload), the device buffers. */
static inline void gpu_picture_begin(gpu_picture *p, const char *program, const cli_options *opt)
{
    raytracer_image_alloc(&p->host, program, opt);
    p->have_original = raytracer_read_original(&p->original, opt);
    CUDA_CHECK(cudaMalloc((void **)&p->d_rgb, image_bytes(&p->host)));
    CUDA_CHECK(cudaMalloc((void **)&p->d_bad, sizeof(int)));
}

/* Before every run: a stage that writes nothing leaves 0xEE bytes, which fail the check. */
static inline void gpu_picture_poison(gpu_picture *p)
{
    CUDA_CHECK(cudaMemset(p->d_bad, 0, sizeof(int)));
    CUDA_CHECK(cudaMemset(p->d_rgb, 0xEE, image_bytes(&p->host)));
}

/* PSNR of the fetched image against the CPU's render of the spot pixels; their NaN/Inf count added to *bad. */
static inline double gpu_picture_spot_psnr(const gpu_picture *p, gpu_picture_pixel_fn *cpu, void *context, int *bad)
{
    unsigned long long x = 0xC4EC4;
    double sq = 0;
    int n = 0, w = p->host.width, h = p->host.height;
    for (int i = 0; i < GPU_PICTURE_SPOT_PIXELS; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        int col = (int)((x >> 33) % (unsigned long long)w);
        int row = (int)((x >> 13) % (unsigned long long)h);
        unsigned char rgb[3];
        *bad += !cpu(context, col, row, rgb);
        const unsigned char *gpu = p->host.rgb + 3 * ((size_t)row * w + col);
        for (int c = 0; c < 3; c++, n++)
            sq += (double)(rgb[c] - gpu[c]) * (rgb[c] - gpu[c]);
    }
    return sq == 0 ? INFINITY : 10 * log10(255.0 * 255.0 * n / sq);
}

/* After a run: the image copied back and every check made; the note says what each found. 1 if all pass. */
static inline int gpu_picture_check(gpu_picture *p, gpu_picture_pixel_fn *cpu, void *context, char *note, size_t len)
{
    int bad = 0;
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(p->host.rgb, p->d_rgb, image_bytes(&p->host), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&bad, p->d_bad, sizeof bad, cudaMemcpyDeviceToHost));
    double cpu_db = gpu_picture_spot_psnr(p, cpu, context, &bad);
    int ok = bad == 0 && cpu_db >= GPU_PICTURE_CPU_DB;
    size_t used = (size_t)snprintf(note, len, "vs CPU %.1f dB", cpu_db);
    if (p->have_original) {
        image_diff d;
        image_compare(&p->host, &p->original, &d);
        ok &= d.psnr >= GPU_PICTURE_ORIGINAL_DB;
        used += (size_t)snprintf(note + used, len - used, ", vs ch01 %.1f dB", d.psnr);
    }
    if (bad)
        snprintf(note + used, len - used, ", %d NaN/Inf pixels", bad);
    return ok;
}

static inline void gpu_picture_end(gpu_picture *p)
{
    CUDA_CHECK(cudaFree(p->d_rgb));
    CUDA_CHECK(cudaFree(p->d_bad));
    image_free(&p->host);
    image_free(&p->original);
}

#endif
