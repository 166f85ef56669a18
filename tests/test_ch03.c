/* test_ch03.c - the threaded card: the same bytes at any thread count.
 *
 * Sizes are odd (33x31, 7x3, 1x1) so rows do not split evenly among threads.
 * The generator is checked on its own: values in [0, 1), reaching above 0.99
 * (the article's divisor typo, 66635, never gets there), and uniform by a
 * chi-square test over 64 bins, 2^20 draws from seed 12345.
 */
#include "harness.h"

#include "card.h"
#include "stages.h"
#include "threads.h"

#include "cli.h"
#include "cpu_ceiling.h"
#include "cpu_sweep.h"

#include <math.h>
#include <string.h>

static job j; /* large: keep it off the stack */
static const cli_spec spec = {.program = "test_ch03", CLI_STAGE_TABLE(stages)};

static void render(image *img, int w, int h, int spp, const char *stage_name, int threads)
{
    int index = cli_stage_index(&spec, stage_name);
    ck_assert_msg(index >= 0, "no stage %s", stage_name);
    ck_assert_int_eq(image_alloc(img, w, h), 0);
    memset(img->rgb, 0xCD, image_bytes(img)); /* poison: every byte must be written */
    j.img = img;
    j.spp = spp;
    double s = run_stage(&stages[index], &j, threads, 1);
    ck_assert(s >= 0);
}

static const int sizes[][3] = {{33, 31, 3}, {7, 3, 2}, {1, 1, 5}, {64, 5, 1}};

START_TEST(same_bytes_at_1_and_4_threads_in_every_rng_stage)
{
    int w = sizes[_i][0], h = sizes[_i][1], spp = sizes[_i][2];
    image first;
    render(&first, w, h, spp, "rng-packed", 1);
    for (size_t s = 0; s < STAGE_COUNT; s++)
        for (int threads = 1; threads <= 5 && stages[s].rng != RNG_LIBC; threads += 3) {
            image img;
            render(&img, w, h, spp, stages[s].info.name, threads);
            ck_assert_msg(memcmp(img.rgb, first.rgb, image_bytes(&img)) == 0, "%s on %d threads differs",
                          stages[s].info.name, threads);
            image_free(&img);
        }
    image_free(&first);
}
END_TEST

START_TEST(more_threads_than_rows)
{
    image a, b;
    render(&a, 9, 2, 2, "rng-local-dynamic", 1);
    render(&b, 9, 2, 2, "rng-local-dynamic", 16); /* 14 threads get no row */
    ck_assert_mem_eq(a.rgb, b.rgb, image_bytes(&a));
    image_free(&b);
    render(&b, 9, 2, 2, "rng-local", 16);
    ck_assert_mem_eq(a.rgb, b.rgb, image_bytes(&a));
    image_free(&a);
    image_free(&b);
}
END_TEST

START_TEST(rand_shared_renders_the_same_picture)
{
    /* rand-shared draws other numbers, so only the picture is the same: the
     * PSNR against the deterministic render must stay high. */
    image det, shared;
    render(&det, 48, 48, 16, "rng-local", 1);
    render(&shared, 48, 48, 16, "rand-shared", 3);
    image_diff d;
    image_compare(&det, &shared, &d);
    ck_assert_msg(d.psnr > 30.0, "PSNR %.1f dB", d.psnr);
    ck_assert_msg(d.differing > 0, "rand() and the LCG gave the same bytes: rand-shared is not using rand()");
    image_free(&det);
    image_free(&shared);
}
END_TEST

START_TEST(generator_range_and_reach)
{
    uint32_t state = 12345;
    float lo = 1, hi = 0;
    for (int i = 0; i < 1 << 20; i++) {
        float u = card_lcg_next(&state);
        ck_assert(u >= 0.0f && u < 1.0f);
        lo = fminf(lo, u);
        hi = fmaxf(hi, u);
    }
    ck_assert_msg(hi > 0.99f, "largest value %.5f: is the divisor 65536?", hi);
    ck_assert(lo < 0.01f);
}
END_TEST

/* The article's typo, on demand: the same integers over 66635 never reach
 * 0.984; back at 65536 the generator gives exactly what it gave before. */
START_TEST(divisor_typo_shrinks_the_range)
{
    uint32_t a = 777, b = 777;
    float hi = 0;
    card_set_rng_divisor(66635.0f);
    for (int i = 0; i < 1 << 16; i++)
        hi = fmaxf(hi, card_lcg_next(&a));
    card_set_rng_divisor(65536.0f);
    ck_assert_msg(hi < 65535.0f / 66635.0f + 1e-6f && hi > 0.98f, "largest value %.5f with divisor 66635", hi);
    for (int i = 0; i < 1000; i++) {
        uint32_t before = b;
        float u = card_lcg_next(&b);
        ck_assert_float_eq(u, (float)(((214013u * before + 2531011u) >> 16) & 0xFFFF) / 65536.0f);
    }
}
END_TEST

