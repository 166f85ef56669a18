/* smallpt_agree - do two programs render the same picture? (make
 * smallpt-vs-port runs it.)
 *
 *   smallpt_agree ORIGINAL.ppm A.ppm B.ppm
 *
 * ORIGINAL is one render of smallpt, A and B two renders of ch08's
 * cpu-threads at the same size and spp with independent random streams. If
 * the two programs draw from the same distribution, ORIGINAL - A differs only
 * by noise, as A - B does:
 *   - MSE(ORIGINAL, A) / MSE(A, B) is 1 (within RATIO_SLACK);
 *   - in each of REGIONS x REGIONS regions, and in each of the top TOP_ROWS
 *     rows, the mean of ORIGINAL - A is within LIMIT_SE standard errors of 0,
 *     its standard error sqrt(mean((A - B)^2) / values) measured in the same
 *     region from A - B.
 * Prints a table; exits 0 if they agree, 1 if not, 2 on bad input. */
#include "../../common/image.h"

#include <math.h>
#include <stdio.h>

#define REGIONS 4
#define TOP_ROWS 4
#define LIMIT_SE 4.0
#define RATIO_SLACK 0.1

typedef struct {
    double diff, se;
} agreement;

/* Mean of O - A over the block [x0, x1) x [y0, y1), with its standard error. */
static agreement block(const image *o, const image *a, const image *b, int x0, int y0, int x1, int y1)
{
    double sum = 0, noise = 0;
    long n = 0;
    for (int y = y0; y < y1; y++)
        for (size_t i = 3 * ((size_t)y * o->width + x0); i < 3 * ((size_t)y * o->width + x1); i++, n++) {
            sum += (double)o->rgb[i] - a->rgb[i];
            noise += ((double)a->rgb[i] - b->rgb[i]) * ((double)a->rgb[i] - b->rgb[i]);
        }
    agreement g = {sum / (double)n, sqrt(noise / (double)n / (double)n)};
    return g;
}

static int report(const char *what, agreement g)
{
    int ok = fabs(g.diff) <= LIMIT_SE * g.se;
    printf("%-26s %+9.3f %8.3f %7.1f  %s\n", what, g.diff, g.se, g.se > 0 ? g.diff / g.se : 0.0, ok ? "ok" : "DIFFERS");
    return ok;
}

static double mse(const image *x, const image *y)
{
    image_diff d;
    image_compare(x, y, &d);
    return d.mse;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: smallpt_agree ORIGINAL.ppm A.ppm B.ppm\n");
        return 2;
    }
    image img[3];
    char err[IMAGE_ERROR_SIZE];
    for (int i = 0; i < 3; i++)
        if (image_read(&img[i], argv[i + 1], err, sizeof err) != 0) {
            fprintf(stderr, "smallpt_agree: %s\n", err);
            return 2;
        }
    const image *o = &img[0], *a = &img[1], *b = &img[2];
    if (a->width != o->width || b->width != o->width || a->height != o->height || b->height != o->height ||
        o->width < REGIONS || o->height < REGIONS) {
        fprintf(stderr, "smallpt_agree: the three images must have one size, at least %dx%d\n", REGIONS, REGIONS);
        return 2;
    }
    double oa = mse(o, a), ab = mse(a, b), ratio = oa / ab;
    int ok = fabs(ratio - 1) <= RATIO_SLACK;
    printf("MSE(original, port) %.2f, MSE(port, port with other streams) %.2f: ratio %.3f (%s; 1 +- %.1f if the "
           "two differ by noise alone)\n\n", oa, ab, ratio, ok ? "ok" : "DIFFERS", RATIO_SLACK);
    printf("%-26s %9s %8s %7s  (original - port, 8-bit levels; limit %.0f se)\n", "where", "mean", "se", "z", LIMIT_SE);
    char what[64];
    for (int y = 0; y < TOP_ROWS && y < o->height; y++) {
        snprintf(what, sizeof what, "row %d", y);
        ok &= report(what, block(o, a, b, 0, y, o->width, y + 1));
    }
    for (int ry = 0; ry < REGIONS; ry++)
        for (int rx = 0; rx < REGIONS; rx++) {
            int x0 = rx * o->width / REGIONS, x1 = (rx + 1) * o->width / REGIONS;
            int y0 = ry * o->height / REGIONS, y1 = (ry + 1) * o->height / REGIONS;
            snprintf(what, sizeof what, "region x %d-%d, y %d-%d", x0, x1 - 1, y0, y1 - 1);
            ok &= report(what, block(o, a, b, x0, y0, x1, y1));
        }
    printf("\n%s\n", ok ? "agree: the port renders the original's picture, within noise"
                        : "DIFFER: beyond noise (see the rows marked DIFFERS)");
    for (int i = 0; i < 3; i++)
        image_free(&img[i]);
    return ok ? 0 : 1;
}
