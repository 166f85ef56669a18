/* test_ex_ch03.c - exercise ch03: generator, per-row seeds, reproducible threads.
 *
 * Built against solutions/ch03 (must pass) and exercises/ch03 (the untouched
 * stub must fail); `make grade` builds it against exercises/ch03.
 *   - the generator: the same state gives the same number; values in [0, 1);
 *     the largest of 2^20 draws above 0.99; chi-square over 64 bins < 130
 *     (63 degrees of freedom: about 6 standard deviations), seed 12345;
 *   - row seeds: rows 0..4095 start 4096 different states;
 *   - the generator against its definition, computed here: from seeds 1, 7,
 *     12345 and 2^32 - 1, 1000 steps of state = 214013 state + 2531011 mod
 *     2^32, each value (state >> 16) / 65536 exactly (wrong constants, wrong
 *     bits or a wrong divisor all differ at the first step);
 *   - the image: the same bytes on 1, 3 and 8 threads at 33x31 and 64x17, and
 *     at 64 spp within 30 dB PSNR of the exact picture (computed here on a
 *     32x32 grid of points per pixel);
 *   - neighbouring rows' streams uncorrelated (|rho| < 0.1 over 4095 pairs);
 *   - each row rendered exactly once, and none past the end (a guard after
 *     the image stays untouched), when every read of the row counter is
 *     followed by another thread's read (tests/ex_ch03_atomics.h);
 *   - no data race under ThreadSanitizer (tests/ex_ch03_tsan_driver.c);
 *   - no undefined behaviour (signed overflow in the LCG, ...) nor a stray
 *     access under ASan + UBSan (tests/ex_ch03_ubsan_driver.c);
 *   - the schedule: on 4 threads, the thread that starts the first row is
 *     held up in it until every row has been started (at most 5 s). With rows
 *     handed out on demand the other threads start them all at once; with a
 *     fixed share, that thread's other rows wait for it; with a lock held while a row
 *     renders, no other row starts at all; the test says which. The outcome
 *     does not depend on timing: only a wrong schedule waits.
 */
#include "harness.h"

#include "render.h"
#include "scene.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

START_TEST(same_state_same_number)
{
    for (uint32_t seed = 1; seed < 1000; seed += 37) {
        uint32_t a = seed, b = seed;
        float x = ex_random(&a), y = ex_random(&b);
        ck_assert_msg(x == y && a == b, "state %u gave %f then %f", seed, x, y);
        ck_assert_msg(a != seed, "the state did not advance");
    }
}
END_TEST

START_TEST(generator_is_the_lcg_bit_for_bit)
{
    const uint32_t seeds[] = {1, 7, 12345, 0xFFFFFFFFu};
    for (int k = 0; k < 4; k++) {
        uint32_t state = seeds[k], want_state = seeds[k];
        for (int i = 0; i < 1000; i++) {
            want_state = (uint32_t)(214013ull * want_state + 2531011ull); /* mod 2^32 */
            float want = (float)(want_state >> 16) / 65536.0f;
            float got = ex_random(&state);
            ck_assert_msg(got == want && state == want_state,
                          "seed %u, step %d: got %.9f (state %u), want %.9f (state %u)", seeds[k], i, got, state, want,
                          want_state);
        }
    }
}
END_TEST

START_TEST(range_reach_and_uniformity)
{
    enum { BINS = 64, DRAWS = 1 << 20 };
    long count[BINS] = {0};
    uint32_t state = 12345;
    float hi = 0;
    for (int i = 0; i < DRAWS; i++) {
        float u = ex_random(&state);
        ck_assert_msg(u >= 0.0f && u < 1.0f, "draw %d is %f", i, u);
        hi = fmaxf(hi, u);
        count[(int)(u * BINS)]++;
    }
    ck_assert_msg(hi > 0.99f, "largest draw %f never reaches 0.99: check the divisor", hi);
    double expected = (double)DRAWS / BINS, chi2 = 0;
    for (int b = 0; b < BINS; b++)
        chi2 += (count[b] - expected) * (count[b] - expected) / expected;
    ck_assert_msg(chi2 < 130, "chi-square %.1f: not uniform", chi2);
}
END_TEST

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

