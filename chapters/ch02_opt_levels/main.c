/* ch02 - what the compiler does: ch01's card.c built at every -O level.
 *
 *   make ch02 && ./ch02                  # every build at 512x512, 64 spp (a few minutes)
 *   ./ch02 --spp 8                       # quicker
 *   ./ch02 --stage gcc-O3-native         # one build
 *   make ch02-asm                        # each build's assembly, side by side
 *
 * The source is chapters/ch01_baseline/card.c, untouched. The Makefile compiles
 * it once per compiler and flag set (gcc, and clang when installed), renames
 * each copy's card_render to card_render_<build> with objcopy, and links them
 * all into this program; the list of builds is stages.h, whose rows give each
 * build's command.
 *
 * Every build's image is compared with the gcc -O0 build's: byte-identical, or
 * the PSNR. A build passes its check at >= 38 dB (two renders of the card with
 * different random seeds are about 41.7 dB apart, so 38 dB means "the same
 * picture up to noise"); identical or not is the lesson, shown in the note.
 */
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
#define PSNR_PASS_DB 38.0

static const cli_spec spec = {
    .program = "ch02",
    .summary = "ch01's card.c built at -O0 .. -O3, -march=native and -ffast-math, with gcc (and clang)",
    .accepts = CLI_WIDTH | CLI_HEIGHT | CLI_SPP | CLI_REPEAT | CLI_STAGE | CLI_OUT | CLI_IMAGES | CLI_CSV | CLI_QUIET,
    CLI_STAGE_TABLE(stages),
    .notes = "Each build's image is compared with gcc -O0's: identical, or the PSNR (ok at >= 38 dB).\n"
             "--out writes the image of the last build run (default ch02.ppm), only if every check passed.",
};

/* The gcc -O0 image to compare against when gcc -O0 itself is not being run:
 * at the standard workload that is the original program's output (ch01's test
 * proves them identical); otherwise render it, untimed. */
static int load_reference(image *ref, const cli_options *opt)
{
    char err[IMAGE_ERROR_SIZE];
    if (opt->width == 512 && opt->height == 512 && opt->spp == 64 &&
        image_read_ppm(ref, REFERENCE_IMAGE, err, sizeof err) == 0)
        return 0;
    if (image_alloc(ref, (int)opt->width, (int)opt->height) != 0)
        return -1;
    if (!opt->quiet)
        fprintf(stderr, "ch02: rendering the gcc -O0 reference image first (untimed)\n");
    stages[0].run(ref, (int)opt->spp, NULL, NULL);
    return 0;
}

static int compare_note(const image *img, const image *ref, char *note, size_t len)
{
    image_diff d;
    image_compare(img, ref, &d);
    if (d.differing == 0) {
        snprintf(note, len, "byte-identical to gcc-O0");
        return 1;
    }
    snprintf(note, len, "PSNR %.1f dB vs gcc-O0, %.2f%% of bytes differ, max %d", d.psnr,
             100.0 * (double)d.differing / (double)image_bytes(img), d.max_abs);
    return d.psnr >= PSNR_PASS_DB;
}

/* One build's runs: gcc -O0's image becomes the reference for the others. */
typedef struct {
    progress_job render;
    image *ref;
    int is_reference;
} run;

static int check_run(void *context, char *note, size_t size)
{
    run *r = context;
    const image *img = r->render.img;
    if (!r->is_reference)
        return compare_note(img, r->ref, note, size);
    snprintf(note, size, "the reference build");
    if (!r->ref->rgb && image_alloc(r->ref, img->width, img->height) != 0) {
        fprintf(stderr, "ch02: out of memory (the %dx%d reference image)\n", img->width, img->height);
        exit(EXIT_CHECK_FAIL);
    }
    memcpy(r->ref->rgb, img->rgb, image_bytes(img));
    return 1;
}

int main(int argc, char **argv)
{
    cli_options opt = {.width = 512, .height = 512, .spp = 64, .repeat = 1};
    cli_parse(&spec, &opt, argc, argv);
    const char *out = opt.out ? opt.out : "ch02.ppm";
    cli_require_writable(&spec, "default output", out);
    cli_begin_work(&spec);
    image img, ref = {0};
    if (image_alloc(&img, (int)opt.width, (int)opt.height) != 0) {
        fprintf(stderr, "ch02: out of memory (%ldx%ld image)\n", opt.width, opt.height);
        return EXIT_CHECK_FAIL;
    }
    char workload[96];
    snprintf(workload, sizeof workload, "%ldx%ldx%ldspp", opt.width, opt.height, opt.spp);
    report rep;
    report_init(&rep, "ch02", workload, opt.csv, opt.quiet);

    for (size_t i = 0; i < STAGE_COUNT; i++) {
        if (!cli_stage_selected(&opt, i))
            continue;
        if (!ref.rgb && i != 0 && load_reference(&ref, &opt) != 0) {
            fprintf(stderr, "ch02: out of memory (the %ldx%ld reference image)\n", opt.width, opt.height);
            return EXIT_CHECK_FAIL;
        }
        run r = {.ref = &ref, .is_reference = i == 0};
        progress_job_init(&r.render, stages[i].run, &img, (int)opt.spp, stages[i].info.name, opt.quiet);
        measure_result m;
        measure_stage(&(measure_plan){.run = progress_job_run, .check = check_run, .context = &r,
                                      .repeat = (int)opt.repeat, .check_each_run = 1}, &m);
        progress_job_free(&r.render);
        if (opt.images && image_write_stage(&img, opt.images, "ch02", stages[i].info.name) != 0)
            return EXIT_CHECK_FAIL;
        double msamples = (double)opt.width * opt.height * opt.spp / (m.times.median * 1e3);
        report_measured(&rep, stages[i].info.name, 1, &m, msamples, "Msamples/s", host_cpu_name());
        if (!opt.quiet)
            fprintf(stderr, "ch02: %-26s %10.1f ms  %s\n", stages[i].info.name, m.times.median, m.note);
    }

    int status = report_finish_image(&rep, 1, "ch02", &img, out, opt.quiet);
    report_print(&rep, stdout);
    image_free(&img);
    image_free(&ref);
    return status;
}
