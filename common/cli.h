/* cli.h - the one command-line parser every chapter uses.
 *
 * A chapter says which options it accepts (CLI_* bits), gives its defaults in a
 * cli_options, and passes its stage table. Its stage table is an array of structs
 * whose first two members are `const char *name, *description`; the parser only
 * reads those two, so --stage and --help come from the same list that runs.
 *
 * Numbers are parsed strictly: a whole decimal number, nothing after it, inside
 * the option's range. "abc", "12x", "", "-1" for a size, "1e99", and values
 * that overflow are refused. Any bad input prints one line naming the problem,
 * then the usage line, to stderr and exits with status 2 (CLI_EXIT_USAGE),
 * before any output file is created.
 */
#ifndef COMMON_CLI_H
#define COMMON_CLI_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The most timed runs --repeat accepts; arrays of per-run times are this long. */
#define REPEAT_MAX 1000

/* Exit statuses shared by every chapter program (README lists them). */
enum {
    EXIT_OK = 0,         /* every stage ran and checked ok */
    EXIT_CHECK_FAIL = 1, /* a stage's result failed its check, or a run-time error */
    CLI_EXIT_USAGE = 2,  /* bad command line: nothing was run or written */
    EXIT_NO_GPU = 3      /* a GPU chapter found no usable CUDA device */
};

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
    CLI_IMAGES = 1u << 12,     /* a folder: every stage's image is written there */
    CLI_RNG_DIVISOR = 1u << 13, /* ch03: what the generator's 16 bits are divided by */
    CLI_SCENE = 1u << 14,       /* ch08: a scene file (the chapter parses it) */
    CLI_SEED = 1u << 15,        /* ch08: which random streams a render uses */
    CLI_PRINT_SOURCE = 1u << 16 /* ch10: print a stage's generated kernel source and exit */
};

typedef struct {
    const char *name;
    const char *description;
} cli_stage_info;

/* In a cli_spec: .stages, .stage_count and .stage_size from one stage table. */
#define CLI_STAGE_TABLE(table) .stages = (table), .stage_count = sizeof(table) / sizeof((table)[0]), \
                               .stage_size = sizeof((table)[0])

typedef struct {
    const char *program;   /* "ch01" */
    const char *summary;   /* one line: what the program does */
    unsigned accepts;      /* CLI_* bits; --help is always accepted */
    const void *stages;    /* array of structs starting like cli_stage_info */
    size_t stage_count;
    size_t stage_size;     /* sizeof one element of that array */
    const char *notes;     /* extra --help text (may be NULL) */
} cli_spec;

typedef struct {
    long width, height, spp, threads, repeat, steps, device;
    long long n;
    const char *stage; /* "all" or a stage name */
    int stage_index;   /* index into the stage table, or -1 for all */
    const char *out;   /* NULL: the chapter's default */
    const char *csv;   /* NULL: no CSV */
    const char *images; /* NULL: no per-stage images */
    long rng_divisor;
    const char *scene; /* NULL: the chapter's default */
    const char *print_source; /* NULL, or the stage whose source to print */
    long seed;
    int quiet;
} cli_options;

/* Parses argv into opt (which holds the chapter's defaults on entry).
 * Returns normally only on success; --help exits 0, bad input exits 2. */
void cli_parse(const cli_spec *spec, cli_options *opt, int argc, char **argv);

/* Strict number parsing; return NULL on success or a reason ("is not a whole number"). */
const char *cli_parse_long(const char *text, long long min, long long max, long long *out);
const char *cli_parse_double(const char *text, double min, double max, double *out);

/* NULL if path can be created as a file (its folder exists and is writable and
 * path is not a folder), else a reason. Creates nothing. */
const char *cli_check_writable(const char *path);

/* NULL if path is a folder this process may create files in, else a reason. */
const char *cli_check_folder(const char *path);

/* --out's default: NULL if `path` can be written (checked like --out), else
 * one line, the usage and exit 2. Call it right after cli_parse. */
void cli_require_writable(const cli_spec *spec, const char *option, const char *path);

/* malloc that never returns NULL: "program: out of memory (N bytes for what)",
 * exit 1. The program name is the last one cli_parse saw. */
void *cli_alloc(size_t bytes, const char *what);

/* Index of the stage called name in spec's table, or -1. */
int cli_stage_index(const cli_spec *spec, const char *name);

/* Name of stage i of spec's table. */
const char *cli_stage_name(const cli_spec *spec, size_t i);

/* Prints "program: message" to stderr, then the usage line, and exits 2. */
void cli_usage_error(const cli_spec *spec, const char *fmt, ...);

#ifdef __cplusplus
}
#endif

#endif
