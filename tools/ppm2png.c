/* ppm2png IN.ppm OUT.png - converts an image with common/image.c, for
 * `make book` (the GPU machine has no libpng, so its bench writes PPM). */
#include "../common/image.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: ppm2png IN.ppm OUT.png\n");
        return 2;
    }
    image img = {0};
    char err[IMAGE_ERROR_SIZE];
    int status = 0;
    if (image_read_ppm(&img, argv[1], err, sizeof err) != 0 || image_write_png(&img, argv[2], err, sizeof err) != 0) {
        fprintf(stderr, "ppm2png: %s\n", err);
        status = 1;
    }
    image_free(&img);
    return status;
}
