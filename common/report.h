/* report.h - the results table every chapter prints, the CSV rows `make bench`
 * collects, and a progress line for long runs.
 *
 * CSV header (exactly; tools/book.py and the book read it):
 *   chapter,stage,workload,threads,median_ms,value,unit,check,device,date,
 *   commit,run_id,machine_id,sm_mhz_start,sm_mhz_end,power_w_start,power_w_end,temp_c_start,temp_c_end
 * Commas or newlines inside a field are replaced by spaces. The last nine are
 * the row's provenance: the commit, run and machine (from the environment
 * make bench sets: BENCH_COMMIT, BENCH_RUN_ID, BENCH_MACHINE_ID; "-" when run
 * by hand), and for a GPU row the GPU's SM clock, power and temperature at the
 * stage's start and end (gpu_state.h; "-" for a CPU row or without NVML).
 */
#ifndef COMMON_REPORT_H
#define COMMON_REPORT_H

#include "gpu_state.h"
#include "image.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define REPORT_CSV_HEADER                                                                                      \
    "chapter,stage,workload,threads,median_ms,value,unit,check,device,date,commit,run_id,machine_id,sm_mhz_start," \
    "sm_mhz_end,power_w_start,power_w_end,temp_c_start,temp_c_end,runs,lo_ms,hi_ms"
#define REPORT_MAX_ROWS 128

/* The threads column of a GPU stage (the CSV format writes 0). */
#define REPORT_ON_GPU 0

/* A row's check: passed, failed, or nothing to check against. A reference
 * (a ceiling measured in the same run, a start-up time) is written with
 * REPORT_NO_CHECK: the book draws it as a line, never as a stage. */
enum { REPORT_FAIL = 0, REPORT_OK = 1, REPORT_NO_CHECK = -1 };

/* What a stage run adds to the report, by name:
 *   report_add(&rep, (report_entry){.stage = "loop", .threads = REPORT_ON_GPU, .ms = ms,
 *                                   .value = rate, .unit = "Msamples/s", .ok = ok, .device = gpu}); */
typedef struct {
    const char *stage;
    int threads;
    double ms, value;
    const char *unit;
    int ok;
    const char *device; /* GPU name, or the CPU model (host_cpu_name()) */
    const char *note;   /* for the printed table (may be NULL; the row's note can also be written later) */
    int runs;           /* timed runs behind the median (0: not given) */
    double lo_ms, hi_ms; /* the fastest and slowest of them: the spread, printed beside the median */
} report_entry;

typedef struct {
    char stage[48];
    int threads;
    double ms;      /* median time */
    double value;   /* in unit: Msamples/s, GB/s, GFLOP/s ... */
    char unit[24];
    int ok;         /* the stage's check: 1 ok, 0 FAIL, -1 n/a (nothing to check against) */
    char note[384]; /* free text for the table: PSNR, occupancy ... */
    int runs;
    double lo_ms, hi_ms;
} report_row;

typedef struct {
    const char *chapter;  /* "ch01" */
    char workload[96];    /* "512x512x64spp" */
    const char *csv_path; /* NULL: no CSV */
    int quiet;
    report_row rows[REPORT_MAX_ROWS];
    int count;
    gpu_snapshot last; /* the GPU's state when the last row was added: the next row's start, unless a stage marked one */
} report;

void report_init(report *r, const char *chapter, const char *workload, const char *csv_path, int quiet);

/* Records one stage run, appends its CSV row (if a CSV path was given) and
 * returns the row so a caller can add a note. A CSV row that cannot be written
 * whole is a run-time error: one line on stderr, exit 1. The row is appended
 * under an exclusive lock (flock); while another process holds it, a line on
 * stderr says so, and after 60 s (CSV_LOCK_TIMEOUT_S, whole seconds) the wait
 * ends: the row is not written, exit 1. */
report_row *report_add(report *r, report_entry e);

/* Appends printf-style text to row's note (cut at the note's size): the
 * notes a stage's row collects, part by part. */
void report_note(report_row *row, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* NULL if path may take the course's CSV rows (missing, empty, or starting
 * with REPORT_CSV_HEADER and text throughout: no NUL or other control byte
 * but tab, CR and LF), else the reason. cli_parse calls it for --csv, so a
 * foreign file is refused (exit 2) before any work and left untouched. */
const char *report_check_csv(const char *path);

/* Prints the table: stage, time (the median), the spread of the runs
 * (fastest-slowest, when more than one), speedup over the first row (for rows
 * in its unit), value, check, note. */
void report_print(const report *r, FILE *f);

/* 1 unless some row FAILed its check. */
int report_all_ok(const report *r);

/* A program's last step with its picture: writes img to out (atomically) only
 * when every row passed its check and `ok` is set, then says "wrote OUT"
 * unless quiet, or says why nothing was written. img NULL: no requested stage
 * rendered anything, so nothing is written (said unless quiet). Returns the
 * exit status: EXIT_OK, or EXIT_CHECK_FAIL after a failed check or write. */
