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
 *   - the same schedule without the test's hook: the code a user runs has
 *     ex_row_started NULL, so an answer that took rows on demand only while
 *     the hook is set would be graded on code nobody runs. The schedule and
 *     each-row-once checks run again with ex_row_started NULL, the test
 *     watching the image's memory instead (each row on pages of its own, read
 *     only: a row's first write traps, and the trap holds the thread or notes
 *     it); and the counter's atomics (reported by tests/ex_ch03_atomics.h, in
 *     every build alike) must be the same kinds with and without the hook.
 * Every call into the answer goes through ANSWER / harness_answer (harness.h,
 * "the probe and the judge"): for grading, the checks run in a process the
 * answer never ran in, and every observation of the answer (its numbers, its
 * images, which rows started when, its atomics) comes to them through it. The
 * sanitizer builds run only in the judge, each in a fresh folder, sandboxed.
 */
#include "harness.h"

#include "ex_ch03_atomics.h"
#include "render.h"
#include "scene.h"

#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* The test's own atomics are not the answer's: not reported, never paused. */
#undef atomic_load
#define atomic_load(p) EX_RAW_LOAD((p), memory_order_seq_cst)
#undef atomic_load_explicit
#define atomic_load_explicit(p, order) EX_RAW_LOAD((p), (order))
#undef atomic_store
#define atomic_store(p, v) EX_RAW_STORE((p), (v), memory_order_seq_cst)
#undef atomic_store_explicit
#define atomic_store_explicit(p, v, order) EX_RAW_STORE((p), (v), (order))
#undef atomic_fetch_add
#define atomic_fetch_add(p, v) EX_RAW_FETCH_ADD((p), (v), memory_order_seq_cst)

static void nap_us(long us)
{
    struct timespec t = {us / 1000000, us % 1000000 * 1000};
    nanosleep(&t, NULL);
}

typedef struct {
    float x, y;
    uint32_t a, b;
} two_draws;

static two_draws draw_twice(uint32_t seed)
{
    two_draws d = {0, 0, seed, seed};
    d.x = ex_random(&d.a);
    d.y = ex_random(&d.b);
    return d;
}

START_TEST(same_state_same_number)
{
    for (uint32_t seed = 1; seed < 1000; seed += 37) {
        two_draws d;
        ANSWER(d, draw_twice(seed));
        ck_assert_msg(d.x == d.y && d.a == d.b, "state %u gave %f then %f", seed, d.x, d.y);
        ck_assert_msg(d.a != seed, "the state did not advance");
    }
}
END_TEST

START_TEST(generator_is_the_lcg_bit_for_bit)
{
    enum { STEPS = 1000 };
    const uint32_t seeds[] = {1, 7, 12345, 0xFFFFFFFFu};
    for (int k = 0; k < 4; k++) {
        static float got[STEPS];
        static uint32_t got_state[STEPS];
        if (HARNESS_CALLS_ANSWER) {
            uint32_t state = seeds[k];
            for (int i = 0; i < STEPS; i++) {
                got[i] = ex_random(&state);
                got_state[i] = state;
            }
        }
        harness_answer(got, sizeof got);
        harness_answer(got_state, sizeof got_state);
        uint32_t want_state = seeds[k];
        for (int i = 0; i < STEPS; i++) {
            want_state = (uint32_t)(214013ull * want_state + 2531011ull); /* mod 2^32 */
            float want = (float)(want_state >> 16) / 65536.0f;
            ck_assert_msg(got[i] == want && got_state[i] == want_state,
                          "seed %u, step %d: got %.9f (state %u), want %.9f (state %u)", seeds[k], i, got[i],
                          got_state[i], want, want_state);
        }
    }
}
END_TEST

