/* report.h - the results table every chapter prints, the CSV rows `make bench`
 * collects, and a progress line for long runs.
 *
 * CSV header (exactly; tools/book.sh and the book read it):
 *   chapter,stage,workload,threads,median_ms,value,unit,check,device,date
 * Commas or newlines inside a field are replaced by spaces.
 */
#ifndef COMMON_REPORT_H
#define COMMON_REPORT_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define REPORT_CSV_HEADER "chapter,stage,workload,threads,median_ms,value,unit,check,device,date"
#define REPORT_MAX_ROWS 128

typedef struct {
    char stage[48];
    int threads;
    double ms;      /* median time */
    double value;   /* in unit: Msamples/s, GB/s, GFLOP/s ... */
    char unit[24];
    int ok;         /* the stage's check: 1 ok, 0 FAIL, -1 n/a (nothing to check against) */
    char note[256]; /* free text for the table: PSNR, occupancy ... */
} report_row;

typedef struct {
    const char *chapter;  /* "ch01" */
    char workload[96];    /* "512x512x64spp" */
    const char *csv_path; /* NULL: no CSV */
    int quiet;
    report_row rows[REPORT_MAX_ROWS];
    int count;
} report;

void report_init(report *r, const char *chapter, const char *workload, const char *csv_path, int quiet);

/* Records one stage run, appends its CSV row (if a CSV path was given) and
 * returns the row so a caller can add a note. device: GPU name or the CPU
 * model (host_cpu_name()). */
report_row *report_add(report *r, const char *stage, int threads, double ms, double value, const char *unit,
                       int ok, const char *device);

/* Prints the table: stage, time, speedup over the first row, value, check, note. */
void report_print(const report *r, FILE *f);

/* 1 unless some row FAILed its check. */
int report_all_ok(const report *r);

/* "AMD EPYC 9654 96-Core Processor" from /proc/cpuinfo, or "unknown CPU". */
const char *host_cpu_name(void);

/* Progress on stderr, shown only when stderr is a terminal and not quiet;
 * redrawn at most 10 times a second. */
typedef struct {
    int enabled;
    const char *label;
    long total;
    double last_draw, start;
} progress;

void progress_begin(progress *p, const char *label, long total, int quiet);
void progress_update(progress *p, long done);
void progress_end(progress *p);

#ifdef __cplusplus
}
#endif

#endif
