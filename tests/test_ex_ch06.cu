/* test_ex_ch06.cu - exercise ch06: the last warp of the reduction, race-free.
 *
 * 1. From the machine code (no GPU): tests/ex_ch06_kernel.cu compiled to PTX
 *    with the exercise's last_warp.cuh; the warp step must synchronise its
 *    lanes: bar.warp.sync (__syncwarp) or shfl.sync (__shfl_*_sync). The
 *    racy classic has neither: only volatile loads and stores. And every
 *    shfl/vote/bar.warp/match/redux/elect.sync in it names all 32 lanes: the
 *    immediate -1, or a register set only by movs of -1 in its function. All
 *    32 lanes take part, so a lane outside a partial mask (0xffff, an
 *    __activemask() that caught fewer lanes) is read undefined: the sums may
 *    still come out right, and racecheck and synccheck stay clean.
 * 2. On the CPU (tests/ex_ch06_warp_cpu.cpp, built with g++): the warp code
 *    run lane by lane, lanes switched only at __syncwarp and shuffles, in
 *    ascending and in descending lane order, sums 64 values exactly: small
 *    ones, ones past 2^31, ones below -2^31, mixed ones past 2^40, and each
 *    of the 64 alone (which says how often each s[i] was counted). A step
 *    with no synchronisation between one lane's read and another's write, a
 *    sum that forgets s[t + 32], a shuffle up instead of down, or a 64-bit
 *    partial shuffled as a 32-bit int (a shuffle there moves the bytes of the
 *    type it is given, as on the GPU), is wrong here, on any machine; so is a
 *    lane that reads, or calls from, outside a shuffle's or __syncwarp's mask.
 * 3. On a GPU: block_sums (that kernel) gives exact int64 sums at n = 0, 1,
 *    31, 33, 1023, 1025, 2^20 - 1, 2^20 + 1 (int32 in [-128, 127], seed 6060);
 *    and at the same n with every value in [2^30, 2^31 - 1], then every value
 *    in [-2^31, -2^30 - 1] (seed 6161): any two of them sum past 2^31 (below
 *    -2^31), so the partial sums the last warp shuffles do not fit 32 bits.
 *    Without a GPU these are counted as skipped.
 * 4. On a GPU with compute-sanitizer: block_sums (n = 1025) under racecheck
 *    reports no hazard, and under memcheck no invalid access. A warp step that
 *    reads a lane's value while that lane writes it is a race even when the
 *    sum comes out right on this GPU.
 * For grading (harness.h, "the probe and the judge"), 2 and 3 run the answer
 * in the probe and hand its results (the CPU warp's sums and notes, the GPU's
 * sums) through harness_answer to the judge, which computes every input and
 * every wanted value itself; 1 and 4 run in the judge only (4 runs the probe
 * program again, sandboxed, with --launch-once).
 */
#include "harness.h"

#include "ex_ch06_kernel.cu"

#include "cuda_util.h"

#include <ctype.h>
#include <unistd.h>

/* The warp instructions that name the lanes taking part; in each the member
 * mask is the last operand. */
static const struct {
    const char *op, *what;
} warp_ops[] = {{"shfl.sync", "a shuffle"},   {"vote.sync", "a vote"},
                {"bar.warp.sync", "a __syncwarp"}, {"match.sync", "a match"},
                {"redux.sync", "a warp reduction"}, {"elect.sync", "an elect"}};

/* The instruction on a PTX line, past blanks and a guard (@%p1); "" for
 * directives, labels, braces and comments. */
static const char *ptx_insn(const char *line)
{
    line += strspn(line, " \t");
    if (*line == '@')
        line += strcspn(line, " \t"), line += strspn(line, " \t");
    return *line == '.' || *line == '$' || *line == '/' || *line == '{' || *line == '}' ? "" : line;
}

/* Does the instruction write register reg? Its destination is the first
 * operand ({%r1, %r2} for a vector, %r1|%p1 for a pair; [..] is memory). */
