/* ex_ch02_driver.c - renders with the card.c it is linked with and writes a
 * PPM: exercise ch02's test builds it at several -O levels. */
#include "card.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    image img;
    char err[4400];
    if (argc != 5 || image_alloc(&img, atoi(argv[1]), atoi(argv[2])) != 0)
        return 2;
    card_render(&img, atoi(argv[3]), NULL, NULL);
    if (image_write_ppm(&img, argv[4], err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    image_free(&img);
    return 0;
}
