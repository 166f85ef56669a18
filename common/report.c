/* report.c - see report.h. */
#define _POSIX_C_SOURCE 200809L
#include "report.h"
#include "stage.h"
#include "status.h"
#include "image.h"
#include "timer.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void report_init(report *r, const char *chapter, const char *workload, const char *csv_path, int quiet)
{
    memset(r, 0, sizeof *r);
    r->chapter = chapter;
    snprintf(r->workload, sizeof r->workload, "%s", workload);
    r->csv_path = csv_path;
    r->quiet = quiet;
    if (csv_path)
        r->last = gpu_state_now();
}

/* Copies src into dst, turning characters that would break a CSV row into spaces. */
static void csv_clean(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src ? src : "");
    for (char *p = dst; *p; p++)
        if (*p == ',' || *p == '\n' || *p == '\r' || *p == '"')
            *p = ' ';
}

static const char *check_word(int ok)
{
    return ok > 0 ? "ok" : ok == 0 ? "FAIL" : "n/a";
}

/* Reads up to len - 1 bytes from the start of fd into buf (NUL-ended). */
static ssize_t read_head(int fd, char *buf, size_t len)
{
    ssize_t n = pread(fd, buf, len - 1, 0);
    buf[n > 0 ? n : 0] = '\0';
    return n;
}

static const char *header_problem(int fd)
{
    char head[sizeof REPORT_CSV_HEADER + 1];
    ssize_t n = read_head(fd, head, sizeof head);
    if (n < 0)
        return "cannot be read";
    if (n == 0)
        return NULL;
    /* a first line that is the header cut at a comma: the course's older format, with fewer columns */
    size_t line = strcspn(head, "\n");
    if (head[line] == '\n' && line < strlen(REPORT_CSV_HEADER) && REPORT_CSV_HEADER[line] == ',' &&
        strncmp(head, REPORT_CSV_HEADER, line) == 0)
        return "was written by an older version of the course (its header lacks the newer columns): give a new file";
    if (strncmp(head, REPORT_CSV_HEADER "\n", sizeof head - 1) != 0)
        return "does not have the course's CSV header as its first line, exactly (" REPORT_CSV_HEADER "): a file "
               "with other columns (your own, or more) is not appended to; give a new file";
    return NULL;
}

/* NULL if every byte of the file is text a CSV row may hold (printable
 * ASCII, tab, CR, LF, or any byte of a UTF-8 character), else where the first
 * other byte is: a header followed by NUL bytes (a file preallocated, or cut
 * by a crash) is not the course's CSV, and rows appended after it would be
 * read by nobody. */
static const char *text_problem(int fd)
{
    static char reason[128];
    unsigned char buf[65536];
    off_t at = 0;
    ssize_t n;
    while ((n = pread(fd, buf, sizeof buf, at)) > 0) {
        for (ssize_t i = 0; i < n; i++)
            if ((buf[i] < 0x20 && buf[i] != '\t' && buf[i] != '\n' && buf[i] != '\r') || buf[i] == 0x7f) {
                snprintf(reason, sizeof reason, "is not a text file: byte %lld is 0x%02x (a CSV holds text only)",
                         (long long)(at + i), buf[i]);
                return reason;
            }
        at += n;
    }
    return n < 0 ? "cannot be read" : NULL;
}

const char *report_check_csv(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return errno == ENOENT ? NULL : "cannot be read";
    if (!S_ISREG(st.st_mode))
        return "is not a regular file";
    const char *why = NULL;
    FILE *f = open_regular_file(path, &why);
    if (!f)
        return "cannot be read";
    why = header_problem(fileno(f));
    if (!why)
        why = text_problem(fileno(f));
    fclose(f);
    return why;
}

/* How long append_csv waits for another process's lock on the CSV: 60 s, or
 * CSV_LOCK_TIMEOUT_S (whole seconds, 0 to 86400; the tests use 1). */
