/* raytracer.h - what every program of the card (ch01's raytracer) sets up the
 * same way: its image, the label of its workload, whether it runs the
 * standard workload, and the original program's image at that workload.
 *
 * Header only, like cuda_util.h: REFERENCE_DIR is the including program's
 * (the Makefile passes the checkout's data/reference to each one).
 */
#ifndef COMMON_RAYTRACER_H
#define COMMON_RAYTRACER_H

#include "cli.h"
#include "image.h"
#include "program.h"
#include "status.h"

#include <stdio.h>
#include <stdlib.h>

#ifndef REFERENCE_DIR
#define REFERENCE_DIR "data/reference"
#endif
/* The original program's image, at the standard workload (ch01's test proves ch01 renders it byte for byte). */
#define RAYTRACER_ORIGINAL_IMAGE REFERENCE_DIR "/kensler_512x512x64.ppm"

/* 1 at the standard workload, 512x512 at 64 samples a pixel: the one the original's image is of. */
static inline int raytracer_standard(const cli_options *opt)
{
    return opt->width == 512 && opt->height == 512 && opt->spp == 64;
}

/* The workload column of the report and the CSV: "512x512x64spp". */
static inline const char *raytracer_workload(char *buf, size_t size, const cli_options *opt)
{
    snprintf(buf, size, "%ldx%ldx%ldspp", opt->width, opt->height, opt->spp);
    return buf;
}

/* The same label as a program's .workload hook (common/program.h): every raytracer chapter's. */
static inline void raytracer_program_workload(program_run *p, int table, char *buf, size_t size)
{
    (void)table;
    raytracer_workload(buf, size, &p->opt);
}

/* Allocates img, or says so and exits EXIT_CHECK_FAIL (every allocation is checked, as the course's contract asks). */
static inline void raytracer_image_alloc(image *img, const char *program, const cli_options *opt)
{
    if (image_alloc(img, (int)opt->width, (int)opt->height) != 0) {
        fprintf(stderr, "%s: out of memory (%ldx%ld image)\n", program, opt->width, opt->height);
        exit(EXIT_CHECK_FAIL);
    }
}

/* Reads the original's image into img when the workload is the standard one:
 * 1 if it did; 0 at another workload, or if the file cannot be read (the
 * caller then checks against something else). */
static inline int raytracer_read_original(image *img, const cli_options *opt)
{
    char err[IMAGE_ERROR_SIZE];
    return raytracer_standard(opt) && image_read_ppm(img, RAYTRACER_ORIGINAL_IMAGE, err, sizeof err) == 0;
}

#endif
