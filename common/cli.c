/* cli.c - see cli.h. */
#define _GNU_SOURCE
#include "cli.h"
#include "image.h"
#include "report.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The commit this file was built from (tools/commit.sh, through the
 * Makefile's rule for cli.o); a build that does not say (a test compiling
 * common/ itself) is "unknown". */
#ifndef BUILD_COMMIT
#define BUILD_COMMIT "unknown"
#endif

/* One row per option: long name, CLI_* bit, range, where the value goes. */
typedef struct {
    const char *name;
    unsigned bit;
    const char *arg; /* NULL: takes no value */
    long long min, max;
    const char *help;
} option_row;

static const option_row option_rows[] = {
    {"width", CLI_WIDTH, "N", 1, 16384, "image width in pixels"},
    {"height", CLI_HEIGHT, "N", 1, 16384, "image height in pixels"},
    {"spp", CLI_SPP, "N", 1, 1000000, "samples per pixel"},
    {"threads", CLI_THREADS, "N", 1, 1024, "CPU threads"},
    {"repeat", CLI_REPEAT, "R", 1, REPEAT_MAX, "timed runs per stage; the median is reported"},
    {"n", CLI_N, "N", 1, 1LL << 40, "problem size (elements or bodies)"},
    {"steps", CLI_STEPS, "S", 1, 1000000, "time steps"},
    {"device", CLI_DEVICE, "K", 0, 63, "CUDA device index"},
    {"stage", CLI_STAGE, "NAME", 0, 0, "run one stage (default: all)"},
    {"out", CLI_OUT, "FILE", 0, 0, "write the image (.ppm, or .png with libpng)"},
    {"csv", CLI_CSV, "FILE", 0, 0, "append one CSV row per stage run"},
    {"images", CLI_IMAGES, "DIR", 0, 0, "also write each stage's image as DIR/<program>-<stage>.png (.ppm without libpng)"},
    {"quiet", CLI_QUIET, NULL, 0, 0, "print only the results table"},
};
#define OPTION_COUNT (sizeof option_rows / sizeof option_rows[0])

const stage_info *cli_stage_info_at(const cli_spec *spec, size_t i)
{
    /* The head is each row's first member, so a pointer to the row is one to it. */
    return (const stage_info *)(const void *)((const char *)spec->stages + i * spec->stage_size);
}

const char *cli_stage_name(const cli_spec *spec, size_t i)
{
    return cli_stage_info_at(spec, i)->name;
}

int cli_stage_selected(const cli_options *opt, size_t i)
{
    return opt->stage_index < 0 || (size_t)opt->stage_index == i;
}

int cli_selected_where(const cli_spec *spec, const cli_options *opt, int where)
{
    int count = 0;
    for (size_t i = 0; i < spec->stage_count; i++)
        count += cli_stage_selected(opt, i) && cli_stage_info_at(spec, i)->where == where;
    return count;
}

long cli_online_cpus(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus > 0 ? cpus : 1;
}

const char *const cli_yes_no[2] = {"yes", "no"};

int cli_choice_index(const char *const *choices, int count, const char *text)
{
    for (int i = 0; text && i < count; i++)
        if (strcmp(text, choices[i]) == 0)
            return i;
    return -1;
}

/* Refuses text that is none of o's choices, naming them: "a, b or c". */
static void require_choice(const cli_spec *spec, const cli_option *o, const char *text)
{
    if (cli_choice_index(o->choices, o->choice_count, text) >= 0)
        return;
    char words[256] = "";
    size_t used = 0;
    for (int i = 0; i < o->choice_count && used < sizeof words; i++) {
        const char *sep = i == 0 ? "" : i + 1 == o->choice_count ? " or " : ", ";
        used += (size_t)snprintf(words + used, sizeof words - used, "%s%s", sep, o->choices[i]);
    }
    cli_usage_error(spec, "--%s '%s': %s", o->name, text, words);
}

/* The options a program takes, in --help's order: the shared ones it
 * accepts, its own just before --quiet. Calls show(name, arg, help) for each. */
