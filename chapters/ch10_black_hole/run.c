/* run.c - see run.h. */
#include "run.h"
#include "gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_PSNR_DB 30.0
#define BLOCK 16

/* The stage's whole source (malloc'ed) and the operations in its step. */
char *source_of(const stage *s, int *ops)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (!f) {
        fprintf(stderr, "ch10: out of memory (a kernel's source)\n");
        exit(EXIT_CHECK_FAIL);
    }
    *ops = gen_source(s->kind == HAND || s->kind == HAND_DOUBLE, s->kind == HAND_DOUBLE, s->rules, f);
    if (fclose(f) != 0) {
        fprintf(stderr, "ch10: out of memory (a kernel's source)\n");
        exit(EXIT_CHECK_FAIL);
    }
    return text;
}

static int device_arch(int device)
{
    int major = 0, minor = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
    return major * 10 + minor;
}

compiled run_load_stage(run *r, const stage *s, int device, int *ops)
{
    char *source = source_of(s, ops);
    compiled c;
    static char err[1 << 16];
    if (kernel_compile(source, s->info.name, stage_math(r, s), device_arch(device), 0, &c, err, sizeof err) != 0) {
        fprintf(stderr, "ch10: %s\n", err);
        exit(EXIT_CHECK_FAIL);
    }
    free(source);
    CUDA_CHECK(cudaLibraryLoadData(&r->library, c.image, NULL, NULL, 0, NULL, NULL, 0));
    CUDA_CHECK(cudaLibraryGetKernel(&r->kernel, r->library, "render"));
    return c;
}

void run_unload_stage(run *r)
{
    CUDA_CHECK(cudaLibraryUnload(r->library));
}

void poison(void *context)
{
    run *r = context;
    CUDA_CHECK(cudaMemset(r->d_bad, 0, sizeof(int)));
    CUDA_CHECK(cudaMemset(r->d_rgb, 0xEE, image_bytes(&r->img)));
}

void launch(void *p)
{
    run *r = p;
    dim3 block = {BLOCK, BLOCK, 1}, grid = {(unsigned)(r->width + BLOCK - 1) / BLOCK, (unsigned)(r->height + BLOCK - 1) / BLOCK, 1};
    void *args[] = {&r->d_rgb, &r->d_bad, &r->width, &r->height};
    CUDA_CHECK(cudaLaunchKernel((const void *)r->kernel, grid, block, args, 0, 0));
}

int check(void *context, char *note, size_t len)
{
    run *r = context;
    int bad = 0;
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(r->img.rgb, r->d_rgb, image_bytes(&r->img), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&bad, r->d_bad, sizeof bad, cudaMemcpyDeviceToHost));
    return check_image(r, bad, note, len);
}

int check_image(run *r, long bad, char *note, size_t len)
{
    image_diff d;
    image_compare(&r->img, &r->ref, &d);
    snprintf(note, len, "vs CPU %.1f dB%s", d.psnr, bad ? ", NaN rays" : "");
    r->psnr = d.psnr;
    return bad == 0 && d.psnr >= MIN_PSNR_DB;
}
