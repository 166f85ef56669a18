/* image_check.h - ch03's image check (image_check.c says how it decides). */
#ifndef CH03_IMAGE_CHECK_H
#define CH03_IMAGE_CHECK_H

#include "threads.h"

/* Sum and sum of squares of the per-byte squared differences of two images. */
typedef struct {
    double n, sum, sum_sq;
} sq_diffs;

typedef struct {
    image reference;     /* ch01's image, or the 1-thread rng-local render */
    image deterministic; /* the first rng-* image: all later rng-* images must equal it */
    int have_deterministic, standard;
    sq_diffs honest;     /* at other sizes: the two honest rng-local renders */
} checker;

/* The reference: ch01's image at the standard workload (standard set), else
 * two renders with `local` (rng-local) on one thread, seeds differing. */
void checker_init(checker *c, int standard, const stage *local, job *j, int quiet);
void checker_free(checker *c);

/* 1 if img passes, 0 if not, REPORT_NO_CHECK if too small to tell; what was
 * found goes in note. */
int check_image(checker *c, const stage *s, const image *img, char *note, size_t len);

#endif