static int ptx_writes(const char *insn, const char *reg)
{
    const char *d = insn + strcspn(insn, " \t");
    d += strspn(d, " \t");
    const char *end = d + strcspn(d, *d == '{' ? "}" : ",;");
    size_t n = strlen(reg);
    for (const char *p = d; *d != '[' && (p = strstr(p, reg)) != NULL && p < end; p += n)
        if (!isalnum((unsigned char)p[n]) && p[n] != '_')
            return 1;
    return 0;
}

/* An immediate operand's value, or -1 if it is not one (a 32-bit mask is >= 0). */
static long long ptx_imm(const char *text)
{
    char *end;
    long long v = strtoll(text, &end, 0);
    return end != text && *end == '\0' ? (long long)(unsigned)v : -1;
}

/* A PTX instruction quoted for a message: up to its ';', blanks as one space. */
static const char *ptx_quote(const char *insn)
{
    static char q[2][160];
    static int next;
    char *out = q[next++ % 2], *o = out;
    for (const char *c = insn; *c && *c != ';' && o < out + sizeof q[0] - 1; c++)
        if (!isspace((unsigned char)*c) || (o > out && o[-1] != ' '))
            *o++ = isspace((unsigned char)*c) ? ' ' : *c;
    *o = '\0';
    return out;
}

/* Every warp instruction in the PTX must name all 32 lanes: the immediate -1,
 * or a register whose every write in its function is a mov of -1 (anything
 * else could be fewer lanes). Returns 0, or 1 with what was found in why. */
static int partial_mask(char *ptx, char *why, size_t size)
{
    static char *lines[20000];
    static int fn_of[20000]; /* the line where each line's function starts */
    int count = 0, fn = 0;
    for (char *l = strtok(ptx, "\n"); l && count < 20000; l = strtok(NULL, "\n")) {
        if (strstr(l, ".entry") || strstr(l, ".func"))
            fn = count;
        fn_of[count] = fn;
        lines[count++] = l;
    }
    for (int i = 0; i < count; i++) {
        const char *insn = ptx_insn(lines[i]);
        size_t k = 0, ops = sizeof warp_ops / sizeof *warp_ops;
        while (k < ops && strncmp(insn, warp_ops[k].op, strlen(warp_ops[k].op)) != 0)
            k++;
        if (k == ops)
            continue;
        const char *last = insn + strcspn(insn, ";"), *m = last;
        while (m > insn && !strchr(", \t", m[-1]))
            m--;
        char mask[64], found[300];
        snprintf(mask, sizeof mask, "%.*s", (int)(last - m), m);
        long long v = ptx_imm(mask);
        if (v >= 0)
            snprintf(found, sizeof found, "0x%08llx", v);
        else
            snprintf(found, sizeof found, "%s, never written in its function", mask);
        for (int j = fn_of[i]; mask[0] == '%' && j < count && fn_of[j] == fn_of[i]; j++) {
            const char *w = ptx_insn(lines[j]), *comma = strchr(w, ',');
            if (!ptx_writes(w, mask))
                continue;
            char src[64] = "";
            v = strncmp(w, "mov.", 4) == 0 && comma && sscanf(comma + 1, " %63[^;]", src) == 1 ? ptx_imm(src) : -1;
            if (v >= 0)
                snprintf(found, sizeof found, "0x%08llx (a mov into %s)", v, mask);
            else
                snprintf(found, sizeof found, "%s, set by `%s`", mask, ptx_quote(w));
            if (v != 0xffffffffLL)
                break;
        }
        if (v == 0xffffffffLL)
            continue;
        snprintf(why, size, "%s with member mask %s, PTX line %d: `%s`%s", warp_ops[k].what, found, i + 1,
                 ptx_quote(insn),
                 strstr(found, "activemask") ? " (__activemask() is the lanes converged at that moment, not the "
                                               "warp: it may leave out lanes still on their way)"
                                             : "");
        return 1;
    }
    return 0;
}

