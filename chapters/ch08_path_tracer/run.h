/* run.h - one stage's renders as common/measure.h sees them (run.c).
 *
 * Each stage renders twice, with seeds S and S+1 (--seed S): image A is the
 * first checked render, B the last (GPU: the checked run after the timed
 * ones; CPU: its second render). The first check looks for NaN and, on the
 * GPU, measures A against the CPU; the second has both renders and judges
 * the pair (run.c's header says how). */
#ifndef CH08_RUN_H
#define CH08_RUN_H

#include "render.h"
#include "stages.h"

#include "../../common/image.h"
#include "../../common/report.h"

#include <stddef.h>

typedef struct {
    scene sc;
    int default_scene;
    image a, b, reference;
    int have_reference;
    double reference_noise;
    int width, height, spp, threads, quiet;
    unsigned int seed;
    unsigned char *d_rgb;
    int *d_bad;
    /* linear radiance (--linear-out, --linear-reference): A's per-pixel
     * unclamped means on the GPU and here, and the converged ones */
    float *d_linear, *linear, *linear_reference;
    int have_linear; /* linear holds A's (a GPU stage whose A is checked) */
    /* the stage being measured (run_begin_stage) */
    int kernel, bx, by, checks;
    unsigned int run_seed; /* the next render's: S until A is checked, then S+1 */
    kernel_info *info;     /* filled by the next GPU render, then NULL */
    long bad;              /* NaN/Inf samples or pixels so far */
    double spot_a, quality; /* A's MSE against the CPU (GPU stages); MSE(A, reference) */
    double rel_quality;     /* A's relative MSE against linear_reference (linear_mse), or -1 */
    const char *name;
} run;

/* The scene file (path NULL: the default scene; 0, or -1 with the reason in
 * err, the option named) and, for the default scene at a size that has one,
 * the converged reference image. */
int run_load_scene(run *r, const char *path, char *err, size_t len);
void run_load_reference(run *r);

/* Relative MSE of linear radiance: the mean over pixels and channels of
 * (a - ref)^2 / (ref^2 + 0.01), the 0.01 keeping black pixels finite. */
double linear_mse(const float *a, const float *ref, size_t values);
/* A width x height x 3 float image as PFM (little-endian, rows bottom to
 * top), written to a temporary file and renamed, only over a file that is
 * a PFM (linear_kind, which --linear-out is checked against up front);
 * read back the same way. 0, or -1 with the reason in err. */
extern const output_kind linear_kind;
int linear_write_pfm(const char *path, const float *rgb, int width, int height, char *err, size_t len);
int linear_read_pfm(const char *path, float **rgb, int width, int height, char *err, size_t len);

/* The GPU's side, once there is a device: the image and the NaN count, and
 * with linear (--linear-out or --linear-reference) linear radiance, on the
 * GPU and here; the stack and the scene set. run_end frees what r holds. */
void run_gpu_begin(run *r, int linear);
void run_end(run *r);

/* Measures stage s (GPU: a checked warm-up, repeat timed runs, a checked run
 * after, the block shape the row's; CPU: two renders, each checked) and adds
 * its rows: Msamples/s (device: the GPU's name, for a GPU stage), and with a
 * reference its MSE, with --linear-reference its relative MSE. */
void run_measure(report *rep, run *r, const stage *s, int repeat, const char *device);

/* --linear-out: the last GPU stage's A, as PFM; 0, or -1 said on stderr
 * (none rendered, a pixel not finite, a failed write). */
int run_write_linear(const run *r, const char *path);

void run_begin_stage(run *r, const char *name, int kernel, int bx, int by, kernel_info *info);
void poison(void *run);
void render(void *run);
int check(void *run, char *note, size_t len);

#endif
