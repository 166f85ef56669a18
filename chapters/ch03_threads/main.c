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
 * Checks (image_check.c says how): the rng-* images are the same bytes at every
 * thread count; every image is the same picture as ch01's, up to noise.
 * After the stages, the row ceiling-cpu-fma: the host's FMA throughput on
 * --threads threads at its widest vector ISA (common/cpu_ceiling.h), measured
 * in the same run, so the table shows what these cores can do at best.
 */
#define _GNU_SOURCE
#include "card.h"
#include "image_check.h"
#include "stages.h"
#include "threads.h"

#include "../../common/cli.h"
#include "../../common/cpu_ceiling.h"
#include "../../common/image.h"
#include "../../common/measure.h"
#include "../../common/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
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

static long context_switches(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_nvcsw + u.ru_nivcsw;
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

/* One stage at one thread count: what measure_stage runs and checks. */
typedef struct {
    const stage *s;
    job *j;
    checker *chk;
    int threads, quiet;
} sweep_point;

static void render_point(void *context)
{
    sweep_point *p = context;
    run_stage(p->s, p->j, p->threads, p->quiet);
}

/* The measured time is the render's own, from its threads' start to the last
 * one's finish (run_stage), not the main thread's: that one only wakes every
 * 20 ms to draw the progress, and would round every time up to its naps. */
static double render_point_ms(measure_fn *run, void *context)
{
    (void)run;
    sweep_point *p = context;
    return 1e3 * run_stage(p->s, p->j, p->threads, p->quiet);
}

static int check_point(void *context, char *note, size_t size)
{
    sweep_point *p = context;
    return check_image(p->chk, p->s, p->j->img, note, size);
}

/* One row of the sweep: `threads` threads, repeat runs, each checked. */
static void run_row(report *rep, sweep_point *p, const cli_options *opt, double *one_thread)
{
    long switches = context_switches();
    measure_result m;
    measure_stage(&(measure_plan){.run = render_point, .timer = render_point_ms, .check = check_point, .context = p,
                                  .repeat = (int)opt->repeat, .check_each_run = 1}, &m);
    switches = (context_switches() - switches) / opt->repeat;
    double ms = m.times.median, busy_max = 0, busy_sum = 0;
    if (p->threads == 1)
        *one_thread = ms;
    for (int t = 0; t < p->threads; t++) {
        busy_max = fmax(busy_max, p->j->busy[t]);
        busy_sum += p->j->busy[t];
    }
    double msamples = (double)opt->width * opt->height * opt->spp / (ms * 1e3);
    report_row *row = report_measured(rep, p->s->info.name, p->threads, &m, msamples, "Msamples/s", host_cpu_name());
    if (*one_thread > 0)
        report_note(row, ", eff %.0f%%", 100 * *one_thread / (p->threads * ms));
    report_note(row, ", busy max/mean %.2f, %ld ctx sw", busy_sum > 0 ? busy_max * p->threads / busy_sum : 0,
                switches);
    if (p->s->rng != RNG_LIBC && rng_divisor != 65536)
        report_note(row, "; rng divisor %ld, not 65536", rng_divisor);
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
    if (image_alloc(&img, (int)opt.width, (int)opt.height) != 0) {
        fprintf(stderr, "ch03: out of memory (%ldx%ld image)\n", opt.width, opt.height);
        return EXIT_CHECK_FAIL;
    }
    j.img = &img;
    j.spp = (int)opt.spp;
    checker chk;
    int standard = opt.width == 512 && opt.height == 512 && opt.spp == 64;
    checker_init(&chk, standard, &stages[cli_stage_index(&spec, "rng-local")], &j, opt.quiet);
    if (rng_divisor != 65536) /* after the checker: a reference it renders uses the right divisor */
        card_set_rng_divisor((float)rng_divisor);

    char workload[96];
    snprintf(workload, sizeof workload, "%ldx%ldx%ldspp", opt.width, opt.height, opt.spp);
    report rep;
    report_init(&rep, "ch03", workload, opt.csv, opt.quiet);
    int counts[32], ncounts = sweep_counts((int)opt.threads, counts);
    for (size_t i = 0; i < STAGE_COUNT; i++) {
        if (!cli_stage_selected(&opt, i))
            continue;
        double one_thread = 0;
        for (int c = 0; c < ncounts; c++)
            run_row(&rep, &(sweep_point){&stages[i], &j, &chk, counts[c], opt.quiet}, &opt, &one_thread);
        if (opt.images && image_write_stage(&img, opt.images, "ch03", stages[i].info.name) != 0)
            return EXIT_CHECK_FAIL;
    }
    /* The host's own limit on all the threads the sweep reaches, measured in
     * this run: a reference row (a sample's flops are not counted, so no stage
     * claims a share of it), short beside the renders. */
    cpu_fma_ceiling_row(&rep, (int)opt.threads, 3);

    int status = report_finish_image(&rep, 1, "ch03", &img, out, opt.quiet);
    report_print(&rep, stdout);
    image_free(&img);
    checker_free(&chk);
    return status;
}
