/* harness.h - how every test program runs its Check suite and reports.
 *
 * Each test binary ends by printing one line that tools/run_tests.sh adds up:
 *   RESULT <suite> passed=P failed=F skipped=S
 * Check runs every test in a forked child by default (a crash fails one test,
 * not the run). GPU suites must not fork after CUDA is initialised, so their
 * runner is started with CK_FORK=no.
 */
#ifndef TESTS_HARNESS_H
#define TESTS_HARNESS_H

#include <check.h>
#include <stdio.h>

/* Runs suite s; `skipped` counts tests that were not added because this
 * machine cannot run them (no GPU). fork: run each test in a child (Check's
 * default), or not (GPU suites). Returns the process exit status. */
static inline int harness_run_mode(Suite *s, const char *name, int skipped, int fork)
{
    SRunner *sr = srunner_create(s);
    if (!fork)
        srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int run = srunner_ntests_run(sr);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    printf("RESULT %s passed=%d failed=%d skipped=%d\n", name, run - failed, failed, skipped);
    return failed ? 1 : 0;
}

static inline int harness_run(Suite *s, const char *name, int skipped)
{
    return harness_run_mode(s, name, skipped, 1);
}

/* GPU suites: no fork, since CUDA cannot be used in a child once the parent
 * has touched it (the runner's device check does). */
static inline int harness_run_gpu(Suite *s, const char *name, int skipped)
{
    return harness_run_mode(s, name, skipped, 0);
}

#ifdef __CUDACC__
#include "cuda_util.h"

/* Adds test t, run for _i = 0 .. count-1, when this machine has a CUDA device;
 * otherwise adds nothing and returns count: the number to report as skipped. */
static inline int harness_add_gpu_test(TCase *tc, const TTest *t, int count)
{
    char why[256];
    if (cuda_device_count(why, sizeof why) > 0) {
        tcase_add_loop_test(tc, t, 0, count);
        return 0;
    }
    printf("no CUDA device (%s): %d GPU test run%s skipped\n", why, count, count == 1 ? "" : "s");
    return count;
}
#endif

/* A small, fixed-seed generator for test inputs (xorshift64*), so every run
 * of a test sees the same "random" data. */
typedef struct {
    unsigned long long state;
} test_rng;

static inline unsigned long long test_rng_next(test_rng *r)
{
    r->state ^= r->state >> 12;
    r->state ^= r->state << 25;
    r->state ^= r->state >> 27;
    return r->state * 2685821657736338717ULL;
}

/* Uniform double in [lo, hi). */
static inline double test_rng_uniform(test_rng *r, double lo, double hi)
{
    return lo + (hi - lo) * (double)(test_rng_next(r) >> 11) * 0x1.0p-53;
}

#endif
