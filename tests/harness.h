/* harness.h - how every test program runs its Check suite and reports.
 *
 * Each test binary ends by printing one line that tools/run_tests.sh adds up:
 *   RESULT <suite> passed=P failed=F skipped=S
 * Check runs every test in a forked child by default (a crash fails one test,
 * not the run). GPU suites must not fork after CUDA is initialised, so their
 * runner is started with CK_FORK=no.
 *
 * That printed line is for people: the graders (tools/verdict.sh) take the
 * verdict from a private channel instead, and count only tests that ran to
 * their end ("The verdict" below says how and why).
 */
#ifndef TESTS_HARNESS_H
#define TESTS_HARNESS_H

#include <check.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Check gives each test 4 s unless told otherwise. A heavy test (20 writes of
 * a 48 MB image, a render) takes longer on a loaded 2-core machine and would
 * fail there for no fault of the code: every suite starts from 60 s a test
 * (CK_DEFAULT_TIMEOUT, read when a test case is created; one set outside wins),
 * and a test case with heavier work sets its own (tcase_set_timeout). */
__attribute__((constructor)) static void harness_default_timeout(void)
{
    setenv("CK_DEFAULT_TIMEOUT", "60", 0);
}

/* ---------------------------------------------------------------- the verdict
 * Two tricks used to pass a grader without solving anything: code under test
 * that ends the process early with status 0 (exit(0), _exit(0), an atexit that
 * exits), which Check counts as a passed test, and code that prints the
 * RESULT line itself (from a constructor, a destructor, or write(1, ...)),
 * which the scripts used to trust. So:
 *
 * 1. Every test runs to a mark. START_TEST is redefined below so that the
 *    function Check calls wraps the test's body: it notes "begun" before the
 *    body and "ended" after it, in a ledger shared with the forked children
 *    (a shared mapping made before the suite runs). A test Check
 *    calls passed but whose body never returned (the process ended inside it)
 *    is counted failed, and named.
 *
 * 2. The verdict goes through a channel the code under test cannot forge.
 *    The grader (tools/verdict.sh) makes two fresh random secrets, writes
 *    them to a private file, opens it on a file descriptor and names the
 *    number in HARNESS_VERDICT_FD. harness_verdict_open, a constructor of
 *    priority 101 (the earliest a program may use, so it runs before any
 *    ordinary constructor of the code under test), reads the secrets, empties
 *    the file and unsets the variable: from then on the secrets are only in
 *    this process's memory. The forked children wipe their copy and close the
 *    descriptor before a test's body runs. After the suite, the harness writes
 *    the RESULT line to the file, followed by the first secret only if every
 *    test passed and ran to its end, or the second if they did but some were
 *    skipped here; a failing run reveals neither. Then it wipes the secrets
 *    and closes the descriptor, before main returns and destructors or atexit
 *    handlers run. The grader accepts a pass only with the right secret, the
 *    counts that secret stands for, and exit status 0; anything else, a
 *    missing line included, is a FAIL ("the test did not run to its end").
 *
 * What this cannot stop: code that reads this process's memory for the
 * secrets while a GPU suite runs its tests in-process (CK_FORK=no), or that
 * runs before this constructor on purpose (a reserved constructor priority,
 * .preinit_array). Both are deliberate attacks on the harness, not mistakes;
 * an in-process grader cannot be proof against them. */
enum { HARNESS_LEDGER_SLOTS = 4096, HARNESS_SECRET = 64 };
typedef struct {
    const char *name; /* the test function's name (a literal: the same address in every child) */
    int iteration;
    int ended;
} harness_ledger_slot;
typedef struct {
    int begun, ended;
    harness_ledger_slot slot[HARNESS_LEDGER_SLOTS];
} harness_ledger_t;
static harness_ledger_t *harness_ledger;
static pid_t harness_main_pid;
static int harness_verdict_fd = -1;
static char harness_secret[2][HARNESS_SECRET + 1]; /* [0]: all passed; [1]: all that ran passed, some skipped */

static inline void harness_secret_wipe(void)
{
    volatile char *p = &harness_secret[0][0];
    for (size_t i = 0; i < sizeof harness_secret; i++)
        p[i] = 0;
}

/* Reads the secrets (two words) from HARNESS_VERDICT_FD, if the grader gave
 * one, and empties the file: see above for why this is a constructor. */
