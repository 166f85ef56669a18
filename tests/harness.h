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
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* EX_DIR, the folder with the answer's files: a test compiles them again
 * itself (gcc -S, nvcc -ptx). The judge (see "the probe and the judge") is
 * built against the stub, so the folder it grades is given at run time, in
 * HARNESS_EX_DIR. */
#ifdef EX_DIR
static const char harness_ex_dir_built[] = EX_DIR;
#undef EX_DIR
static inline const char *harness_ex_dir(void)
{
    const char *d = getenv("HARNESS_EX_DIR");
    return d && *d ? d : harness_ex_dir_built;
}
#define EX_DIR harness_ex_dir()
#endif

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
 * .preinit_array): an in-process grader cannot be proof against the code it
 * runs. So for grading, the verdict comes from a process the answer never
 * runs in ("the probe and the judge" below); this channel then carries the
 * judge's verdict, and the ledger still catches a test that ended early. */
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

/* ------------------------------------------------------- the probe and the judge
 * An in-process grader cannot be proof against the code it grades: whatever
 * the test does after calling the student's function, that function can do
 * first (read the secrets, write the channel, mark the test ended). So for
 * grading, every exercise test runs twice, as two programs
 * (tools/judge.sh runs them):
 *
 *   the probe: the test built with the student's answer, run in a sandbox
 *     (tools/sandbox.c). Each call into the answer goes through
 *     harness_answer(), which writes what the answer produced (the bytes of
 *     its result) to the trace, HARNESS_PROBE_FD. Its own verdict is ignored.
 *   the judge: the same test built against the stub as handed out (the
 *     course's own code, never the student's), HARNESS_JUDGE_FD on the
 *     trace. It runs every test with every check, but never calls the
 *     answer: harness_answer() hands each call site the bytes the probe
 *     recorded for it. Tests that only compile the answer and read its
 *     machine code, or run it as a program of its own (harness_answer_shell,
 *     in the sandbox), run only here (HARNESS_JUDGE_ONLY).
 *
 * So the verdict comes from a process the answer never ran in, which knows
 * its own tests; a trace that lacks a result, or holds one of the wrong size,
 * fails that test. The probe may write anything into the trace: the judge
 * checks values, so a forged result passes only if it is right.
 * Without either variable (a test run by hand) the test calls the answer
 * directly, as a plain Check suite. */
enum { HARNESS_DIRECT, HARNESS_PROBE, HARNESS_JUDGE };
static int harness_mode = HARNESS_DIRECT;
static int harness_trace_fd = -1;
static unsigned char *harness_trace;          /* the judge's copy of the trace */
static size_t harness_trace_size, harness_trace_at;
static int harness_trace_doubled; /* the test's first record found twice: not the test's own writing */
static const char *harness_current_test = "";
static int harness_current_iteration;
static unsigned harness_call;                 /* this test's next call into the answer */
typedef struct {
    char magic[4]; /* "HREC" */
    uint32_t name_size;
    int32_t iteration;
    uint32_t call;
    uint64_t size;
} harness_record_head;
enum { HARNESS_TRACE_MAX = 1 << 30 };

/* The number in variable name (a descriptor), or -1. */
static inline int harness_env_fd(const char *name)
{
    const char *env = getenv(name);
    if (!env)
        return -1;
    char *end;
    long fd = strtol(env, &end, 10);
    unsetenv(name);
    return *env && !*end && fd >= 3 && fd < 1024 ? (int)fd : -2;
}

/* The judge reads the whole trace before any test runs (at most 1 GiB). */
static inline void harness_trace_load(int fd)
{
    size_t cap = 1 << 20;
    harness_trace = (unsigned char *)malloc(cap);
    for (ssize_t n = 1; harness_trace && n > 0;) {
        if (harness_trace_size == cap) {
            cap = cap * 2 > HARNESS_TRACE_MAX ? (size_t)HARNESS_TRACE_MAX : cap * 2;
            if (harness_trace_size == cap)
                break; /* the rest is not read: its calls fail as missing */
            unsigned char *more = (unsigned char *)realloc(harness_trace, cap);
            if (!more)
                break;
            harness_trace = more;
        }
        n = read(fd, harness_trace + harness_trace_size, cap - harness_trace_size);
        if (n > 0)
            harness_trace_size += (size_t)n;
    }
    close(fd);
}

__attribute__((constructor(102))) static void harness_mode_open(void)
{
    int probe = harness_env_fd("HARNESS_PROBE_FD"), judge = harness_env_fd("HARNESS_JUDGE_FD");
    if (probe == -2 || judge == -2 || (probe >= 0 && judge >= 0)) {
        fprintf(stderr, "harness: HARNESS_PROBE_FD / HARNESS_JUDGE_FD: want one descriptor number\n");
        exit(2);
    }
    if (probe >= 0) {
        harness_mode = HARNESS_PROBE;
        harness_trace_fd = probe;
    } else if (judge >= 0) {
        harness_mode = HARNESS_JUDGE;
        harness_trace_load(judge);
        /* no process of this user may read or write the judge's memory */
        prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    }
}

