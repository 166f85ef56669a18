/* run.c - see run.h. */
#include "run.h"

#include "../../common/cli.h"
#include "../../common/cuda_util.h"
#include "../../common/image.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef REFERENCE_DIR
#define REFERENCE_DIR "data/reference"
#endif
#define REFERENCE_IMAGE REFERENCE_DIR "/kensler_512x512x64.ppm"
#define CPU_CHECK_PIXELS 256
#define CPU_PSNR_DB 35.0
#define ORIGINAL_PSNR_DB 38.0
#define BLOCK 16

/* ---------------------------------------------------------------- ch05 */
static double psnr_vs_cpu(run *r, int flags, int *bad)
{
    unsigned long long x = 0xC4EC4;
    double sq = 0;
    int n = 0;
    for (int i = 0; i < CPU_CHECK_PIXELS; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        int col = (int)((x >> 33) % (unsigned long long)r->width), row = (int)((x >> 13) % (unsigned long long)r->height);
        unsigned char cpu[3];
        *bad += !cpu_render_picture_pixel(flags, 1, col, row, r->width, r->height, r->spp, cpu);
        const unsigned char *gpu = r->host.rgb + 3 * ((size_t)row * r->width + col);
        for (int c = 0; c < 3; c++, n++)
            sq += (double)(cpu[c] - gpu[c]) * (cpu[c] - gpu[c]);
    }
    return sq == 0 ? INFINITY : 10 * log10(255.0 * 255.0 * n / sq);
}

static int check_render(run *r, char *note, size_t len)
{
    const stage *s = r->s;
    int bad = 0;
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(r->host.rgb, r->d_rgb, image_bytes(&r->host), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&bad, r->d_bad, sizeof bad, cudaMemcpyDeviceToHost));
    double db = psnr_vs_cpu(r, s->flags, &bad);
    int ok = bad == 0 && db >= CPU_PSNR_DB;
    int used = snprintf(note, len, "vs CPU %.1f dB", db);
    if (r->have_original && used > 0 && (size_t)used < len) {
        image_diff d;
        image_compare(&r->host, &r->original, &d);
        ok &= d.psnr >= ORIGINAL_PSNR_DB;
        used += snprintf(note + used, len - (size_t)used, ", vs ch01 %.1f dB", d.psnr);
    }
    if (bad && used > 0 && (size_t)used < len)
        snprintf(note + used, len - (size_t)used, ", %d NaN/Inf pixels", bad);
    return ok;
}

/* ---------------------------------------------------------------- ch06 */
static int check_reduce(run *r, char *note, size_t len)
{
    long long got = 0;
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(&got, r->d_sum, sizeof got, cudaMemcpyDeviceToHost));
    snprintf(note, len, "sum %lld, %s", got, got == r->exact ? "exact" : "WRONG");
    return got == r->exact;
}

/* ---------------------------------------------------------------- ch07 */
static int check_nbody(run *r, char *note, size_t len)
{
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(r->a, r->d_a, (size_t)r->bodies * sizeof(vec3), cudaMemcpyDeviceToHost));
    double err = force_error(&r->ref, r->a), bound = error_bound(r->bodies);
    snprintf(note, len, "error %.2g (bound %.2g)", err, bound);
    return err <= bound;
}

