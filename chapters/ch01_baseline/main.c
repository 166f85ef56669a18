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
#include "../../common/report.h"
#include "../../common/timer.h"

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

typedef struct {
    progress_job render;
    int spp;
} run;

static int check_run(void *context, char *note, size_t size)
{
    run *r = context;
    return check_against_original(r->render.img, r->spp, note, size);
}

int main(int argc, char **argv)
{
    cli_options opt = {.width = 512, .height = 512, .spp = 64, .repeat = 1};
    cli_parse(&spec, &opt, argc, argv);
    const char *out = opt.out ? opt.out : "ch01.ppm";
    cli_require_writable(&spec, "default output", out);
    cli_begin_work(&spec);
    image img;
    if (image_alloc(&img, (int)opt.width, (int)opt.height) != 0) {
        fprintf(stderr, "ch01: out of memory (%ldx%ld image)\n", opt.width, opt.height);
        return EXIT_CHECK_FAIL;
    }
    char workload[96];
    snprintf(workload, sizeof workload, "%ldx%ldx%ldspp", opt.width, opt.height, opt.spp);
    report rep;
    report_init(&rep, "ch01", workload, opt.csv, opt.quiet);

    for (size_t i = 0; i < STAGE_COUNT; i++) {
        if (!cli_stage_selected(&opt, i))
            continue;
        run r = {.spp = (int)opt.spp};
        progress_job_init(&r.render, stages[i].run, &img, r.spp, stages[i].info.name, opt.quiet);
        measure_result m;
        measure_stage(&(measure_plan){.name = stages[i].info.name, .run = progress_job_run, .check = check_run, .context = &r,
                                      .repeat = (int)opt.repeat, .check_each_run = 1}, &m);
        progress_job_free(&r.render);
        if (opt.images && image_write_stage(&img, opt.images, "ch01", stages[i].info.name) != 0)
            return EXIT_CHECK_FAIL;
        double msamples = (double)opt.width * opt.height * opt.spp / (m.times.median * 1e3);
        report_measured(&rep, stages[i].info.name, 1, &m, msamples, "Msamples/s", host_cpu_name());
    }

    int status = report_finish_image(&rep, 1, "ch01", &img, out, opt.quiet);
    report_print(&rep, stdout);
    image_free(&img);
    return status;
}