/* A new test (or iteration) starts: its calls count from 0, and the judge
 * finds its first record, and whether the trace holds that record twice
 * (the probe writes it once: a second is some other writer's). */
static inline void harness_answer_begin(const char *name, int iteration)
{
    harness_current_test = name;
    harness_current_iteration = iteration;
    harness_call = 0;
    harness_trace_at = harness_trace_size; /* none yet */
    harness_trace_doubled = 0;
    for (size_t at = 0; harness_mode == HARNESS_JUDGE && at + sizeof(harness_record_head) <= harness_trace_size;) {
        harness_record_head h;
        memcpy(&h, harness_trace + at, sizeof h);
        size_t room = harness_trace_size - at - sizeof h;
        if (memcmp(h.magic, "HREC", 4) != 0 || h.name_size > room || h.size > room - h.name_size)
            break; /* a record cut short or not one: nothing after it counts */
        if (h.iteration == iteration && h.call == 0 && h.name_size == strlen(name) &&
            memcmp(harness_trace + at + sizeof h, name, h.name_size) == 0) {
            if (harness_trace_at != harness_trace_size) {
                harness_trace_doubled = 1;
                break;
            }
            harness_trace_at = at;
        }
        at += sizeof h + h.name_size + (size_t)h.size;
    }
}

/* 1 where the test should call the answer (probe, or a test run by hand); 0 in
 * the judge, which takes what the probe recorded instead. */
#define HARNESS_CALLS_ANSWER (harness_mode != HARNESS_JUDGE)

/* At the top of a test that never calls the answer in-process (it compiles
 * the answer, or runs it as a program): such a test runs in the judge only. */
#define HARNESS_JUDGE_ONLY                                                                                        \
    do {                                                                                                          \
        if (harness_mode == HARNESS_PROBE)                                                                        \
            return;                                                                                               \
    } while (0)

/* The n bytes at p are what the answer produced at this call site: the probe
 * records them, the judge fills p with them (the test fails where the probe
 * recorded none, or another size), a test run by hand leaves them. */
static inline void harness_answer(void *p, size_t n)
{
    unsigned call = harness_call++;
    if (harness_mode == HARNESS_PROBE) {
        size_t name = strlen(harness_current_test), total = sizeof(harness_record_head) + name + n;
        unsigned char *record = (unsigned char *)malloc(total);
        ck_assert_msg(record != NULL, "harness: out of memory for a record of %zu bytes", n);
        harness_record_head h = {{'H', 'R', 'E', 'C'}, (uint32_t)name, harness_current_iteration, call, n};
        memcpy(record, &h, sizeof h);
        memcpy(record + sizeof h, harness_current_test, name);
        memcpy(record + sizeof h + name, p, n);
        size_t done = 0;
        while (done < total) {
            ssize_t w = write(harness_trace_fd, record + done, total - done);
            if (w <= 0)
                break;
            done += (size_t)w;
        }
        free(record);
        ck_assert_msg(done == total, "harness: the trace could not be written");
    } else if (harness_mode == HARNESS_JUDGE) {
        size_t at = harness_trace_at, room = at < harness_trace_size ? harness_trace_size - at : 0;
        harness_record_head h;
        int ok = room >= sizeof h;
        if (ok) {
            memcpy(&h, harness_trace + at, sizeof h);
            room -= sizeof h;
            ok = memcmp(h.magic, "HREC", 4) == 0 && h.name_size <= room && h.size <= room - h.name_size &&
                 h.call == call && h.iteration == harness_current_iteration &&
                 h.name_size == strlen(harness_current_test) &&
                 memcmp(harness_trace + at + sizeof h, harness_current_test, h.name_size) == 0;
        }
        ck_assert_msg(!harness_trace_doubled, "the trace holds this test's results twice: something besides the test "
                      "wrote into it (an answer may not)");
        ck_assert_msg(ok, "your code gave no result for call %u of this test: its run ended before it got there "
                      "(it crashed, ran out of time, ended the process, or an earlier check failed there)", call + 1);
        ck_assert_msg(h.size == n, "your code's result for call %u of this test has %llu bytes, not %zu", call + 1,
                      (unsigned long long)h.size, n);
        memcpy(p, harness_trace + at + sizeof h + h.name_size, n);
        harness_trace_at = at + sizeof h + h.name_size + n;
    }
}

