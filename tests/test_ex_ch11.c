/* test_ex_ch11.c - exercise ch11: the ring exchange, overlapped. Builds the
 * exercise (EX_DIR/ring_step.h) into tests/ex_ch11_driver.c with mpicc, with
 * ch07's CPU loop and reference, and runs it under mpirun at P = 1 .. 4 (n =
 * 1025: uneven blocks); the driver checks the forces and, from the MPI calls
 * it intercepts, that each transfer was in flight during its round's compute. */
#include "harness.h"

START_TEST(ring_overlaps_and_is_right)
{
    int P = _i + 1;
    const char *dir = harness_scratch("test_ex_ch11");
    char bin[128];
    snprintf(bin, sizeof bin, "%s/ring", dir);
    if (P == 1 || access(bin, X_OK) != 0) {
        int rc = harness_shell("mpicc -std=gnu11 -O2 -I%s -I%s/chapters/ch07_nbody %s/tests/ex_ch11_driver.c "
                               "%s/chapters/ch07_nbody/cpu.c %s/chapters/ch07_nbody/check.c -lm -o %s",
                               harness_q(EX_DIR), harness_q(PROJECT_DIR), harness_q(PROJECT_DIR), harness_q(PROJECT_DIR),
                               harness_q(PROJECT_DIR), harness_q(bin));
        ck_assert_msg(rc == 0, "ring_step.h did not compile with the driver (mpicc exit %d)", rc);
    }
    int rc = harness_shell("cd %s && OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
                           "OMPI_MCA_rmaps_base_oversubscribe=1 timeout 60 mpirun -np %d ./ring > out%d 2>&1; rc=$?; "
                           "grep -v '^-\\|^ \\|^$\\|Primary job\\|mpirun detected\\|Process name\\|Exit code\\|a "
                           "non-zero\\|the job to be\\|this process' out%d; exit $rc",
                           harness_q(dir), P, P, P);
    ck_assert_msg(rc == 0, "P = %d: the ring failed its check (exit %d%s; the driver's reasons above)", P, rc,
                  rc == 124 ? ": it hung, so a rank waits for a message nobody sends" : "");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("exercise ch11 (ring)");
    TCase *tc = tcase_create("ring");
    tcase_set_timeout(tc, 240);
    tcase_add_loop_test(tc, ring_overlaps_and_is_right, 0, 4);
    suite_add_tcase(s, tc);
    return harness_run(s, "exercise-ch11", 0);
}