typedef void option_show_fn(FILE *f, const char *name, const char *arg, const char *help);
static void each_option(const cli_spec *spec, FILE *f, option_show_fn *show)
{
    for (size_t i = 0; i < OPTION_COUNT; i++) {
        const option_row *r = &option_rows[i];
        if (r->bit == CLI_QUIET)
            for (size_t k = 0; k < spec->option_count; k++)
                show(f, spec->options[k].name, spec->options[k].arg, spec->options[k].help);
        if (spec->accepts & r->bit)
            show(f, r->name, r->arg, r->help);
    }
}

static void show_in_usage(FILE *f, const char *name, const char *arg, const char *help)
{
    (void)help;
    if (arg)
        fprintf(f, " [--%s %s]", name, arg);
    else
        fprintf(f, " [--%s]", name);
}

static void show_in_help(FILE *f, const char *name, const char *arg, const char *help)
{
    char left[40];
    snprintf(left, sizeof left, "--%s%s%s", name, arg ? " " : "", arg ? arg : "");
    fprintf(f, "  %-18s %s\n", left, help);
}

static void print_usage_line(const cli_spec *spec, FILE *f)
{
    fprintf(f, "usage: %s", spec->program);
    each_option(spec, f, show_in_usage);
    fprintf(f, " [--help]\n");
}

static const char *where_name[] = {[STAGE_CPU] = "cpu", [STAGE_GPU] = "gpu", [STAGE_ALL_GPUS] = "all-gpus"};

/* --list-stages: every stage's head, one tab-separated line each (stage.h). */
static void print_stage_list(const cli_spec *spec)
{
    for (size_t i = 0; i < spec->stage_count; i++) {
        const stage_info *s = cli_stage_info_at(spec, i);
        printf("%s\t%s\t%s\t%s\t%s\t%s\n", s->name, where_name[s->where], s->kernel ? s->kernel : "-",
               s->bench ? s->bench : "-", s->tags ? s->tags : "-", s->description);
    }
}

static void print_help(const cli_spec *spec)
{
    printf("%s - %s\n\n", spec->program, spec->summary);
    print_usage_line(spec, stdout);
    printf("\noptions:\n");
    each_option(spec, stdout, show_in_help);
    printf("  %-18s %s\n", "--help", "show this help");
    printf("  %-18s %s\n", "--version", "the program's name and the commit it was built from");
    printf("  %-18s %s\n", "--list-stages", "one line per stage, tab-separated, for scripts (stage.h)");
    if (spec->stage_count) {
        printf("\nstages (in order):\n");
        for (size_t i = 0; i < spec->stage_count; i++)
            printf("  %-24s %s\n", cli_stage_name(spec, i), cli_stage_info_at(spec, i)->description);
    }
    if (spec->notes)
        printf("\n%s\n", spec->notes);
    printf("\nLong options may be shortened to any unambiguous prefix%s.\n",
           spec->accepts & CLI_REPEAT ? " (--rep 5 is --repeat 5)" : "");
    printf("\noutputs: every file a run writes is checked before any work: one that exists must be a regular\n"
           "file you and its owner may write, wholly of the output's own kind (a PPM for a .ppm, a PNG, the\n"
           "output's CSV ...: never a file of yours), in a folder you may write, and no two outputs may be one\n"
           "file (exit 2); the kind and the mode are checked again when the file is written.\n"
           "A file is written whole to a temporary file beside it, then renamed over it: it keeps its\n"
           "permission bits but is a new file (its other hard links keep the old contents). A symbolic\n"
           "link is written through to its file and stays a link; a dangling one is refused. CSV rows\n"
           "are appended in place, under a lock: a wait for another process's lock is said on stderr\n"
           "and gives up after 60 s (exit 1; CSV_LOCK_TIMEOUT_S=S sets the limit).\n");
    printf("\nexit status: 0 all stages ok; 1 a check failed or a run-time error (out of memory,\n"
           "             an output that could not be written); 2 bad command line (nothing run,\n"
           "             nothing written)%s\n",
           spec->accepts & CLI_DEVICE ? "; 3 no CUDA device" : "");
}

static const char *program_name = "program";
static const cli_spec *parsed_spec; /* the spec cli_parse last read */
static int work_begun;              /* cli_begin_work was called after the last cli_parse */

void cli_begin_work(const cli_spec *spec)
{
    program_name = spec->program;
    work_begun = 1;
}

