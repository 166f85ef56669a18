/* run.h - a ch10 GPU stage as common/measure.h sees it (run.c): its source
 * generated, compiled by NVRTC and loaded; the image poisoned, rendered, and
 * checked against the CPU's reference. */
#ifndef CH10_RUN_H
#define CH10_RUN_H

#include "kernels.h"
#include "stages.h"

#include "../../common/cuda_util.h"
#include "../../common/image.h"

#include <stddef.h>

typedef struct {
    int width, height;
    image ref, img;
    unsigned char *d_rgb;
    int *d_bad;
    cudaKernel_t kernel;
    cudaLibrary_t library;
    double psnr; /* the last checked image's PSNR against the CPU's, dB */
    int math; /* --math: every GPU stage's arithmetic (kernels.h's MATH_*), or -1: each stage's own */
} run;

/* The arithmetic stage s is compiled with in this run. */
static inline int stage_math(const run *r, const stage *s) { return r->math >= 0 ? r->math : s->math; }

/* The stage's whole source (malloc'ed) and the operations in its step. */
char *source_of(const stage *s, int *ops);

/* Compiles s for the device (NVRTC) and loads its kernel into r; exits with
 * NVRTC's message if it does not compile. Returns what NVRTC reported. */
compiled run_load_stage(run *r, const stage *s, int device, int *ops);
void run_unload_stage(run *r);

void poison(void *run);
void launch(void *run);
int check(void *run, char *note, size_t len); /* no NaN, within MIN_PSNR_DB of the CPU's image */

/* r->img's check, wherever it was rendered: no NaN ray (bad: how many went
 * NaN), PSNR >= MIN_PSNR_DB against r->ref; what it found in note. */
int check_image(run *r, long bad, char *note, size_t len);

#endif