int report_finish_image(const report *r, int ok, const char *program, const image *img, const char *out, int quiet);

/* "AMD EPYC 9654 96-Core Processor" from /proc/cpuinfo, or "unknown CPU". */
const char *host_cpu_name(void);

/* Bytes of memory the kernel reports as available (MemAvailable), or 0 if unknown. */
unsigned long long host_available_bytes(void);

/* Progress on stderr unless quiet, only for runs expected to last more than
 * PROGRESS_MIN_SECONDS (nothing is drawn in the first second, nor when the
 * work done so far says the whole will be shorter): on a terminal one line
 * redrawn at most 10 times a second; otherwise (a log, make check) a line
 * every 10 s or 10%.
 * The time left is extrapolated from the share of the work done: of the steps,
 * or, after progress_set_costs, of their measured relative costs (the card's
 * rows through the letters cost far more than its sky rows, so counting rows
 * would promise the end too early), steadied by the expected time when there
 * is one (progress_seconds_left). */
#define PROGRESS_MIN_SECONDS 2.0
typedef struct {
    int enabled, terminal;
    const char *label;
    long total, last_step;
    double last_draw, start, expected; /* expected: seconds, or 0 when unknown */
    const double *cumulative_cost; /* NULL, or cost of steps [0, k) for k = 0..total */
} progress;

void progress_begin(progress *p, const char *label, long total, int quiet);
/* Costs from progress_row_costs, and the time the whole is expected to take;
 * when that is over PROGRESS_MIN_SECONDS it is said at once, at the start. */
void progress_set_costs(progress *p, const double *cumulative_cost, double expected_seconds);

/* A render that reports each finished row: render(img, spp, row_done, context)
 * with row_done(context, rows_done, rows_total) (ch01's card_render). */
typedef void progress_row_fn(void *context, int rows_done, int rows_total);
typedef void progress_render_fn(image *img, int spp, progress_row_fn *row_done, void *context);

/* Times every row of a small render of the same scene (width / 8 x height / 8
 * at the same spp: 1/64 of the work) and writes the cumulative relative cost
 * of the first k of `height` full-size rows into cumulative[k], k = 0..height,
 * and into *expected_seconds the full render's time: the small one's CPU time
 * scaled (progress_expected_seconds, with the runnable threads read from
 * /proc/loadavg at every small row and the steal from /proc/stat), or where
 * there is no CPU clock or no /proc/loadavg, its wall time scaled. For a
 * single-threaded render (ch01, ch02): the calling thread's CPU time is read.
 * Returns 0, or -1 if the small image could not be made. */
int progress_row_costs(progress_render_fn *render, int width, int height, int spp, double *cumulative,
                       double *expected_seconds);

/* The arithmetic of the estimate, apart so that it can be tested.
 * Expected wall seconds of a single-threaded render whose small version took
 * cpu_seconds of CPU and which is `scale` times more work: its CPU time over
 * the share of a CPU it will get, all of one while the runnable threads
 * (itself included, `runnable` on average) are no more than the CPUs, else
 * cpus / runnable, the even share the kernel gives them in the long run. Not
 * the small render's wall time: over a second or two one thread's share of a
 * shared CPU swings (beside two busy threads on two CPUs, from 0.6 to 0.8 of
 * one between one small render and the next), where over minutes it settles
 * at the even share, 2/3. `stolen`:
 * the share of the busy CPU time a hypervisor took meanwhile (/proc/stat's
 * steal, which the thread's CPU time leaves out), taken off the share too.
 * A CPU quota or pinning is not seen. */
double progress_expected_seconds(double cpu_seconds, double scale, double cpus, double runnable, double stolen);
/* Seconds left with the share frac of the work done after `elapsed` seconds:
 * the rate seen so far, with the expected whole (seconds; 0: none) counted as
 * if PROGRESS_PRIOR_SHARE of the work had been seen done at its rate, so that
 * a few seconds' luck does not swing the figure and a lasting change of load
 * still takes over as the run goes on. 0 once frac reaches 1. */
#define PROGRESS_PRIOR_SHARE 0.125
double progress_seconds_left(double expected, double elapsed, double frac);
void progress_update(progress *p, long done);
void progress_end(progress *p);

/* A render that draws its progress, as a measure_plan's run (ch01, ch02):
 * progress_job_init times the rows' costs first (unless quiet), then each
 * progress_job_run(job) renders once with a progress line labelled `label`. */
typedef struct {
    progress_render_fn *render;
    image *img;
    int spp, quiet, have_costs;
    const char *label;
    double *row_costs, expected;
} progress_job;
void progress_job_init(progress_job *j, progress_render_fn *render, image *img, int spp, const char *label, int quiet);
void progress_job_run(void *job);
void progress_job_free(progress_job *j);

#ifdef __cplusplus
}
#endif

#endif