void cli_require_work_begun(const char *what)
{
    if (!parsed_spec || work_begun)
        return;
    fprintf(stderr, "%s: internal error: %s before cli_begin_work: bad input could be refused after work\n",
            program_name, what);
    exit(CLI_EXIT_LATE);
}

static void claim_output(const cli_spec *spec, const void *source, const char *label, const char *path);

void cli_require_writable(const cli_spec *spec, const char *option, const char *path)
{
    const char *why = cli_check_writable(path);
    if (!why && strcmp(option, "default output") == 0) /* the image --out would have been */
        why = cli_check_image_kind(path);
    if (why)
        cli_usage_error(spec, "%s '%s' %s", option, path, why);
    claim_output(spec, path, option, path);
}

void cli_require_output(const cli_spec *spec, const char *option, const char *path, const output_kind *kind)
{
    char target[PATH_MAX];
    const char *why = cli_check_writable(path);
    if (!why && output_target(path, target, sizeof target) == NULL)
        why = output_kind_problem(target, kind);
    if (why)
        cli_usage_error(spec, "%s '%s' %s", option, path, why);
    claim_output(spec, path, option, path);
}

void *cli_alloc(size_t bytes, const char *what)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "%s: out of memory (%zu bytes for %s)\n", program_name, bytes, what);
        exit(EXIT_CHECK_FAIL);
    }
    return p;
}

void cli_alloc_image(image *img, int width, int height)
{
    if (image_alloc(img, width, height) != 0) {
        fprintf(stderr, "%s: out of memory (%dx%d image)\n", program_name, width, height);
        exit(EXIT_CHECK_FAIL);
    }
}

static int omit_usage_line;
void cli_omit_usage_line(void) { omit_usage_line = 1; }

void cli_usage_error(const cli_spec *spec, const char *fmt, ...)
{
    va_list ap;
    char *message = NULL;
    va_start(ap, fmt);
    if (vasprintf(&message, fmt, ap) < 0)
        message = NULL;
    va_end(ap);
    /* One fprintf, one write: a reader sharing the pipe (mpirun, which adds
     * lines of its own) cannot cut the line. Late, the refusal may follow
     * device lines, output or half-done work: a bug to fix (move the check
     * before cli_begin_work), not a usage error. */
    fprintf(stderr, "%s: %s%s\n", spec->program,
            work_begun ? "internal error: bad input detected after work began: " : "error: ",
            message ? message : "(out of memory for the message)");
    free(message);
    if (work_begun)
        exit(CLI_EXIT_LATE);
    if (!omit_usage_line)
        print_usage_line(spec, stderr);
    exit(CLI_EXIT_USAGE);
}

void cli_check_host_memory(const cli_spec *spec, unsigned long long bytes, const char *what)
{
    unsigned long long avail = host_available_bytes();
    if (avail && bytes + CLI_HOST_MARGIN_BYTES > avail)
        cli_usage_error(spec, "%s needs %.2f GiB of host memory and %.0f GiB to spare; %.2f GiB is available", what,
                        bytes / 1073741824.0, CLI_HOST_MARGIN_BYTES / 1073741824.0, avail / 1073741824.0);
}

const char *cli_parse_long(const char *text, long long min, long long max, long long *out)
{
    if (!text || !*text)
        return "is empty";
    if (!(text[0] == '-' || text[0] == '+' || (text[0] >= '0' && text[0] <= '9')))
        return "is not a whole number";
    errno = 0;
    char *end;
    long long v = strtoll(text, &end, 10);
    if (end == text || *end != '\0')
        return "is not a whole number";
    if (errno == ERANGE)
        return "is too large";
    if (v < min)
        return min == 1 ? "must be at least 1" : "is too small";
    if (v > max)
        return "is too large";
    *out = v;
    return NULL;
}

const char *cli_parse_double(const char *text, double min, double max, double *out)
{
    if (!text || !*text)
        return "is empty";
    errno = 0;
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end != '\0')
        return "is not a number";
    if (errno == ERANGE || !isfinite(v))
        return "is out of range";
    if (v < min)
        return "is too small";
    if (v > max)
        return "is too large";
    *out = v;
    return NULL;
}

