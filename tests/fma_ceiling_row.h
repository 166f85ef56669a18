/* fma_ceiling_row.h - one check for the chapters that print the host's FMA
 * ceiling beside their CPU stages (ch03, ch08, ch10): run the program with
 * `args` (a CPU stage on 3 threads, --quiet), then its table must hold a
 * ceiling-cpu-fma row on 3 threads, at least CPU_CEILING_MIN_MS long, with a
 * rate, check n/a, its note naming the ISA (cpu_widest_isa) and the logical
 * CPUs; the table must hold `stage`'s row too; and the CSV the row
 * "\n<csv_start>..." with GFLOP/s and n/a. Include after harness.h and
 * cpu_ceiling.h. */
#ifndef TESTS_FMA_CEILING_ROW_H
#define TESTS_FMA_CEILING_ROW_H

static void check_fma_ceiling_row(const char *program, const char *args, const char *stage, const char *csv_start)
{
    const char *dir = harness_scratch(program);
    ck_assert_int_eq(harness_shell("%s/%s %s --out %s/x.ppm --csv %s/r.csv > %s/table 2> %s/err",
                                   harness_q(PROGRAM_DIR), program, args, harness_q(dir), harness_q(dir),
                                   harness_q(dir), harness_q(dir)), 0);
    char path[300], isa[64], stage_row[80];
    snprintf(path, sizeof path, "%s/table", dir);
    char *table = harness_read_file(path), *row = table ? strstr(table, "\nceiling-cpu-fma ") : NULL;
    ck_assert_msg(row != NULL, "no ceiling-cpu-fma row in:\n%s", table ? table : "(no output)");
    snprintf(stage_row, sizeof stage_row, "\n%s ", stage);
    ck_assert_msg(strstr(table, stage_row) != NULL, "the stage's row (%s) is missing:\n%s", stage, table);
    int threads;
    double ms, gflops;
    ck_assert_int_eq(sscanf(row, "\nceiling-cpu-fma %d %lf - - %lf GFLOP/s n/a", &threads, &ms, &gflops), 3);
    ck_assert_int_eq(threads, 3);
    ck_assert_msg(ms >= CPU_CEILING_MIN_MS && gflops > 0, "%g ms, %g GFLOP/s", ms, gflops);
    snprintf(isa, sizeof isa, " at %s (", cpu_widest_isa());
    char *end = strchr(row + 1, '\n');
    if (end)
        *end = 0;
    ck_assert_msg(strstr(row, isa) && strstr(row, " logical CPUs"), "the note names neither ISA nor CPUs: %s", row);
    free(table);
    snprintf(path, sizeof path, "%s/r.csv", dir);
    char *csv = harness_read_file(path), want[96];
    snprintf(want, sizeof want, "\n%s", csv_start);
    ck_assert_msg(csv && strstr(csv, want) && strstr(csv, ",GFLOP/s,n/a,"), "no ceiling row (%s) in the CSV:\n%s",
                  csv_start, csv ? csv : "(none)");
    free(csv);
}

#endif
