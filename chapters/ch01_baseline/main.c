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

#include "../../common/cli.h"
#include "../../common/image.h"
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

typedef struct {
    const char *name;
    const char *description;
    void (*run)(image *img, int spp, card_progress_fn progress, void *context);
} stage;

static const stage stages[] = {
    {"baseline", "the card as plain C, card.c built -O0, libc rand() seeded 1", card_render},
};
#define STAGE_COUNT (sizeof stages / sizeof stages[0])

static const cli_spec spec = {
    .program = "ch01",
    .summary = "Kensler's business-card raytracer as plain C: the unoptimised baseline",
    .accepts = CLI_WIDTH | CLI_HEIGHT | CLI_SPP | CLI_REPEAT | CLI_STAGE | CLI_OUT | CLI_IMAGES | CLI_CSV | CLI_QUIET,
    CLI_STAGE_TABLE(stages),
    .notes = "At 512x512 with 64 spp the image is checked byte for byte against the original\n"
             "program's output; other sizes have no reference, and their check reads n/a.\n"
             "Default output: ch01.ppm, written only if every check passed.",
};

static void show_progress(void *context, int rows_done, int rows_total)
{
    (void)rows_total;
    progress_update(context, rows_done);
}

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

/* Renders with stage s, repeat times; returns the median and spread in ms. */
static run_times time_stage(const stage *s, image *img, const cli_options *opt)
{
    double times[REPEAT_MAX];
    /* The rows' relative costs from a tiny render first, so the time left is
     * estimated from the work done, not from the rows done. */
    double *row_costs = cli_alloc(((size_t)img->height + 1) * sizeof *row_costs, "the progress estimate");
    double expected = 0;
    int have_costs = !opt->quiet &&
                     progress_row_costs(s->run, img->width, img->height, (int)opt->spp, row_costs, &expected) == 0;
    for (int r = 0; r < opt->repeat; r++) {
        progress bar;
        progress_begin(&bar, s->name, img->height, opt->quiet);
        if (have_costs)
            progress_set_costs(&bar, row_costs, expected);
        double t0 = now_seconds();
        s->run(img, (int)opt->spp, show_progress, &bar);
        times[r] = 1e3 * (now_seconds() - t0);
        progress_end(&bar);
    }
    free(row_costs);
    return summarize_runs(times, (int)opt->repeat);
}

int main(int argc, char **argv)
{
    cli_options opt = {.width = 512, .height = 512, .spp = 64, .repeat = 1};
    cli_parse(&spec, &opt, argc, argv);
    const char *out = opt.out ? opt.out : "ch01.ppm";
    cli_require_writable(&spec, "default output", out);

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
        if (opt.stage_index >= 0 && (size_t)opt.stage_index != i)
            continue;
        run_times t = time_stage(&stages[i], &img, &opt);
        double ms = t.median;
        char note[256];
        int ok = check_against_original(&img, (int)opt.spp, note, sizeof note);
        if (opt.images && image_write_stage(&img, opt.images, "ch01", stages[i].name) != 0)
            return EXIT_CHECK_FAIL;
        double msamples = (double)opt.width * opt.height * opt.spp / (ms * 1e3);
        report_row *row = report_add(&rep, (report_entry){.stage = stages[i].name, .threads = 1, .ms = ms,
                                                          .value = msamples, .unit = "Msamples/s", .ok = ok,
                                                          .device = host_cpu_name(), .runs = t.runs,
                                                          .lo_ms = t.lo, .hi_ms = t.hi});
        snprintf(row->note, sizeof row->note, "%s", note);
    }

    int status = report_finish_image(&rep, 1, "ch01", &img, out, opt.quiet);
    report_print(&rep, stdout);
    image_free(&img);
    return status;
}
