/* render.h - exercise ch03: a thread-local generator and per-row seeding.
 * Do not change this file; write the bodies in render.c. */
#ifndef EX_CH03_RENDER_H
#define EX_CH03_RENDER_H

#include "image.h"

#include <stdint.h>

/* The next number in [0, 1) from the generator whose state is *state
 * (advance the state). The same state must always give the same number. */
float ex_random(uint32_t *state);

/* The generator state that row `row` starts from. Different rows must start
 * different streams; the same row always the same one. */
uint32_t ex_row_seed(int row);

/* Renders the scene (scene.h) into img with spp jittered samples per pixel on
 * `threads` threads. The bytes must not depend on the thread count. */
void ex_render(image *img, int spp, int threads);

#endif
