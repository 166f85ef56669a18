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
#include <sys/wait.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* Runs a shell command made like printf; returns its exit status (-1 if it
 * could not run). Exercise tests use it to compile the student's code (gcc -S,
 * nvcc -ptx, ptxas -v) and read the machine code: no GPU needed. */
static inline int harness_shell(const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int rc = system(cmd);
    return rc == -1 ? -1 : WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);
}

/* Reads a whole (text) file into a malloc'd string, or NULL. */
static inline char *harness_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = (char *)malloc((size_t)n + 1);
    if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
        free(text);
        text = NULL;
    }
    if (text)
        text[n] = '\0';
    fclose(f);
    return text;
}

#ifdef __CUDACC__
/* A GPU exercise's kernel under compute-sanitizer's racecheck, then its
 * memcheck, so a race or a stray access is found by a detector, not by luck:
 * the test program runs itself again with --launch-once (its main() then
 * launches the student's kernel once and exits). compute-sanitizer is looked
 * for beside nvcc, then on the PATH. Returns 0 when both are clean, 1 with the
 * tool and its first report line in `why`, or -1 when there is no
 * compute-sanitizer (the caller counts the check skipped). */
static inline int harness_find_sanitizer(const char *nvcc, char *tool, size_t size)
{
    snprintf(tool, size, "%.500s", nvcc);
    char *slash = strrchr(tool, '/');
    if (slash && (size_t)(slash - tool) + sizeof "/compute-sanitizer" <= size)
        strcpy(slash + 1, "compute-sanitizer");
    if (!slash || access(tool, X_OK) != 0)
        snprintf(tool, size, "compute-sanitizer");
    return harness_shell("command -v %s > /dev/null", tool) == 0;
}

/* 1 when compute-sanitizer can run here: a CUDA device and the tool. */
static inline int harness_can_sanitize(const char *nvcc)
{
    char tool[600], why[256];
    return cuda_device_count(why, sizeof why) > 0 && harness_find_sanitizer(nvcc, tool, sizeof tool);
}

static inline int harness_sanitize_kernel(const char *nvcc, char *why, size_t why_size)
{
    char self[512], tool[600], dir[] = "/tmp/harness_racecheck.XXXXXX";
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0 || !harness_find_sanitizer(nvcc, tool, sizeof tool) || !mkdtemp(dir))
        return -1;
    self[n] = '\0';
    const char *tools[] = {"racecheck", "memcheck"};
    int rc = 0;
    for (int k = 0; k < 2 && rc == 0; k++) {
        rc = harness_shell("%s --tool %s --error-exitcode 66 --print-limit 3 '%s' --launch-once > %s/log 2>&1", tool,
                           tools[k], self, dir);
        char path[300];
        snprintf(path, sizeof path, "%s/log", dir);
        char *log = harness_read_file(path), *line = log ? strstr(log, "Error: Race") : NULL;
        if (!line && log)
            line = strstr(log, "Invalid ");
        if (!line && log)
            line = strstr(log, " SUMMARY");
        if (line && strchr(line, '\n'))
            *strchr(line, '\n') = '\0';
        snprintf(why, why_size, "%s: %s", tools[k], line ? line : rc ? "it failed (no report line)" : "clean");
        free(log);
    }
    harness_shell("rm -rf %s", dir);
    return rc == 0 ? 0 : 1;
}
#endif

/* A scratch folder for a whole test program: made at the first call (the
 * same path after that), removed when the process that made it exits, even
 * after a failed test (Check's forked children exit without returning, so a
 * test's own clean-up would be skipped, and they must not remove it). */
static char harness_scratch_dir[64];
static pid_t harness_scratch_owner;
static inline void harness_scratch_remove(void)
{
    if (getpid() == harness_scratch_owner)
        harness_shell("rm -rf %s", harness_scratch_dir);
}
static inline const char *harness_scratch(const char *name)
{
    if (!harness_scratch_dir[0]) {
        snprintf(harness_scratch_dir, sizeof harness_scratch_dir, "/tmp/%s.XXXXXX", name);
        if (!mkdtemp(harness_scratch_dir)) {
            perror("harness_scratch: mkdtemp");
            exit(1);
        }
        harness_scratch_owner = getpid();
        atexit(harness_scratch_remove);
    }
    return harness_scratch_dir;
}

/* Compiles the CUDA file src with nvcc and `flags` (include paths and the
 * like) in a fresh temporary folder, and returns, malloc'd: with what =
 * "ptx", the PTX (nvcc -ptx); with what = "ptxas", ptxas -v's report (nvcc -c
 * -Xptxas -v, its messages). NULL if the compile failed. The exercise tests
 * grade machine code this way; no GPU is needed. */
static inline char *harness_nvcc(const char *nvcc, const char *arch, const char *flags, const char *src,
                                 const char *what)
{
    char dir[] = "/tmp/harness_nvcc.XXXXXX", out[300];
    if (!mkdtemp(dir))
        return NULL;
    int ptx = strcmp(what, "ptx") == 0;
    snprintf(out, sizeof out, "%s/%s", dir, ptx ? "k.ptx" : "ptxas.txt");
    int rc = ptx ? harness_shell("%s -arch=%s -ptx %s %s -o %s", nvcc, arch, flags, src, out)
                 : harness_shell("%s -arch=%s -c -Xptxas -v %s %s -o %s/k.o > %s 2>&1", nvcc, arch, flags, src, dir, out);
    char *text = rc == 0 ? harness_read_file(out) : NULL;
    harness_shell("rm -rf %s", dir);
    return text;
}

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