__attribute__((constructor(101))) static void harness_verdict_open(void)
{
    harness_main_pid = getpid();
    const char *env = getenv("HARNESS_VERDICT_FD");
    if (!env)
        return;
    int fd = atoi(env);
    unsetenv("HARNESS_VERDICT_FD");
    char text[2 * HARNESS_SECRET + 8] = "";
    ssize_t n = pread(fd, text, sizeof text - 1, 0);
    if (n <= 0 || ftruncate(fd, 0) != 0 ||
        sscanf(text, "%64s %64s", harness_secret[0], harness_secret[1]) != 2) {
        harness_secret_wipe(); /* no channel: the grader finds no verdict and fails the run */
        return;
    }
    memset(text, 0, sizeof text);
    fcntl(fd, F_SETFD, FD_CLOEXEC); /* the compilers and programs the tests run never see it */
    harness_verdict_fd = fd;
}

/* Called by every test before its body: returns its ledger slot. In a forked
 * child, the channel and the secrets go first, so the body never sees them. */
static inline int harness_test_begin(const char *name, int iteration)
{
    if (getpid() != harness_main_pid) {
        harness_secret_wipe();
        if (harness_verdict_fd >= 0)
            close(harness_verdict_fd);
        harness_verdict_fd = -1;
    }
    if (!harness_ledger)
        return -1;
    int k = __atomic_fetch_add(&harness_ledger->begun, 1, __ATOMIC_SEQ_CST);
    if (k < HARNESS_LEDGER_SLOTS) {
        harness_ledger->slot[k].name = name;
        harness_ledger->slot[k].iteration = iteration;
    }
    return k;
}

/* Called by every test after its body returned: it ran to its end. */
static inline void harness_test_end(int k)
{
    if (!harness_ledger)
        return;
    if (k >= 0 && k < HARNESS_LEDGER_SLOTS)
        harness_ledger->slot[k].ended = 1;
    __atomic_fetch_add(&harness_ledger->ended, 1, __ATOMIC_SEQ_CST);
}

/* The test function Check calls is the body wrapped in begin/end (see above). */
#undef START_TEST
#define START_TEST(__testname)                                                                                    \
    static void __testname##_body(int _i);                                                                        \
    static void __testname##_fn(int _i)                                                                           \
    {                                                                                                             \
        int harness_k_ = harness_test_begin(#__testname, _i);                                                    \
        __testname##_body(_i);                                                                                    \
        harness_test_end(harness_k_);                                                                             \
    }                                                                                                             \
    static const TTest __testname##_ttest = {"" #__testname, __testname##_fn, __FILE__, __LINE__};                \
    static const TTest *__testname = &__testname##_ttest;                                                         \
    static void __testname##_body(int _i CK_ATTRIBUTE_UNUSED)

/* Check's counts, corrected by the ledger: a test Check counts passed that
 * did not run to its end is failed (and named); a ledger that does not add up
 * (more ends than passes, or fewer begun than run) fails the run. */
static inline void harness_ledger_check(int run, int *failed)
{
    int passed = run - *failed, ended = harness_ledger->ended, begun = harness_ledger->begun;
    if (ended == passed && begun == run)
        return;
    if (ended < passed) {
        printf("%d test run%s counted passed did not run to %s end (did the code under test end the process?).\n"
               "Tests that did not reach their end:", passed - ended, passed - ended == 1 ? "" : "s",
               passed - ended == 1 ? "its" : "their");
        for (int k = 0; k < begun && k < HARNESS_LEDGER_SLOTS; k++)
            if (!harness_ledger->slot[k].ended)
                printf(" %s(%d)", harness_ledger->slot[k].name, harness_ledger->slot[k].iteration);
        printf("\n");
        *failed = run - ended;
    } else {
        printf("the test ledger does not add up (%d run, %d begun, %d passed, %d ended): the run does not count\n", run,
               begun, passed, ended);
        *failed += *failed == 0;
    }
}

/* Writes the RESULT line to the grader's channel, with the secret it has
 * earned (none for a failure), then forgets the secrets and the channel. */
static inline void harness_verdict_write(const char *line, int failed, int skipped)
{
    if (harness_verdict_fd >= 0 && getpid() == harness_main_pid) {
        char text[512 + HARNESS_SECRET];
        int n = snprintf(text, sizeof text, "%s%s%s\n", line, failed ? "" : " ",
                         failed ? "" : harness_secret[skipped ? 1 : 0]);
        if (n > 0 && pwrite(harness_verdict_fd, text, (size_t)n, 0) != n)
            perror("harness: writing the verdict");
        memset(text, 0, sizeof text);
        close(harness_verdict_fd);
        harness_verdict_fd = -1;
    }
    harness_secret_wipe();
}

/* Runs suite s; `skipped` counts tests that were not added because this
 * machine cannot run them (no GPU). fork: run each test in a child (Check's
 * default), or not (GPU suites). Returns the process exit status. */
static inline int harness_run_mode(Suite *s, const char *name, int skipped, int fork)
{
    /* /dev/zero mapped shared: memory the forked children write into too
     * (MAP_ANONYMOUS is not POSIX, and the tests build with _POSIX_C_SOURCE). */
    int zero = open("/dev/zero", O_RDWR);
    void *map = zero < 0 ? MAP_FAILED : mmap(NULL, sizeof *harness_ledger, PROT_READ | PROT_WRITE, MAP_SHARED, zero, 0);
    if (zero >= 0)
        close(zero);
    if (map == MAP_FAILED) {
        perror("harness: the test ledger");
        return 1;
    }
    harness_ledger = (harness_ledger_t *)map;
    SRunner *sr = srunner_create(s);
    if (!fork)
        srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int run = srunner_ntests_run(sr);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    fflush(stdout);
    harness_ledger_check(run, &failed);
    char line[512];
    snprintf(line, sizeof line, "RESULT %s passed=%d failed=%d skipped=%d", name, run - failed, failed, skipped);
    printf("%s\n", line);
    fflush(stdout);
    harness_verdict_write(line, failed, skipped);
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
 * nvcc -ptx, ptxas -v) and read the machine code: no GPU needed. Every path
 * in the command goes through harness_q: the checkout may lie under a path
 * with spaces, quotes or $ in it. */
static inline int harness_shell(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline int harness_shell(const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof cmd) {
        fprintf(stderr, "harness_shell: the command is too long (%d bytes)\n", n);
        return -1;
    }
    int rc = system(cmd);
    return rc == -1 ? -1 : WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);
}