#define CSV_LOCK_TIMEOUT_DEFAULT 60
static long lock_timeout_s(const char *program)
{
    const char *text = getenv("CSV_LOCK_TIMEOUT_S");
    long long v = CSV_LOCK_TIMEOUT_DEFAULT;
    char *end = NULL;
    if (text) {
        errno = 0;
        v = strtoll(text, &end, 10);
    }
    if (text && (end == text || *end != '\0' || errno != 0 || v < 0 || v > 86400)) {
        fprintf(stderr, "%s: CSV_LOCK_TIMEOUT_S='%s' is not a whole number of seconds from 0 to 86400: using %d\n",
                program, text, CSV_LOCK_TIMEOUT_DEFAULT);
        v = CSV_LOCK_TIMEOUT_DEFAULT;
    }
    return (long)v;
}

/* Takes the exclusive lock on the CSV; 0, or -1 with errno, or with *why
 * set when another process held it past the time limit. A wait is said on
 * stderr once, at its start: a run that seems to hang says what it waits on. */
static int lock_csv(int fd, const report *r, const char **why)
{
    static char reason[160];
    double start = now_seconds();
    long limit = -1;
    for (;;) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0)
            return 0;
        if (errno == EINTR)
            continue;
        if (errno != EWOULDBLOCK)
            return -1;
        if (limit < 0) {
            limit = lock_timeout_s(r->chapter);
            fprintf(stderr, "%s: waiting for the lock on %s held by another process (giving up after %ld s)\n",
                    r->chapter, r->csv_path, limit);
        }
        if (now_seconds() - start >= (double)limit) {
            snprintf(reason, sizeof reason, "another process held its lock for more than %ld s (CSV_LOCK_TIMEOUT_S "
                     "sets the limit): the row was not written", limit);
            *why = reason;
            return -1;
        }
        struct timespec pause = {0, 20 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
}

/* Writes all of text (O_APPEND: each write lands at the end). 0, or -1 with
 * errno saying why: a short write is retried, so the error is the device's
 * own (ENOSPC, EFBIG), never a stale errno. */
static int write_whole(int fd, const char *text)
{
    size_t len = strlen(text);
    while (len > 0) {
        ssize_t n = write(fd, text, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO;
            return -1;
        }
        text += n, len -= (size_t)n;
    }
    return 0;
}

/* NULL if path is not a symbolic link to nothing: O_CREAT would make the
 * file it names, somewhere the start's check (cli_check_writable) refused. */
static const char *dangling_problem(const char *path)
{
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && stat(path, &st) != 0 && errno == ENOENT)
        return "is a symbolic link to nothing: not created";
    return NULL;
}

/* Opens and locks the CSV (*fd, -1 if it was not opened) and checks it
 * again once it is ours, as at the start (report_check_csv,
 * cli_check_writable): the work in between can take minutes, in which the
 * file may have been replaced. NULL, or why the row may not go there. */
static const char *open_locked_csv(const report *r, int *fd, struct stat *st)
{
    const char *why = dangling_problem(r->csv_path);
    *fd = why ? -1 : open(r->csv_path, O_RDWR | O_APPEND | O_CREAT | O_NONBLOCK, 0644);
    if (why)
        return why;
    if (*fd < 0)
        return strerror(errno);
    if (lock_csv(*fd, r, &why) != 0)
        return why ? why : strerror(errno);
    if (fstat(*fd, st) != 0) /* the length once the file is ours */
        return strerror(errno);
    if (!S_ISREG(st->st_mode))
        return "not a regular file";
    if ((why = output_read_only(st)) != NULL || st->st_size == 0)
        return why;
    if ((why = header_problem(*fd)) != NULL)
        return why;
    return text_problem(*fd);
}

/* Appends one row under an exclusive lock: the header first if the file is
 * new (two processes creating it at once write one header), a newline first
 * if the last row was cut short. A write that fails part way is rolled back
 * to the file's length before it, so no half row stays. Any failure: one
 * line with the reason, exit 1. */
