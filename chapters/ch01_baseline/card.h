/* card.h - Kensler's business-card raytracer as a function. */
#ifndef CH01_CARD_H
#define CH01_CARD_H

#include "../../common/image.h"

/* Called after each finished row (may be NULL). */
typedef void (*card_progress_fn)(void *context, int rows_done, int rows_total);

/* Renders the card into img (its size picks the resolution) with
 * samples_per_pixel rays per pixel. Reseeds libc rand() with 1 first, the
 * seed the original program gets by never calling srand(). */
void card_render(image *img, int samples_per_pixel, card_progress_fn progress, void *context);

#endif
