/* ch03 - the card on every core, and three reasons threads fail to help.
 *
 *   make ch03 && ./ch03                 # every stage at 1, 2, 4, ... all cores
 *   ./ch03 --threads 8 --stage rng-local
 *   ./ch03 --spp 8                      # quicker
 *
 * Stages (each is a worker function and a generator placement):
 *   rand-shared        rows split in equal blocks; every thread calls libc rand().
 *                      glibc's rand() takes a process-wide lock around its state,
 *                      so the threads queue on it (and the lock's cache line moves
 *                      from core to core). It gets slower with more threads.
 *   rng-packed         each thread has its own LCG, but the states sit side by side
 *                      in one array: one cache line, written on every draw by every
 *                      thread. No lock, yet the line still moves: false sharing.
 *   rng-local          the state lives on each thread's own stack: nothing shared.
 *   rng-local-dynamic  rows handed out one at a time through an atomic counter:
 *                      rows through the letters cost far more than sky rows, so
 *                      equal blocks leave some threads idle at the end.
 *
 * From rng-packed on, every pixel reseeds the generator from its own index, so
 * the image is the same bytes at any thread count and schedule (checked).
 * rand-shared's image depends on the schedule; it is checked by PSNR against
 * ch01's image (the original program's output) at the standard workload.
 */
#define _GNU_SOURCE
#include "card.h"
#include "threads.h"

#include "../../common/cli.h"
#include "../../common/image.h"
#include "../../common/report.h"
#include "../../common/timer.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#ifndef REFERENCE_DIR
#define REFERENCE_DIR "data/reference"
#endif
#define REFERENCE_IMAGE REFERENCE_DIR "/kensler_512x512x64.ppm"

static const cli_spec spec = {
    "ch03",
    "the card on pthreads: lock contention, false sharing, a thread-local generator, scheduling",
    CLI_WIDTH | CLI_HEIGHT | CLI_SPP | CLI_THREADS | CLI_REPEAT | CLI_STAGE | CLI_OUT | CLI_IMAGES | CLI_RNG_DIVISOR | CLI_CSV | CLI_QUIET,
    stages,
    STAGE_COUNT,
    sizeof stages[0],
    "Each stage runs at 1, 2, 4, ... threads up to --threads (default: all cores).\n"
    "Checks: rng-* images must be byte-identical at every thread count; every image is\n"
    "compared by PSNR with ch01's (the original's) at 512x512x64, or with the 1-thread\n"
    "rng-local image at other sizes. Default output: ch03.ppm (the last image rendered);\n"
    "--images keeps each stage's image at the largest thread count.\n"
    "--rng-divisor 66635 reproduces the article's typo (rng-* stages only): its numbers\n"
    "never reach 0.984; the PSNR check barely moves, a difference image shows where it bites.",
};

static long context_switches(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_nvcsw + u.ru_nivcsw;
}

/* PSNR two independent renders reach falls with fewer samples (noise variance
 * goes as 1/spp): 38 dB at 64 spp, 3 dB less per halving below that. */
static double psnr_threshold(long spp)
{
    return spp >= 64 ? 38.0 : 38.0 - 10.0 * log10(64.0 / (double)spp);
}

typedef struct {
    image reference;     /* ch01's image, or the 1-thread rng-local render */
    image deterministic; /* the first rng-* image: all later rng-* images must equal it */
    int have_deterministic;
    double threshold;
} checker;

/* 1 if img passes; writes what was found into note. */
static int check_image(checker *c, const stage *s, const image *img, char *note, size_t len)
{
    image_diff d;
    image_compare(img, &c->reference, &d);
    int ok = d.psnr >= c->threshold;
    if (s->rng != RNG_LIBC) {
        if (!c->have_deterministic) {
            image_alloc(&c->deterministic, img->width, img->height);
            memcpy(c->deterministic.rgb, img->rgb, image_bytes(img));
            c->have_deterministic = 1;
        } else if (memcmp(c->deterministic.rgb, img->rgb, image_bytes(img)) != 0) {
            snprintf(note, len, "image differs from the first rng-* image");
            return 0;
        }
    }
    if (isinf(d.psnr))
        snprintf(note, len, "identical to the reference");
    else
        snprintf(note, len, "%.1f dB", d.psnr);
    return ok;
}