static void append_csv(const report *r, const char *line)
{
    int fd;
    struct stat st;
    const char *why = open_locked_csv(r, &fd, &st);
    if (!why) {
        char last = '\n';
        int failed = 0;
        if (st.st_size == 0)
            failed = write_whole(fd, REPORT_CSV_HEADER "\n") != 0;
        else if (pread(fd, &last, 1, st.st_size - 1) == 1 && last != '\n')
            failed = write_whole(fd, "\n") != 0;
        if (!failed)
            failed = write_whole(fd, line) != 0;
        if (failed) {
            why = strerror(errno);
            if (ftruncate(fd, st.st_size) != 0)
                why = "the row was cut short and could not be taken back";
        }
    }
    if (fd >= 0 && close(fd) != 0 && !why)
        why = strerror(errno);
    if (why) {
        fprintf(stderr, "%s: cannot append to %s: %s\n", r->chapter, r->csv_path, why);
        exit(EXIT_CHECK_FAIL);
    }
}

/* One provenance field from the environment make bench sets, "-" without. */
static void env_field(char *dst, size_t n, const char *name)
{
    const char *v = getenv(name);
    csv_clean(dst, n, v && *v ? v : "-");
}

static void state_fields(char *dst, size_t n, gpu_snapshot a, gpu_snapshot b)
{
    if (a.ok && b.ok)
        snprintf(dst, n, "%u,%u,%.1f,%.1f,%u,%u", a.sm_mhz, b.sm_mhz, a.power_w, b.power_w, a.temp_c, b.temp_c);
    else
        snprintf(dst, n, "-,-,-,-,-,-");
}

/* The row's last nine columns (report.h): commit, run, machine, and for a
 * GPU row the GPU's state at the stage's start (marked by measure_stage, else
 * the state at the previous row) and now. */
static void provenance(report *r, int gpu_row, char *dst, size_t n)
{
    char commit[64], run[64], machine[64], state[96];
    gpu_snapshot start, end = gpu_state_now();
    if (!gpu_state_take_start(&start))
        start = r->last;
    r->last = end;
    if (!gpu_row)
        start.ok = 0;
    env_field(commit, sizeof commit, "BENCH_COMMIT");
    env_field(run, sizeof run, "BENCH_RUN_ID");
    env_field(machine, sizeof machine, "BENCH_MACHINE_ID");
    state_fields(state, sizeof state, start, end);
    snprintf(dst, n, "%s,%s,%s,%s", commit, run, machine, state);
}

report_row *report_add(report *r, report_entry e)
{
    static report_row overflow;
    report_row *row = r->count < REPORT_MAX_ROWS ? &r->rows[r->count++] : &overflow;
    memset(row, 0, sizeof *row);
    csv_clean(row->stage, sizeof row->stage, e.stage);
    csv_clean(row->unit, sizeof row->unit, e.unit);
    row->threads = e.threads;
    row->ms = e.ms;
    row->value = e.value;
    row->ok = e.ok;
    row->runs = e.runs;
    row->lo_ms = e.lo_ms;
    row->hi_ms = e.hi_ms;
    snprintf(row->note, sizeof row->note, "%s", e.note ? e.note : "");
    if (r->csv_path) {
        char dev[128], date[32], where[320], spread[80], line[1100];
        csv_clean(dev, sizeof dev, e.device);
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
        provenance(r, e.threads == REPORT_ON_GPU, where, sizeof where);
        /* the spread of the timed runs: "-" for a row that is not a timing of runs (a ceiling's, a start-up's) */
        if (row->runs > 0)
            snprintf(spread, sizeof spread, "%d,%.6g,%.6g", row->runs, row->lo_ms, row->hi_ms);
        else
            snprintf(spread, sizeof spread, "-,-,-");
        snprintf(line, sizeof line, "%s,%s,%s,%d,%.6g,%.6g,%s,%s,%s,%s,%s,%s\n", r->chapter, row->stage, r->workload,
                 row->threads, row->ms, row->value, row->unit, check_word(row->ok), dev, date, where, spread);
        append_csv(r, line);
    }
    return row;
}

void report_note(report_row *row, const char *fmt, ...)
{
    size_t used = strlen(row->note);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(row->note + used, sizeof row->note - used, fmt, ap);
    va_end(ap);
}

/* The row that row i's speedup is against: the first row in the first row's
 * unit doing the same work (the stages' work= tags), or NULL: a reference
 * (check n/a), or a row in another unit, has no speedup. */