START_TEST(range_reach_and_uniformity)
{
    enum { BINS = 64, DRAWS = 1 << 20 };
    static float draws[DRAWS];
    if (HARNESS_CALLS_ANSWER) {
        uint32_t state = 12345;
        for (int i = 0; i < DRAWS; i++)
            draws[i] = ex_random(&state);
    }
    harness_answer(draws, sizeof draws);
    long count[BINS] = {0};
    float hi = 0;
    for (int i = 0; i < DRAWS; i++) {
        float u = draws[i];
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
    static uint32_t seeds[ROWS], again[ROWS];
    if (HARNESS_CALLS_ANSWER)
        for (int r = 0; r < ROWS; r++) {
            seeds[r] = ex_row_seed(r);
            again[r] = ex_row_seed(r);
        }
    harness_answer(seeds, sizeof seeds);
    harness_answer(again, sizeof again);
    for (int r = 0; r < ROWS; r++)
        ck_assert_msg(seeds[r] == again[r], "ex_row_seed(%d): got %u, then %u: the same row must always give "
                                            "the same seed", r, seeds[r], again[r]);
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
    if (HARNESS_CALLS_ANSWER)
        ex_render(&a, 16, 1);
    harness_answer(a.rgb, image_bytes(&a));
    for (int threads = 3; threads <= 8; threads += 5) {
        if (HARNESS_CALLS_ANSWER)
            ex_render(&b, 16, threads);
        harness_answer(b.rgb, image_bytes(&b));
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
    if (HARNESS_CALLS_ANSWER)
        ex_render(&img, 64, 3);
    harness_answer(img.rgb, image_bytes(&img));
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

/* ------------------------------------------------ the answer's threads, watched
 * Every thread that reports an atomic or traps on the image gets a slot, 0, 1,
 * ..., counted afresh for each render. */
static atomic_int watch_generation = 1, watch_threads;
static _Thread_local int my_generation, my_slot;

static int thread_slot(void)
{
    int g = atomic_load(&watch_generation);
    if (my_generation != g) {
        my_generation = g;
        my_slot = atomic_fetch_add(&watch_threads, 1);
    }
    return my_slot;
}

/* The answer's atomics, as tests/ex_ch03_atomics.h reports them: a log per
 * render (it is what the judge reads: addresses only tell one atomic from
 * another). */
enum { LOG_MAX = 4096 };
typedef struct {
    int32_t kind, slot;
    uint64_t addr;
    int64_t before, after;
} atomic_op;
typedef struct {
    int32_t count, dropped;
    atomic_op op[LOG_MAX];
} atomic_log;
static atomic_log ops;
static atomic_int ops_next, pausing, loads;

/* A new render is about to start: fresh slots, an empty log. */
static void watch_new_render(void)
{
    atomic_fetch_add(&watch_generation, 1);
    atomic_store(&watch_threads, 0);
    atomic_store(&ops_next, 0);
}

/* After the render (its threads joined): the log as it stands. */
static void watch_take_log(atomic_log *log)
{
    int n = atomic_load(&ops_next);
    ops.count = n < LOG_MAX ? n : LOG_MAX;
    ops.dropped = n - ops.count;
    memcpy(log, &ops, sizeof ops);
}

/* Called by every atomic_load, atomic_store and atomic_fetch_add of the
 * answer's, in every run alike: it notes the operation; while the test pauses,
 * a thread that has just loaded waits until another thread loads too, or 20 ms. */
void ex_atomic_event(int kind, const volatile void *p, long long before, long long after)
{
    int i = atomic_fetch_add(&ops_next, 1);
    if (i >= 0 && i < LOG_MAX)
        ops.op[i] = (atomic_op){kind, thread_slot(), (uint64_t)(uintptr_t)p, before, after};
    if (kind != EX_ATOMIC_LOAD || !atomic_load_explicit(&pausing, memory_order_relaxed))
        return;
    int mine = atomic_fetch_add(&loads, 1) + 1;
    for (int waited = 0; atomic_load_explicit(&loads, memory_order_relaxed) == mine && waited < 200; waited++)
        nap_us(100);
}

/* What the log says the row counter went through, for the messages: a store
 * of v by a thread whose last operation on that atomic was a load of v - 1 is
 * a read, then a write (stale_writes); any other store below a value the
 * atomic already had is the counter set back (a reset: from, to). */
typedef struct {
    int stale_writes, set_backs;
    long long from, to;
    int loads, stores, fetch_adds;
} counter_story;

static counter_story read_log(const atomic_log *log)
{
    counter_story s = {0};
    int n = log->count >= 0 && log->count <= LOG_MAX ? log->count : 0;
    for (int i = 0; i < n; i++) {
        const atomic_op *e = &log->op[i];
        s.loads += e->kind == EX_ATOMIC_LOAD;
        s.stores += e->kind == EX_ATOMIC_STORE;
        s.fetch_adds += e->kind == EX_ATOMIC_FETCH_ADD;
        if (e->kind != EX_ATOMIC_STORE)
            continue;
        long long max = e->before;
        const atomic_op *last = NULL;
        for (int j = 0; j < i; j++)
            if (log->op[j].addr == e->addr) {
                if (log->op[j].after > max)
                    max = log->op[j].after;
                if (log->op[j].slot == e->slot)
                    last = &log->op[j];
            }
        if (last && last->kind == EX_ATOMIC_LOAD && e->before == last->before + 1)
            s.stale_writes++;
        else if (e->before < max && s.set_backs++ == 0)
            s.from = max, s.to = e->before;
    }
    return s;
}

/* Why a row was handed out twice, in the words of the log. */
static const char *twice_why(const counter_story *s, char *text, size_t size)
{
    if (s->set_backs)
        snprintf(text, size, "the row counter was set back from %lld to %lld while threads were taking rows, so rows "
                 "were handed out again: set it to 0 once, before the threads start, and after that only advance it",
                 s->from, s->to);
    else if (s->stale_writes)
        snprintf(text, size, "a read, then a write of the counter (%d times: a load, then a store of that value plus "
                 "one), lets two threads take the same row: take it with one atomic read-modify-write",
                 s->stale_writes);
    else
        snprintf(text, size, "two threads were handed the same row: each row must come from one atomic "
                 "read-modify-write of the counter (atomic_fetch_add), and the counter must never go back");
    return text;
}

/* ------------------------------------------------------- the schedule, held up
 * What a held-up render shows: rows started (all, and before the hold began
 * and by its time-out), the held row, the first row that never started. */
typedef struct {
    int32_t started, timed_out, held_row, before, by, first_missing;
} hold_result;

static void check_hold(const hold_result *r, int rows, const char *how, const atomic_log *log)
{
    if (r->started != rows) {
        counter_story s = read_log(log);
        char why[400];
        ck_abort_msg("%sgot: %d rows started; want: %d (each row once)%s%s", how, r->started, rows,
                     r->started > rows ? ": " : "", r->started > rows ? twice_why(&s, why, sizeof why) : "");
    }
    if (!r->timed_out)
        return;
    /* Nothing started while the first row's thread was held: the others were waiting for it (a lock held while a
     * row renders). Some started, then they stopped with rows left: those rows were that thread's (a fixed share). */
    ck_assert_msg(r->by != r->before,
                  "%swhile the thread of the first row (row %d) was held up in it for 5 s, no other thread started a "
                  "row (%d of %d rows had started): they were waiting for that thread, so the rows are rendered one at "
                  "a time. A lock held while a row renders does this: take the next row under the lock (or with "
                  "one atomic fetch_add), let go, then render it",
                  how, r->held_row, r->before, rows);
    ck_abort_msg("%swhile the thread of the first row (row %d) was held up in it for 5 s, the other threads started %d "
                 "more rows, then stopped with %d not started (row %d the first): those rows waited for that thread, so rows "
                 "are not handed out on demand (a fixed share per thread?)",
                 how, r->held_row, r->by - r->before, rows - r->by, r->first_missing);
}

static atomic_int rows_started, held_up, timed_out, held_row, started_before_hold, started_by_timeout, first_missing;
static atomic_int started_rows[64];
static int schedule_rows;

/* Holds the calling thread, which started the first row, until every row has
 * started or 5 s pass (then notes which rows had not). others, where not
 * NULL: the threads but this one writing the held row (then it is let go:
 * that row was handed out twice). */
static void hold_until_all_started(atomic_int *started, const atomic_int *row_started, int rows,
                                   const atomic_ullong *others, unsigned long long me)
{
    for (int ms = 0; atomic_load(started) < rows && !(others && (atomic_load(others) & ~me)); ms++) {
        if (ms == 5000) {
            atomic_store(&started_by_timeout, atomic_load(started));
            for (int r = rows - 1; r >= 0; r--)
                if (!atomic_load(&row_started[r]))
                    atomic_store(&first_missing, r);
            atomic_store(&timed_out, 1);
            return;
        }
        nap_us(1000);
    }
}

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
    hold_until_all_started(&rows_started, started_rows, schedule_rows, NULL, 0);
}

static void hold_reset(void)
{
    atomic_store(&rows_started, 0);
    atomic_store(&held_up, 0);
    atomic_store(&timed_out, 0);
    atomic_store(&first_missing, -1);
    for (int r = 0; r < 64; r++)
        atomic_store(&started_rows[r], 0);
}

static hold_result hold_take(void)
{
    return (hold_result){atomic_load(&rows_started), atomic_load(&timed_out), atomic_load(&held_row),
                         atomic_load(&started_before_hold), atomic_load(&started_by_timeout),
                         atomic_load(&first_missing)};
}

START_TEST(rows_are_handed_out_on_demand)
{
    image img;
    schedule_rows = 40;
    ck_assert_int_eq(image_alloc(&img, 16, schedule_rows), 0);
    hold_result r = {0};
    static atomic_log log;
    if (HARNESS_CALLS_ANSWER) {
        hold_reset();
        watch_new_render();
        ex_row_started = hold_up_first_row;
        ex_render(&img, 1, 4);
        ex_row_started = NULL;
        r = hold_take();
        watch_take_log(&log);
    }
    harness_answer(&r, sizeof r);
    harness_answer(&log, sizeof log);
    check_hold(&r, schedule_rows, "", &log);
    image_free(&img);
}
END_TEST

/* ------------------------------------------- the image's memory, watched
 * Without the test's hook (ex_row_started NULL, as in the code a user runs),
 * the test sees the rows through the image's memory: each row fills whole
 * pages, all read-only while the answer renders. A row's first write traps
 * (SIGSEGV); the handler notes which thread wrote which row, then either holds
 * the first row's thread until every row has started (the schedule, as above),
 * or waits up to 50 ms in every row for a second thread writing it (a row
 * handed out twice), and then lets the row be written. The image sits on
 * WATCH_GUARD more rows, also watched: a write there is a row past the end. */
enum { WATCH_ROWS = 40, WATCH_GUARD = 8, WATCH_ALL = WATCH_ROWS + WATCH_GUARD };
typedef struct {
    int32_t outside, first_outside, rows_twice, first_twice, unwritten, first_unwritten;
} watch_result;
static struct {
    unsigned char *base;
    size_t row_bytes;
    int hold; /* 1: hold the first row's thread; 0: wait for a second writer */
    atomic_ullong writers[WATCH_ALL];
    atomic_int first[WATCH_ALL], started, outside, first_outside;
} watch;

static void watch_protect(int row, int prot)
{
    if (mprotect(watch.base + (size_t)row * watch.row_bytes, watch.row_bytes, prot) != 0)
        abort();
}

static void watch_trap(int sig, siginfo_t *si, void *context)
{
    (void)sig, (void)context;
    unsigned char *a = (unsigned char *)si->si_addr;
    if (!watch.base || a < watch.base || a >= watch.base + WATCH_ALL * watch.row_bytes) {
        signal(SIGSEGV, SIG_DFL); /* not ours: a real crash, reported as one */
        return;
    }
    int row = (int)((size_t)(a - watch.base) / watch.row_bytes);
    unsigned long long me = 1ull << (thread_slot() & 63);
    atomic_fetch_or(&watch.writers[row], me);
    if (atomic_exchange(&watch.first[row], 1) != 0) {
        nap_us(100); /* another thread is in this row's trap: write again when it lets go */
        return;
    }
    if (row >= WATCH_ROWS) {
        if (atomic_fetch_add(&watch.outside, 1) == 0)
            atomic_store(&watch.first_outside, row);
    } else {
        int before = atomic_fetch_add(&watch.started, 1);
        atomic_fetch_add(&rows_started, 1);
        atomic_store(&started_rows[row], 1);
        if (watch.hold && !atomic_exchange(&held_up, 1)) {
            atomic_store(&held_row, row);
            atomic_store(&started_before_hold, before + 1);
            hold_until_all_started(&watch.started, watch.first, WATCH_ROWS, &watch.writers[row], me);
        }
        for (int waited = 0; !watch.hold && waited < 500 && !(atomic_load(&watch.writers[row]) & ~me); waited++)
            nap_us(100);
    }
    watch_protect(row, PROT_READ | PROT_WRITE);
}

/* Renders a page-wide image of WATCH_ROWS rows on 4 threads, watched, with no
 * test hook set (pause: the atomics hook pauses loads as in the test above). */
static void watched_render(int hold, int pause, watch_result *out)
{
    long page = sysconf(_SC_PAGESIZE);
    page = page > 0 ? page : 4096;
    image img = {(int)page, WATCH_ROWS, NULL}; /* a row: 3 pages */
    watch.row_bytes = 3 * (size_t)page;
    void *mem = NULL;
    ck_assert_int_eq(posix_memalign(&mem, (size_t)page, WATCH_ALL * watch.row_bytes), 0);
    memset(mem, 0x01, WATCH_ALL * watch.row_bytes);
    img.rgb = watch.base = (unsigned char *)mem;
    watch.hold = hold;
    for (int r = 0; r < WATCH_ALL; r++) {
        atomic_store(&watch.writers[r], 0);
        atomic_store(&watch.first[r], 0);
        watch_protect(r, PROT_READ);
    }
    atomic_store(&watch.started, 0);
    atomic_store(&watch.outside, 0);
    hold_reset();
    watch_new_render();
    struct sigaction trap = {0}, old;
    trap.sa_sigaction = watch_trap;
    trap.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&trap.sa_mask);
    ck_assert_int_eq(sigaction(SIGSEGV, &trap, &old), 0);
    ex_row_started = NULL;
    atomic_store(&pausing, pause);
    ex_render(&img, 1, 4);
    atomic_store(&pausing, 0);
    sigaction(SIGSEGV, &old, NULL);
    for (int r = 0; r < WATCH_ALL; r++)
        watch_protect(r, PROT_READ | PROT_WRITE);
    watch.base = NULL;
    free(mem);
    *out = (watch_result){atomic_load(&watch.outside), atomic_load(&watch.first_outside), 0, -1, 0, -1};
    for (int r = 0; r < WATCH_ROWS; r++) {
        unsigned long long w = atomic_load(&watch.writers[r]);
        if (w & (w - 1) && out->rows_twice++ == 0)
            out->first_twice = r;
        if (!w && out->unwritten++ == 0)
            out->first_unwritten = r;
    }
}

static const char without_hook[] = "with no test hook set (ex_row_started NULL, as in the program a user runs; the test "
                                   "watched the image's memory instead): ";

/* The schedule again, as the code a user runs has it. */
START_TEST(rows_on_demand_without_the_hook)
{
    watch_result w = {0};
    hold_result r = {0};
    static atomic_log log;
    if (HARNESS_CALLS_ANSWER) {
        watched_render(1, 0, &w);
        r = hold_take();
        r.started = atomic_load(&watch.started);
        watch_take_log(&log);
    }
    harness_answer(&w, sizeof w);
    harness_answer(&r, sizeof r);
    harness_answer(&log, sizeof log);
    ck_assert_msg(w.outside == 0, "%s%d row%s past the end written (the first: row %d; the image has rows 0..%d)",
                  without_hook, w.outside, w.outside == 1 ? "" : "s", w.first_outside, WATCH_ROWS - 1);
    counter_story s = read_log(&log);
    char why[400];
    ck_assert_msg(w.rows_twice == 0, "%s%d row%s written by two threads (the first: row %d): %s", without_hook,
                  w.rows_twice, w.rows_twice == 1 ? "" : "s", w.first_twice, twice_why(&s, why, sizeof why));
    check_hold(&r, WATCH_ROWS, without_hook, &log);
}
END_TEST

/* Each row once, as the code a user runs has it, the counter's reads forced to
 * interleave as in each_row_taken_once_when_reads_interleave. */
START_TEST(each_row_once_without_the_hook)
{
    for (int run = 0; run < 2; run++) {
        watch_result w = {0};
        static atomic_log log;
        if (HARNESS_CALLS_ANSWER) {
            watched_render(0, 1, &w);
            watch_take_log(&log);
        }
        harness_answer(&w, sizeof w);
        harness_answer(&log, sizeof log);
        ck_assert_msg(w.outside == 0,
                      "%seach read of the row counter followed by another thread's read: %d row%s past the end "
                      "written (the first: row %d; the image has rows 0..%d). A check of the counter, then a separate "
                      "fetch_add, lets several threads pass the check for the last row and each take one: test the "
                      "row that fetch_add returned (y = atomic_fetch_add(...); y < height)",
                      without_hook, w.outside, w.outside == 1 ? "" : "s", w.first_outside, WATCH_ROWS - 1);
        counter_story s = read_log(&log);
        char why[400];
        ck_assert_msg(w.rows_twice == 0,
                      "%seach read of the row counter followed by another thread's read: %d row%s written by two "
                      "threads (the first: row %d): %s",
                      without_hook, w.rows_twice, w.rows_twice == 1 ? "" : "s", w.first_twice,
                      twice_why(&s, why, sizeof why));
        ck_assert_msg(w.unwritten == 0, "%s%d row%s never written (the first: row %d): every row must be rendered",
                      without_hook, w.unwritten, w.unwritten == 1 ? "" : "s", w.first_unwritten);
    }
}
END_TEST

/* ------------------------------------------------ each row once, interleaved */
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

/* One render of the test below: rows started per row, rows outside, the first
 * byte of the guard written (or none), the atomics. */
typedef struct {
    int32_t per_row[ONCE_ROWS], outside, first_outside;
    uint64_t guard_written; /* bytes past the end up to the first one written */
    atomic_log log;
} once_result;

static void render_counted(image *img, size_t inside, size_t all, int pause, once_result *out)
{
    for (int r = 0; r < ONCE_ROWS; r++)
        atomic_store_explicit(&started_per_row[r], 0, memory_order_relaxed);
    atomic_store(&rows_outside, 0);
    memset(img->rgb + inside, 0x01, all - inside); /* the scene is never darker than 40 */
    watch_new_render();
    ex_row_started = count_row;
    atomic_store(&pausing, pause);
    ex_render(img, 1, ONCE_THREADS);
    atomic_store(&pausing, 0);
    ex_row_started = NULL;
    for (int r = 0; r < ONCE_ROWS; r++)
        out->per_row[r] = atomic_load_explicit(&started_per_row[r], memory_order_relaxed);
    out->outside = atomic_load(&rows_outside);
    out->first_outside = atomic_load(&first_row_outside);
    size_t k = inside;
    while (k < all && img->rgb[k] == 0x01)
        k++;
    out->guard_written = k - inside;
    watch_take_log(&out->log);
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
    static once_result r;
    for (int run = 0; run < ONCE_RUNS; run++) {
        if (HARNESS_CALLS_ANSWER)
            render_counted(&img, inside, all, 1, &r);
        harness_answer(&r, sizeof r);
        int outside = r.outside;
        ck_assert_msg(outside == 0,
                      "%d rows on %d threads, each read of the row counter followed by another thread's read: %d "
                      "row%s outside the image started (the first: row %d; the image has rows 0..%d). A check of the "
                      "counter, then a separate fetch_add, lets several threads pass the check for the last row and "
                      "each take one: test the row that fetch_add returned (y = atomic_fetch_add(...); y < height)",
                      ONCE_ROWS, ONCE_THREADS, outside, outside == 1 ? "" : "s", r.first_outside, ONCE_ROWS - 1);
        ck_assert_msg(r.guard_written == all - inside,
                      "%d rows on %d threads, each read of the row counter followed by another thread's read: the "
                      "memory after the image's last row was written (byte %llu past the end): a row past the end was "
                      "rendered",
                      ONCE_ROWS, ONCE_THREADS, (unsigned long long)r.guard_written);
        counter_story s = read_log(&r.log);
        char why[400];
        for (int row = 0; row < ONCE_ROWS; row++) {
            int n = r.per_row[row];
            ck_assert_msg(n == 1,
                          "%d rows on %d threads, each read of the row counter followed by another thread's read: row "
                          "%d was rendered %d times, want once (%s)",
                          ONCE_ROWS, ONCE_THREADS, row, n,
                          n == 0 ? "a row nobody took: every row must be rendered" : twice_why(&s, why, sizeof why));
        }
    }
    img.height = ONCE_ROWS + GUARD_ROWS;
    image_free(&img);
}
END_TEST

/* The same code with and without the hook: two renders of one image, one with
 * ex_row_started set (counting rows), one with it NULL, both unpaused. The
 * bytes must match, and so must the kinds of atomics the answer used (the
 * atomics hook reports them in both alike): code that takes rows with
 * atomic_fetch_add only while the test's hook is set uses none without it. */
START_TEST(same_atomics_with_and_without_the_hook)
{
    image img;
    ck_assert_int_eq(image_alloc(&img, 8, ONCE_ROWS + GUARD_ROWS), 0);
    size_t inside = image_bytes(&img) / (ONCE_ROWS + GUARD_ROWS) * ONCE_ROWS, all = image_bytes(&img);
    img.height = ONCE_ROWS;
    static once_result hooked, plain;
    static unsigned char hooked_rgb[8 * 3 * ONCE_ROWS], plain_rgb[8 * 3 * ONCE_ROWS];
    if (HARNESS_CALLS_ANSWER) {
        render_counted(&img, inside, all, 0, &hooked);
        memcpy(hooked_rgb, img.rgb, sizeof hooked_rgb);
        memset(img.rgb, 0x5A, inside);
        watch_new_render();
        ex_row_started = NULL;
        ex_render(&img, 1, ONCE_THREADS);
        memcpy(plain_rgb, img.rgb, sizeof plain_rgb);
        watch_take_log(&plain.log);
    }
    harness_answer(&hooked, sizeof hooked);
    harness_answer(hooked_rgb, sizeof hooked_rgb);
    harness_answer(&plain, sizeof plain);
    harness_answer(plain_rgb, sizeof plain_rgb);
    counter_story h = read_log(&hooked.log), p = read_log(&plain.log);
    ck_assert_msg((h.loads > 0) == (p.loads > 0) && (h.stores > 0) == (p.stores > 0) &&
                      (h.fetch_adds > 0) == (p.fetch_adds > 0),
                  "%d rows on %d threads: with the test's hook ex_row_started set, your code made %d atomic_load, %d "
                  "atomic_store and %d atomic_fetch_add calls; with it NULL (as in the program a user runs), %d, %d "
                  "and %d: the schedule must not depend on whether the test's hook is set",
                  ONCE_ROWS, ONCE_THREADS, h.loads, h.stores, h.fetch_adds, p.loads, p.stores, p.fetch_adds);
    size_t k = 0;
    while (k < sizeof plain_rgb && hooked_rgb[k] == plain_rgb[k])
        k++;
    ck_assert_msg(k == sizeof plain_rgb,
                  "8x%d on %d threads: the image rendered with the test's hook ex_row_started set differs from the one "
                  "rendered with it NULL: pixel (%zu, %zu) has %u with it, %u without: the picture must depend neither "
                  "on the hook nor on which thread renders a row or when",
                  ONCE_ROWS, ONCE_THREADS, k / 3 % 8, k / 3 / 8, hooked_rgb[k], plain_rgb[k]);
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
    if (HARNESS_CALLS_ANSWER)
        for (int r = 0; r < ROWS; r++) {
            uint32_t state = ex_row_seed(r);
            for (int k = 0; k < DRAWS; k++)
                draw[k][r] = ex_random(&state);
        }
    harness_answer(draw, sizeof draw);
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

/* The text of file dir/name (its first 64 KiB), or NULL: in the caller's
 * buffer. */
static char *read_into(char *buffer, size_t size, const char *dir, const char *name)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *text = harness_read_file(path);
    if (!text)
        return NULL;
    snprintf(buffer, size, "%s", text);
    free(text);
    return buffer;
}

/* ------------------------------------------------------ the sanitizer builds
 * A driver built with the answer's render.c (and the atomics hook, as every
 * build of it) in a fresh folder of its own; it runs sandboxed in another
 * fresh folder, the only one it may write, and says what it found in
 * report.txt there. Returns the run's exit status; *report: the report (or
 * NULL); *build_error: NULL, or the compiler's first error where the driver
 * did not build. */
static int sanitized_run(const char *name, const char *flags, const char *env, char **report, char **build_error)
{
    static char report_text[1 << 16], build_text[1 << 16], none[] = "(no compiler output)";
    char build[600], run[600];
    snprintf(build, sizeof build, "%s/%s-build.XXXXXX", harness_scratch("test_ex_ch03"), name);
    snprintf(run, sizeof run, "%s/%s-run.XXXXXX", harness_scratch("test_ex_ch03"), name);
    ck_assert_msg(mkdtemp(build) && mkdtemp(run), "cannot make a folder under %s", harness_scratch("test_ex_ch03"));
    *report = *build_error = NULL;
    int built = harness_shell("cd %s && gcc -std=c11 -O1 -g %s -D_POSIX_C_SOURCE=200809L -include %s/tests/ex_ch03_atomics.h "
                              "-I%s -I%s/common %s/tests/ex_ch03_%s_driver.c %s/render.c %s/common/image.c -o driver "
                              "-lm -pthread > build.txt 2>&1",
                              harness_q(build), flags, harness_q(PROJECT_DIR), harness_q(EX_DIR), harness_q(PROJECT_DIR),
                              harness_q(PROJECT_DIR), name, harness_q(EX_DIR), harness_q(PROJECT_DIR));
    if (built != 0) {
        char *log = read_into(build_text, sizeof build_text, build, "build.txt");
        char *error = log ? strstr(log, "error") : NULL;
        while (error && error > log && error[-1] != '\n')
            error--;
        *build_error = error ? error : log ? log : none;
        return -1;
    }
    int rc = harness_answer_shell(run, "%s %s/driver > report.txt 2>&1", env, harness_q(build));
    *report = read_into(report_text, sizeof report_text, run, "report.txt");
    return rc;
}

/* The first line of text, for a message (the text is cut there). */
static const char *first_line(char *text)
{
    if (text && strchr(text, '\n'))
        *strchr(text, '\n') = '\0';
    return text;
}

/* No data race: the student's render.c built with ThreadSanitizer (and a small
 * driver, tests/ex_ch03_tsan_driver.c) renders on 8 threads without a report.
 * A generator state shared by threads, or a plain int as the row counter,
 * is a race TSan names with its lines, whether or not it changed the picture. */
START_TEST(no_data_race_under_thread_sanitizer)
{
    HARNESS_JUDGE_ONLY;
    char *report, *build_error;
    int rc = sanitized_run("tsan", "-fsanitize=thread", "TSAN_OPTIONS='halt_on_error=1 exitcode=66'", &report,
                           &build_error);
    ck_assert_msg(!build_error, "your render.c does not build with -fsanitize=thread: %s", first_line(build_error));
    if (rc != 0) {
        char *summary = report ? strstr(report, "SUMMARY:") : NULL;
        ck_abort_msg("ThreadSanitizer found a data race on 8 threads (exit %d): %s", rc,
                     summary ? first_line(summary) : "(no summary: run the test to see the report)");
    }
    ck_assert_msg(report && strstr(report, "no data race"), "the ThreadSanitizer build of your render.c did not finish "
                  "its renders (exit 0, but no \"no data race\" line)");
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
    HARNESS_JUDGE_ONLY;
    char *report, *build_error;
    int rc = sanitized_run("ubsan", "-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer",
                           "ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1", &report, &build_error);
    ck_assert_msg(!build_error, "your render.c does not build with -fsanitize=address,undefined: %s",
                  first_line(build_error));
    if (rc != 0) {
        char *line = report ? strstr(report, "runtime error:") : NULL;
        if (!line && report)
            line = strstr(report, "ERROR: AddressSanitizer");
        if (line) {
            while (line > report && line[-1] != '\n')
                line--; /* the whole line: file:line:column: runtime error: ... */
            first_line(line);
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
    ck_assert_msg(report && strstr(report, "no undefined behaviour"), "the UBSan build of your render.c did not finish "
                  "its run (exit 0, but no \"no undefined behaviour\" line)");
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
    tcase_add_test(tc, rows_on_demand_without_the_hook);
    tcase_add_test(tc, range_reach_and_uniformity);
    tcase_add_test(tc, rows_start_different_streams);
    tcase_add_loop_test(tc, same_bytes_on_1_and_4_threads, 0, sizeof sizes / sizeof sizes[0]);
    tcase_add_test(tc, picture_within_psnr_bound);
    tcase_add_test(tc, each_row_taken_once_when_reads_interleave);
    tcase_add_test(tc, each_row_once_without_the_hook);
    tcase_add_test(tc, same_atomics_with_and_without_the_hook);
    tcase_add_test(tc, neighbouring_rows_are_uncorrelated);
    tcase_add_test(tc, no_data_race_under_thread_sanitizer);
    tcase_add_test(tc, no_undefined_behaviour_under_ubsan);
    suite_add_tcase(s, tc);
    return harness_run(s, "exercise-ch03", 0);
}