START_TEST(warp_step_synchronises_its_lanes)
{
    HARNESS_JUDGE_ONLY;
    char *ptx = harness_nvcc(NVCC, CUDA_ARCH, EX_DIR, NULL, PROJECT_DIR "/tests/ex_ch06_kernel.cu", "ptx");
    ck_assert_msg(ptx != NULL, "your last_warp.cuh does not compile (nvcc -ptx)");
    int syncs = (strstr(ptx, "bar.warp.sync") != NULL) + (strstr(ptx, "shfl.sync") != NULL);
    ck_assert_msg(syncs > 0, "got: no bar.warp.sync and no shfl.sync in the PTX; want: a warp step whose lanes "
                             "synchronise (volatile orders nothing between lanes)");
    char why[600];
    ck_assert_msg(!partial_mask(ptx, why, sizeof why),
                  "got: %s; want: 0xffffffff. Lanes outside the mask take no part: reading one, or calling from one, is "
                  "undefined behaviour even when the sum comes out right. Every lane of the warp takes part in every "
                  "step here, so the mask is the full warp, 0xffffffff",
                  why);
    free(ptx);
}
END_TEST

/* ------------------------------------------------------------ the CPU warp
 * The sets of s[0..63] the CPU warp starts from: four named ones, then the 64
 * unit sets (s[j] = 1, the rest 0), whose sums say how many times the code
 * counts each s[j]. Computed alike by the probe (which feeds them to the CPU
 * warp) and the judge (which wants their sums). */
enum { NAMED_SETS = 4, CPU_SETS = NAMED_SETS + 64 };
static const char *const set_names[NAMED_SETS] = {
    "small values, within +-64000", "values past 2^31, 2^31 .. 2^33", "values below -2^31, -2^33 .. -2^31",
    "values past 2^40, both signs"};

static long long set_value(int set, int i)
{
    long long distinct = i * 37 % 101; /* so a lost or doubled term shows */
    switch (set) {
    case 0:
        return distinct - 50 + (long long)i * 1000;
    case 1:
        return (1LL << 31) + (long long)i * 100000007 + distinct;
    case 2:
        return -((1LL << 31) + (long long)i * 99999989 + i * 53 % 97);
    case 3:
        return (i % 3 ? 1 : -1) * ((1LL << 40) + (long long)i * 1234567891 + distinct);
    default:
        return i == set - NAMED_SETS;
    }
}

static long long set_sum(int set)
{
    long long sum = 0;
    for (int i = 0; i < 64; i++)
        sum += set_value(set, i);
    return sum;
}

/* What the probe saw of the CPU warp: its status, the sums, its notes. */
enum { WARP_OK, WARP_NO_BUILD, WARP_NO_RUN, WARP_BAD_OUTPUT };
enum { CALL_DOWN = 1, CALL_UP = 2, CALL_XOR = 4, CALL_IDX = 8, CALL_SYNCWARP = 16 };
typedef struct {
    int32_t status, rc;
    uint32_t calls;                /* CALL_*: the warp functions the code called */
    int64_t got[CPU_SETS][2];      /* s[0] after the lanes ran ascending, descending */
    char members[240];             /* " ok", or ": " and the first lane that broke its mask */
    char log[1200];                /* the build's errors, or the run's stderr */
} cpu_warp;

/* The start of a file (at most size - 1 bytes) into text, or "". */
static void file_head(const char *dir, const char *name, char *text, size_t size)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *all = harness_read_file(path);
    snprintf(text, size, "%s", all ? all : "");
    free(all);
}

