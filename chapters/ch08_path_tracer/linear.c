/* linear.c - linear radiance images (see linear.h): the relative MSE, and PFM
 * files for --linear-out and --linear-reference. Plain C: the tests link it. */
#include "linear.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double linear_mse(const float *a, const float *ref, size_t values)
{
    double sum = 0;
    for (size_t i = 0; i < values; i++) {
        double d = (double)a[i] - ref[i];
        sum += d * d / ((double)ref[i] * ref[i] + 0.01);
    }
    return values ? sum / (double)values : 0;
}

const output_kind linear_kind = {KIND_PFM, NULL, 0};

int linear_write_pfm(const char *path, const float *rgb, int width, int height, char *err, size_t len)
{
    FILE *f = file_write_begin(path, &linear_kind, err, len);
    if (!f)
        return -1;
    int ok = fprintf(f, "PF\n%d %d\n-1.0\n", width, height) > 0; /* -1: little-endian, as x86 and the GPU hosts are */
    for (int row = height - 1; ok && row >= 0; row--)
        ok = fwrite(rgb + 3 * (size_t)row * width, sizeof(float), 3 * (size_t)width, f) == 3 * (size_t)width;
    return file_write_end(f, ok, path, err, len);
}

int linear_read_pfm(const char *path, float **rgb, int width, int height, char *err, size_t len)
{
    const char *why = "";
    FILE *f = open_regular_file(path, &why);
    if (!f) {
        snprintf(err, len, "%s: %s", path, why);
        return -1;
    }
    int w = 0, h = 0;
    double scale = 0;
    size_t n = 3 * (size_t)width * height;
    *rgb = NULL;
    if (fscanf(f, "PF %d %d %lf", &w, &h, &scale) != 3 || fgetc(f) != '\n' || w != width || h != height ||
        scale >= 0) {
        fclose(f);
        snprintf(err, len, "%s: not a little-endian colour PFM of %dx%d", path, width, height);
        return -1;
    }
    *rgb = malloc(n * sizeof(float));
    int ok = *rgb != NULL;
    for (int row = height - 1; ok && row >= 0; row--)
        ok = fread(*rgb + 3 * (size_t)row * width, sizeof(float), 3 * (size_t)width, f) == 3 * (size_t)width;
    for (size_t i = 0; ok && i < n; i++)
        ok = isfinite((*rgb)[i]) && (*rgb)[i] >= 0;
    fclose(f);
    if (!ok) {
        free(*rgb);
        *rgb = NULL;
        snprintf(err, len, "%s: truncated, or not finite non-negative radiance", path);
        return -1;
    }
    return 0;
}

