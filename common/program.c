/* program.c - the one main() of every chapter: the skeleton program.h
 * describes, the chapter's problem in the hooks of its `chapter_program`. */
#include "program.h"
#include "status.h"

#include <stdio.h>
#include <stdlib.h>

static report tables[PROGRAM_TABLES_MAX]; /* large (rows and notes): not on the stack */

/* The picture now: --images writes it after each stage, --out at the end. */
static const image *picture_now(program_run *r)
{
    return r->program->image ? r->program->image(r) : r->program->picture_image;
}

static int table_of(const program_run *r, size_t i)
{
    return r->program->table_of ? r->program->table_of(r, i) : 0;
}

/* Selected, and where it runs is here: the host, or an open device. */
static int stage_runs(const program_run *r, size_t i)
{
    return cli_stage_selected(&r->opt, i) && (program_stage(r, i)->where == STAGE_CPU || r->gpu);
}

static int table_runs(const program_run *r, int t)
{
    for (size_t i = 0; i < r->spec->stage_count; i++)
        if (table_of(r, i) == t && stage_runs(r, i))
            return 1;
    return 0;
}

static void say_skipped(const program_run *r, int skipped)
{
    fprintf(stderr, "%s: no CUDA device found (%s): %d GPU stage%s not run (exit status %d)\n", r->spec->program,
            r->why, skipped, skipped == 1 ? "" : "s", EXIT_NO_GPU);
}

/* One table: its report begun, its stages measured, the rows beside them,
 * printed unless a picture program prints it after its picture. Returns 0,
 * or the exit status a stage stopped the program with. */
static int run_table(program_run *r, int t)
{
    const program *p = r->program;
    char workload[96] = "";
    r->table = t;
    r->rep = &tables[t];
    if (p->workload)
        p->workload(r, t, workload, sizeof workload);
    report_init(r->rep, r->spec->program, workload, r->silent ? NULL : r->opt.csv, r->opt.quiet);
    if (p->begin)
        p->begin(r);
    for (size_t i = 0; i < r->spec->stage_count; i++) {
        if (table_of(r, i) != t || !stage_runs(r, i))
            continue;
        int stop = p->stage(r, i);
        if (stop)
            return stop;
        const image *img = r->opt.images ? picture_now(r) : NULL;
        if (img && image_write_stage(img, r->opt.images, r->spec->program, program_stage(r, i)->name) != 0)
            return EXIT_CHECK_FAIL;
    }
    if (p->end)
        p->end(r);
    if (!p->picture && !r->silent)
        report_print(r->rep, stdout);
    return 0;
}

int main(int argc, char **argv)
{
    const program *p = &chapter_program;
    program_run run = {.program = p, .spec = p->spec, .opt = p->defaults, .device = ""}, *r = &run;
    if (p->start)
        p->start();
    if (r->opt.threads == PROGRAM_ALL_CORES)
        r->opt.threads = cli_online_cpus();
    cli_parse(p->spec, &r->opt, argc, argv);
    r->want_cpu = cli_selected_where(p->spec, &r->opt, STAGE_CPU);
    r->want_gpu = cli_selected_where(p->spec, &r->opt, STAGE_GPU) + cli_selected_where(p->spec, &r->opt, STAGE_ALL_GPUS);
    if (p->validate)
        p->validate(r);
    if (p->picture) {
        r->out = r->opt.out ? r->opt.out : p->picture;
        cli_require_writable(p->spec, "default output", r->out);
    }
    int gpu_program = p->gpu != PROGRAM_CPU_ONLY && p->device;
    int found = gpu_program && r->want_gpu ? p->device->count(p->spec, r->opt.device, r->why, sizeof r->why) : 0;
    cli_begin_work(p->spec);
    if (gpu_program && r->want_gpu && (found > 0 || p->gpu == PROGRAM_GPU_ONLY)) {
        r->device = p->device->open(r); /* PROGRAM_GPU_ONLY without a device: exits 3, saying so */
        r->gpu = 1;
    }
    int skipped = gpu_program && !r->gpu ? r->want_gpu : 0;
    if (skipped && !r->want_cpu) { /* nothing this machine can run */
        say_skipped(r, skipped);
        return EXIT_NO_GPU;
    }
    if (p->setup)
        p->setup(r);
    int tables_count = p->tables > 0 ? p->tables : 1, ok = 1;
    for (int t = 0; t < tables_count && t < PROGRAM_TABLES_MAX; t++) {
        if (tables_count > 1 && !table_runs(r, t))
            continue;
        int stop = run_table(r, t);
        if (stop)
            return stop;
        ok &= report_all_ok(r->rep);
    }
    if (skipped && !r->opt.quiet)
        say_skipped(r, skipped);
    int status = ok ? EXIT_OK : EXIT_CHECK_FAIL;
    if (p->picture) {
        status = report_finish_image(&tables[0], ok, p->spec->program, picture_now(r), r->out,
                                     r->opt.quiet);
        report_print(&tables[0], stdout);
    } else if (!ok && !r->silent)
        fprintf(stderr, "%s: a check failed\n", p->spec->program);
    if (p->finish)
        status = p->finish(r, status);
    if (p->teardown)
        p->teardown(r);
    return status == EXIT_OK && skipped ? EXIT_NO_GPU : status;
}