const char *cli_check_image_kind(const char *path)
{
    char target[PATH_MAX];
    if (output_target(path, target, sizeof target) != NULL)
        return NULL; /* cli_check_writable says why it cannot be written */
    output_kind kind = output_image_kind(path); /* the name given says which kind, as it says which is written */
    return output_kind_problem(target, &kind);
}

const char *cli_check_writable(const char *path)
{
    static char reason[PATH_MAX + 512];
    if (!path || !*path)
        return "is an empty path";
    if (strlen(path) >= PATH_MAX) {
        snprintf(reason, sizeof reason, "cannot be written: the path is longer than %d bytes", PATH_MAX - 1);
        return reason;
    }
    /* A symbolic link is written through (image.h): every check below is of
     * the file it points to, and a refusal says which file that is. */
    char target[PATH_MAX], via[PATH_MAX + 64] = "";
    const char *why = output_target(path, target, sizeof target);
    if (why)
        return why;
    if (strcmp(target, path) != 0)
        snprintf(via, sizeof via, "(a symbolic link to '%.*s') ", PATH_MAX / 2, target);
    struct stat st;
    if (stat(target, &st) == 0) {
        if (!S_ISREG(st.st_mode))
            why = S_ISDIR(st.st_mode) ? "is a folder"
                                      : "is not a regular file (a FIFO or a device would block or be replaced)";
        else if ((why = output_read_only(&st)) == NULL && access(target, W_OK) != 0)
            why = strerror(errno); /* a read-only file is not replaced, even though its folder would allow it */
        if (why) {
            snprintf(reason, sizeof reason, "%s%s%s", via, S_ISREG(st.st_mode) ? "cannot be written: " : "", why);
            return reason;
        }
    }
    char dir[PATH_MAX];
    const char *slash = strrchr(target, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == target)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - target), target);
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(reason, sizeof reason, "%scannot be written: folder '%.200s' does not exist", via, dir);
        return reason;
    }
    if (access(dir, W_OK | X_OK) != 0) { /* the temporary file is made there and renamed */
        snprintf(reason, sizeof reason, "%scannot be written: folder '%.200s': %s", via, dir, strerror(errno));
        return reason;
    }
    long name_max = pathconf(dir, _PC_NAME_MAX);
    size_t name_len = strlen(slash ? slash + 1 : target);
    if (name_max > 0 && name_len > (size_t)name_max) {
        snprintf(reason, sizeof reason, "%scannot be written: its name is %zu bytes, over the folder's limit of %ld",
                 via, name_len, name_max);
        return reason;
    }
    return NULL;
}

/* Every output path a run will write, so that no two are one file (an image
 * written over the CSV rows, a stage's image over --out). A file is known by
 * its device and inode where it exists (hard links too), and by its canonical
 * path: realpath of the file, or of its folder and its name for a file still
 * to be made (the folder exists: cli_check_writable saw to it). */
typedef struct {
    const void *source; /* the argument's own text: one argument checked twice is one output */
    char *label, *path, *key;
    int exists;
    dev_t dev;
    ino_t ino;
} output_claim;
static output_claim *claims;
static size_t claim_count, claim_room;

static void forget_claims(void)
{
    for (size_t i = 0; i < claim_count; i++) {
        free(claims[i].label);
        free(claims[i].path);
        free(claims[i].key);
    }
    claim_count = 0;
}

static char *copy_text(const char *text)
{
    char *copy = cli_alloc(strlen(text) + 1, "an output's name");
    strcpy(copy, text);
    return copy;
}

/* The canonical path of an output that passed cli_check_writable, malloc'd;
 * *exists and *st say whether the file is there. */
static char *canonical_output(const char *path, int *exists, struct stat *st)
{
    char target[PATH_MAX], resolved[PATH_MAX], dir[PATH_MAX];
    if (output_target(path, target, sizeof target) != NULL)
        snprintf(target, sizeof target, "%s", path);
    *exists = stat(target, st) == 0;
    if (*exists && realpath(target, resolved))
        return copy_text(resolved);
    const char *slash = strrchr(target, '/'), *name = slash ? slash + 1 : target;
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == target)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - target), target);
    if (!realpath(dir, resolved))
        return copy_text(target); /* cannot be: the folder was checked; the name as given then */
    char *key = cli_alloc(strlen(resolved) + strlen(name) + 2, "an output's name");
    sprintf(key, "%s/%s", strcmp(resolved, "/") == 0 ? "" : resolved, name);
    return key;
}

