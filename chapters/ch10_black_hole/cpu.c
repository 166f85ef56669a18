/* cpu.c - ch10's CPU stages: the reference image, in double, the step written
 * by hand (bh.h), POSIX threads taking rows on demand; and the same threads
 * over cpu_float.c's pixels (float). */
#include "render.h"

#include "../../common/report.h"
#include "../../common/team.h"

#include <math.h>
#include <stdatomic.h>

typedef double real;
#define R(x) (x)
#define BH_FN static inline
#include "bh.h"

typedef struct {
    cpu_pixel_fn *trace;
    image *img;
    atomic_long bad;
} job;

static void render_row(void *p, int row)
{
    job *j = p;
    long bad = 0;
    for (int col = 0; col < j->img->width; col++) {
        double c[3];
        bad += j->trace(col, row, j->img->width, j->img->height, c) == 0;
        unsigned char *out = j->img->rgb + 3 * ((size_t)row * j->img->width + col);
        for (int k = 0; k < 3; k++)
            out[k] = (unsigned char)(int)(c[k] * 255.0 + 0.5);
    }
    atomic_fetch_add(&j->bad, bad);
}

long cpu_render_with(cpu_pixel_fn *trace, image *img, int threads, const char *label, int quiet)
{
    job j = {.trace = trace, .img = img};
    atomic_init(&j.bad, 0);
    progress bar;
    progress_begin(&bar, label, img->height, quiet);
    team_rows(threads, img->height, render_row, &j, &bar);
    progress_end(&bar);
    return atomic_load(&j.bad);
}

int cpu_trace(int col, int row, int width, int height, double *rgb)
{
    return trace_ray(col, row, width, height, rgb);
}

long cpu_render(image *img, int threads, const char *label, int quiet)
{
    return cpu_render_with(cpu_trace, img, threads, label, quiet);
}

int cpu_fate(double E, double L, double pr, int max_steps, double *r_end, double *hamiltonian_drift)
{
    double r = BH_R0, phi = 0, f0 = 1 - 1.0 / BH_R0;
    double h0 = 0.5 * (-E * E / f0 + f0 * pr * pr + L * L / (r * r)), worst = 0;
    for (int n = 0; n < max_steps; n++) {
        step_by_hand(&r, &phi, &pr, E, L, step_length(r));
        double f = 1 - 1 / r, a = E * E / f, b = f * pr * pr, c = L * L / (r * r), H = 0.5 * (-a + b + c);
        worst = fmax(worst, fabs(H - h0) / (0.5 * (a + b + c))); /* relative to the size of H's terms */
        if (!(r > BH_HORIZON_STOP) || (r > BH_ESCAPE && pr > 0))
            break;
    }
    *r_end = r;
    *hamiltonian_drift = worst;
    return r > BH_ESCAPE ? 1 : r > BH_HORIZON_STOP ? 0 : -1;
}
