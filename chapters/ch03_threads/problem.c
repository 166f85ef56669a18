/* ch03 - the card on every core, and three reasons threads fail to help.
 *
 *   make ch03 && ./ch03                 # every stage at 1, 2, 4, ... all cores
 *   ./ch03 --threads 8 --stage rng-local
 *   ./ch03 --spp 8                      # quicker
 *
 * A stage is a worker function (how rows are handed out, threads.c) and a
 * generator placement; stages.h says what each changes and why it helps or
 * not. Each stage runs at every thread count of the sweep, one row each.
 * Checks (the image check below says how): the rng-* images are the same bytes
 * at every thread count; every image is the same picture as ch01's, up to noise.
 * After the stages, a row of the host's FMA ceiling (common/cpu_ceiling.h).
 */
#include "card.h"
#include "stages.h"

#include "../../common/cpu_ceiling.h"
#include "../../common/cpu_sweep.h"     /* and measure.h, report.h */
#include "../../common/program.h"
#include "../../common/raytracer.h"     /* and cli.h, image.h */

#include <math.h>
#include <stdio.h>
#include <string.h>

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
             "at that size (measured; see problem.c). Default output: ch03.ppm (the last image\n"
             "rendered, written only if every check passed); --images keeps each stage's image\n"
             "at the largest thread count.\n"
             "--rng-divisor 66635 reproduces the article's typo (rng-* stages only): its numbers\n"
             "never reach 0.984; the PSNR check barely moves, a difference image shows where it bites.",
};

/* The image check.
 *
 * From rng-packed on, every pixel reseeds the generator from its own index, so
 * the image is the same bytes at any thread count and schedule (checked).
 * rand-shared's image depends on the schedule, so it can only be the same
 * picture up to noise. At the standard workload it is compared with ch01's
 * image (the original program's output) by PSNR: two honest renders there are
 * 41.7 dB apart, and 38 dB passes. At other sizes the bound is measured, not
 * assumed: rng-local renders the picture twice with two sets of seeds, the
 * first is the reference, and the mean squared difference (MSE) of the pair is
 * the noise two honest renders have at this very workload. Under "the same
 * picture", rand-shared's MSE against the reference is a mean of the same kind
 * of per-byte squared differences, so it may exceed the honest pair's MSE by
 * chance only by a few standard errors: the check is a two-sample test,
 *     MSE_x <= MSE_honest + 5 * sd * sqrt(2 / N),
 * sd the standard deviation of the per-byte squared differences of both pairs
 * pooled (2N values). A small image (fewer bytes, or a strip through the
 * letters) gets a wider bound because its honest noise is larger, not by a
 * rule of thumb. Below 256 pixels the mean of so few, mostly zero, squared
 * differences is no normal variable, and the test cannot tell noise from an
 * error: the check then reads n/a (not ok, not FAIL).
 */
#define ORIGINAL_PSNR_DB 38.0
#define MIN_TEST_PIXELS 256

/* Sum and sum of squares of the per-byte squared differences of two images. */
typedef struct {
    double n, sum, sum_sq;
} sq_diffs;

static struct {
    image reference;     /* ch01's image, or the 1-thread rng-local render */
    image deterministic; /* the first rng-* image: all later rng-* images must equal it */
    int have_deterministic, standard;
    sq_diffs honest;     /* at other sizes: the two honest rng-local renders */
} chk;

static sq_diffs squared_differences(const image *a, const image *b)
{
    sq_diffs s = {(double)image_bytes(a), 0, 0};
    for (size_t i = 0; i < image_bytes(a); i++) {
        double d = (double)a->rgb[i] - b->rgb[i];
        s.sum += d * d;
        s.sum_sq += d * d * d * d;
    }
    return s;
}

/* The two-sample bound of the top of the check: 1 if x's MSE is within it. */
static int within_noise(const sq_diffs *honest, const sq_diffs *x, double *bound)
{
    double n = honest->n, mh = honest->sum / n, mx = x->sum / n;
    double ss = honest->sum_sq - n * mh * mh + x->sum_sq - n * mx * mx;
    double sd = sqrt(ss > 0 ? ss / (2 * n - 2) : 0);
    *bound = mh + 5 * sd * sqrt(2 / n);
    return mx <= *bound;
}

static void copy_image(image *dst, const image *src, const char *what)
{
    dst->width = src->width;
    dst->height = src->height;
    dst->rgb = cli_alloc(image_bytes(src), what);
    memcpy(dst->rgb, src->rgb, image_bytes(src));
}

/* 1 if img (stage s's) passes, 0 if not, REPORT_NO_CHECK if too small to
 * tell; what was found goes in note. */
