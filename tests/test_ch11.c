/* test_ch11.c - ch11's ranks against ch07's single process, and its failures.
 *
 * Runs ./ch11 under mpirun at P = 1 .. 4 (oversubscribed where the machine
 * has fewer cores; as root with Open MPI's consent variables) and ./ch11
 * alone, on the CPU ranks here or on GPUs where the machine has them:
 * - every stage's own check (ch07's bound against ch07's double reference)
 *   passes at odd n, including n < P (ranks that own no bodies);
 * - the final state of every stage at P = 1 .. 4 equals what ch07's scalar
 *   CPU code computes in this process, single-threaded, within ch07's bound;
 * - a rank that fails, or stalls past --timeout, ends every rank non-zero
 *   with its message, never a hang.
 */
#define _GNU_SOURCE
#include "harness.h"
#include "stages.h"

#include <math.h>
#include <time.h>

#ifndef PROGRAM_DIR
#define PROGRAM_DIR "."
#endif

/* Every run under a time limit: a hang fails the test instead of stalling it. */
#define MPIRUN "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 " \
               "timeout 120 mpirun -np"

/* ch07's cpu-scalar stage (its stages.h declares it, beside a stage table of its own). */
void cpu_scalar_forces(const body *b, vec3 *a, int n, int threads);

static const int ns[] = {1, 3, 31, 33, 257};

/* Every row passes its own check at P = 1 .. 4 and odd n (n = 3 at P = 4: a rank with none). */
START_TEST(every_stage_checks_at_every_rank_count)
{
    int P = 1 + _i / 5, n = ns[_i % 5];
    const char *dir = harness_scratch("test_ch11");
    int rc = harness_shell("cd %s && " MPIRUN " %d %s/ch11 --n %d --steps 3 --repeat 1 --quiet --csv run%d.csv "
                           "> log%d 2>&1 || { cat log%d; exit 1; }; "
                           "rows=$(grep -c ',ok,\\|,ok$' run%d.csv); [ \"$rows\" -ge 3 ] || { cat run%d.csv; exit 2; }; "
                           "! grep -q FAIL run%d.csv",
                           harness_q(dir), P, harness_q(PROGRAM_DIR), n, _i, _i, _i, _i, _i, _i);
    ck_assert_msg(rc == 0, "P=%d n=%d: a stage failed its check or did not run (rc %d)", P, n, rc);
}
END_TEST

/* ch07's single process: `steps` steps of cpu-scalar and its leapfrog. */
static void single_process(body *b, vec3 *v, int n, int steps)
{
    vec3 *a = malloc((size_t)n * sizeof *a);
    ck_assert_ptr_nonnull(a);
    nbody_init(b, v, n);
    for (int k = 0; k < steps; k++) {
        cpu_scalar_forces(b, a, n, 1);
        nbody_integrate_cpu(b, v, a, n, DT);
    }
    free(a);
}

/* sum_j |term_ij| at the initial positions, in double: the scale of body i's force. */
static double force_scale(const body *b, int n, int i)
{
    double s = 0;
    for (int j = 0; j < n; j++) {
        double rx = (double)b[j].x - b[i].x, ry = (double)b[j].y - b[i].y, rz = (double)b[j].z - b[i].z;
        double d2 = rx * rx + ry * ry + rz * rz + SOFTENING2;
        s += sqrt(rx * rx + ry * ry + rz * rz) * b[j].m / (d2 * sqrt(d2));
    }
    return s;
}

/* Stage s at P ranks (P = 0: ./ch11 alone): its final velocities and
 * positions against the single process. Velocities may differ by the two
 * float sums' errors, each within ch07's bound of the exact force, over
 * `steps` steps of dt; positions by that times dt, and a rounding. */
static void compare_with_single_process(int s, int P)
{
    enum { N = 1025, STEPS = 3 };
    const char *dir = harness_scratch("test_ch11");
    char cmd[256];
    snprintf(cmd, sizeof cmd, P ? MPIRUN " %d" : "timeout 120", P);
    int rc = harness_shell("cd %s && %s %s/ch11 --n %d --steps %d --repeat 1 --quiet --stage %s --state-out s%d_%d.txt "
                           "> /dev/null 2> err%d_%d || { cat err%d_%d; exit 1; }",
                           harness_q(dir), cmd, harness_q(PROGRAM_DIR), N, STEPS, stages[s].info.name, s, P, s, P, s, P);
    ck_assert_msg(rc == 0, "%s at P=%d did not run (rc %d)", stages[s].info.name, P, rc);
    char path[256];
    snprintf(path, sizeof path, "%s/s%d_%d.txt", dir, s, P);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "no state written at %s", path);
    static body b[N], b0[N];
    static vec3 v[N], v0[N];
    single_process(b, v, N, STEPS);
    nbody_init(b0, v0, N);
    double tol = 2 * error_bound(N) * STEPS * DT, worst = 0;
    for (int i = 0; i < N; i++) {
        float x, y, z, vx, vy, vz;
        ck_assert_msg(fscanf(f, "%f %f %f %f %f %f", &x, &y, &z, &vx, &vy, &vz) == 6, "%s: line %d", path, i + 1);
        double scale = force_scale(b0, N, i);
        double dv = sqrt(pow(vx - v[i].x, 2) + pow(vy - v[i].y, 2) + pow(vz - v[i].z, 2)) / (tol * scale);
        double dp = fmax(fabs(x - b[i].x), fmax(fabs(y - b[i].y), fabs(z - b[i].z)));
        ck_assert_msg(isfinite(dv) && dv <= 1, "%s P=%d body %d: velocity off by %.3g of the bound",
                      stages[s].info.name, P, i, dv);
        ck_assert_msg(dp <= tol * scale * STEPS * DT + 4 * 0x1p-24, "%s P=%d body %d: position off by %.3g",
                      stages[s].info.name, P, i, dp);
        worst = fmax(worst, dv);
    }
    fclose(f);
}