START_TEST(rows_start_different_streams)
{
    enum { ROWS = 4096 };
    uint32_t seeds[ROWS];
    for (int r = 0; r < ROWS; r++) {
        seeds[r] = ex_row_seed(r);
        ck_assert_msg(seeds[r] == ex_row_seed(r), "ex_row_seed(%d): got %u, then %u: the same row must always give "
                                                  "the same seed", r, seeds[r], ex_row_seed(r));
    }
    qsort(seeds, ROWS, sizeof seeds[0], compare_u32);
    for (int r = 1; r < ROWS; r++)
        ck_assert_msg(seeds[r] != seeds[r - 1], "two rows share the seed %u", seeds[r]);
}
END_TEST

static const int sizes[][2] = {{33, 31}, {64, 17}};

START_TEST(same_bytes_on_1_and_4_threads)
{
    image a, b;
    int w = sizes[_i][0], h = sizes[_i][1];
    ck_assert_int_eq(image_alloc(&a, w, h), 0);
    ck_assert_int_eq(image_alloc(&b, w, h), 0);
    memset(b.rgb, 0x5A, image_bytes(&b));
    ex_render(&a, 16, 1);
    for (int threads = 3; threads <= 8; threads += 5) {
        ex_render(&b, 16, threads);
        size_t k = 0;
        while (k < image_bytes(&a) && a.rgb[k] == b.rgb[k])
            k++;
        ck_assert_msg(k == image_bytes(&a),
                      "%dx%d at 16 spp: %d threads give another image than 1 thread: pixel (%zu, %zu) has %u, "
                      "want %u (1 thread's)",
                      w, h, threads, k / 3 % (size_t)w, k / 3 / (size_t)w, b.rgb[k], a.rgb[k]);
    }
    image_free(&a);
    image_free(&b);
}
END_TEST

START_TEST(picture_within_psnr_bound)
{
    enum { W = 40, H = 30, GRID = 32 };
    image img, exact;
    ck_assert_int_eq(image_alloc(&img, W, H), 0);
    ck_assert_int_eq(image_alloc(&exact, W, H), 0);
    ex_render(&img, 64, 3);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            double sum = 0;
            for (int i = 0; i < GRID; i++)
                for (int k = 0; k < GRID; k++)
                    sum += scene_value(x + (i + 0.5f) / GRID, y + (k + 0.5f) / GRID, W, H);
            unsigned char v = (unsigned char)(sum / (GRID * GRID) + 0.5);
            unsigned char *p = exact.rgb + 3 * (y * W + x);
            p[0] = p[1] = p[2] = v;
        }
    image_diff d;
    image_compare(&img, &exact, &d);
    ck_assert_msg(d.psnr >= 30.0, "PSNR %.1f dB against the exact picture", d.psnr);
    image_free(&img);
    image_free(&exact);
}
END_TEST

static atomic_int rows_started, held_up, timed_out, held_row, started_before_hold, started_by_timeout, first_missing;
static atomic_int started_rows[64];
static int schedule_rows;

/* Holds the first thread to start a row, in that row, until every row has
 * started, or 5 s. (The first, whichever thread it is: holding thread 0 let a
 * lock held while rendering pass whenever the other threads had rendered every
 * row before thread 0 started.) */
static void hold_up_first_row(int thread, int row)
{
    (void)thread;
    int before = atomic_fetch_add(&rows_started, 1);
    if (row >= 0 && row < 64)
        atomic_store(&started_rows[row], 1);
    if (atomic_exchange(&held_up, 1))
        return;
    atomic_store(&held_row, row);
    atomic_store(&started_before_hold, before + 1);
    for (int ms = 0; atomic_load(&rows_started) < schedule_rows; ms++) {
        if (ms == 5000) {
            atomic_store(&started_by_timeout, atomic_load(&rows_started));
            for (int r = schedule_rows - 1; r >= 0; r--)
                if (!atomic_load(&started_rows[r]))
                    atomic_store(&first_missing, r);
            atomic_store(&timed_out, 1);
            return;
        }
        struct timespec nap = {0, 1000000};
        nanosleep(&nap, NULL);
    }
}

