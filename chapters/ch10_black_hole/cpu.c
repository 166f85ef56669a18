/* cpu.c - ch10's CPU stages: the reference image, in double, the step written
 * by hand (bh.h), POSIX threads taking rows on demand; and the same threads
 * over cpu_float.c's pixels (float), or over cpu_simd.c's rows (vectors). */
#include "render.h"

#include "../../common/cpu_ceiling.h"
#include "../../common/report.h"
#include "../../common/team.h"

#include <math.h>
#include <stdatomic.h>
#include <string.h>

typedef double real;
#define R(x) (x)
#define BH_FN static inline
#include "bh.h"

typedef struct {
    cpu_pixel_fn *trace; /* a pixel at a time, or */
    cpu_row_fn *trace_row; /* a row at a time */
    image *img;
    atomic_long bad;
} job;

static void render_row(void *p, int row)
{
    job *j = p;
    long bad = 0;
    unsigned char *out = j->img->rgb + 3 * (size_t)row * j->img->width;
    if (j->trace_row)
        bad = j->trace_row(row, j->img->width, j->img->height, out);
    else
        for (int col = 0; col < j->img->width; col++) {
            double c[3];
            bad += j->trace(col, row, j->img->width, j->img->height, c) == 0;
            for (int k = 0; k < 3; k++)
                out[3 * col + k] = colour_byte(c[k]);
        }
    atomic_fetch_add(&j->bad, bad);
}

static long render(job *j, int threads, const char *label, int quiet)
{
    atomic_init(&j->bad, 0);
    progress bar;
    progress_begin(&bar, label, j->img->height, quiet);
    team_rows(threads, j->img->height, render_row, j, &bar);
    progress_end(&bar);
    return atomic_load(&j->bad);
}

long cpu_render_with(cpu_pixel_fn *trace, image *img, int threads, const char *label, int quiet)
{
    job j = {.trace = trace, .img = img};
    return render(&j, threads, label, quiet);
}

long cpu_render_rows(cpu_row_fn *trace_row, image *img, int threads, const char *label, int quiet)
{
    job j = {.trace_row = trace_row, .img = img};
    return render(&j, threads, label, quiet);
}

cpu_row_fn *cpu_simd_row(int is_double, int *lanes, const char **isa)
{
    *isa = cpu_widest_isa();
    if (strcmp(*isa, "avx512") == 0) {
        *lanes = is_double ? 8 : 16;
        return is_double ? cpu_simd_row_double_avx512 : cpu_simd_row_float_avx512;
    }
    if (strcmp(*isa, "avx2") == 0) {
        *lanes = is_double ? 4 : 8;
        return is_double ? cpu_simd_row_double_avx2 : cpu_simd_row_float_avx2;
    }
    *lanes = 1;
    return NULL;
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