static int check_image(const stage *s, const image *img, char *note, size_t len)
{
    if (s->rng != RNG_LIBC) {
        if (!chk.have_deterministic) {
            copy_image(&chk.deterministic, img, "the first rng-* image");
            chk.have_deterministic = 1;
        } else if (memcmp(chk.deterministic.rgb, img->rgb, image_bytes(img)) != 0) {
            snprintf(note, len, "image differs from the first rng-* image");
            return 0;
        }
    }
    image_diff d;
    image_compare(img, &chk.reference, &d);
    if (chk.standard) {
        snprintf(note, len, isinf(d.psnr) ? "identical to ch01's" : "%.1f dB vs ch01's", d.psnr);
        return d.psnr >= ORIGINAL_PSNR_DB;
    }
    if (d.differing == 0) {
        snprintf(note, len, "identical to the reference");
        return 1;
    }
    if ((long)img->width * img->height < MIN_TEST_PIXELS) {
        snprintf(note, len, "too few pixels to tell noise from error");
        return REPORT_NO_CHECK;
    }
    sq_diffs x = squared_differences(img, &chk.reference);
    double bound;
    int ok = within_noise(&chk.honest, &x, &bound);
    snprintf(note, len, "MSE %.3g vs the reference (honest noise %.3g, bound %.3g)", x.sum / x.n,
             chk.honest.sum / chk.honest.n, bound);
    return ok;
}

/* The reference: ch01's image at the standard workload, else two renders with
 * `local` (rng-local) on one thread, seeds differing. */
static void checker_init(const cli_options *opt, const stage *local, job *j)
{
    chk.standard = raytracer_read_original(&chk.reference, opt);
    if (chk.standard)
        return;
    if (!opt->quiet)
        fprintf(stderr, "ch03: no reference image at this size: rendering rng-local twice on 1 thread first\n");
    run_stage(local, j, 1, 1);
    copy_image(&chk.reference, j->img, "the reference image");
    card_set_seed_salt(0x5A17u); /* the second honest render: other seeds */
    run_stage(local, j, 1, 1);
    card_set_seed_salt(0);
    chk.honest = squared_differences(&chk.reference, j->img);
}

/* The program. */
static job j; /* large (per-thread arrays): not on the stack */
static image img;

static void setup(program_run *p)
{
    raytracer_image_alloc(&img, "ch03", &p->opt);
    j.img = &img, j.spp = (int)p->opt.spp;
    checker_init(&p->opt, check_reference_stage(), &j);
    if (rng_divisor != 65536) /* after the checker: a reference it renders uses the right divisor */
        card_set_rng_divisor((float)rng_divisor);
}

/* One stage at one thread count: what measure_stage runs and checks. */
typedef struct {
    const stage *s;
    int threads, quiet;
    double seconds; /* the last run's */
} sweep_point;

static void render_point(void *context)
{
    sweep_point *p = context;
    p->seconds = run_stage(p->s, &j, p->threads, p->quiet);
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
    return check_image(p->s, &img, note, size);
}

/* The stage at 1, 2, 4, ... --threads threads, a row each; each run checked (a run takes seconds). */
static int sweep(program_run *p, size_t i)
{
    int counts[32], ncounts = cpu_sweep_counts((int)p->opt.threads, counts);
    double samples = (double)p->opt.width * p->opt.height * p->opt.spp, one_thread = 0;
    for (int c = 0; c < ncounts; c++) {
        sweep_point point = {&stages[i], counts[c], p->opt.quiet, 0};
        report_row *row = cpu_sweep_row(p->rep, stages[i].info.name, point.threads, &(measure_plan){
            .run = render_point, .timer = render_point_ms, .check = check_point, .context = &point,
            .repeat = (int)p->opt.repeat, .check_each_run = 1}, samples, j.busy, &one_thread);
        if (stages[i].rng != RNG_LIBC && rng_divisor != 65536)
            report_note(row, "; rng divisor %ld, not 65536", rng_divisor);
    }
    return 0;
}

/* The host's own limit (its FMA throughput at its widest vector ISA) on all the threads the sweep reaches, in
 * this run: a reference row (a sample's flops are not counted, so no stage claims a share of it). */
static void ceiling(program_run *p)
{
    cpu_fma_ceiling_row(p->rep, (int)p->opt.threads, 3);
}

static void teardown(program_run *p)
{
    (void)p;
    image_free(&img);
    image_free(&chk.reference);
    image_free(&chk.deterministic);
}

const program chapter_program = {
    .spec = &spec,
    .defaults = {.width = 512, .height = 512, .spp = 64, .repeat = 1, .threads = PROGRAM_ALL_CORES},
    .picture = "ch03.ppm",
    .setup = setup,
    .workload = raytracer_program_workload,
    .stage = sweep,
    .end = ceiling,
    .picture_image = &img,
    .teardown = teardown,
};
