/* ch01 - the baseline: Kensler's business-card raytracer, unoptimised.
 *
 *   make ch01 && ./ch01                 # 512x512, 64 samples per pixel, about 1.5 minutes
 *   ./ch01 --spp 4 --out small.ppm      # a quicker look
 *
 * card.c is built with -O0, as a program is before anyone thinks about speed.
 * At the standard workload the image is compared byte for byte with the output
 * of the original C++ program (data/reference/kensler_512x512x64.ppm).
 */
#include "card.h"
#include "stages.h"

#include "../../common/cli.h"
#include "../../common/image.h"
#include "../../common/measure.h"
#include "../../common/program.h"
#include "../../common/raytracer.h" /* the workload label, the image */
#include "../../common/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef REFERENCE_DIR
#define REFERENCE_DIR "data/reference"
#endif
#define REFERENCE_IMAGE REFERENCE_DIR "/kensler_512x512x64.ppm"

static const cli_spec spec = {
    .program = "ch01",
    .summary = "Kensler's business-card raytracer as plain C: the unoptimised baseline",
    .accepts = CLI_WIDTH | CLI_HEIGHT | CLI_SPP | CLI_REPEAT | CLI_STAGE | CLI_OUT | CLI_IMAGES | CLI_CSV | CLI_QUIET,
    CLI_STAGE_TABLE(stages),
    .notes = "At 512x512 with 64 spp the image is checked byte for byte against the original\n"
             "program's output; other sizes have no reference, and their check reads n/a.\n"
             "Default output: ch01.ppm, written only if every check passed.",
};

/* 1 identical to the original, 0 different, -1 no reference for this size. */
static int check_against_original(const image *img, int spp, char *note, size_t notelen)
{
    if (img->width != 512 || img->height != 512 || spp != 64) {
        snprintf(note, notelen, "no reference at this size");
        return -1;
    }
    image ref;
    char err[IMAGE_ERROR_SIZE];
    if (image_read_ppm(&ref, REFERENCE_IMAGE, err, sizeof err) != 0) {
        snprintf(note, notelen, "%.200s", err);
        return 0;
    }
    image_diff d;
    int same = image_compare(img, &ref, &d) == 0 && d.differing == 0;
    if (same)
        snprintf(note, notelen, "byte-identical to the original");
    else
        snprintf(note, notelen, "differs from the original: %ld bytes, PSNR %.1f dB", d.differing, d.psnr);
    image_free(&ref);
    return same;
}

/* One stage's render, as measure_stage runs and checks it. */
typedef struct {
    progress_job render;
    int spp;
} run;

static int check_run(void *context, char *note, size_t size)
{
    run *r = context;
    return check_against_original(r->render.img, r->spp, note, size);
}

static image img;

static void setup(program_run *p)
{
    raytracer_image_alloc(&img, "ch01", &p->opt);
}

/* The render, each timed run checked (a run takes seconds), in Msamples/s. */
static int measure(program_run *p, size_t i)
{
    run r = {.spp = (int)p->opt.spp};
    progress_job_init(&r.render, stages[i].run, &img, r.spp, stages[i].info.name, p->opt.quiet);
    double samples = (double)p->opt.width * p->opt.height * p->opt.spp;
    program_measure(p, &(measure_plan){.name = stages[i].info.name, .run = progress_job_run, .check = check_run,
                                       .context = &r, .repeat = (int)p->opt.repeat, .check_each_run = 1},
                    samples, 1e6, "Msamples/s", 1, NULL, NULL);
    progress_job_free(&r.render);
    return 0;
}

static void teardown(program_run *p)
{
    (void)p;
    image_free(&img);
}

const program chapter_program = {
    .spec = &spec,
    .defaults = {.width = 512, .height = 512, .spp = 64, .repeat = 1},
    .picture = "ch01.ppm",
    .setup = setup,
    .workload = raytracer_program_workload,
    .stage = measure,
    .picture_image = &img,
    .teardown = teardown,
};