/* Text s as one shell word: in single quotes, each ' written '\''. The
 * result lives in one of 16 rotating buffers, so one harness_shell call may
 * quote up to 16 words (a word too long to quote stops the program: a command
 * cut short must not run). */
static inline const char *harness_q(const char *s)
{
    static char ring[16][2048];
    static unsigned next;
    char *out = ring[next++ % 16];
    size_t n = 0;
    out[n++] = '\'';
    for (; *s; s++) {
        if (n + 6 >= sizeof ring[0]) {
            fprintf(stderr, "harness_q: a word too long to quote\n");
            exit(2);
        }
        if (*s == '\'') {
            memcpy(out + n, "'\\''", 4);
            n += 4;
        } else {
            out[n++] = *s;
        }
    }
    out[n++] = '\'';
    out[n] = '\0';
    return out;
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
    return harness_shell("command -v %s > /dev/null", harness_q(tool)) == 0;
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
        rc = harness_shell("%s --tool %s --error-exitcode 66 --print-limit 3 %s --launch-once > %s/log 2>&1",
                           harness_q(tool), tools[k], harness_q(self), harness_q(dir));
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
    harness_shell("rm -rf %s", harness_q(dir));
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
        harness_shell("rm -rf %s", harness_q(harness_scratch_dir));
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

/* Compiles the CUDA file src with nvcc, its includes found in folders inc1
 * and inc2 (NULL: none), in a fresh temporary folder, and returns, malloc'd:
 * with what = "ptx", the PTX (nvcc -ptx); with what = "ptxas", ptxas -v's
 * report (nvcc -c -Xptxas -v, its messages). NULL if the compile failed. The
 * exercise tests grade machine code this way; no GPU is needed.
 * nvcc reads a $ in a file name as a variable of its own (a checkout under
 * ".../a $b/" loses "$b"), so it sees the folders and the source only by
 * links in the temporary folder, by relative names. */
static inline char *harness_nvcc(const char *nvcc, const char *arch, const char *inc1, const char *inc2,
                                 const char *src, const char *what)
{
    char dir[] = "/tmp/harness_nvcc.XXXXXX", link[300];
    if (!mkdtemp(dir))
        return NULL;
    const char *targets[] = {src, inc1, inc2}, *names[] = {"k.cu", "i1", "i2"};
    for (int k = 0; k < 3; k++) {
        snprintf(link, sizeof link, "%s/%s", dir, names[k]);
        if (targets[k] && symlink(targets[k], link) != 0)
            perror("harness_nvcc: symlink");
    }
    int ptx = strcmp(what, "ptx") == 0;
    int rc = ptx ? harness_shell("cd %s && %s -arch=%s -ptx -Ii1 -Ii2 k.cu -o k.ptx", harness_q(dir), harness_q(nvcc),
                                 arch)
                 : harness_shell("cd %s && %s -arch=%s -c -Xptxas -v -Ii1 -Ii2 k.cu -o k.o > ptxas.txt 2>&1",
                                 harness_q(dir), harness_q(nvcc), arch);
    char out[300];
    snprintf(out, sizeof out, "%s/%s", dir, ptx ? "k.ptx" : "ptxas.txt");
    char *text = rc == 0 ? harness_read_file(out) : NULL;
    harness_shell("rm -rf %s", harness_q(dir));
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
