/* cli.h - the one command-line parser every chapter uses.
 *
 * A chapter says which shared options it accepts (CLI_* bits), gives its
 * defaults in a cli_options, hands over its own options (a cli_option table,
 * for what only it takes), and passes its stage table: an array of structs
 * whose first member is a stage_info (stage.h). The parser reads only those
 * heads, so --stage, --help and --list-stages come from the same list that runs.
 *
 * Numbers are parsed strictly: a whole decimal number, nothing after it, inside
 * the option's range. "abc", "12x", "", "-1" for a size, "1e99", and values
 * that overflow are refused. Any bad input prints one line naming the problem,
 * then the usage line, to stderr and exits with status 2 (CLI_EXIT_USAGE),
 * before any output file is created.
 *
 * A program checks all of its input first, then calls cli_begin_work; only
 * then does it allocate, read its workload, touch a device or print. A
 * refusal after that is the program's bug (see cli_begin_work).
 */
#ifndef COMMON_CLI_H
#define COMMON_CLI_H

#include "image.h"
#include "stage.h"
#include "status.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The most timed runs --repeat accepts; arrays of per-run times are this long. */
#define REPEAT_MAX 1000

enum {
    CLI_WIDTH = 1u << 0,
    CLI_HEIGHT = 1u << 1,
    CLI_SPP = 1u << 2,
    CLI_THREADS = 1u << 3,
    CLI_REPEAT = 1u << 4,
    CLI_N = 1u << 5,
    CLI_STEPS = 1u << 6,
    CLI_DEVICE = 1u << 7,
    CLI_STAGE = 1u << 8,
    CLI_OUT = 1u << 9,   /* an image: .ppm, or .png with libpng */
    CLI_CSV = 1u << 10,  /* results appended as CSV rows */
    CLI_QUIET = 1u << 11,
    CLI_IMAGES = 1u << 12 /* a folder: every stage's image is written there */
};

/* An option one chapter takes, in a table of its own (cli_spec.options):
 *   static long divisor = 65536;
 *   static const cli_option options[] = {
 *       {"rng-divisor", "D", "divide ... by D", .min = 65536, .max = 1 << 24, .number = &divisor}};
 * A number is parsed as strictly as the shared ones, within [min, max]; text
 * is taken as it is, or must name a stage (CLI_NAMES_STAGE), or must be one
 * of its choices (.choices = cli_yes_no, .choice_count = 2): anything else is
 * refused while parsing, "--ceiling 'maybe': yes or no", so no chapter checks
 * its own words after cli_parse. */
enum { CLI_TEXT = 0, CLI_NAMES_STAGE = 1 };
typedef struct {
    const char *name; /* without the dashes */
    const char *arg;  /* what --help calls its value: "FILE", "N" */
    const char *help;
    long long min, max;
    long *number;      /* a number goes here ... */
    const char **text; /* ... or text goes here */
    int text_kind;     /* CLI_TEXT or CLI_NAMES_STAGE */
    const char *const *choices; /* NULL, or the words text may be (choice_count of them) */
    int choice_count;
} cli_option;

/* The choices of a yes|no option. */
extern const char *const cli_yes_no[2];

/* The index of text among count choices, or -1 (text NULL: not given). */
int cli_choice_index(const char *const *choices, int count, const char *text);

/* In a cli_spec: .stages, .stage_count and .stage_size from one stage table. */
#define CLI_STAGE_TABLE(table) .stages = (table), .stage_count = sizeof(table) / sizeof((table)[0]), \
                               .stage_size = sizeof((table)[0])

typedef struct {
    const char *program;   /* "ch01" */
    const char *summary;   /* one line: what the program does */
    unsigned accepts;      /* CLI_* bits; --help is always accepted */
    const void *stages;    /* array of structs whose first member is a stage_info */
    size_t stage_count;
    size_t stage_size;     /* sizeof one element of that array */
    const char *notes;     /* extra --help text (may be NULL) */
    const cli_option *options; /* the chapter's own options (may be NULL) */
    size_t option_count;
} cli_spec;

/* In a cli_spec: .options and .option_count from one option table. */
#define CLI_OPTION_TABLE(table) .options = (table), .option_count = sizeof(table) / sizeof((table)[0])

typedef struct {
    long width, height, spp, threads, repeat, steps, device;
    long long n;
    const char *stage; /* "all" or a stage name */
    int stage_index;   /* index into the stage table, or -1 for all */
    const char *out;   /* NULL: the chapter's default */
    const char *csv;   /* NULL: no CSV */
    const char *images; /* NULL: no per-stage images */
    int quiet;
} cli_options;

/* Parses argv into opt (which holds the chapter's defaults on entry).
 * Returns normally only on success; --help, --list-stages and --version
 * (the program's name and BUILD_COMMIT, the commit it was built from) exit
 * 0, bad input exits 2. */
void cli_parse(const cli_spec *spec, cli_options *opt, int argc, char **argv);

/* Strict number parsing; return NULL on success or a reason ("is not a whole number"). */
const char *cli_parse_long(const char *text, long long min, long long max, long long *out);
const char *cli_parse_double(const char *text, double min, double max, double *out);