static const report_row *speedup_base(const report *r, int i)
{
    const report_row *row = &r->rows[i];
    char work[32], other[32];
    if (row->ok == REPORT_NO_CHECK || row->ms <= 0 || strcmp(row->unit, r->rows[0].unit) != 0)
        return NULL;
    stage_work(row->stage, work, sizeof work);
    for (int j = 0; j <= i; j++)
        if (r->rows[j].ok != REPORT_NO_CHECK && strcmp(r->rows[j].unit, row->unit) == 0 &&
            strcmp(stage_work(r->rows[j].stage, other, sizeof other), work) == 0)
            return &r->rows[j];
    return NULL;
}

void report_print(const report *r, FILE *f)
{
    fprintf(f, "\n%s  workload %s\n", r->chapter, r->workload);
    fprintf(f, "%-26s %7s %12s %21s %9s %14s %-10s %-5s  %s\n", "stage", "threads", "time (ms)", "spread (ms)",
            "speedup", "value", "unit", "check", "note");
    char first_work[32] = "", others[160] = "";
    if (r->count)
        stage_work(r->rows[0].stage, first_work, sizeof first_work);
    for (int i = 0; i < r->count; i++) {
        const report_row *row = &r->rows[i], *base = speedup_base(r, i);
        char work[32], speedup[16] = "-";
        int other_work = strcmp(stage_work(row->stage, work, sizeof work), first_work) != 0;
        if (base) /* marked * where the work is not the first stage's */
            snprintf(speedup, sizeof speedup, "%.2fx%s", base->ms / row->ms, other_work ? "*" : "");
        if (base && other_work && !strstr(others, work) && strlen(others) + strlen(work) + 3 < sizeof others)
            snprintf(others + strlen(others), sizeof others - strlen(others), "%s%s", others[0] ? ", " : "", work);
        char spread[48] = "-"; /* fastest-slowest of the runs behind the median */
        if (row->runs > 1)
            snprintf(spread, sizeof spread, "%.3f-%.3f x%d", row->lo_ms, row->hi_ms, row->runs);
        fprintf(f, "%-26s %7d %12.3f %21s %9s %14.3f %-10s %-5s  %s\n", row->stage, row->threads, row->ms, spread,
                speedup, row->value, row->unit, check_word(row->ok), row->note);
    }
    if (others[0])
        fprintf(f, "* other work than the first stage (its row's tag work=: %s): the speedup is against the first row "
                "of that work; across works compare the rates\n", others);
}

int report_all_ok(const report *r)
{
    for (int i = 0; i < r->count; i++)
        if (r->rows[i].ok == 0)
            return 0;
    return 1;
}

int report_finish_image(const report *r, int ok, const char *program, const image *img, const char *out, int quiet)
{
    char err[IMAGE_ERROR_SIZE];
    if (!ok || !report_all_ok(r)) {
        fprintf(stderr, "%s: a check failed: %s not written\n", program, out);
        return EXIT_CHECK_FAIL;
    }
    if (!img) {
        if (!quiet)
            fprintf(stderr, "%s: no stage asked for rendered an image here: %s not written\n", program, out);
        return EXIT_OK;
    }
    if (image_write(img, out, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", program, err);
        return EXIT_CHECK_FAIL;
    }
    if (!quiet)
        fprintf(stderr, "%s: wrote %s\n", program, out);
    return EXIT_OK;
}

const char *host_cpu_name(void)
{
    static char name[128];
    if (name[0])
        return name;
    snprintf(name, sizeof name, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return name;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon) {
            colon++;
            while (*colon == ' ' || *colon == '\t')
                colon++;
            colon[strcspn(colon, "\n")] = '\0';
            snprintf(name, sizeof name, "%s", colon);
            break;
        }
    }
    fclose(f);
    return name;
}

/* The calling thread's CPU seconds: what a single-threaded render costs,
 * whoever else shares the CPU with it; -1 where the clock is missing. */
