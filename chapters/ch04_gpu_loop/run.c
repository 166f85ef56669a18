/* run.c - see run.h. The checks: no NaN/Inf pixel; 256 pixels (positions
 * from a fixed seed) rendered again on the CPU by the same code within 35 dB
 * PSNR of the GPU's; ch01's image, when there is one at this size, within 38 dB. */
#include "run.h"

#include "../../common/cuda_util.h"

#include <math.h>
#include <stdio.h>

#define CPU_CHECK_PIXELS 256
#define CPU_PSNR_DB 35.0
#define ORIGINAL_PSNR_DB 38.0

void poison(void *context)
{
    run *r = context;
    CUDA_CHECK(cudaMemset(r->d_bad, 0, sizeof(int)));
    CUDA_CHECK(cudaMemset(r->d_rgb, 0xEE, image_bytes(&r->host)));
}

void render(void *context)
{
    run *r = context;
    r->fn(r->flags, r->d_rgb, r->d_bad, r->width, r->height, r->spp, r->bx, r->by, r->info);
    CUDA_CHECK_LAUNCH();
    r->info = NULL;
}

/* PSNR of the GPU image against the CPU on fixed-seed pixels (seed 0xC4EC4). */
static double cpu_spot_check(run *r, int flags, int *bad)
{
    unsigned long long x = 0xC4EC4;
    double sq = 0;
    int n = 0;
    for (int i = 0; i < CPU_CHECK_PIXELS; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        int col = (int)((x >> 33) % (unsigned long long)r->width);
        int row = (int)((x >> 13) % (unsigned long long)r->height);
        unsigned char cpu[3];
        *bad += !cpu_render_picture_pixel(flags, col, row, r->width, r->height, r->spp, cpu);
        const unsigned char *gpu = r->host.rgb + 3 * ((size_t)row * r->width + col);
        for (int c = 0; c < 3; c++, n++)
            sq += (double)(cpu[c] - gpu[c]) * (cpu[c] - gpu[c]);
    }
    return sq == 0 ? INFINITY : 10 * log10(255.0 * 255.0 * n / sq);
}

/* Copies the image back and runs every check; 1 if all pass. */
int check(void *context, char *note, size_t len)
{
    run *r = context;
    int bad = 0;
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(r->host.rgb, r->d_rgb, image_bytes(&r->host), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&bad, r->d_bad, sizeof bad, cudaMemcpyDeviceToHost));
    double cpu_db = cpu_spot_check(r, r->flags, &bad);
    int ok = bad == 0 && cpu_db >= CPU_PSNR_DB;
    size_t used = (size_t)snprintf(note, len, "vs CPU %.1f dB", cpu_db);
    if (r->have_original) {
        image_diff d;
        image_compare(&r->host, &r->original, &d);
        ok &= d.psnr >= ORIGINAL_PSNR_DB;
        used += (size_t)snprintf(note + used, len - used, ", vs ch01 %.1f dB", d.psnr);
    }
    if (bad)
        snprintf(note + used, len - used, ", %d NaN/Inf pixels", bad);
    return ok;
}
