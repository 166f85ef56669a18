/* run.h - one stage's run as common/measure.h sees it (run.c): the image
 * poisoned, rendered, and checked against the CPU running the same code. */
#ifndef CH04_RUN_H
#define CH04_RUN_H

#include "render.h"

#include "../../common/measure.h"

#include "../../common/image.h"

#include <stddef.h>

typedef struct {
    image host, original;
    int have_original;
    unsigned char *d_rgb;
    int *d_bad;
    int width, height, spp, bx, by;
    render_fn *fn; /* the stage's render, and its flags */
    int flags;
    kernel_info *info; /* filled by the next run, then NULL */
} run;
void poison(void *run);
void render(void *run);
int check(void *run, char *note, size_t len); /* 1 if every check passed; what they found in note */

#endif
