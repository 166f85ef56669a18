/* linear.h - linear radiance images (linear.c), for --linear-out and
 * --linear-reference: plain C, so the tests link it. */
#ifndef CH08_LINEAR_H
#define CH08_LINEAR_H

#include "../../common/image.h"

#include <stddef.h>

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

#endif