START_TEST(rows_are_handed_out_on_demand)
{
    image img;
    schedule_rows = 40;
    ck_assert_int_eq(image_alloc(&img, 16, schedule_rows), 0);
    atomic_store(&rows_started, 0);
    atomic_store(&held_up, 0);
    atomic_store(&timed_out, 0);
    for (int r = 0; r < 64; r++)
        atomic_store(&started_rows[r], 0);
    ex_row_started = hold_up_first_row;
    ex_render(&img, 1, 4);
    ex_row_started = NULL;
    ck_assert_msg(atomic_load(&rows_started) == schedule_rows, "got: %d rows started; want: %d (each row once)",
                  atomic_load(&rows_started), schedule_rows);
    if (atomic_load(&timed_out)) {
        int before = atomic_load(&started_before_hold), by = atomic_load(&started_by_timeout);
        /* Nothing started while the first row's thread was held: the others were waiting for it (a lock held
         * while a row renders). Some started, then they stopped with rows left: those rows were that thread's
         * (a fixed share). */
        ck_assert_msg(by != before,
                      "while the thread of the first row (row %d) was held up in it for 5 s, no other thread started a "
                      "row (%d of %d rows had started): they were waiting for that thread, so the rows are rendered one at "
                      "a time. A lock held while a row renders does this: take the next row under the lock (or with "
                      "one atomic fetch_add), let go, then render it",
                      atomic_load(&held_row), before, schedule_rows);
        ck_abort_msg("while the thread of the first row (row %d) was held up in it for 5 s, the other threads started %d "
                     "more rows, then stopped with %d not started (row %d the first): those rows waited for that thread, so rows "
                     "are not handed out on demand (a fixed share per thread?)",
                     atomic_load(&held_row), by - before, schedule_rows - by, atomic_load(&first_missing));
    }
    image_free(&img);
}
END_TEST

/* The atomics hook (ex_ch03_atomics.h): while paused, a thread that has just
 * read an atomic waits until another thread reads one too, or 20 ms. */
atomic_int ex_atomic_pause;
static atomic_int loads;

void ex_atomic_after_load(void)
{
    if (!atomic_load_explicit(&ex_atomic_pause, memory_order_relaxed))
        return;
    int mine = atomic_fetch_add(&loads, 1) + 1;
    for (int waited = 0; atomic_load_explicit(&loads, memory_order_relaxed) == mine && waited < 200; waited++) {
        struct timespec nap = {0, 100000};
        nanosleep(&nap, NULL);
    }
}

enum { ONCE_ROWS = 40, GUARD_ROWS = 64, ONCE_THREADS = 4, ONCE_RUNS = 4 };
static atomic_int started_per_row[ONCE_ROWS];
static atomic_int rows_outside, first_row_outside;

static void count_row(int thread, int row)
{
    (void)thread;
    if (row >= 0 && row < ONCE_ROWS)
        atomic_fetch_add(&started_per_row[row], 1);
    else if (atomic_fetch_add(&rows_outside, 1) == 0)
        atomic_store(&first_row_outside, row);
}

/* Every row rendered exactly once, and no row outside the image, even when
 * each read of the row counter is followed by another thread's read before
 * anything else happens (the hook above): the interleaving a lost update
 * needs, made certain. A check of the counter (load, compare with the height)
 * followed by a separate fetch_add lets every thread that passed the check
 * take a row, past the end too: the image sits on GUARD_ROWS more rows of
 * memory (img.height says ONCE_ROWS) filled with a byte no pixel has, and the
 * guard must come back untouched. Four renders. */
