/* test_ex_ch11.c - exercise ch11: the ring exchange, overlapped. Builds the
 * exercise (EX_DIR/ring_step.h) into tests/ex_ch11_driver.c with mpicc, with
 * ch11's CPU block loop, and runs it under mpirun at P = 1 .. 4 (n = 1025:
 * uneven blocks); the driver records every transfer (its bytes, which block
 * they are, when it was posted and completed) and every compute, and writes
 * each rank's verdict and the gathered forces; this test reads that report
 * and checks the forces itself against the N-body core's reference.
 *
 * Both tests only compile the answer or run it as a program of its own, so
 * they run in the judge alone (harness.h, "the probe and the judge"). Every
 * mpirun of the answer's program runs through harness_answer_shell, in a
 * fresh folder of its own, the only one it may write; the program itself,
 * the reference and the comparison stay outside it, in this process.
 *
 * The driver's log sees only calls named MPI_* (it wraps them through MPI's
 * profiling interface), so an answer could move its blocks by a blocking
 * PMPI_Sendrecv called directly, or write the report itself. What is
 * robust: the answer compiled alone, its undefined symbols are every function
 * it references, and it may reference only the MPI calls the exercise asks
 * for, which the driver watches, and a few of the C library's (memory,
 * printing to the terminal): ring_calls_are_watched. The driver then judges
 * the overlap from the data it saw move: for each round, the block needed
 * next and the block held must each travel whole by a request posted before
 * the round's compute and completed after it. */
#include "harness.h"

#include "../common/nbody/check.c"
#include "../common/nbody/nbody.c"

enum { EX_CH11_N = 1025 }; /* the driver's n */

/* Calls an answer may make: the non-blocking pair and its waits (all watched
 * by the driver), MPI's rank and size, Open MPI's predefined handles
 * (MPI_COMM_WORLD is the symbol ompi_mpi_comm_world), the compute, and the C
 * library's memory and printing functions (and what the compiler calls for
 * them: _chk variants, the stack protector, assert). Anything else (a
 * blocking call, a PMPI_* one, Open MPI's internals, a look-up by name, a file
 * opened, the process ended) could move a block, or write the verdict, where
 * the driver cannot see it. */
#define EX_CH11_ALLOWED                                                                                           \
    "MPI_(Isend|Irecv|Wait|Waitall|Comm_rank|Comm_size)|ompi_mpi_[a-z0-9_]+|ex_ring_compute|"                     \
    "(__)?(mem(cpy|move|set|cmp)|v?f?printf|puts|fputs|fputc|putc|putchar|fflush|malloc|calloc|free|abort)(_chk)?|" \
    "stdout|stderr|__assert_fail|__stack_chk_fail"

START_TEST(ring_calls_are_watched)
{
    HARNESS_JUDGE_ONLY;
    const char *dir = harness_scratch("test_ex_ch11");
    int rc = harness_shell("cd %s && mpicc -std=gnu11 -c -DEX_CH11_ANSWER_ONLY -I%s -I%s/chapters/ch11_mpi_nbody "
                           "%s/tests/ex_ch11_driver.c -o answer.o || exit 1; nm -u answer.o | awk '{print $NF}' | "
                           "sed 's/@.*//' | grep -vExe %s | paste -sd' ' > calls",
                           harness_q(dir), harness_q(EX_DIR), harness_q(PROJECT_DIR), harness_q(PROJECT_DIR),
                           harness_q(EX_CH11_ALLOWED));
    char path[600];
    snprintf(path, sizeof path, "%s/calls", dir);
    char *calls = harness_read_file(path);
    ck_assert_msg(rc == 0 && calls, "ring_step.h did not compile alone with mpicc (exit %d)", rc);
    calls[strcspn(calls, "\n")] = '\0'; /* paste ends its line, even an empty one */
    ck_assert_msg(!calls[0], "the answer calls %s: the ring must pass its blocks by MPI_Irecv and MPI_Isend "
                  "alone, waited for by MPI_Wait/MPI_Waitall after the compute (besides those, MPI_Comm_rank/size, "
                  "ex_ring_compute and the C library's memory and printing functions); a blocking call, any call "
                  "through the profiling interface (PMPI_*), a file written or the process ended moves a block or "
                  "a verdict where the overlap check cannot see it",
                  calls);
    free(calls);
}
END_TEST

/* The file path in folder dir, read whole (NULL if it is not there). */
static char *read_in(const char *dir, const char *name, long *size)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *text = harness_read_file(path);
    if (size) {
        FILE *f = fopen(path, "rb");
        *size = -1;
        if (f && fseek(f, 0, SEEK_END) == 0)
            *size = ftell(f);
        if (f)
            fclose(f);
    }
    return text;
}

/* A failing rank's reason in the report ("rank R: why"), and how many ranks
 * failed; empty if all passed; NULL if a rank's verdict is missing. The
 * reason shown is the first rank's with an MPI error (a receive too short),
 * if any: the other ranks' failures then follow from it (the blocks they got
 * were cut short on the way). */
