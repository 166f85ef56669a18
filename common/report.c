/* report.c - see report.h. */
#define _POSIX_C_SOURCE 200809L
#include "report.h"
#include "timer.h"

#include <stdio.h>
#include <string.h>
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

static void append_csv(const report *r, const report_row *row, const char *device)
{
    FILE *f = fopen(r->csv_path, "a");
    if (!f) {
        fprintf(stderr, "%s: cannot append to %s\n", r->chapter, r->csv_path);
        return;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && st.st_size == 0)
        fprintf(f, "%s\n", REPORT_CSV_HEADER);
    char dev[128], date[32];
    csv_clean(dev, sizeof dev, device);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    fprintf(f, "%s,%s,%s,%d,%.6g,%.6g,%s,%s,%s,%s\n", r->chapter, row->stage, r->workload, row->threads, row->ms,
            row->value, row->unit, check_word(row->ok), dev, date);
    fclose(f);
}

report_row *report_add(report *r, const char *stage, int threads, double ms, double value, const char *unit,
                       int ok, const char *device)
{
    static report_row overflow;
    report_row *row = r->count < REPORT_MAX_ROWS ? &r->rows[r->count++] : &overflow;
    memset(row, 0, sizeof *row);
    csv_clean(row->stage, sizeof row->stage, stage);
    csv_clean(row->unit, sizeof row->unit, unit);
    row->threads = threads;
    row->ms = ms;
    row->value = value;
    row->ok = ok;
    if (r->csv_path)
        append_csv(r, row, device);
    return row;
}

void report_print(const report *r, FILE *f)
{
    fprintf(f, "\n%s  workload %s\n", r->chapter, r->workload);
    fprintf(f, "%-26s %7s %12s %9s %14s %-10s %-5s  %s\n", "stage", "threads", "time (ms)", "speedup", "value",
            "unit", "check", "note");
    double base = r->count ? r->rows[0].ms : 0;
    for (int i = 0; i < r->count; i++) {
        const report_row *row = &r->rows[i];
        fprintf(f, "%-26s %7d %12.3f %8.2fx %14.3f %-10s %-5s  %s\n", row->stage, row->threads, row->ms,
                row->ms > 0 ? base / row->ms : 0.0, row->value, row->unit, check_word(row->ok), row->note);
    }
}

int report_all_ok(const report *r)
{
    for (int i = 0; i < r->count; i++)
        if (r->rows[i].ok == 0)
            return 0;
    return 1;
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

void progress_begin(progress *p, const char *label, long total, int quiet)
{
    p->enabled = !quiet && isatty(STDERR_FILENO);
    p->label = label;
    p->total = total > 0 ? total : 1;
    p->start = now_seconds();
    p->last_draw = 0;
}

void progress_update(progress *p, long done)
{
    if (!p->enabled)
        return;
    double t = now_seconds();
    if (t - p->last_draw < 0.1 && done < p->total)
        return;
    p->last_draw = t;
    double elapsed = t - p->start;
    double frac = (double)done / (double)p->total;
    double left = frac > 0 ? elapsed * (1 - frac) / frac : 0;
    fprintf(stderr, "\r  %-28s %5.1f%%  %6.1f s elapsed, ~%.0f s left   ", p->label, 100 * frac, elapsed, left);
}

void progress_end(progress *p)
{
    if (p->enabled)
        fprintf(stderr, "\r%*s\r", 80, "");
}
