/* cpu.c - ch08's CPU stage: smallpt's recursive path tracer in double,
 * POSIX threads taking rows on demand (a row with the glass ball costs more
 * than one of bare wall). Each pixel's random streams depend on the pixel and
 * the sample alone, so the image is the same at any thread count. */
#include "render.h"

#include "../../common/report.h"
#include "../../common/team.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

typedef double real;
#define R(x) (x)
#include "path.h"

typedef struct {
    const world *w;
    image *img;
    int spp, method; /* path.h's PT_* */
    unsigned int seed;
    atomic_long bad;
} job;

static void render_row(void *p, int row)
{
    job *j = p;
    long bad = 0;
    for (int col = 0; col < j->img->width; col++) {
        unsigned char *out = j->img->rgb + 3 * ((size_t)row * j->img->width + col);
        bad += !render_pixel(j->w, j->method, col, row, j->spp, j->seed, out, NULL);
    }
    atomic_fetch_add(&j->bad, bad);
}

long cpu_render(int kernel, const scene *sc, image *img, int spp, unsigned int seed, int threads, const char *label,
                int quiet)
{
    static world w; /* static: the world is a few kB, kept off the stack */
    w = make_world(sc, img->width, img->height, EPS_F64, OFFSET_F64);
    job j = {.w = &w, .img = img, .spp = spp, .method = kernel == ON_CPU_LOOP ? PT_LOOP : PT_RECURSIVE_SPLIT,
             .seed = seed};
    atomic_init(&j.bad, 0);
    progress bar;
    progress_begin(&bar, label, img->height, quiet);
    team_rows(threads, img->height, render_row, &j, &bar);
    progress_end(&bar);
    return atomic_load(&j.bad);
}

/* The world for one scene and size, made once (the spot checks ask for
 * thousands of pixels of one image). */
static const world *world_for(const scene *sc, int width, int height)
{
    static world w;
    static scene made_for;
    if (scene_changed(&made_for, sc) || w.cam.width != width || w.cam.height != height)
        w = make_world(sc, width, height, EPS_F64, OFFSET_F64);
    return &w;
}

/* The radiance function a double kernel's samples come from (regeneration
 * draws the loop's samples in another order). */
static int f64_method(int kernel) { return kernel == KERNEL_RECURSIVE_F64 ? PT_RECURSIVE_SPLIT : PT_LOOP; }
/* gpu-balanced's code, whatever the register cap it was built under. */
static int regenerating_f64(int kernel)
{
    return kernel == KERNEL_REGENERATE_F64 || kernel == KERNEL_CAPPED_F64 || kernel == KERNEL_CAP56_F64 ||
           kernel == KERNEL_CAP80_F64;
}
static int is_f64(int kernel)
{
    return kernel == KERNEL_RECURSIVE_F64 || kernel == KERNEL_LOOP_F64 || regenerating_f64(kernel);
}

int cpu_kernel_pixel(int kernel, const scene *sc, int col, int row, int width, int height, int spp,
                     unsigned int seed, unsigned char *out)
{
    if (!is_f64(kernel))
        return cpu_kernel_pixel_f32(kernel, sc, col, row, width, height, spp, seed, out);
    const world *w = world_for(sc, width, height);
    if (regenerating_f64(kernel))
        return render_pixel_regenerating(w, 0, col, row, spp, seed, out, NULL);
    return render_pixel(w, f64_method(kernel), col, row, spp, seed, out, NULL);
}

void cpu_kernel_radiance(int kernel, const scene *sc, int col, int row, int width, int height, int spp,
                         unsigned int seed, radiance_sums *acc)
{
    if (!is_f64(kernel)) {
        cpu_kernel_radiance_f32(kernel, sc, col, row, width, height, spp, seed, acc);
        return;
    }
    add_pixel_radiance(world_for(sc, width, height), f64_method(kernel), col, row, spp, seed, acc->sum, acc->sum2);
    acc->samples += spp / 4 * 4;
}