START_TEST(generator_is_uniform)
{
    /* 64 bins, 2^20 draws: the chi-square statistic has 63 degrees of freedom,
     * mean 63, sd ~11.2; 130 is about 6 sd out. */
    enum { BINS = 64, DRAWS = 1 << 20 };
    long count[BINS] = {0};
    uint32_t state = 12345;
    for (int i = 0; i < DRAWS; i++)
        count[(int)(card_lcg_next(&state) * BINS)]++;
    double expected = (double)DRAWS / BINS, chi2 = 0;
    for (int b = 0; b < BINS; b++)
        chi2 += (count[b] - expected) * (count[b] - expected) / expected;
    ck_assert_msg(chi2 < 130, "chi-square %.1f", chi2);
}
END_TEST

START_TEST(pixel_seeds_differ)
{
    /* Neighbouring pixels must not start the same stream. */
    uint32_t a = card_pixel_seed(10, 20, 512), b = card_pixel_seed(11, 20, 512), c = card_pixel_seed(10, 21, 512);
    ck_assert(a != b && a != c && b != c);
    ck_assert_uint_eq(card_pixel_seed(3, 4, 100), card_pixel_seed(3, 4, 100));
}
END_TEST

/* The program prints the host's FMA ceiling after its stages, on --threads
 * threads, at the ISA this CPU has (the note says which, and the host's
 * CPUs), as a reference row (check n/a), in its table and its CSV. */
#ifndef PROGRAM_DIR /* make sanitize's build: run from the repository's root */
#define PROGRAM_DIR "."
#endif
#include "fma_ceiling_row.h"

START_TEST(the_fma_ceiling_row_is_printed)
{
    check_fma_ceiling_row("ch03",
                          "--stage rng-local --width 9 --height 7 --spp 1 --threads 3 --quiet",
                          "rng-local", "ch03,ceiling-cpu-fma,9x7x1spp,3,");
}
END_TEST

/* problem.c names no stage: the image check's reference is the row stages.h
 * picks by its generator, and that must stay rng-local (nothing shared). */
START_TEST(the_check_reference_is_rng_local)
{
    const stage *s = check_reference_stage();
    ck_assert_str_eq(s->info.name, "rng-local");
    ck_assert_int_eq(s->rng, RNG_LOCAL);
}
END_TEST

/* The sweep: powers of two below the maximum, then the maximum; the balance
 * figure is the busiest thread over the mean. */
START_TEST(sweep_counts_and_balance)
{
    int c[32];
    ck_assert_int_eq(cpu_sweep_counts(1, c), 1);
    ck_assert_int_eq(c[0], 1);
    ck_assert_int_eq(cpu_sweep_counts(6, c), 4);
    ck_assert(c[0] == 1 && c[1] == 2 && c[2] == 4 && c[3] == 6);
    ck_assert_int_eq(cpu_sweep_counts(8, c), 4);
    ck_assert(c[2] == 4 && c[3] == 8);
    const double even[] = {2, 2, 2}, skewed[] = {3, 1, 0, 0}, idle[] = {0, 0};
    ck_assert_double_eq(cpu_busy_imbalance(even, 3), 1);
    ck_assert_double_eq(cpu_busy_imbalance(skewed, 4), 3); /* 3 over a mean of 1 */
    ck_assert_double_eq(cpu_busy_imbalance(idle, 2), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ch03");
    TCase *tc = tcase_create("all");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, same_bytes_at_1_and_4_threads_in_every_rng_stage, 0, sizeof sizes / sizeof sizes[0]);
    tcase_add_test(tc, more_threads_than_rows);
    tcase_add_test(tc, rand_shared_renders_the_same_picture);
    tcase_add_test(tc, generator_range_and_reach);
    tcase_add_test(tc, divisor_typo_shrinks_the_range);
    tcase_add_test(tc, generator_is_uniform);
    tcase_add_test(tc, pixel_seeds_differ);
    tcase_add_test(tc, the_check_reference_is_rng_local);
    tcase_add_test(tc, sweep_counts_and_balance);
    int skipped = 0;
    if (harness_shell("%s/ch03 --list-stages > /dev/null 2>&1", harness_q(PROGRAM_DIR)) == 0) {
        tcase_add_test(tc, the_fma_ceiling_row_is_printed);
    } else {
        printf("%s/ch03 cannot run (not built?): the ceiling row's test skipped\n", PROGRAM_DIR);
        skipped++;
    }
    suite_add_tcase(s, tc);
    return harness_run(s, "ch03", skipped);
}
