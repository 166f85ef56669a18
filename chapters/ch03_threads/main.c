/* ch03 - the card on every core, and three reasons threads fail to help.
 *
 *   make ch03 && ./ch03                 # every stage at 1, 2, 4, ... all cores
 *   ./ch03 --threads 8 --stage rng-local
 *   ./ch03 --spp 8                      # quicker
 *
 * A stage is a worker function (how rows are handed out) and a generator
 * placement; stages.h says what each changes and why it helps or not.
 * Checks (image_check.c says how): the rng-* images are the same bytes at every
 * thread count; every image is the same picture as ch01's, up to noise.
 * After the stages, a row of the host's FMA ceiling (common/cpu_ceiling.h).
 */
#define _GNU_SOURCE
#include "card.h"
#include "image_check.h"
#include "stages.h"

#include "../../common/cpu_ceiling.h"
#include "../../common/cpu_sweep.h"     /* and measure.h, report.h */
#include "../../common/raytracer.h"     /* and cli.h, image.h */

#include <stdio.h>
#include <unistd.h>

static long rng_divisor = 65536;
static const cli_option options[] = {
    {"rng-divisor", "D", "divide the generator's top 16 bits by D (default 65536; the article's typo was 66635)",
     .min = 65536, .max = 1 << 24, .number = &rng_divisor},
};

static const cli_spec spec = {
    .program = "ch03",
    .summary = "the card on pthreads: lock contention, false sharing, a thread-local generator, scheduling",
    .accepts = CLI_WIDTH | CLI_HEIGHT | CLI_SPP | CLI_THREADS | CLI_REPEAT | CLI_STAGE | CLI_OUT | CLI_IMAGES |
               CLI_CSV | CLI_QUIET,
    CLI_STAGE_TABLE(stages),
    CLI_OPTION_TABLE(options),
    .notes = "Each stage runs at 1, 2, 4, ... threads up to --threads (default: all cores).\n"
             "Checks: rng-* images must be byte-identical at every thread count; every image is\n"
             "compared with ch01's (the original's) at 512x512x64 (PSNR >= 38 dB), or at other\n"
             "sizes with the 1-thread rng-local image, within the noise two honest renders have\n"
             "at that size (measured; see image_check.c). Default output: ch03.ppm (the last image\n"
             "rendered, written only if every check passed); --images keeps each stage's image\n"
             "at the largest thread count.\n"
             "--rng-divisor 66635 reproduces the article's typo (rng-* stages only): its numbers\n"
             "never reach 0.984; the PSNR check barely moves, a difference image shows where it bites.",
};

/* One stage at one thread count: what measure_stage runs and checks. */
typedef struct {
    const stage *s;
    job *j;
    checker *chk;
    int threads, quiet;
    double seconds; /* the last run's */
} sweep_point;

static void render_point(void *context)
{
    sweep_point *p = context;
    p->seconds = run_stage(p->s, p->j, p->threads, p->quiet);
}

/* The measured time is the render's own, from its threads' start to the last
 * one's finish (run_stage), not the main thread's: that one only wakes every
 * 20 ms to draw the progress, and would round every time up to its naps. */
static double render_point_ms(measure_fn *run, void *context)
{
    run(context);
    return 1e3 * ((sweep_point *)context)->seconds;
}

static int check_point(void *context, char *note, size_t size)
{
    sweep_point *p = context;
    return check_image(p->chk, p->s, p->j->img, note, size);
}

int main(int argc, char **argv)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    cli_options opt = {.width = 512, .height = 512, .spp = 64, .repeat = 1, .threads = cores > 0 ? cores : 1};
    cli_parse(&spec, &opt, argc, argv);
    const char *out = opt.out ? opt.out : "ch03.ppm";
    cli_require_writable(&spec, "default output", out);
    cli_begin_work(&spec);
    static job j; /* large (per-thread arrays): not on the stack */
    image img;
    raytracer_image_alloc(&img, "ch03", &opt);
    j.img = &img, j.spp = (int)opt.spp;
    checker chk;
    checker_init(&chk, raytracer_standard(&opt), check_reference_stage(), &j, opt.quiet);
    if (rng_divisor != 65536) /* after the checker: a reference it renders uses the right divisor */
        card_set_rng_divisor((float)rng_divisor);
    char workload[96];
    report rep;
    report_init(&rep, "ch03", raytracer_workload(workload, sizeof workload, &opt), opt.csv, opt.quiet);
    int counts[32], ncounts = cpu_sweep_counts((int)opt.threads, counts);
    double samples = (double)opt.width * opt.height * opt.spp;
    for (size_t i = 0; i < STAGE_COUNT; i++) {
        if (!cli_stage_selected(&opt, i))
            continue;
        double one_thread = 0;
        for (int c = 0; c < ncounts; c++) { /* each run checked: a run takes seconds */
            sweep_point p = {&stages[i], &j, &chk, counts[c], opt.quiet, 0};
            report_row *row = cpu_sweep_row(&rep, stages[i].info.name, p.threads, &(measure_plan){.run = render_point,
                .timer = render_point_ms, .check = check_point, .context = &p, .repeat = (int)opt.repeat,
                .check_each_run = 1}, samples, j.busy, &one_thread);
            if (stages[i].rng != RNG_LIBC && rng_divisor != 65536)
                report_note(row, "; rng divisor %ld, not 65536", rng_divisor);
        }
        if (opt.images && image_write_stage(&img, opt.images, "ch03", stages[i].info.name) != 0)
            return EXIT_CHECK_FAIL;
    }
    /* The host's own limit (its FMA throughput at its widest vector ISA) on all the threads the sweep reaches, in
     * this run: a reference row (a sample's flops are not counted, so no stage claims a share of it). */
    cpu_fma_ceiling_row(&rep, (int)opt.threads, 3);
    int status = report_finish_image(&rep, 1, "ch03", &img, out, opt.quiet);
    report_print(&rep, stdout);
    image_free(&img);
    checker_free(&chk);
    return status;
}