static double thread_cpu_seconds(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return -1;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Threads runnable on the whole machine now, this one included (the fourth
 * field of /proc/loadavg, "3/97": 3 runnable of 97), or 0 if unknown. */
static int runnable_now(void)
{
    FILE *f = fopen("/proc/loadavg", "r");
    int running = 0;
    if (f) {
        if (fscanf(f, "%*f %*f %*f %d/", &running) != 1)
            running = 0;
        fclose(f);
    }
    return running;
}

/* The machine's busy and stolen CPU time so far (the first line of
 * /proc/stat, in ticks: user nice system idle iowait irq softirq steal);
 * 0 if unreadable. */
static int cpu_ticks(double *busy, double *stolen)
{
    FILE *f = fopen("/proc/stat", "r");
    unsigned long long user, nice, system, idle, iowait, irq, softirq, steal;
    int n = f ? fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &user, &nice, &system, &idle, &iowait, &irq,
                       &softirq, &steal)
              : 0;
    if (f)
        fclose(f);
    if (n != 8)
        return 0;
    *busy = (double)(user + nice + system + irq + softirq + steal);
    *stolen = (double)steal;
    return 1;
}

double progress_expected_seconds(double cpu_seconds, double scale, double cpus, double runnable, double stolen)
{
    double share = runnable > cpus && cpus > 0 ? cpus / runnable : 1;
    if (stolen > 0 && stolen < 1)
        share *= 1 - stolen;
    return cpu_seconds * scale / share;
}

double progress_seconds_left(double expected, double elapsed, double frac)
{
    if (frac >= 1)
        return 0;
    if (expected <= 0) /* the rate seen so far, alone */
        return frac > 0 ? elapsed * (1 - frac) / frac : 0;
    /* Work per second, the expectation counted as if PROGRESS_PRIOR_SHARE of the
     * work had been seen done in PROGRESS_PRIOR_SHARE * expected seconds. */
    double rate = (frac + PROGRESS_PRIOR_SHARE) / (elapsed + PROGRESS_PRIOR_SHARE * expected);
    return (1 - frac) / rate;
}

/* The small render's state, kept for its rows' callback: the time at each
 * row's end on row_clock (the thread's CPU time, or the wall clock where
 * there is none), and the runnable threads seen there. */
static double *row_times;
static double (*row_clock)(void);
static long runnable_sum, runnable_samples;

static void sample_runnable(void)
{
    int running = runnable_now();
    if (running > 0)
        runnable_sum += running, runnable_samples++;
}

static void time_row(void *context, int rows_done, int rows_total)
{
    (void)context;
    if (rows_done >= 1 && rows_done <= rows_total)
        row_times[rows_done] = row_clock();
    sample_runnable();
}

int progress_row_costs(progress_render_fn *render, int width, int height, int spp, double *cumulative,
                       double *expected_seconds)
{
    image small;
    int w = width / 8 > 0 ? width / 8 : 1, h = height / 8 > 0 ? height / 8 : 1;
    if (image_alloc(&small, w, h) != 0)
        return -1;
    row_times = calloc((size_t)h + 1, sizeof *row_times);
    if (!row_times) {
        image_free(&small);
        return -1;
    }
    runnable_sum = runnable_samples = 0;
    sample_runnable();
    double busy0 = 0, stolen0 = 0, busy1 = 0, stolen1 = 0;
    int have_ticks = cpu_ticks(&busy0, &stolen0);
    int have_cpu = thread_cpu_seconds() >= 0;
    row_clock = have_cpu ? thread_cpu_seconds : now_seconds;
    double wall = now_seconds();
    row_times[0] = row_clock();
    render(&small, spp, time_row, NULL);
    double spent = row_clock() - row_times[0];
    wall = now_seconds() - wall;
    have_ticks = have_ticks && cpu_ticks(&busy1, &stolen1) && busy1 > busy0;
    cumulative[0] = 0;
    for (int k = 0; k < height; k++) { /* full row k lies in small row k * h / height */
        int r = (int)((long)k * h / height) + 1;
        double cost = row_times[r] - row_times[r - 1];
        cumulative[k + 1] = cumulative[k] + (cost > 0 ? cost : 1e-9);
    }
    double scale = ((double)width * height) / ((double)w * h);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (have_cpu && runnable_samples > 0 && cpus > 0)
        *expected_seconds =
            progress_expected_seconds(spent, scale, (double)cpus,
                                      (double)runnable_sum / (double)runnable_samples,
                                      have_ticks ? (stolen1 - stolen0) / (busy1 - busy0) : 0);
    else /* no CPU clock or no run queue to read: the small render's own time, scaled */
        *expected_seconds = wall * scale;
    free(row_times);
    row_times = NULL;
    image_free(&small);
    return 0;
}