/* The CPU warp's output (out.txt in dir) into w; 0 when it has every line. */
static int read_cpu_warp(const char *dir, cpu_warp *w)
{
    char path[700];
    snprintf(path, sizeof path, "%s/out.txt", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return 1;
    int ok = 1;
    for (int k = 0; k < CPU_SETS && ok; k++) {
        long long a, d;
        ok = fscanf(f, " got %lld %lld", &a, &d) == 2;
        w->got[k][0] = a, w->got[k][1] = d;
    }
    char line[400] = "";
    static const char *names[] = {"down", "up", "xor", "idx", "syncwarp"};
    ok = ok && fscanf(f, " calls%399[^\n]", line) >= 0;
    for (char *p = strtok(line, " "); p; p = strtok(NULL, " "))
        for (int k = 0; k < 5; k++)
            w->calls |= strcmp(p, names[k]) == 0 ? 1u << k : 0;
    ok = ok && fscanf(f, " members%239[^\n]", w->members) == 1;
    fclose(f);
    return !ok;
}

/* In the probe (and by hand): builds the CPU warp with the answer, runs it on
 * the sets, and reads what it printed. */
static void run_cpu_warp(cpu_warp *w)
{
    memset(w, 0, sizeof *w);
    char dir[600];
    snprintf(dir, sizeof dir, "%s/cpu-warp", harness_scratch("test_ex_ch06"));
    if (harness_shell("rm -rf %s && mkdir -p %s", harness_q(dir), harness_q(dir)) != 0) {
        w->status = WARP_NO_RUN;
        return;
    }
    if (harness_shell("cd %s && g++ -std=c++17 -O1 -I%s %s/tests/ex_ch06_warp_cpu.cpp -o warp > build.txt 2>&1",
                      harness_q(dir), harness_q(EX_DIR), harness_q(PROJECT_DIR)) != 0) {
        w->status = WARP_NO_BUILD;
        file_head(dir, "build.txt", w->log, sizeof w->log);
        return;
    }
    char path[700];
    snprintf(path, sizeof path, "%s/sets.txt", dir);
    FILE *f = fopen(path, "w");
    for (int k = 0; f && k < CPU_SETS; k++)
        for (int i = 0; i < 64; i++)
            fprintf(f, "%lld%c", set_value(k, i), i == 63 ? '\n' : ' ');
    if (!f || fclose(f) != 0) {
        w->status = WARP_NO_RUN;
        return;
    }
    /* the answer's code runs here: in a folder of its own, 60 s at most */
    w->rc = harness_answer_shell(dir, "timeout 60 ./warp < sets.txt > out.txt 2> err.txt");
    file_head(dir, "err.txt", w->log, sizeof w->log);
    w->status = w->rc != 0 ? WARP_NO_RUN : read_cpu_warp(dir, w) ? WARP_BAD_OUTPUT : WARP_OK;
}

/* "s[a..b] counted N times; ..." for the s[j] the code counts other than
 * once (order o), from the unit sets' sums; "" when each is counted once. */
static void describe_counts(const cpu_warp *w, int o, char *text, size_t size)
{
    size_t at = 0;
    text[0] = '\0';
    for (int j = 0; j < 64 && at + 80 < size;) {
        long long c = w->got[NAMED_SETS + j][o];
        int end = j;
        while (end + 1 < 64 && w->got[NAMED_SETS + end + 1][o] == c)
            end++;
        if (c != 1) {
            char range[32];
            snprintf(range, sizeof range, end > j ? "s[%d..%d]" : "s[%d]", j, end);
            at += (size_t)snprintf(text + at, size - at, "%s%s counted %lld time%s", at ? "; " : "", range, c,
                                   c == 1 || c == -1 ? "" : "s");
        }
        j = end + 1;
    }
}

/* Why set k's sum (order o) is wrong, in words, from everything the CPU warp
 * showed: the lane order, the functions called, each s[j]'s count. */
static void diagnose(const cpu_warp *w, int k, int o, char *why, size_t size)
{
    char counts[600];
    describe_counts(w, o, counts, sizeof counts);
    long long got = w->got[k][o], want = set_sum(k);
    long long off = (long long)((unsigned long long)got - (unsigned long long)want);
    int lower_half = 1; /* each of s[0..31] counted once, s[32..63] never */
    for (int j = 0; j < 64; j++)
        lower_half &= w->got[NAMED_SETS + j][o] == (j < 32);
    if (w->got[k][0] != w->got[k][1])
        snprintf(why, size, "the sum depends on the lanes' order (ascending %lld, descending %lld): a lane reads a "
                            "value another lane writes with no __syncwarp between them",
                 (long long)w->got[k][0], (long long)w->got[k][1]);
    else if (lower_half)
        snprintf(why, size, "s[32..63] are never added: each lane starts from s[t] + s[t + 32], then the five "
                            "steps fold the 32 lanes' sums into lane 0");
    else if ((w->calls & CALL_UP) && counts[0])
        snprintf(why, size, "by the sets with one s[j] = 1: %s. You shuffle up: __shfl_up_sync(mask, v, k) gives lane t the v of lane t - k, "
                            "below it, and a lane with none k below (lane 0 at every step) gets its own v back, so "
                            "lane 0 only adds itself again and never sees the others. Shuffled up, a sum gathers in "
                            "lane 31, not lane 0: take from the lane k above instead, __shfl_down_sync(0xffffffff, v, "
                            "k), and lane 0 ends with the total",
                 counts);
    else if (counts[0])
        snprintf(why, size, "by the sets with one s[j] = 1: %s; want each counted once (a step reads the wrong "
                            "lane, or a lane's value is added twice)",
                 counts);
    else if ((uint32_t)got == (uint32_t)want)
        snprintf(why, size, "right in its low 32 bits, wrong above them (off by %lld x 2^32): a partial sum went "
                            "through 32 bits, an int variable or an int shuffled (a shuffle moves the type it is "
                            "given: (int)v moves 32 bits); keep it a long long and shuffle that, all 64 bits",
                 off / (1LL << 32));
    else
        snprintf(why, size, "each s[j] alone is counted once, but this sum is off by %lld", off);
}

START_TEST(exact_when_lanes_run_one_after_another)
{
    static cpu_warp w;
    if (HARNESS_CALLS_ANSWER)
        run_cpu_warp(&w);
    harness_answer(&w, sizeof w);
    w.log[sizeof w.log - 1] = w.members[sizeof w.members - 1] = '\0';
    ck_assert_msg(w.status != WARP_NO_BUILD, "your last_warp.cuh does not build as host code with the CPU warp "
                                             "(tests/ex_ch06_warp_cpu.cpp, g++):\n%s", w.log);
    ck_assert_msg(w.status != WARP_NO_RUN, "the CPU warp did not finish (status %d%s):\n%s", w.rc,
                  w.rc == 124 ? ": it ran past 60 s" : "", w.log);
    ck_assert_msg(w.status == WARP_OK, "the CPU warp's output was cut short or garbled (does your code print?):\n%s", w.log);
    ck_assert_msg(strcmp(w.members, " ok") == 0,
                  "the CPU warp%s: undefined behaviour on a GPU even when the sum comes out right; every lane "
                  "takes part, so the member mask is 0xffffffff",
                  w.members);
    static const char *orders[2] = {"ascending", "descending"};
    for (int k = 0; k < CPU_SETS; k++)
        for (int o = 0; o < 2; o++) {
            long long want = set_sum(k);
            if (w.got[k][o] == want)
                continue;
            char what[40], why[1200];
            snprintf(what, sizeof what, "s[%d] = 1, the others 0", k - NAMED_SETS);
            diagnose(&w, k, o, why, sizeof why);
            ck_abort_msg("64 values (%s), lanes run one after another in %s order between synchronisation points: "
                         "got %lld, want %lld: %s",
                         k < NAMED_SETS ? set_names[k] : what, orders[o], (long long)w.got[k][o], want, why);
        }
}
END_TEST

/* ------------------------------------------------------------- on the GPU */
static const size_t sizes[] = {0, 1, 31, 33, 1023, 1025, (1u << 20) - 1, (1u << 20) + 1};
#define SIZE_COUNT (sizeof sizes / sizeof sizes[0])

/* block_sums(in[0..n)) on the GPU, in the probe (and by hand); the judge
 * takes the sum from the trace. */
static long long gpu_block_sums(const int *in, size_t n)
{
    long long got = 0;
    if (HARNESS_CALLS_ANSWER) {
        int *d_in;
        long long *d_sum;
        CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(int) + 1));
        CUDA_CHECK(cudaMalloc(&d_sum, sizeof(long long)));
        CUDA_CHECK(cudaMemcpy(d_in, in, n * sizeof(int), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemset(d_sum, 0, sizeof(long long)));
        block_sums<<<64, EX_BLOCK>>>(d_in, n, d_sum);
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaMemcpy(&got, d_sum, sizeof got, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaFree(d_in));
        CUDA_CHECK(cudaFree(d_sum));
    }
    harness_answer(&got, sizeof got);
    return got;
}

