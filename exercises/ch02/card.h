/* card.h - Kensler's business-card raytracer as a function (ch01's, for
 * exercise ch02; do not change this file). */
#ifndef EX_CH02_CARD_H
#define EX_CH02_CARD_H

#include "image.h"

typedef void (*card_progress_fn)(void *context, int rows_done, int rows_total);

void card_render(image *img, int samples_per_pixel, card_progress_fn progress, void *context);

#endif