/* NULL if path may be written as an output (image.h says how): its folder
 * exists and this process may create files there, and an existing file is a
 * regular file it may write (access W_OK, and its owner's write bit in its
 * mode, for root too: image.h's output_read_only); a symbolic link is judged
 * by the file it points to, and a dangling one is refused. Else a reason.
 * Creates nothing. */
const char *cli_check_writable(const char *path);


/* NULL if path (through a symbolic link) is missing, empty or wholly the
 * kind of image its name says (.png a PNG, else a PPM: image.h's
 * output_kind_problem, which also refuses a file it cannot read), else a
 * reason: an image output never replaces a file of another kind (notes.txt
 * renamed to x.ppm, "P6" and notes), as --csv never appends to a file
 * without its header. */
const char *cli_check_image_kind(const char *path);

/* NULL if path is a folder this process may create files in, else a reason. */
const char *cli_check_folder(const char *path);

/* An output the chapter writes (ch07's --timeline, ch08's --linear-out,
 * ch11's --state-out ...): returns if `path` can be written
 * (cli_check_writable), holds nothing but `kind` (output_kind_problem: the
 * kind the chapter then gives file_write_begin, which checks it again before
 * its rename) and is no other output of this run, else one line naming
 * `option`, the usage and exit 2. cli_parse has already checked --out, --csv
 * and each --images file the selected stages write, so a clash with them is
 * found here too. Two outputs are one file when they resolve to one path, or
 * are one inode (hard links). Call it right after cli_parse, for every output. */
void cli_require_output(const cli_spec *spec, const char *option, const char *path, const output_kind *kind);

/* cli_require_output for the chapter's default image (option "default
 * output": the image --out would have been, of the kind its name says); any
 * other option is checked for writing and clashes only. */
void cli_require_writable(const cli_spec *spec, const char *option, const char *path);

/* malloc that never returns NULL: "program: out of memory (N bytes for what)",
 * exit 1. The program name is the last one cli_parse saw. */
void *cli_alloc(size_t bytes, const char *what);

/* image_alloc that never fails: "program: out of memory (WxH image)", exit 1. */
void cli_alloc_image(image *img, int width, int height);

/* Index of the stage called name in spec's table, or -1. */
int cli_stage_index(const cli_spec *spec, const char *name);

/* The head of stage i of spec's table, and its name. */
const stage_info *cli_stage_info_at(const cli_spec *spec, size_t i);
const char *cli_stage_name(const cli_spec *spec, size_t i);


/* 1 if stage i runs: --stage all, or it is the one asked for. */
int cli_stage_selected(const cli_options *opt, size_t i);

/* How many of the stages that run (cli_stage_selected) run `where`
 * (STAGE_CPU, STAGE_GPU, ...): what a chapter sets up, or says it skipped. */
int cli_selected_where(const cli_spec *spec, const cli_options *opt, int where);

/* The logical CPUs online: the default of --threads. */
long cli_online_cpus(void);

/* Prints "program: error: message" to stderr, then the usage line, and exits 2.
 * After cli_begin_work it is a bug instead: see there. */
void cli_usage_error(const cli_spec *spec, const char *fmt, ...);

/* Host memory a program leaves to the rest of the machine (the OS, the page
 * cache, the program itself) beside its workload's buffers. */
#define CLI_HOST_MARGIN_BYTES (1ULL << 30)

/* Refuses (cli_usage_error) a workload whose host buffers, `bytes`, and
 * CLI_HOST_MARGIN_BYTES to spare are more than the memory available
 * (report.h's host_available_bytes; no check where that is unknown): a clear
 * error at the start instead of the kernel's OOM killer part way. `what`
 * names the workload in the message ("--n 268435456"). */
void cli_check_host_memory(const cli_spec *spec, unsigned long long bytes, const char *what);

/* From now on cli_usage_error prints its error line but not the usage line
 * (still exit 2). For ch11's ranks other than 0: each rank says what is wrong
 * (a rank cannot know whether a rank 0 is there to say it), the usage comes
 * once, from rank 0. */
void cli_omit_usage_line(void);

/* The end of checking input and the start of work. Every program calls it
 * once, after its last refusal of bad input (options, the files it reads,
 * output paths, sizes; a check that needs the device itself, such as --device
 * K's range or a size against device memory, comes before it too), and before
 * it sets up a device, prints anything or does any work: on a machine without
 * a GPU as on one with, so that CI, which has none, runs the same order.
 * From then on cli_usage_error (and every refusal here) prints
 * "program: internal error: bad input detected after work began: message" and
 * exits CLI_EXIT_LATE (70): refused late, the error would follow a device line
 * or output, and the bad-input tests, which want status 2, fail on any machine.
 * cli_parse starts the count again. */
void cli_begin_work(const cli_spec *spec);

/* Work that must come after cli_begin_work (measure_stage, device set-up)
 * calls this: in a program that parsed its command line with cli_parse but
 * never called cli_begin_work, it reports the missing call (what: the work
 * that found it) and exits CLI_EXIT_LATE. Without cli_parse (a test calling
 * the code directly) it does nothing. */
void cli_require_work_begun(const char *what);

#ifdef __cplusplus
}
#endif

#endif