START_TEST(exact_sums)
{
    size_t n = sizes[_i];
    int *in = (int *)malloc(n * sizeof(int) + 1);
    long long want = 0;
    test_rng r = {6060 + n};
    for (size_t i = 0; i < n; i++) {
        in[i] = (int)(test_rng_next(&r) >> 56) - 128;
        want += in[i];
    }
    long long got = gpu_block_sums(in, n);
    ck_assert_msg(got == want, "n=%zu: got %lld, want %lld", n, got, want);
    free(in);
}
END_TEST

/* Every value 2^30 or more in size, one sign: a partial sum of two or more
 * does not fit 32 bits, and a partial that lost its upper half is off by a
 * multiple of 2^32 of one sign, so the errors cannot cancel. _i: the size,
 * then the sign (even: positive). */
START_TEST(exact_sums_past_2_31)
{
    size_t n = sizes[_i / 2];
    int negative = _i % 2;
    int *in = (int *)malloc(n * sizeof(int) + 1);
    long long want = 0;
    test_rng r = {6161 + n};
    for (size_t i = 0; i < n; i++) {
        int x = (int)(0x40000000u + (unsigned)(test_rng_next(&r) >> 34)); /* 2^30 .. 2^31 - 1 */
        in[i] = negative ? -x - 1 : x;                                   /* -2^31 .. -2^30 - 1 */
        want += in[i];
    }
    long long got = gpu_block_sums(in, n);
    ck_assert_msg(got == want, "n=%zu, every value in %s: got %lld, want %lld%s", n,
                  negative ? "[-2^31, -2^30 - 1]" : "[2^30, 2^31 - 1]", got, want,
                  (uint32_t)got == (uint32_t)want
                      ? " (right in the low 32 bits, wrong above them: a partial sum went through 32 bits, an int "
                        "variable or an int shuffled; keep it a long long and shuffle that, all 64 bits)"
                      : "");
    free(in);
}
END_TEST