/* A line for the student under a PASS (the count an exercise reached, say):
 * printed by the judge only, and shown by make grade below its verdict. */
static inline void harness_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void harness_note(const char *fmt, ...)
{
    if (harness_mode == HARNESS_PROBE)
        return;
    char text[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    printf("harness-note: %s\n", text);
    fflush(stdout);
}

/* var = expr, where expr calls the answer: called in the probe (and by hand),
 * replayed in the judge. */
#define ANSWER(var, expr)                                                                                         \
    do {                                                                                                          \
        if (HARNESS_CALLS_ANSWER)                                                                                 \
            (var) = (expr);                                                                                       \
        harness_answer(&(var), sizeof(var));                                                                      \
    } while (0)

/* Called by every test before its body: returns its ledger slot. In a forked
 * child, the channel and the secrets go first, so the body never sees them. */
static inline int harness_test_begin(const char *name, int iteration)
{
    harness_answer_begin(name, iteration);
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

/* One CUDA call of a GPU part: run only while err is still cudaSuccess; the
 * first that fails is named in the char array where, for the message. */
#define HARNESS_GPU_STEP(err, where, call)                                                                        \
    do {                                                                                                          \
        if ((err) == cudaSuccess && ((err) = (call)) != cudaSuccess)                                              \
            snprintf(where, sizeof where, "%s", #call);                                                           \
    } while (0)

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
 * could not run). Exercise tests use it to compile the student's code (a
 * driver, gcc -E) and read what comes out: no GPU needed. In the judge it runs
 * in the sandbox the grader gave (HARNESS_SANDBOX), writing only below
 * harness_tmp(): a compile of the answer reads no model answer there. Every
 * path in the command goes through harness_q: the checkout may lie under a
 * path with spaces, quotes or $ in it. */
static inline int harness_shell(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline const char *harness_tmp(void);
/* cmd through /bin/sh, in folder dir (NULL: here), in the sandbox when one
 * is given (writing only below write_dir, for at most 300 s). */
static inline int harness_sh(const char *dir, const char *sandbox, const char *write_dir, const char *cmd)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (dir && chdir(dir) != 0)
            _exit(126);
        if (sandbox && *sandbox)
            execl(sandbox, sandbox, "--write", write_dir, "--timeout", "300", "--", "/bin/sh", "-c", cmd, (char *)NULL);
        else
            execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    int rc;
    while (waitpid(pid, &rc, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);
}
/* A command made like printf into cmd (8192 bytes); 0, or -1 when too long. */
static inline int harness_format_command(char *cmd, const char *who, const char *fmt, va_list ap)
{
    int n = vsnprintf(cmd, 8192, fmt, ap);
    if (n < 0 || n >= 8192) {
        fprintf(stderr, "%s: the command is too long (%d bytes)\n", who, n);
        return -1;
    }
    return 0;
}

static inline int harness_shell(const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    int bad = harness_format_command(cmd, "harness_shell", fmt, ap);
    va_end(ap);
    if (bad)
        return -1;
    return harness_sh(NULL, harness_mode == HARNESS_JUDGE ? getenv("HARNESS_SANDBOX") : NULL, harness_tmp(), cmd);
}

/* Runs a shell command made like printf, with the answer's code in it (a
 * program built from the answer, a run of it): in folder dir, and where the
 * grader gave a sandbox (HARNESS_SANDBOX, tools/sandbox.c), inside it, with
 * dir the only folder it may write, for at most 300 s. Returns its exit
 * status as harness_shell does. The judge keeps its own files outside dir, so nothing it reads back
 * but what the command was asked to write can have been touched. */
static inline int harness_answer_shell(const char *dir, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline int harness_answer_shell(const char *dir, const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    int bad = harness_format_command(cmd, "harness_answer_shell", fmt, ap);
    va_end(ap);
    if (bad)
        return -1;
    return harness_sh(dir, getenv("HARNESS_SANDBOX"), dir, cmd);
}

/* The path of a file the probe's build kept beside the probe (tools/judge.sh:
 * the machine code the probe ran, e.g. suffix "-vec.s" for gcc -save-temps'
 * assembly of vec.c, ".keep/test_ex_ch05.ptx" for nvcc -keep's PTX), in buf;
 * NULL outside a grading, where the test compiles the answer itself. */
static inline const char *harness_probe_kept(const char *suffix, char *buf, size_t size)
{
    const char *probe = getenv("HARNESS_PROBE_BIN");
    if (harness_mode != HARNESS_JUDGE || !probe || !*probe)
        return NULL;
    int n = snprintf(buf, size, "%s%s", probe, suffix);
    return n > 0 && (size_t)n < size ? buf : NULL;
}

/* Where temporary folders go: $TMPDIR (the sandbox sets it to the folder it
 * lets a run write), else /tmp. */
static inline const char *harness_tmp(void)
{
    const char *t = getenv("TMPDIR");
    return t && *t == '/' && strlen(t) < 80 ? t : "/tmp";
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
    /* The program with the answer in it: in the judge, the probe (it has the
     * same --launch-once); run in the sandbox like any run of the answer. */
    char self[512], tool[600], dir[512];
    const char *probe = getenv("HARNESS_PROBE_BIN");
    ssize_t n = probe ? (ssize_t)snprintf(self, sizeof self, "%s", probe) : readlink("/proc/self/exe", self, sizeof self - 1);
    snprintf(dir, sizeof dir, "%s/harness_racecheck.XXXXXX", harness_tmp());
    if (n <= 0 || (size_t)n >= sizeof self || !harness_find_sanitizer(nvcc, tool, sizeof tool) || !mkdtemp(dir))
        return -1;
    self[n] = '\0';
    const char *tools[] = {"racecheck", "memcheck"};
    int rc = 0;
    for (int k = 0; k < 2 && rc == 0; k++) {
        rc = harness_answer_shell(dir, "%s --tool %s --error-exitcode 66 --print-limit 3 %s --launch-once > log 2>&1",
                                  harness_q(tool), tools[k], harness_q(self));
        char path[600];
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
static char harness_scratch_dir[160];
static pid_t harness_scratch_owner;
static inline void harness_scratch_remove(void)
{
    if (getpid() == harness_scratch_owner)
        harness_shell("rm -rf %s", harness_q(harness_scratch_dir));
}
static inline const char *harness_scratch(const char *name)
{
    if (!harness_scratch_dir[0]) {
        snprintf(harness_scratch_dir, sizeof harness_scratch_dir, "%s/%.64s.XXXXXX", harness_tmp(), name);
        if (!mkdtemp(harness_scratch_dir)) {
            perror("harness_scratch: mkdtemp");
            exit(1);
        }
        harness_scratch_owner = getpid();
        atexit(harness_scratch_remove);
    }
    return harness_scratch_dir;
}

/* harness_nvcc's answer in a grading, from the probe's kept PTX: the PTX
 * itself, or ptxas -v's report of it (the same ptxas, the same PTX: the stack
 * frames of the code that ran). */
static inline char *harness_kept_ptx(const char *nvcc, const char *arch, const char *ptx, const char *what)
{
    if (strcmp(what, "ptx") == 0) {
        /* as nvcc -ptx writes it: without -lineinfo's .loc and .file lines
         * and its closing debug sections */
        char *text = harness_read_file(ptx), *to = text;
        for (char *line = text, *next; line && *line; line = next) {
            next = strchr(line, '\n');
            next = next ? next + 1 : line + strlen(line);
            const char *word = line + strspn(line, " \t");
            if (strncmp(word, ".section", 8) == 0)
                break;
            if (strncmp(word, ".loc", 4) == 0 || strncmp(word, ".file", 5) == 0)
                continue;
            memmove(to, line, (size_t)(next - line));
            to += next - line;
        }
        if (to)
            *to = '\0';
        return text;
    }
    char dir[512], ptxas[600], out[600];
    snprintf(dir, sizeof dir, "%s/harness_ptxas.XXXXXX", harness_tmp());
    if (!mkdtemp(dir))
        return NULL;
    const char *slash = strrchr(nvcc, '/');
    snprintf(ptxas, sizeof ptxas, "%.*sptxas", slash ? (int)(slash - nvcc + 1) : 0, nvcc);
    int rc = harness_shell("cd %s && %s -v -arch=%s %s -o k.cubin > ptxas.txt 2>&1", harness_q(dir), harness_q(ptxas),
                           arch, harness_q(ptx));
    snprintf(out, sizeof out, "%s/ptxas.txt", dir);
    char *text = rc == 0 ? harness_read_file(out) : NULL;
    harness_shell("rm -rf %s", harness_q(dir));
    return text;
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
    char dir[512], link[600], kept[700];
    /* In a grading, the PTX the probe was built from (its test file's, which
     * holds the kernel file): the code graded is the code that ran */
    const char *base = strrchr(__BASE_FILE__, '/') ? strrchr(__BASE_FILE__, '/') + 1 : __BASE_FILE__;
    char name[200];
    snprintf(name, sizeof name, ".keep/%.*s.ptx", (int)(strcspn(base, ".")), base);
    if (harness_probe_kept(name, kept, sizeof kept))
        return harness_kept_ptx(nvcc, arch, kept, what);
    snprintf(dir, sizeof dir, "%s/harness_nvcc.XXXXXX", harness_tmp());
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
    char out[600];
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