START_TEST(final_state_equals_the_single_process)
{
    int s = _i / 5, P = _i % 5; /* P = 0: the program alone, no mpirun */
    if (stages[s].memory == DEVICE_BUFFERS)
        return; /* CUDA-aware MPI only; where it runs, its own check covers it */
    compare_with_single_process(s, P);
}
END_TEST

/* Three ranks, one of them faulty (args): every rank ends, non-zero, within a
 * minute (not a hang), and stderr says `message`. */
static void faulty_rank_ends_every_rank(const char *args, const char *message)
{
    const char *dir = harness_scratch("test_ch11");
    time_t t0 = time(NULL);
    int rc = harness_shell("cd %s && " MPIRUN " 3 %s/ch11 --n 1025 --quiet %s > /dev/null 2> fault.err; rc=$?; "
                           "grep -q '%s' fault.err || exit 99; exit $rc",
                           harness_q(dir), harness_q(PROGRAM_DIR), args, message);
    ck_assert_msg(rc != 0 && rc != 99 && rc != 124, "%s: exit %d (99: no message, 124: it hung)", args, rc);
    ck_assert_msg(time(NULL) - t0 < 60, "%s: took %ld s", args, (long)(time(NULL) - t0));
}

/* A rank that fails ends every rank, with its message. */
START_TEST(a_failing_rank_ends_every_rank)
{
    faulty_rank_ends_every_rank("--inject fail@1", "rank 1 fails on purpose");
}
END_TEST

/* A rank that stalls: the others give up after --timeout, saying where. */
START_TEST(a_stalled_rank_times_out)
{
    faulty_rank_ends_every_rank("--timeout 2 --inject stall@2", "did not finish within 2 s");
}
END_TEST

/* Bad input under mpirun, whatever check refuses it (the parser, a size, an
 * output path, --inject): every rank exits 2 before MPI_Init (cli_begin_work),
 * an error is the first line, every error line is the same one (each rank
 * says it: a rank cannot know that a rank 0 will; mpirun may end the others
 * before they do), the usage comes at most once (rank 0's), nothing is
 * printed on stdout and nothing is written (mpirun --quiet: its own notice
 * could come first, from a rank that exited sooner). */
static const char *const mpirun_bad[][2] = {
    {"--n 12x", "--n"}, {"--n 16777217", "--n"}, {"--state-out /nonexistent/s.txt", "--state-out"},
    {"--phases /nonexistent/p.csv", "--phases"}, {"--csv /nonexistent/r.csv", "--csv"},
    {"--inject fail@x", "--inject"}};

START_TEST(bad_input_under_mpirun_says_it_once)
{
    const char *dir = harness_scratch("test_ch11");
    int rc = harness_shell("cd %s && rm -rf bad%d && mkdir bad%d && cd bad%d && " MPIRUN " 3 --quiet %s/ch11 %s > ../bad.out "
                           "2> ../bad.err; rc=$?; [ $(grep 'ch11: error' ../bad.err | sort -u | wc -l) -eq 1 ] && "
                           "[ $(grep -c '^usage:' ../bad.err) -le 1 ] && "
                           "head -n 1 ../bad.err | grep -q -e '^ch11: error: .*%s' && [ ! -s ../bad.out ] && "
                           "[ -z \"$(ls -A)\" ] || { cat ../bad.err ../bad.out; exit 99; }; exit $rc",
                           harness_q(dir), _i, _i, _i, harness_q(PROGRAM_DIR), mpirun_bad[_i][0], mpirun_bad[_i][1]);
    ck_assert_msg(rc == 2, "%s: exit %d (99: not one message first, output, or a file)", mpirun_bad[_i][0], rc);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ch11");
    TCase *tc = tcase_create("all");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, every_stage_checks_at_every_rank_count, 0, 4 * 5);
    tcase_add_loop_test(tc, final_state_equals_the_single_process, 0, (int)STAGE_COUNT * 5);
    tcase_add_test(tc, a_failing_rank_ends_every_rank);
    tcase_add_test(tc, a_stalled_rank_times_out);
    suite_add_tcase(s, tc);
    TCase *bad = tcase_create("bad input"); /* a case of its own: CK_RUN_CASE="bad input" runs it alone */
    tcase_set_timeout(bad, 120);
    tcase_add_loop_test(bad, bad_input_under_mpirun_says_it_once, 0, sizeof mpirun_bad / sizeof mpirun_bad[0]);
    suite_add_tcase(s, bad);
    return harness_run(s, "ch11", 0);
}
