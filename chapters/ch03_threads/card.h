/* card.h - the card, rendered a range of rows at a time (ch03). */
#ifndef CH03_CARD_H
#define CH03_CARD_H

#include "../../common/image.h"

#include <stdint.h>

/* Renders picture rows [y_begin, y_end) (row 0 at the top) into img.
 * rng NULL: draw from libc rand() (shared by all threads).
 * Otherwise rng points at this thread's generator state; it is reseeded from
 * each pixel's index, so a pixel's colour depends only on the pixel. */
void card_render_rows(image *img, int samples_per_pixel, int y_begin, int y_end, uint32_t *rng);

/* The generator: next number in [0, 1), advancing *state. */
float card_lcg_next(uint32_t *state);

/* What the generator's top 16 bits are divided by: 65536 (the default) maps
 * them onto [0, 1); the article's typo, 66635, onto [0, 0.984). */
void card_set_rng_divisor(float divisor);

/* Shifts every pixel's seed by salt (default 0): another, equally honest set
 * of random streams, so a checker can measure the noise of two renders. */
void card_set_seed_salt(uint32_t salt);

/* The seed of pixel (x, y) in an image of the given width. */
uint32_t card_pixel_seed(int x, int y, int width);

#endif
