/* card_reference.h - what the GPU raytracers' suites (test_ch04, test_ch05)
 * compare their images with: references that share no code with the card.h
 * under test. ch03's card.c (the code card.h was ported from, compiled as C,
 * with the same per-pixel seeds: equal up to rounding at any size), and
 * ch01's committed image at 512x512x64 (Kensler's program, libc rand():
 * equal only up to noise). Each suite states the values it measured. */
#ifndef TESTS_CARD_REFERENCE_H
#define TESTS_CARD_REFERENCE_H

#include "image.h"

extern "C" {
#include "../chapters/ch03_threads/card.h" /* ch03's renderer: the independent reference */
}

/* Against ch03 at the same samples: card.h on the CPU gives ch03's bytes
 * exactly, the GPU 63-80 dB (H100), a planted sign flip about 23 dB. */
#define INDEPENDENT_PSNR_DB 35.0
/* Against ch01's image at 512x512x64: 41.7-41.8 dB on the H100; run.c's
 * threshold. */
#define CH01_PSNR_DB 38.0

/* PSNR of two RGB buffers of `bytes` bytes (common/image.c's comparison). */
static double psnr(const unsigned char *a, const unsigned char *b, size_t bytes)
{
    image x = {(int)(bytes / 3), 1, (unsigned char *)a}, y = {(int)(bytes / 3), 1, (unsigned char *)b};
    image_diff d;
    ck_assert(image_compare(&x, &y, &d) == 0);
    return d.psnr;
}

/* ch03's render of the picture: rows top to bottom, per-pixel seeds. */
static void ch03_image(image *img, int w, int h, int spp)
{
    ck_assert(image_alloc(img, w, h) == 0);
    uint32_t rng = 0;
    card_render_rows(img, spp, 0, h, &rng);
}

#endif