START_TEST(each_row_taken_once_when_reads_interleave)
{
    image img;
    ck_assert_int_eq(image_alloc(&img, 8, ONCE_ROWS + GUARD_ROWS), 0);
    size_t inside = image_bytes(&img) / (ONCE_ROWS + GUARD_ROWS) * ONCE_ROWS, all = image_bytes(&img);
    img.height = ONCE_ROWS; /* the rest is the guard */
    for (int run = 0; run < ONCE_RUNS; run++) {
        for (int r = 0; r < ONCE_ROWS; r++)
            atomic_store_explicit(&started_per_row[r], 0, memory_order_relaxed);
        atomic_store(&rows_outside, 0);
        memset(img.rgb + inside, 0x01, all - inside); /* the scene is never darker than 40 */
        ex_row_started = count_row;
        atomic_store(&ex_atomic_pause, 1);
        ex_render(&img, 1, ONCE_THREADS);
        atomic_store(&ex_atomic_pause, 0);
        ex_row_started = NULL;
        int outside = atomic_load(&rows_outside);
        ck_assert_msg(outside == 0,
                      "%d rows on %d threads, each read of the row counter followed by another thread's read: %d "
                      "row%s outside the image started (the first: row %d; the image has rows 0..%d). A check of the "
                      "counter, then a separate fetch_add, lets several threads pass the check for the last row and "
                      "each take one: test the row that fetch_add returned (y = atomic_fetch_add(...); y < height)",
                      ONCE_ROWS, ONCE_THREADS, outside, outside == 1 ? "" : "s", atomic_load(&first_row_outside),
                      ONCE_ROWS - 1);
        size_t k = inside;
        while (k < all && img.rgb[k] == 0x01)
            k++;
        ck_assert_msg(k == all,
                      "%d rows on %d threads, each read of the row counter followed by another thread's read: the "
                      "memory after the image's last row was written (byte %zu past the end): a row past the end was "
                      "rendered",
                      ONCE_ROWS, ONCE_THREADS, k - inside);
        for (int r = 0; r < ONCE_ROWS; r++) {
            int n = atomic_load_explicit(&started_per_row[r], memory_order_relaxed);
            ck_assert_msg(n == 1,
                          "%d rows on %d threads, each read of the row counter followed by another thread's read: row "
                          "%d was rendered %d times, want once (a read, then a write of the counter, lets two threads "
                          "take the same row: take it with one atomic read-modify-write)",
                          ONCE_ROWS, ONCE_THREADS, r, n);
        }
    }
    img.height = ONCE_ROWS + GUARD_ROWS;
    image_free(&img);
}
END_TEST

/* Pearson's correlation of x and y over n pairs. */
static double correlation(const double *x, const double *y, int n)
{
    double mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0;
    for (int i = 0; i < n; i++)
        mx += x[i] / n, my += y[i] / n;
    for (int i = 0; i < n; i++) {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
        syy += (y[i] - my) * (y[i] - my);
    }
    return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : 1;
}

/* Neighbouring rows start unrelated streams: over 4095 pairs of rows (r,
 * r + 1), the correlation of their k-th draws, k = 1..4, stays under 0.1 (for
 * independent streams it is about 0.016, so 0.1 is 6 standard deviations). A
 * row number used as the seed fails: LCG streams from seeds one apart draw
 * nearly the same first numbers. */
START_TEST(neighbouring_rows_are_uncorrelated)
{
    enum { ROWS = 4096, DRAWS = 4 };
    static double draw[DRAWS][ROWS];
    for (int r = 0; r < ROWS; r++) {
        uint32_t state = ex_row_seed(r);
        for (int k = 0; k < DRAWS; k++)
            draw[k][r] = ex_random(&state);
    }
    for (int k = 0; k < DRAWS; k++) {
        double rho = correlation(draw[k], draw[k] + 1, ROWS - 1);
        ck_assert_msg(fabs(rho) < 0.1,
                      "draw %d of rows r and r + 1, over %d pairs of rows: correlation %.3f, want |%.3f| < 0.1 (the "
                      "seeds of neighbouring rows start related streams: mix the row number, for example with an "
                      "integer hash)",
                      k + 1, ROWS - 1, rho, rho);
    }
}
END_TEST

/* No data race: the student's render.c built with ThreadSanitizer (and a small
 * driver, tests/ex_ch03_tsan_driver.c) renders on 8 threads without a report.
 * A generator state shared by threads, or a plain int as the row counter,
 * is a race TSan names with its lines, whether or not it changed the picture. */
