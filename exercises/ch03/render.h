/* render.h - exercise ch03: a thread-local generator, per-row seeds, and rows
 * handed out one at a time. Do not change this file; write the bodies in
 * render.c. */
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
 * `threads` threads (1..64). The bytes must not depend on the thread count. */
void ex_render(image *img, int spp, int threads);

/* Called (by render_row in render.c, which you must keep calling) when thread
 * `thread` starts row `row`. NULL unless a test sets it. */
extern void (*ex_row_started)(int thread, int row);

#endif