void run_prepare(run *r, const int parts_wanted[PART_COUNT])
{
    if (parts_wanted[PART_CH05]) {
        char err[IMAGE_ERROR_SIZE];
        if (image_alloc(&r->host, r->width, r->height) != 0) {
            fprintf(stderr, "ch09: out of memory (%dx%d image)\n", r->width, r->height);
            exit(EXIT_CHECK_FAIL);
        }
        r->have_original = r->width == 512 && r->height == 512 && r->spp == 64 &&
                           image_read_ppm(&r->original, REFERENCE_IMAGE, err, sizeof err) == 0;
        CUDA_CHECK(cudaMalloc((void **)&r->d_rgb, image_bytes(&r->host)));
        CUDA_CHECK(cudaMalloc((void **)&r->d_bad, sizeof(int)));
    }
    if (parts_wanted[PART_CH06]) {
        int *in = cli_alloc((size_t)r->n * sizeof(int), "the input");
        r->exact = reduce_fill(in, (size_t)r->n);
        CUDA_CHECK(cudaMalloc((void **)&r->d_in, (size_t)r->n * sizeof(int)));
        CUDA_CHECK(cudaMemcpy(r->d_in, in, (size_t)r->n * sizeof(int), cudaMemcpyHostToDevice));
        free(in);
        CUDA_CHECK(cudaMalloc((void **)&r->d_sum, sizeof(long long)));
        r->ctx.scratch_bytes = reduce_scratch_bytes((size_t)r->n);
        CUDA_CHECK(cudaMalloc(&r->ctx.scratch, r->ctx.scratch_bytes));
    }
    if (parts_wanted[PART_CH07]) {
        r->b = cli_alloc((size_t)r->bodies * sizeof(body), "the bodies");
        r->a = cli_alloc((size_t)r->bodies * sizeof(vec3), "the forces");
        vec3 *v = cli_alloc((size_t)r->bodies * sizeof(vec3), "the velocities");
        nbody_init(r->b, v, r->bodies);
        free(v);
        make_reference(&r->ref, r->b, r->bodies);
        CUDA_CHECK(cudaMalloc((void **)&r->d_b, (size_t)r->bodies * sizeof(body)));
        CUDA_CHECK(cudaMalloc((void **)&r->d_a, (size_t)r->bodies * sizeof(vec3)));
        CUDA_CHECK(cudaMemcpy(r->d_b, r->b, (size_t)r->bodies * sizeof(body), cudaMemcpyHostToDevice));
    }
}

void run_release(run *r)
{
    CUDA_CHECK(cudaFree(r->d_rgb));
    CUDA_CHECK(cudaFree(r->d_bad));
    CUDA_CHECK(cudaFree(r->d_in));
    CUDA_CHECK(cudaFree(r->d_sum));
    CUDA_CHECK(cudaFree(r->ctx.scratch));
    CUDA_CHECK(cudaFree(r->d_b));
    CUDA_CHECK(cudaFree(r->d_a));
    image_free(&r->host);
    image_free(&r->original);
    free(r->b);
    free(r->a);
}

/* ---------------------------------------------------------------- the stage */
void poison(void *context)
{
    run *r = context;
    if (r->s->part == PART_CH05) {
        CUDA_CHECK(cudaMemset(r->d_bad, 0, sizeof(int)));
        CUDA_CHECK(cudaMemset(r->d_rgb, 0xEE, image_bytes(&r->host)));
    } else if (r->s->part == PART_CH06) {
        CUDA_CHECK(cudaMemset(r->d_sum, 0xA5, sizeof(long long)));
    } else {
        CUDA_CHECK(cudaMemset(r->d_a, 0xFF, (size_t)r->bodies * sizeof(vec3))); /* NaN */
    }
}

void launch(void *context)
{
    run *r = context;
    const stage *s = r->s;
    if (s->part == PART_CH05)
        s->render(s->flags, 1, r->d_rgb, r->d_bad, r->width, r->height, r->spp, BLOCK, BLOCK, NULL);
    else if (s->part == PART_CH06)
        s->reduce(r->d_in, (size_t)r->n, r->d_sum, &r->ctx);
    else
        s->forces(r->d_b, r->d_a, r->bodies, 0);
    CUDA_CHECK_LAUNCH();
}

int check(void *context, char *note, size_t len)
{
    run *r = context;
    return r->s->part == PART_CH05 ? check_render(r, note, len)
           : r->s->part == PART_CH06 ? check_reduce(r, note, len)
                                     : check_nbody(r, note, len);
}