void progress_begin(progress *p, const char *label, long total, int quiet)
{
    p->terminal = isatty(STDERR_FILENO);
    p->enabled = !quiet;
    p->label = label;
    p->total = total > 0 ? total : 1;
    p->start = now_seconds();
    p->last_draw = p->start;
    p->last_step = 0;
    p->cumulative_cost = NULL;
    p->expected = 0;
}

void progress_set_costs(progress *p, const double *cumulative_cost, double expected_seconds)
{
    p->cumulative_cost = cumulative_cost;
    p->expected = expected_seconds;
    if (p->enabled && expected_seconds > PROGRESS_MIN_SECONDS)
        fprintf(stderr, "  %s: about %.0f s (timed on a 1/64-size render first)\n", p->label, expected_seconds);
}

void progress_update(progress *p, long done)
{
    if (!p->enabled)
        return;
    double t = now_seconds();
    done = done < 0 ? 0 : done > p->total ? p->total : done;
    double frac = p->cumulative_cost ? p->cumulative_cost[done] / p->cumulative_cost[p->total]
                                     : (double)done / (double)p->total;
    double elapsed = t - p->start;
    double whole = p->expected > 0 ? p->expected : frac > 0 ? elapsed / frac : 0;
    if (elapsed < 1 || whole <= PROGRESS_MIN_SECONDS) /* short runs stay silent */
        return;
    long step = (long)(frac * 10); /* tenths of the work done */
    if (p->terminal ? t - p->last_draw < 0.1 && done < p->total
                    : t - p->last_draw < 10 && step == p->last_step)
        return;
    p->last_draw = t;
    p->last_step = step;
    double left = progress_seconds_left(p->expected, elapsed, frac);
    if (p->terminal)
        fprintf(stderr, "\r  %-28s %5.1f%%  %6.1f s elapsed, ~%.0f s left   ", p->label, 100 * frac, elapsed, left);
    else if (done < p->total)
        fprintf(stderr, "  %s: %.0f%% after %.0f s (~%.0f s left)\n", p->label, 100 * frac, elapsed, left);
}

void progress_end(progress *p)
{
    if (p->enabled && p->terminal && p->last_draw > p->start) /* a line was drawn: wipe it */
        fprintf(stderr, "\r%*s\r", 80, "");
}

static void show_row_done(void *context, int rows_done, int rows_total)
{
    (void)rows_total;
    progress_update(context, rows_done);
}

void progress_job_init(progress_job *j, progress_render_fn *render, image *img, int spp, const char *label, int quiet)
{
    *j = (progress_job){.render = render, .img = img, .spp = spp, .quiet = quiet, .label = label};
    if (quiet)
        return;
    /* The rows' relative costs from a tiny render first, so the time left is
     * estimated from the work done, not from the rows done. */
    j->row_costs = malloc(((size_t)img->height + 1) * sizeof *j->row_costs);
    j->have_costs = j->row_costs &&
                    progress_row_costs(render, img->width, img->height, spp, j->row_costs, &j->expected) == 0;
}

void progress_job_run(void *job)
{
    progress_job *j = job;
    progress bar;
    progress_begin(&bar, j->label, j->img->height, j->quiet);
    if (j->have_costs)
        progress_set_costs(&bar, j->row_costs, j->expected);
    j->render(j->img, j->spp, show_row_done, &bar);
    progress_end(&bar);
}

void progress_job_free(progress_job *j)
{
    free(j->row_costs);
    j->row_costs = NULL;
}

unsigned long long host_available_bytes(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    unsigned long long kb = 0;
    char line[256];
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb * 1024;
}
