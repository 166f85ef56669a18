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
 * Every build's image is compared with the gcc -O0 build's: byte-identical
 * (the lesson, shown in the note), or the same picture up to noise.
 */
#include "stages.h"

#include "../../common/measure.h"
#include "../../common/raytracer.h" /* and cli.h, image.h */
#include "../../common/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Two renders of the card with different random seeds are about 41.7 dB apart:
 * 38 dB means "the same picture up to noise". */
#define PSNR_PASS_DB 38.0

static const cli_spec spec = {
    .program = "ch02",
    .summary = "ch01's card.c built at -O0 .. -O3, -march=native and -ffast-math, with gcc (and clang)",
    .accepts = CLI_WIDTH | CLI_HEIGHT | CLI_SPP | CLI_REPEAT | CLI_STAGE | CLI_OUT | CLI_IMAGES | CLI_CSV | CLI_QUIET,
    CLI_STAGE_TABLE(stages),
    .notes = "Each build's image is compared with gcc -O0's: identical, or the PSNR (ok at >= 38 dB).\n"
             "--out writes the image of the last build run (default ch02.ppm), only if every check passed.",
};

/* The image the other builds are compared with, the first row's (gcc -O0): filled in by its run where it
 * runs (check_run); else at the standard workload the original's (ch01's test proves them identical), or
 * rendered here, untimed. */
static void prepare_reference(image *ref, const cli_options *opt)
{
    int runs = cli_stage_selected(opt, 0);
    if (opt->stage_index == 0 || (!runs && raytracer_read_original(ref, opt)))
        return;
    if (image_alloc(ref, (int)opt->width, (int)opt->height) != 0) {
        fprintf(stderr, "ch02: out of memory (the %ldx%ld reference image)\n", opt->width, opt->height);
        exit(EXIT_CHECK_FAIL);
    }
    if (runs)
        return;
    if (!opt->quiet)
        fprintf(stderr, "ch02: rendering the %s reference image first (untimed)\n", stages[0].info.description);
    stages[0].run(ref, (int)opt->spp, NULL, NULL);
}

/* One build's runs: the reference build's image becomes the reference for the others. */
typedef struct {
    progress_job render;
    image *ref;
    int is_reference;
} run;

static int check_run(void *context, char *note, size_t size)
{
    run *r = context;
    const image *img = r->render.img;
    if (r->is_reference) {
        snprintf(note, size, "the reference build");
        if (r->ref->rgb) /* other builds run after it: their reference */
            memcpy(r->ref->rgb, img->rgb, image_bytes(img));
        return 1;
    }
    image_diff d;
    image_compare(img, r->ref, &d);
    if (d.differing == 0)
        snprintf(note, size, "byte-identical to %s", stages[0].info.name);
    else
        snprintf(note, size, "PSNR %.1f dB vs %s, %.2f%% of bytes differ, max %d", d.psnr, stages[0].info.name,
                 100.0 * (double)d.differing / (double)image_bytes(img), d.max_abs);
    return d.differing == 0 || d.psnr >= PSNR_PASS_DB;
}

int main(int argc, char **argv)
{
    cli_options opt = {.width = 512, .height = 512, .spp = 64, .repeat = 1};
    cli_parse(&spec, &opt, argc, argv);
    const char *out = opt.out ? opt.out : "ch02.ppm";
    cli_require_writable(&spec, "default output", out);
    cli_begin_work(&spec);
    image img, ref = {0};
    raytracer_image_alloc(&img, "ch02", &opt);
    char workload[96];
    report rep;
    report_init(&rep, "ch02", raytracer_workload(workload, sizeof workload, &opt), opt.csv, opt.quiet);
    prepare_reference(&ref, &opt);
    for (size_t i = 0; i < STAGE_COUNT; i++) {
        const stage *s = &stages[i];
        if (!cli_stage_selected(&opt, i))
            continue;
        run r = {.ref = &ref, .is_reference = i == 0};
        progress_job_init(&r.render, s->run, &img, (int)opt.spp, s->info.name, opt.quiet);
        measure_result m;
        measure_stage(&(measure_plan){.name = s->info.name, .run = progress_job_run, .check = check_run, .context = &r,
                                      .repeat = (int)opt.repeat, .check_each_run = 1}, &m);
        progress_job_free(&r.render);
        if (opt.images && image_write_stage(&img, opt.images, "ch02", s->info.name) != 0)
            return EXIT_CHECK_FAIL;
        double msamples = (double)opt.width * opt.height * opt.spp / (m.times.median * 1e3);
        report_measured(&rep, s->info.name, 1, &m, msamples, "Msamples/s", host_cpu_name());
        if (!opt.quiet)
            fprintf(stderr, "ch02: %-26s %10.1f ms  %s\n", s->info.name, m.times.median, m.note);
    }
    int status = report_finish_image(&rep, 1, "ch02", &img, out, opt.quiet);
    report_print(&rep, stdout);
    image_free(&img);
    image_free(&ref);
    return status;
}