static void setup_checker(checker *c, const cli_options *opt, job *j)
{
    char err[256];
    memset(c, 0, sizeof *c);
    c->threshold = psnr_threshold(opt->spp);
    if (opt->width == 512 && opt->height == 512 && opt->spp == 64 &&
        image_read_ppm(&c->reference, REFERENCE_IMAGE, err, sizeof err) == 0)
        return;
    if (!opt->quiet)
        fprintf(stderr, "ch03: no reference image at this size: rendering rng-local on 1 thread first\n");
    run_stage(&stages[2], j, 1, 1);
    image_alloc(&c->reference, j->img->width, j->img->height);
    memcpy(c->reference.rgb, j->img->rgb, image_bytes(j->img));
}

/* Thread counts of the sweep: 1, 2, 4, ... below max, then max. */
static int sweep_counts(int max, int *counts)
{
    int n = 0;
    for (int t = 1; t < max; t *= 2)
        counts[n++] = t;
    counts[n++] = max;
    return n;
}

int main(int argc, char **argv)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    cli_options opt = {
        .width = 512, .height = 512, .spp = 64, .repeat = 1, .threads = cores > 0 ? cores : 1, .rng_divisor = 65536};
    cli_parse(&spec, &opt, argc, argv);
    const char *out = opt.out ? opt.out : "ch03.ppm";

    static job j; /* large (per-thread arrays): not on the stack */
    image img;
    if (image_alloc(&img, (int)opt.width, (int)opt.height) != 0) {
        fprintf(stderr, "ch03: cannot allocate a %ldx%ld image\n", opt.width, opt.height);
        return EXIT_CHECK_FAIL;
    }
    j.img = &img;
    j.spp = (int)opt.spp;
    checker chk;
    setup_checker(&chk, &opt, &j);
    /* After the checker: a reference it renders uses the right divisor. */
    char divisor_note[64] = "";
    if (opt.rng_divisor != 65536) {
        card_set_rng_divisor((float)opt.rng_divisor);
        snprintf(divisor_note, sizeof divisor_note, "; rng divisor %ld, not 65536", opt.rng_divisor);
    }

    char workload[96];
    snprintf(workload, sizeof workload, "%ldx%ldx%ldspp", opt.width, opt.height, opt.spp);
    report rep;
    report_init(&rep, "ch03", workload, opt.csv, opt.quiet);
    int images_failed = 0;
    int counts[32], ncounts = sweep_counts((int)opt.threads, counts);

    for (size_t i = 0; i < STAGE_COUNT; i++) {
        if (opt.stage_index >= 0 && (size_t)opt.stage_index != i)
            continue;
        double one_thread = 0;
        for (int c = 0; c < ncounts; c++) {
            int threads = counts[c], ok = 1;
            double times[1000];
            char note[256] = "";
            long switches = context_switches();
            for (int r = 0; r < opt.repeat; r++) {
                times[r] = run_stage(&stages[i], &j, threads, opt.quiet);
                ok &= check_image(&chk, &stages[i], &img, note, sizeof note); /* every run is checked */
            }
            switches = (context_switches() - switches) / opt.repeat;
            double ms = 1e3 * median(times, (int)opt.repeat);
            if (threads == 1)
                one_thread = ms;
            double busy_max = 0, busy_sum = 0;
            for (int t = 0; t < threads; t++) {
                busy_max = fmax(busy_max, j.busy[t]);
                busy_sum += j.busy[t];
            }
            double msamples = (double)opt.width * opt.height * opt.spp / (ms * 1e3);
            report_row *row =
                report_add(&rep, stages[i].name, threads, ms, msamples, "Msamples/s", ok, host_cpu_name());
            size_t len = strlen(note);
            if (one_thread > 0)
                len += (size_t)snprintf(note + len, sizeof note - len, ", eff %.0f%%", 100 * one_thread / (threads * ms));
            snprintf(note + len, sizeof note - len, ", busy max/mean %.2f, %ld ctx sw", busy_max * threads / busy_sum,
                     switches);
            snprintf(row->note, sizeof row->note, "%s%s", note, stages[i].rng == RNG_LIBC ? "" : divisor_note);
        }
        if (opt.images && image_write_stage(&img, opt.images, "ch03", stages[i].name) != 0)
            images_failed = 1;
    }

    char err[256];
    int status = report_all_ok(&rep) && !images_failed ? EXIT_OK : EXIT_CHECK_FAIL;
    if (image_write(&img, out, err, sizeof err) != 0) {
        fprintf(stderr, "ch03: %s\n", err);
        status = EXIT_CHECK_FAIL;
    }
    report_print(&rep, stdout);
    image_free(&img);
    image_free(&chk.reference);
    image_free(&chk.deterministic);
    return status;
}