/* Records output `path` (given as `label`; source: the argument's text, or
 * NULL for a name made here); refuses it (exit 2) if an output recorded
 * before is the same file. An option given again replaces its earlier value,
 * as numbers do: the earlier one is no output. */
static void claim_output(const cli_spec *spec, const void *source, const char *label, const char *path)
{
    for (size_t i = 0; source && i < claim_count; i++)
        if (claims[i].source == source)
            return;
    for (size_t i = 0; source && i < claim_count; i++)
        if (strcmp(claims[i].label, label) == 0) {
            free(claims[i].label);
            free(claims[i].path);
            free(claims[i].key);
            claims[i] = claims[--claim_count];
            break;
        }
    output_claim c = {.source = source};
    struct stat st;
    c.key = canonical_output(path, &c.exists, &st);
    c.dev = st.st_dev, c.ino = st.st_ino;
    for (size_t i = 0; i < claim_count; i++) {
        const output_claim *o = &claims[i];
        if (strcmp(o->key, c.key) == 0 || (o->exists && c.exists && o->dev == c.dev && o->ino == c.ino)) {
            free(c.key);
            cli_usage_error(spec, "%s '%s' and %s '%s' are the same file: one output would overwrite the other",
                            o->label, o->path, label, path);
        }
    }
    if (claim_count == claim_room) {
        claim_room = claim_room ? 2 * claim_room : 16;
        output_claim *more = cli_alloc(claim_room * sizeof *claims, "the list of outputs");
        if (claim_count)
            memcpy(more, claims, claim_count * sizeof *claims);
        free(claims);
        claims = more;
    }
    c.label = copy_text(label);
    c.path = copy_text(path);
    claims[claim_count++] = c;
}

/* --images DIR: each stage that runs writes DIR/<program>-<stage>.<ext>;
 * each such file is an output like any other. */
static void claim_stage_images(const cli_spec *spec, const cli_options *opt)
{
    for (size_t i = 0; opt->images && i < spec->stage_count; i++) {
        if (!cli_stage_selected(opt, i))
            continue;
        char path[PATH_MAX + 64], label[96];
        const char *stage = cli_stage_name(spec, i), *why;
        if (image_stage_path(path, sizeof path, opt->images, spec->program, stage) != 0)
            cli_usage_error(spec, "--images '%s': the path of stage %s's image is too long", opt->images, stage);
        if ((why = cli_check_writable(path)) != NULL || (why = cli_check_image_kind(path)) != NULL)
            cli_usage_error(spec, "--images '%s': stage %s's image '%s' %s", opt->images, stage, path, why);
        snprintf(label, sizeof label, "--images' image of stage %s", stage);
        claim_output(spec, NULL, label, path);
    }
}

const char *cli_check_folder(const char *path)
{
    static char reason[256];
    struct stat st;
    if (!path || !*path)
        return "is an empty path";
    if (stat(path, &st) != 0) {
        snprintf(reason, sizeof reason, "cannot be used: %s", strerror(errno));
        return reason;
    }
    if (!S_ISDIR(st.st_mode))
        return "is not a folder";
    if (access(path, W_OK | X_OK) != 0) {
        snprintf(reason, sizeof reason, "cannot be written: %s", strerror(errno));
        return reason;
    }
    return NULL;
}

static void store_number(cli_options *opt, unsigned bit, long long v)
{
    switch (bit) {
    case CLI_WIDTH: opt->width = (long)v; break;
    case CLI_HEIGHT: opt->height = (long)v; break;
    case CLI_SPP: opt->spp = (long)v; break;
    case CLI_THREADS: opt->threads = (long)v; break;
    case CLI_REPEAT: opt->repeat = (long)v; break;
    case CLI_N: opt->n = v; break;
    case CLI_STEPS: opt->steps = (long)v; break;
    case CLI_DEVICE: opt->device = (long)v; break;
    default: break;
    }
}

