/* run.h - a ch10 GPU stage as common/measure.h sees it (run.c): its source
 * generated, compiled by NVRTC and loaded; the image poisoned, rendered, and
 * checked against the CPU's reference. */
#ifndef CH10_RUN_H
#define CH10_RUN_H

#include "kernels.h"
#include "stages.h"

#include "../../common/cli.h"
#include "../../common/cuda_util.h"
#include "../../common/image.h"
#include "../../common/report.h"

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
    /* how stages are measured (run_stage): the options, and the GPU's name */
    int device, repeat, threads, quiet;
    const char *gpu_name;
    /* the unsimplified strict kernel's image, which the strictly simplified one must equal */
    image unsimplified;
    int have_unsimplified;
    double ref_ms; /* the reference's render: its time, and its rays gone NaN */
    long ref_bad;
    const image *picture; /* the last stage's picture: ref or img */
} run;

/* The images (width x height; out of memory: exit 1), and once there is a
 * device, the GPU's side; run_end frees all of it. */
void run_begin(run *r, int gpu);
void run_end(run *r);

/* The reference first (rendered whether asked for or not: every other stage
 * is checked against it), then every stage asked for, in table
 * order (GPU stages only where gpu), each image written to --images when
 * asked, then the host's FMA ceiling row if a CPU stage was asked for. *last:
 * the picture of the last stage that ran. Returns 1 if every check passed
 * (the reference's included), 0 if not, -1 if an image could not be written
 * (the stages after it not run). */
int run_stages(report *rep, run *r, const cli_spec *spec, const cli_options *opt, int gpu, const image **last);

/* --print-source: a GPU stage's source, exactly as compiled with math
 * (-1: its own), after a comment line with the NVRTC options. */
void run_print_source(const stage *s, int math);

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