START_TEST(no_data_race_under_thread_sanitizer)
{
    const char *dir = harness_scratch("test_ex_ch03");
    int built = harness_shell("cd %s && gcc -std=c11 -O1 -g -fsanitize=thread -D_POSIX_C_SOURCE=200809L -I%s -I%s/common "
                              "%s/tests/ex_ch03_tsan_driver.c %s/render.c %s/common/image.c -o tsan -lm "
                              "-pthread 2> build.txt",
                              harness_q(dir), harness_q(EX_DIR), harness_q(PROJECT_DIR), harness_q(PROJECT_DIR),
                              harness_q(EX_DIR), harness_q(PROJECT_DIR));
    ck_assert_msg(built == 0, "your render.c does not build with -fsanitize=thread (see %s/build.txt)", dir);
    int rc = harness_shell("cd %s && TSAN_OPTIONS='halt_on_error=1 exitcode=66' ./tsan > tsan.txt 2>&1", harness_q(dir));
    if (rc != 0) {
        char path[300];
        snprintf(path, sizeof path, "%s/tsan.txt", dir);
        char *report = harness_read_file(path);
        char *summary = report ? strstr(report, "SUMMARY:") : NULL;
        if (summary && strchr(summary, '\n'))
            *strchr(summary, '\n') = '\0';
        ck_abort_msg("ThreadSanitizer found a data race on 8 threads (exit %d): %s", rc,
                     summary ? summary : "(no summary: run the test to see the report)");
    }
}
END_TEST

/* No undefined behaviour: the student's render.c built with AddressSanitizer
 * and UndefinedBehaviorSanitizer, without recovery, and a driver
 * (tests/ex_ch03_ubsan_driver.c) that runs the generator, the row seeds and a
 * render. An LCG in signed int computes the right bits on every machine the
 * test runs on, but its overflow is undefined: the compiler may assume it never
 * happens. UBSan names the line. */
START_TEST(no_undefined_behaviour_under_ubsan)
{
    const char *dir = harness_scratch("test_ex_ch03");
    int built = harness_shell("gcc -std=c11 -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all "
                              "-fno-omit-frame-pointer -D_POSIX_C_SOURCE=200809L -I%s -I%s/common "
                              "%s/tests/ex_ch03_ubsan_driver.c %s/render.c %s/common/image.c -o %s/ubsan -lm "
                              "-pthread 2> %s/ubsan-build.txt",
                              harness_q(EX_DIR), harness_q(PROJECT_DIR), harness_q(PROJECT_DIR), harness_q(EX_DIR),
                              harness_q(PROJECT_DIR), harness_q(dir), harness_q(dir));
    ck_assert_msg(built == 0, "your render.c does not build with -fsanitize=address,undefined (see %s/ubsan-build.txt)",
                  dir);
    int rc = harness_shell("ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 %s/ubsan > %s/ubsan.txt 2>&1",
                           harness_q(dir), harness_q(dir));
    if (rc != 0) {
        char path[300];
        snprintf(path, sizeof path, "%s/ubsan.txt", dir);
        char *report = harness_read_file(path);
        char *line = report ? strstr(report, "runtime error:") : NULL;
        if (!line && report)
            line = strstr(report, "ERROR: AddressSanitizer");
        if (line) {
            while (line > report && line[-1] != '\n')
                line--; /* the whole line: file:line:column: runtime error: ... */
            if (strchr(line, '\n'))
                *strchr(line, '\n') = '\0';
            const char *slash = strrchr(line, '/');
            if (slash && slash < strstr(line, ": "))
                line = (char *)slash + 1; /* render.c:23:11: ..., not the whole path */
        }
        int overflow = line && strstr(line, "signed integer overflow");
        ck_abort_msg("undefined behaviour under -fsanitize=address,undefined (exit %d): %s%s", rc,
                     line ? line : "(no report line: run the test to see it)",
                     overflow ? " (signed int arithmetic must not overflow: the LCG works modulo 2^32 in uint32_t, "
                                "whose wrap-around is defined)"
                              : "");
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("exercise ch03");
    TCase *tc = tcase_create("generator and threads");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, same_state_same_number);
    tcase_add_test(tc, generator_is_the_lcg_bit_for_bit);
    tcase_add_test(tc, rows_are_handed_out_on_demand);
    tcase_add_test(tc, range_reach_and_uniformity);
    tcase_add_test(tc, rows_start_different_streams);
    tcase_add_loop_test(tc, same_bytes_on_1_and_4_threads, 0, sizeof sizes / sizeof sizes[0]);
    tcase_add_test(tc, picture_within_psnr_bound);
    tcase_add_test(tc, each_row_taken_once_when_reads_interleave);
    tcase_add_test(tc, neighbouring_rows_are_uncorrelated);
    tcase_add_test(tc, no_data_race_under_thread_sanitizer);
    tcase_add_test(tc, no_undefined_behaviour_under_ubsan);
    suite_add_tcase(s, tc);
    return harness_run(s, "exercise-ch03", 0);
}