/* A value of one of the chapter's own options. */
static void take_chapter_value(const cli_spec *spec, const cli_option *o, const char *value)
{
    if (o->number) {
        long long v;
        const char *why = cli_parse_long(value, o->min, o->max, &v);
        if (why)
            cli_usage_error(spec, "--%s '%s' %s", o->name, value, why);
        *o->number = (long)v;
        return;
    }
    if (o->text_kind == CLI_NAMES_STAGE && cli_stage_index(spec, value) < 0)
        cli_usage_error(spec, "--%s '%s' is not a stage of %s (see --help for the list)", o->name, value,
                        spec->program);
    if (o->choices)
        require_choice(spec, o, value);
    *o->text = value;
}

static void take_value(const cli_spec *spec, cli_options *opt, const option_row *r, const char *value)
{
    if (r->bit == CLI_STAGE) {
        opt->stage = value;
        return;
    }
    if (r->bit == CLI_IMAGES) {
        const char *why = cli_check_folder(value);
        if (why)
            cli_usage_error(spec, "--images '%s' %s", value, why);
        opt->images = value;
        return;
    }
    if (r->bit == CLI_OUT || r->bit == CLI_CSV) {
        const char *why = cli_check_writable(value);
        if (why)
            cli_usage_error(spec, "--%s '%s' %s", r->name, value, why);
        if (r->bit == CLI_CSV && (why = report_check_csv(value)) != NULL)
            cli_usage_error(spec, "--csv '%s' %s", value, why);
        if (r->bit == CLI_OUT && (why = cli_check_image_kind(value)) != NULL)
            cli_usage_error(spec, "--out '%s' %s", value, why);
        claim_output(spec, value, r->bit == CLI_OUT ? "--out" : "--csv", value);
        if (r->bit == CLI_OUT) {
            size_t n = strlen(value);
            int png = n >= 4 && strcmp(value + n - 4, ".png") == 0;
            int ppm = n >= 4 && strcmp(value + n - 4, ".ppm") == 0;
            if (!png && !ppm)
                cli_usage_error(spec, "--out '%s': the name must end in .ppm or .png", value);
            if (png && !image_png_supported())
                cli_usage_error(spec, "--out '%s': built without libpng, so only .ppm can be written", value);
            opt->out = value;
        } else {
            opt->csv = value;
        }
        return;
    }
    long long v;
    const char *why = cli_parse_long(value, r->min, r->max, &v);
    if (why)
        cli_usage_error(spec, "--%s '%s' %s", r->name, value, why);
    store_number(opt, r->bit, v);
}

int cli_stage_index(const cli_spec *spec, const char *name)
{
    for (size_t i = 0; i < spec->stage_count; i++)
        if (strcmp(name, cli_stage_name(spec, i)) == 0)
            return (int)i;
    return -1;
}

static void resolve_stage(const cli_spec *spec, cli_options *opt)
{
    opt->stage_index = -1;
    if (!opt->stage || strcmp(opt->stage, "all") == 0) {
        opt->stage = "all";
        return;
    }
    if ((opt->stage_index = cli_stage_index(spec, opt->stage)) >= 0)
        return;
    cli_usage_error(spec, "--stage '%s' is not a stage of %s (see --help for the list)", opt->stage,
                    spec->program);
}

/* An option getopt refused: a short one (every chapter takes long options
 * only), a long one that matches no option, or a prefix of several. */
static void refuse_option(const cli_spec *spec, const struct option *longopts, const char *arg)
{
    if (arg[0] != '-' || arg[1] != '-') {
        cli_usage_error(spec, "unknown option '%.2s'%s%s%s (options are long: --name)", arg, arg[2] ? " (in '" : "",
                        arg[2] ? arg : "", arg[2] ? "')" : "");
    }
    size_t len = strcspn(arg + 2, "=");
    char matches[512] = "";
    int count = 0;
    for (const struct option *o = longopts; o->name; o++)
        if (strncmp(o->name, arg + 2, len) == 0) {
            count++;
            size_t used = strlen(matches);
            snprintf(matches + used, sizeof matches - used, "%s--%s", used ? ", " : "", o->name);
        }
    if (count > 1)
        cli_usage_error(spec, "option '%.*s' is ambiguous: %s", (int)len + 2, arg, matches);
    if (count == 1 && arg[2 + len] == '=')
        cli_usage_error(spec, "option '%.*s' takes no value", (int)len + 2, arg);
    cli_usage_error(spec, "unknown option '%.*s'", (int)len + 2, arg);
}

