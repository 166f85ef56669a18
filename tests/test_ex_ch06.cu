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
 *    ascending and in descending lane order, sums 64 values exactly. A step
 *    with no synchronisation between one lane's read and another's write, or a
 *    sum that forgets s[t + 32], is wrong here, on any machine; so is a lane
 *    that reads, or calls from, outside a shuffle's or __syncwarp's mask.
 * 3. On a GPU: block_sums (that kernel) gives exact int64 sums at n = 0, 1,
 *    31, 33, 1023, 1025, 2^20 - 1, 2^20 + 1 (int32 in [-128, 127], seed 6060).
 *    Without a GPU these are counted as skipped.
 * 4. On a GPU with compute-sanitizer: block_sums (n = 1025) under racecheck
 *    reports no hazard, and under memcheck no invalid access. A warp step that reads a lane's value while that lane
 *    writes it is a race even when the sum comes out right on this GPU.
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

START_TEST(exact_when_lanes_run_one_after_another)
{
    const char *dir = harness_scratch("test_ex_ch06");
    ck_assert_msg(harness_shell("cd %s && g++ -std=c++17 -O1 -I%s %s/tests/ex_ch06_warp_cpu.cpp -o warp > build.txt 2>&1",
                                harness_q(dir), harness_q(EX_DIR), harness_q(PROJECT_DIR)) == 0,
                  "your last_warp.cuh does not build as host code with the CPU warp (see %s/build.txt)", dir);
    ck_assert_msg(harness_shell("cd %s && ./warp > out.txt", harness_q(dir)) == 0, "the CPU warp did not finish");
    char path[300];
    snprintf(path, sizeof path, "%s/out.txt", dir);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char order[2][16];
    long long got[2], want[2];
    for (int o = 0; o < 2; o++)
        ck_assert_int_eq(fscanf(f, "%15s got %lld want %lld", order[o], &got[o], &want[o]), 3);
    char members[300] = "";
    ck_assert_int_eq(fscanf(f, " members%299[^\n]", members), 1);
    fclose(f);
    ck_assert_msg(strcmp(members, " ok") == 0,
                  "the CPU warp%s: undefined behaviour on a GPU even when the sum comes out right; every lane "
                  "takes part, so the member mask is 0xffffffff",
                  members);
    for (int o = 0; o < 2; o++)
        ck_assert_msg(got[o] == want[o],
                      "64 values, lanes run one after another in %s order between synchronisation points: got %lld, "
                      "want %lld (%s)",
                      order[o], got[o], want[o],
                      got[0] == got[1] ? "the same wrong sum in both orders: a term is missing, s[t + 32] perhaps"
                                       : "the sum depends on the lanes' order: a lane reads a value another lane "
                                         "writes with no __syncwarp between them");
}
END_TEST

static const size_t sizes[] = {0, 1, 31, 33, 1023, 1025, (1u << 20) - 1, (1u << 20) + 1};
#define SIZE_COUNT (sizeof sizes / sizeof sizes[0])

START_TEST(exact_sums)
{
    size_t n = sizes[_i];
    int *in = (int *)malloc(n * sizeof(int) + 1), *d_in;
    long long want = 0, got, *d_sum;
    test_rng r = {6060 + n};
    for (size_t i = 0; i < n; i++) {
        in[i] = (int)(test_rng_next(&r) >> 56) - 128;
        want += in[i];
    }
    CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(int) + 1));
    CUDA_CHECK(cudaMalloc(&d_sum, sizeof(long long)));
    CUDA_CHECK(cudaMemcpy(d_in, in, n * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_sum, 0, sizeof(long long)));
    block_sums<<<64, EX_BLOCK>>>(d_in, n, d_sum);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(&got, d_sum, sizeof got, cudaMemcpyDeviceToHost));
    ck_assert_msg(got == want, "n=%zu: got %lld, want %lld", n, got, want);
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_sum));
    free(in);
}
END_TEST

/* --launch-once (run by compute-sanitizer): block_sums once, then exit. */
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
    if (argc > 1 && strcmp(argv[1], "--launch-once") == 0)
        return launch_once();
    Suite *s = suite_create("exercise ch06");
    TCase *tc = tcase_create("last warp");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, warp_step_synchronises_its_lanes);
    tcase_add_test(tc, exact_when_lanes_run_one_after_another);
    int skipped = harness_add_gpu_test(tc, exact_sums, SIZE_COUNT);
    if (harness_can_sanitize(NVCC))
        tcase_add_test(tc, clean_under_compute_sanitizer);
    else
        skipped++, printf("no GPU or no compute-sanitizer: the compute-sanitizer runs are skipped\n");
    suite_add_tcase(s, tc);
    return harness_run_gpu(s, "exercise-ch06", skipped);
}
