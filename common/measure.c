/* measure.c - see measure.h. */
#include "measure.h"
#include "cli.h"
#include "gpu_state.h"
#include "program.h"

#include <string.h>

/* NVTX ranges (measure.h): the toolkit's header-only nvtx3 where the build
 * found it, else nothing (a CPU-only machine has no toolkit). */
#ifdef HAVE_NVTX
#include <nvtx3/nvToolsExt.h>
#define RANGE_BEGIN(name) nvtxRangePushA(name)
#define RANGE_END() nvtxRangePop()
#else
#define RANGE_BEGIN(name) ((void)(name))
#define RANGE_END() ((void)0)
#endif

double measure_wall_ms(measure_fn *run, void *context)
{
    double t0 = now_seconds();
    run(context);
    return 1e3 * (now_seconds() - t0);
}

/* Reset, run, check: 1, 0, or REPORT_NO_CHECK. */
static int checked_run(const measure_plan *p, char *note, size_t size)
{
    if (p->reset)
        p->reset(p->context);
    p->run(p->context);
    note[0] = '\0';
    return p->check ? p->check(p->context, note, size) : REPORT_NO_CHECK;
}

/* A later check's verdict joins the first: a failure is kept, with its note;
 * a later note stands in for a first one that said nothing (a check that can
 * judge only once it has seen two runs). */
static void join_check(measure_result *out, int ok, const char *note, const char *when)
{
    if (!out->note[0] && ok != REPORT_FAIL) {
        snprintf(out->note, sizeof out->note, "%s", note);
        if (out->ok == REPORT_NO_CHECK)
            out->ok = ok;
        return;
    }
    if (ok != REPORT_FAIL || out->ok == REPORT_FAIL)
        return;
    size_t used = strlen(out->note);
    snprintf(out->note + used, sizeof out->note - used, "%s%s: %s", used ? "; " : "", when, note);
    out->ok = REPORT_FAIL;
}

/* The ruler under the plan's timer, which runs a measure_fn: it keeps the count. */
typedef struct {
    measure_count_fn *ruler;
    void *context;
    double counted;
} ruler_call;

static void ruler_once(void *call)
{
    ruler_call *c = call;
    c->counted = c->ruler(c->context);
}

/* One timed run of the ruler after a stage run of stage_ms: its share joins
 * shares (a pair with a time the clock could not resolve says nothing: left
 * out), and the first run that counted other work than the plan's fails the
 * row, with what it counted. */
static void ruler_turn(const measure_plan *p, measure_timer_fn *timer, double stage_ms, measure_result *out,
                       double *shares, int *pairs)
{
    ruler_call call = {p->ruler, p->context, 0};
    double ruler_ms = timer(ruler_once, &call);
    if (stage_ms > 0 && ruler_ms > 0)
        shares[(*pairs)++] = ruler_ms / stage_ms;
    if (call.counted == p->ruler_work || out->ruler_counted != p->ruler_work)
        return;
    out->ruler_counted = call.counted;
    char note[128];
    snprintf(note, sizeof note, "counted %.0f, not the %.0f asked (its share would compare other work)", call.counted,
             p->ruler_work);
    join_check(out, REPORT_FAIL, note, "the ruler");
}

void measure_stage(const measure_plan *p, measure_result *out)
{
    cli_require_work_begun("a stage was measured");
    gpu_state_mark_start(); /* the results row records the GPU's clock, power and temperature from here */
    measure_timer_fn *timer = p->timer ? p->timer : measure_wall_ms;
    int repeat = p->repeat < 1 ? 1 : p->repeat > REPEAT_MAX ? REPEAT_MAX : p->repeat;
    double times[REPEAT_MAX], shares[REPEAT_MAX];
    int pairs = 0;
    char later[sizeof out->note];
    out->ruler_counted = p->ruler ? p->ruler_work : 0;
    out->ok = REPORT_NO_CHECK, out->note[0] = '\0'; /* what a stage with nothing to check keeps */
    RANGE_BEGIN(p->name ? p->name : "stage");
    if (!p->check_each_run)
        out->ok = checked_run(p, out->note, sizeof out->note);
    RANGE_BEGIN("timed runs");
    for (int r = 0; r < repeat; r++) {
        if (p->reset)
            p->reset(p->context);
        times[r] = timer(p->run, p->context);
        if (p->check_each_run && p->check && r == 0) {
            out->note[0] = '\0'; /* a check that finds nothing to say writes no note: none, not stale bytes */
            out->ok = p->check(p->context, out->note, sizeof out->note);
        } else if (p->check_each_run && p->check) {
            later[0] = '\0';
            join_check(out, p->check(p->context, later, sizeof later), later, "a later run");
        }
        if (p->ruler)
            ruler_turn(p, timer, times[r], out, shares, &pairs);
    }
    RANGE_END();
    if (!p->check_each_run)
        join_check(out, checked_run(p, later, sizeof later), later, "after timing");
    RANGE_END();
    out->times = summarize_runs(times, repeat);
    out->share = summarize_runs(shares, pairs); /* all 0 without a ruler */
}

report_row *report_measured(report *r, const char *stage, int threads, const measure_result *m, double value,
                            const char *unit, const char *device)
{
    return report_add(r, (report_entry){.stage = stage, .threads = threads, .ms = m->times.median, .value = value,
                                        .unit = unit, .ok = m->ok, .device = device, .note = m->note,
                                        .runs = m->times.runs, .lo_ms = m->times.lo, .hi_ms = m->times.hi});
}

/* program.h's two helpers a chapter's problem file calls: here, in the
 * library, so a test that links the problem file (without program.c's
 * main()) links them too. */
const stage_info *program_stage(const program_run *r, size_t i)
{
    return cli_stage_info_at(r->spec, i);
}

report_row *program_measure(program_run *r, const measure_plan *plan, double work, double per, const char *unit,
                            int threads, const char *device, measure_result *m)
{
    measure_result local;
    measure_result *out = m ? m : &local;
    measure_stage(plan, out);
    double seconds = out->times.median * 1e-3;
    double rate = seconds > 0 ? work / per / seconds : 0;
    return report_measured(r->rep, plan->name, threads, out, rate, unit, device ? device : host_cpu_name());
}