/* At exit: the results table is the program's output, so a standard output
 * that could not take all of it (a full disk, /dev/full) fails the run. */
static void check_stdout(void)
{
    int failed_before = ferror(stdout);
    if (fflush(stdout) != 0 || fclose(stdout) != 0 || failed_before) {
        fprintf(stderr, "%s: the results could not be written to standard output: %s\n", program_name,
                failed_before ? "a write failed" : strerror(errno));
        _exit(EXIT_CHECK_FAIL);
    }
}

void cli_parse(const cli_spec *spec, cli_options *opt, int argc, char **argv)
{
    enum { HELP = 'h', LIST_STAGES = 'l', VERSION = 'v', CHAPTER_OPTION = 1000 };
    size_t k = 0, count = OPTION_COUNT + spec->option_count + 4;
    program_name = spec->program;
    parsed_spec = spec;
    stage_table_use(spec->stages, spec->stage_count, spec->stage_size); /* the report's work tags */
    work_begun = 0;
    forget_claims();
    /* kept where the leak checker sees it: a refusal exits from inside the loop */
    static struct option *longopts;
    longopts = cli_alloc(count * sizeof *longopts, "the option list");
    for (size_t i = 0; i < OPTION_COUNT; i++)
        if (spec->accepts & option_rows[i].bit)
            longopts[k++] = (struct option){option_rows[i].name, option_rows[i].arg ? required_argument : no_argument,
                                            NULL, (int)(i + 1)};
    for (size_t i = 0; i < spec->option_count; i++)
        longopts[k++] = (struct option){spec->options[i].name, required_argument, NULL, CHAPTER_OPTION + (int)i};
    longopts[k++] = (struct option){"help", no_argument, NULL, HELP};
    longopts[k++] = (struct option){"list-stages", no_argument, NULL, LIST_STAGES};
    longopts[k++] = (struct option){"version", no_argument, NULL, VERSION};
    longopts[k] = (struct option){NULL, 0, NULL, 0};

    static int at_exit_set; /* once: a second check would find stdout closed by the first */
    if (!at_exit_set++)
        atexit(check_stdout);
    /* A file size limit (ulimit -f) must be a write error every write checks
     * (EFBIG, exit 1, outputs rolled back), not death by SIGXFSZ. */
    struct sigaction xfsz;
    if (sigaction(SIGXFSZ, NULL, &xfsz) == 0 && xfsz.sa_handler == SIG_DFL)
        signal(SIGXFSZ, SIG_IGN);
    opterr = 0;
    optind = 0; /* glibc: 0 re-initialises, so tests may call this more than once */
    int c, at = 1;
    while ((at = optind > 0 ? optind : 1), (c = getopt_long(argc, argv, "+:", longopts, NULL)) != -1) {
        if (c == HELP || c == LIST_STAGES || c == VERSION) {
            if (c == HELP)
                print_help(spec);
            else if (c == LIST_STAGES)
                print_stage_list(spec);
            else
                printf("%s commit %s\n", spec->program, BUILD_COMMIT);
            exit(EXIT_OK);
        }
        if (c == ':')
            cli_usage_error(spec, "option '%s' needs a value", argv[optind - 1]);
        if (c == '?')
            refuse_option(spec, longopts, argv[at]);
        if (c >= CHAPTER_OPTION) {
            take_chapter_value(spec, &spec->options[c - CHAPTER_OPTION], optarg);
            continue;
        }
        const option_row *r = &option_rows[c - 1];
        if (r->bit == CLI_QUIET)
            opt->quiet = 1;
        else
            take_value(spec, opt, r, optarg);
    }
    if (optind < argc)
        cli_usage_error(spec, "unexpected argument '%s'", argv[optind]);
    free(longopts);
    longopts = NULL;
    resolve_stage(spec, opt);
    claim_stage_images(spec, opt);
}
