/* image_diff A B OUT [GAIN] - where two renders of the card differ.
 *
 * Writes OUT (.ppm, or .png with libpng) with each channel's absolute
 * difference |a - b| multiplied by GAIN (default 16) and clipped at 255, so
 * black means identical and a difference of 16 levels or more is full colour.
 * Prints PSNR, the share of bytes that differ, and the largest difference.
 * Checks OUT can be written, then reads both headers, before any pixel:
 * images of different sizes (or larger than IMAGE_READ_MAX_PIXELS) are
 * refused without decoding; inputs that are not regular files (a FIFO) too.
 * `make bench` uses it for the book's difference images.
 */
#include "../common/cli.h"
#include "../common/image.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int usage(void)
{
    fprintf(stderr, "usage: image_diff A B OUT [GAIN]   (A, B, OUT: .ppm or .png; GAIN 1..255, default 16)\n");
    return CLI_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    long long gain = 16;
    if (argc != 4 && argc != 5)
        return usage();
    if (argc == 5 && cli_parse_long(argv[4], 1, 255, &gain) != NULL)
        return usage();
    image a = {0}, b = {0}, d = {0};
    image_diff stats;
    char err[IMAGE_ERROR_SIZE];
    int wa, ha, wb, hb, status = EXIT_CHECK_FAIL;
    /* The output first: no image is decoded for a difference that cannot be written. */
    const char *why = cli_check_writable(argv[3]);
    if (why) {
        fprintf(stderr, "image_diff: %s %s\n", argv[3], why);
        return CLI_EXIT_USAGE;
    }
    /* The headers first: two sizes that differ need no pixel decoded. */
    if (image_read_size(argv[1], &wa, &ha, err, sizeof err) != 0 || image_read_size(argv[2], &wb, &hb, err, sizeof err) != 0) {
        fprintf(stderr, "image_diff: %s\n", err);
        return EXIT_CHECK_FAIL;
    }
    if (wa != wb || ha != hb) {
        fprintf(stderr, "image_diff: %s is %dx%d, %s is %dx%d\n", argv[1], wa, ha, argv[2], wb, hb);
        return EXIT_CHECK_FAIL;
    }
    if (image_read(&a, argv[1], err, sizeof err) != 0 || image_read(&b, argv[2], err, sizeof err) != 0 ||
        image_compare(&a, &b, &stats) != 0) {
        fprintf(stderr, "image_diff: %s\n", err);
        goto done;
    }
    if (image_alloc(&d, a.width, a.height) != 0) {
        fprintf(stderr, "image_diff: out of memory (%dx%d image)\n", a.width, a.height);
        goto done;
    }
    for (size_t i = 0; i < image_bytes(&a); i++) {
        long v = labs((long)a.rgb[i] - (long)b.rgb[i]) * gain;
        d.rgb[i] = (unsigned char)(v > 255 ? 255 : v);
    }
    if (image_write(&d, argv[3], err, sizeof err) != 0) {
        fprintf(stderr, "image_diff: %s\n", err);
        goto done;
    }
    if (isinf(stats.psnr))
        printf("identical\n");
    else
        printf("PSNR %.1f dB, %.2f%% of bytes differ, max %d, mean %.3f (x%lld in %s)\n", stats.psnr,
               100.0 * (double)stats.differing / (double)image_bytes(&a), stats.max_abs, stats.mean_abs, gain,
               argv[3]);
    status = EXIT_OK;
done:
    image_free(&a);
    image_free(&b);
    image_free(&d);
    return status;
}
