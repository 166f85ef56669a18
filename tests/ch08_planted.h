/* ch08_planted.h - ch08's path.h with a planted bug (chapter.mk's sed flips
 * the mirror's sign in reflect()), compiled for the CPU by
 * tests/ch08_planted.c, for tests/test_ch08.c: a bug in the template that
 * every stage, GPU and CPU, shares. */
#ifndef TESTS_CH08_PLANTED_H
#define TESTS_CH08_PLANTED_H

#include "scene.h"

/* One pixel as the double kernel `kernel` (render.h's KERNEL_RECURSIVE_F64,
 * KERNEL_LOOP_F64, KERNEL_REGENERATE_F64) computes it, by the planted
 * path.h: cpu_kernel_pixel with the bug. 0 if a sample was NaN or infinite. */
int planted_kernel_pixel(int kernel, const scene *sc, int col, int row, int width, int height, int spp,
                         unsigned int seed, unsigned char *out);

#endif