static char *report_reasons(const char *report, int P, char *out, size_t size)
{
    int failed = 0, root = 0;
    out[0] = '\0';
    for (int r = 0; r < P; r++) {
        char head[32];
        int n = snprintf(head, sizeof head, "rank %d: ", r);
        const char *line = report;
        while (line && strncmp(line, head, (size_t)n) != 0)
            line = (line = strchr(line, '\n')) ? line + 1 : NULL;
        if (!line)
            return NULL;
        size_t len = strcspn(line, "\n");
        if (len == (size_t)n + 2 && strncmp(line + n, "ok", 2) == 0)
            continue;
        char reason[700];
        snprintf(reason, sizeof reason, "%.*s", (int)len, line);
        int error = strstr(reason, "(MPI_ERR") != NULL;
        if (!failed++ || (error && !root))
            snprintf(out, size, "%s", reason);
        root |= error;
    }
    size_t at = strlen(out);
    if (failed > 1)
        snprintf(out + at, size - at, " (and %d other rank%s)", failed - 1, failed > 2 ? "s" : "");
    return out;
}

/* The forces the run wrote, against the reference (made here, once). */
static double forces_error(const char *run, int *missing)
{
    static body all[EX_CH11_N];
    static vec3 v[EX_CH11_N];
    static reference ref;
    if (!ref.n) {
        nbody_init(all, v, EX_CH11_N);
        make_reference(&ref, all, EX_CH11_N);
    }
    long size;
    char *bytes = read_in(run, "forces", &size);
    *missing = !bytes || size != (long)(EX_CH11_N * sizeof(vec3));
    double err = *missing ? INFINITY : force_error(&ref, (const vec3 *)bytes);
    free(bytes);
    return err;
}

START_TEST(ring_overlaps_and_is_right)
{
    HARNESS_JUDGE_ONLY;
    int P = _i + 1;
    const char *dir = harness_scratch("test_ex_ch11");
    char bin[600], run[600];
    snprintf(bin, sizeof bin, "%s/ring", dir);
    if (access(bin, X_OK) != 0) {
        /* common's sources but program.c, the programs' main() (the driver has its own), as "$@": a path may
         * hold spaces */
        int rc = harness_shell("set --; for f in %s/common/*.c; do case $f in */program.c) ;; "
                               "*) set -- \"$@\" \"$f\" ;; esac; done; "
                               "mpicc -std=gnu11 -O2 -I%s -I%s/chapters/ch11_mpi_nbody %s/tests/ex_ch11_driver.c "
                               "%s/chapters/ch07_nbody/cpu.c %s/common/nbody/*.c \"$@\" -lm -o %s",
                               harness_q(PROJECT_DIR), harness_q(EX_DIR), harness_q(PROJECT_DIR), harness_q(PROJECT_DIR),
                               harness_q(PROJECT_DIR), harness_q(PROJECT_DIR), harness_q(bin));
        ck_assert_msg(rc == 0, "ring_step.h did not compile with the driver (mpicc exit %d)", rc);
    }
    /* A fresh folder for this run, the only one it may write: Open MPI's
     * session files go to TMPDIR (the sandbox's folder), its shared memory
     * to files there too (the sandbox lets no run make files in /dev/shm). */
    snprintf(run, sizeof run, "%s/run%d.XXXXXX", dir, P);
    ck_assert_msg(mkdtemp(run) != NULL, "could not make a folder for the run");
    int rc = harness_answer_shell(run, "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
                                  "OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_shmem=mmap "
                                  "OMPI_MCA_shmem_mmap_backing_file_base_dir=\"$PWD\" "
                                  "OMPI_MCA_btl_vader_backing_directory=\"$PWD\" timeout 60 mpirun -np %d %s > out 2>&1",
                                  P, harness_q(bin));
    /* What the run printed, without mpirun's frame (for a run that left no report). */
    harness_shell("grep -v '^-\\|^ \\|^$\\|Primary job\\|mpirun detected\\|Process name\\|Exit code\\|a "
                  "non-zero\\|the job to be\\|this process' %s/out | head -c 500 | tr '\\n' ' ' > %s/why",
                  harness_q(run), harness_q(dir));
    char *printed = read_in(dir, "why", NULL), reasons[1200];
    char *report = read_in(run, "report", NULL);
    ck_assert_msg(report != NULL, "P = %d: the ring did not finish, so no report (exit %d%s): %s", P, rc,
                  rc == 124 ? ": it hung, so a rank waits for a message nobody sends" : "", printed ? printed : "");
    ck_assert_msg(report_reasons(report, P, reasons, sizeof reasons) != NULL,
                  "P = %d: the report lacks a rank's verdict (exit %d): %s", P, rc, printed ? printed : "");
    ck_assert_msg(!reasons[0], "P = %d: the ring failed its check: %s", P, reasons);
    int missing;
    double err = forces_error(run, &missing), bound = error_bound(EX_CH11_N);
    ck_assert_msg(!missing, "P = %d: the run wrote no forces (or a file of the wrong size)", P);
    ck_assert_msg(err <= bound, "P = %d: the forces: error %.3g against ch07's reference, bound %.3g: a block "
                  "missed, counted twice, or the wrong size", P, err, bound);
    ck_assert_msg(rc == 0, "P = %d: mpirun exited %d though every rank reported its check passed: %s", P, rc,
                  printed ? printed : "");
    free(report);
    free(printed);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("exercise ch11 (ring)");
    TCase *tc = tcase_create("ring");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, ring_calls_are_watched);
    tcase_add_loop_test(tc, ring_overlaps_and_is_right, 0, 4);
    suite_add_tcase(s, tc);
    return harness_run(s, "exercise-ch11", 0);
}