/* --launch-once (run by compute-sanitizer, on the probe program): block_sums
 * once, then exit. */
static int launch_once(void)
{
    enum { N = 1025 };
    static int in[N];
    for (int i = 0; i < N; i++)
        in[i] = i % 7 - 3;
    int *d_in;
    long long *d_sum;
    CUDA_CHECK(cudaMalloc(&d_in, sizeof in));
    CUDA_CHECK(cudaMalloc(&d_sum, sizeof(long long)));
    CUDA_CHECK(cudaMemcpy(d_in, in, sizeof in, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_sum, 0, sizeof(long long)));
    block_sums<<<4, EX_BLOCK>>>(d_in, N, d_sum);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_sum));
    return 0;
}

START_TEST(clean_under_compute_sanitizer)
{
    HARNESS_JUDGE_ONLY;
    char why[400];
    int rc = harness_sanitize_kernel(NVCC, why, sizeof why);
    ck_assert_msg(rc == 0, "compute-sanitizer on block_sums with your last warp (n = 1025): %s (a lane must "
                           "not read a value another lane is writing in the same step: order them with __syncwarp "
                           "between the read and the write, or pass values in registers with __shfl_down_sync)",
                  why);
}
END_TEST

int main(int argc, char **argv)
{
    /* before the suite, in every build alike: the judge runs the probe
     * program this way under compute-sanitizer */
    if (argc > 1 && strcmp(argv[1], "--launch-once") == 0)
        return launch_once();
    Suite *s = suite_create("exercise ch06");
    TCase *tc = tcase_create("last warp");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, warp_step_synchronises_its_lanes);
    tcase_add_test(tc, exact_when_lanes_run_one_after_another);
    int skipped = harness_add_gpu_test(tc, exact_sums, SIZE_COUNT);
    skipped += harness_add_gpu_test(tc, exact_sums_past_2_31, 2 * SIZE_COUNT);
    if (harness_can_sanitize(NVCC))
        tcase_add_test(tc, clean_under_compute_sanitizer);
    else
        skipped++, printf("no GPU or no compute-sanitizer: the compute-sanitizer runs are skipped\n");
    suite_add_tcase(s, tc);
    return harness_run_gpu(s, "exercise-ch06", skipped);
}
