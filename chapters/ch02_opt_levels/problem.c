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

#include "../../common/program.h"   /* and measure.h, report.h */
#include "../../common/raytracer.h" /* and cli.h, image.h */

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

static image img, ref; /* the build's render; the one the others are compared with */

/* The build's image; and the reference, the first row's (gcc -O0): filled in by its run where it runs
 * (check_run); else at the standard workload the original's (ch01's test proves them identical), or rendered
 * here, untimed. */
static void setup(program_run *p)
{
    const cli_options *opt = &p->opt;
    raytracer_image_alloc(&img, "ch02", opt);
    int runs = cli_stage_selected(opt, 0);
    if (opt->stage_index == 0 || (!runs && raytracer_read_original(&ref, opt)))
        return;
    if (image_alloc(&ref, (int)opt->width, (int)opt->height) != 0) {
        fprintf(stderr, "ch02: out of memory (the %ldx%ld reference image)\n", opt->width, opt->height);
        exit(EXIT_CHECK_FAIL);
    }
    if (runs)
        return;
    if (!opt->quiet)
        fprintf(stderr, "ch02: rendering the %s reference image first (untimed)\n", stages[0].info.description);
    stages[0].run(&ref, (int)opt->spp, NULL, NULL);
}

/* One build's runs: the reference build's image becomes the reference for the others. */
typedef struct {
    progress_job render;
    int is_reference;
} run;

static int check_run(void *context, char *note, size_t size)
{
    run *r = context;
    if (r->is_reference) {
        snprintf(note, size, "the reference build");
        if (ref.rgb) /* other builds run after it: their reference */
            memcpy(ref.rgb, img.rgb, image_bytes(&img));
        return 1;
    }
    image_diff d;
    image_compare(&img, &ref, &d);
    if (d.differing == 0)
        snprintf(note, size, "byte-identical to %s", stages[0].info.name);
    else
        snprintf(note, size, "PSNR %.1f dB vs %s, %.2f%% of bytes differ, max %d", d.psnr, stages[0].info.name,
                 100.0 * (double)d.differing / (double)image_bytes(&img), d.max_abs);
    return d.differing == 0 || d.psnr >= PSNR_PASS_DB;
}

/* One build's render, each timed run checked (a run takes seconds), in Msamples/s; its time on stderr too. */
static int measure(program_run *p, size_t i)
{
    const stage *s = &stages[i];
    run r = {.is_reference = i == 0};
    progress_job_init(&r.render, s->run, &img, (int)p->opt.spp, s->info.name, p->opt.quiet);
    double samples = (double)p->opt.width * p->opt.height * p->opt.spp;
    measure_result m;
    program_measure(p, &(measure_plan){.name = s->info.name, .run = progress_job_run, .check = check_run,
                                       .context = &r, .repeat = (int)p->opt.repeat, .check_each_run = 1},
                    samples, 1e6, "Msamples/s", 1, NULL, &m);
    progress_job_free(&r.render);
    if (!p->opt.quiet)
        fprintf(stderr, "ch02: %-26s %10.1f ms  %s\n", s->info.name, m.times.median, m.note);
    return 0;
}

static void teardown(program_run *p)
{
    (void)p;
    image_free(&img);
    image_free(&ref);
}

const program chapter_program = {
    .spec = &spec,
    .defaults = {.width = 512, .height = 512, .spp = 64, .repeat = 1},
    .picture = "ch02.ppm",
    .setup = setup,
    .workload = raytracer_program_workload,
    .stage = measure,
    .picture_image = &img,
    .teardown = teardown,
};
