/* test_cli_programs.c - every chapter program refuses bad input the same way.
 *
 * Each vector runs a real chapter binary (./chNN in the repository root) in an
 * empty temporary folder and asserts: exit status 2, no signal, the first line
 * on stderr is "chNN: error: ..." and names the offending option or text,
 * nothing on stdout, and the folder is still empty afterwards (no image, no
 * CSV, no temporary file). A refusal made after the program began its work
 * exits 70 instead (cli_begin_work, common/cli.h), so one made too late, after
 * a device line on a GPU machine, fails here on CI too.
 * Vectors are generated from a table of bad values plus fixed-seed random junk
 * (seed 4242), for every numeric option each program accepts. The programs
 * come from the chapter registry (build/registry.h, made from each chapter's
 * chapter.mk); which options each takes, from its own --help.
 */
#define _GNU_SOURCE
#include "harness.h"
#include "report.h"
#include "status.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#ifndef PROGRAM_DIR
#define PROGRAM_DIR "."
#endif

#define MAX_ARGS 8
#define MAX_VECTORS 4096

typedef struct {
    const char *program;
    char *args[MAX_ARGS]; /* strdup'ed: some are long on purpose */
    int argc;
    char expect[64]; /* must appear in the first stderr line */
} bad_vector;

static bad_vector vectors[MAX_VECTORS];
static int vector_count;

typedef struct {
    const char *name;
    const char *gpu;        /* none | all | some */
    int raytracer;
    const char *small;      /* a quick run's arguments */
    const char *bad;        /* "OPTION VALUE EXPECT;..." from the registry */
    char numeric[16][24];   /* numeric options it accepts (from --help) */
    char text[16][24];      /* options taking text */
    char file[16][24];      /* of those, the ones taking a FILE (read or written) */
    char first_stage[48];   /* the first of its --help's stages */
    int images;             /* takes --images DIR */
} program_info;

static program_info programs[] = {
#define CHAPTER(name, gpu, raytracer, small, bad) {name, gpu, raytracer, small, bad, {{0}}, {{0}}, {{0}}, "", 0},
#include "registry.h"
#undef CHAPTER
};
#define PROGRAM_COUNT (sizeof programs / sizeof programs[0])

/* The index of program `name` in the registry, or -1 (ch11 without an MPI). */
static int program_index(const char *name)
{
    for (size_t p = 0; p < PROGRAM_COUNT; p++)
        if (strcmp(programs[p].name, name) == 0)
            return (int)p;
    return -1;
}

/* Reads the usage line of `program --help`: "[--name ARG]" is numeric when ARG
 * is one of N R K S D, text otherwise (FILE, DIR, NAME). */
static void learn_options(program_info *p)
{
    char cmd[600], line[2048];
    snprintf(cmd, sizeof cmd, "cd %s && ./%s --help", harness_q(PROGRAM_DIR), p->name);
    FILE *f = popen(cmd, "r");
    int n = 0, t = 0, k = 0, in_stages = 0;
    while (f && fgets(line, sizeof line, f)) {
        if (in_stages && !p->first_stage[0] && sscanf(line, " %47s", p->first_stage) != 1)
            in_stages = 0;
        if (strncmp(line, "stages", 6) == 0)
            in_stages = 1;
        if (strstr(line, "[--images DIR]"))
            p->images = 1;
        if (strncmp(line, "usage: ", 7) == 0)
            for (char *q = strstr(line, "[--"); q; q = strstr(q + 1, "[--")) {
                char name[24], arg[16];
                if (sscanf(q, "[--%23[a-z-] %15[A-Z]]", name, arg) != 2)
                    continue;
                if (strlen(arg) == 1 && strchr("NRKSD", arg[0]) && n < 15)
                    snprintf(p->numeric[n++], sizeof p->numeric[0], "%s", name);
                else if (t < 15)
                    snprintf(p->text[t++], sizeof p->text[0], "%s", name);
                if (strcmp(arg, "FILE") == 0 && k < 15)
                    snprintf(p->file[k++], sizeof p->file[0], "%s", name);
            }
    }
    if (f)
        pclose(f);
}

/* 1 if the program takes option (given as "--name") with a text value. */
static int takes_text(const program_info *p, const char *option)
{
    for (int o = 0; p->text[o][0]; o++)
        if (strcmp(option + 2, p->text[o]) == 0)
            return 1;
    return 0;
}

/* 1 if the program takes option (given as "--name") as a number. */
static int takes_number(const program_info *p, const char *option)
{
    for (int o = 0; p->numeric[o][0]; o++)
        if (strcmp(option + 2, p->numeric[o]) == 0)
            return 1;
    return 0;
}

static const char *bad_numbers[] = {"abc", "-1", "0", "12x", "1e99", "", "99999999999999999999",
                                    "-99999999999999999999", "0x10", "1.5", " 7", "7 ", "+", "-",
                                    "5000000000", "nan", "inf", "1,000", "NULL", "１２"};

static bad_vector *add_vector(const char *program, const char *expect)
{
    if (vector_count == MAX_VECTORS) {
        fprintf(stderr, "test_cli_programs: raise MAX_VECTORS\n");
        exit(1);
    }
    bad_vector *v = &vectors[vector_count++];
    memset(v, 0, sizeof *v);
    v->program = program;
    snprintf(v->expect, sizeof v->expect, "%s", expect);
    return v;
}

static void push(bad_vector *v, const char *arg)
{
    if (v->argc == MAX_ARGS) {
        fprintf(stderr, "test_cli_programs: raise MAX_ARGS\n");
        exit(1);
    }
    v->args[v->argc] = strdup(arg);
    if (!v->args[v->argc++]) {
        fprintf(stderr, "test_cli_programs: out of memory\n");
        exit(1);
    }
}

/* Random printable junk with at least one character that is not a digit. */
static void random_junk(test_rng *r, char *out, size_t len)
{
    size_t n = 1 + test_rng_next(r) % (len - 2);
    for (size_t i = 0; i < n; i++)
        out[i] = (char)(33 + test_rng_next(r) % 94);
    out[test_rng_next(r) % n] = 'q';
    out[n] = '\0';
}

/* Paths that pass for names but must be refused before any work: a FIFO
 * (open() would block), a device, a file name over NAME_MAX, a path over
 * PATH_MAX. Made in main(). */
static char fifo_path[128], long_name[320], long_path[4200];

static void make_odd_paths(void)
{
    snprintf(fifo_path, sizeof fifo_path, "%s/fifo", harness_scratch("test_cli_fifo"));
    if (mkfifo(fifo_path, 0600) != 0) {
        perror("mkfifo");
        exit(1);
    }
    memset(long_name, 'a', 300);
    strcpy(long_name + 300, ".ppm");
    memset(long_path, 'b', 4100);
    for (int i = 100; i < 4100; i += 100)
        long_path[i] = '/';
    strcpy(long_path + 4100, ".ppm");
}

/* The options that read a file. Which FILE options are read, not written,
 * --help does not say: this table does, and input_options_are_in_help holds it
 * to the programs. `args` make a file that is wrongly accepted a short run. */
typedef struct {
    const char *program, *option, *args;
    const char *const *files; /* under input_dir, NULL-ended: each must be refused */
} input_option;

static const char *const scene_files[] = {"garbage.bin", "empty", "words.txt", "unreadable", "bad-radius.txt",
                                          "long-line.txt", NULL};
static const char *const pfm_files[] = {"garbage.bin", "empty", "words.txt", "unreadable", "wrong-size.pfm",
                                        "truncated.pfm", "big-endian.pfm", "nan.pfm", "negative.pfm", "no-pixels.pfm",
                                        NULL};
static const input_option input_options[] = {
    {"ch08", "--scene", "--width 4 --height 4 --spp 4", scene_files},
    {"ch08", "--linear-reference", "--width 4 --height 4 --spp 4", pfm_files},
};
#define INPUT_OPTION_COUNT (sizeof input_options / sizeof input_options[0])

static char input_dir[160];

static void make_file(const char *name, const void *bytes, size_t len, mode_t mode)
{
    char path[300];
    snprintf(path, sizeof path, "%s/%s", input_dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(bytes, 1, len, f) != len || fclose(f) != 0 || chmod(path, mode) != 0) {
        perror(path);
        exit(1);
    }
}

/* A 4x4 PFM (the size input_options ask for) whose pixel 5 is bad; 0: none. */
static void make_pfm(const char *name, const char *header, float bad, size_t pixels)
{
    char buf[512];
    int n = snprintf(buf, sizeof buf, "%s", header);
    float rgb[48];
    for (int i = 0; i < 48; i++)
        rgb[i] = i == 15 ? bad : 0.25f * (float)(i % 5);
    memcpy(buf + n, rgb, pixels * 3 * sizeof(float));
    make_file(name, buf, (size_t)n + pixels * 3 * sizeof(float), 0644);
}

/* Garbage of every kind an input option must refuse (exit 2, before any
 * work): not the format at all, empty, unreadable (not as root: root reads
 * anything), and files that nearly are the format. */
static void make_input_files(void)
{
    snprintf(input_dir, sizeof input_dir, "%s/inputs", harness_scratch("test_cli_fifo"));
    if (mkdir(input_dir, 0700) != 0) {
        perror(input_dir);
        exit(1);
    }
    unsigned char junk[200];
    test_rng r = {5150};
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (unsigned char)(test_rng_next(&r) >> 56);
    make_file("garbage.bin", junk, sizeof junk, 0644);
    make_file("empty", "", 0, 0644);
    const char *words = "this is not the file you are looking for\n";
    make_file("words.txt", words, strlen(words), 0644);
    make_file("unreadable", "PF\n4 4\n-1.0\n", 13, 0);
    const char *radius = "sphere -1 0 0 0 0 0 0 .5 .5 .5 diffuse\n";
    make_file("bad-radius.txt", radius, strlen(radius), 0644);
    static char long_line[9000];
    memset(long_line, '1', sizeof long_line - 1);
    memcpy(long_line, "sphere ", 7);
    make_file("long-line.txt", long_line, sizeof long_line - 1, 0644);
    make_pfm("wrong-size.pfm", "PF\n2 2\n-1.0\n", 0, 4);
    make_pfm("truncated.pfm", "PF\n4 4\n-1.0\n", 0, 15);
    make_pfm("big-endian.pfm", "PF\n4 4\n1.0\n", 0, 16);
    make_pfm("nan.pfm", "PF\n4 4\n-1.0\n", NAN, 16);
    make_pfm("negative.pfm", "PF\n4 4\n-1.0\n", -1.0f, 16);
    make_pfm("no-pixels.pfm", "PF\n4 4\n-1.0\n", 0, 0);
}

/* Every program's file options: a path in a missing folder and a folder are
 * refused whether the option reads or writes; an input option, every file of
 * its table too. */
static void add_file_vectors(const program_info *p)
{
    for (int o = 0; p->file[o][0]; o++) {
        char opt[32];
        snprintf(opt, sizeof opt, "--%s", p->file[o]);
        bad_vector *v = add_vector(p->name, opt);
        push(v, opt);
        push(v, "/nonexistent/folder/file.ppm");
        v = add_vector(p->name, opt);
        push(v, opt);
        push(v, input_dir);
    }
    for (size_t i = 0; i < INPUT_OPTION_COUNT; i++) {
        const input_option *in = &input_options[i];
        if (strcmp(in->program, p->name) != 0)
            continue;
        for (int f = 0; in->files[f]; f++) {
            if (strcmp(in->files[f], "unreadable") == 0 && geteuid() == 0)
                continue; /* root reads a file of mode 000 */
            char path[300], args[200];
            snprintf(path, sizeof path, "%s/%s", input_dir, in->files[f]);
            bad_vector *v = add_vector(p->name, in->option);
            snprintf(args, sizeof args, "%s", in->args);
            for (char *save = NULL, *a = strtok_r(args, " ", &save); a; a = strtok_r(NULL, " ", &save))
                push(v, a);
            push(v, in->option);
            push(v, path);
        }
    }
}

/* 1 if the program's FILE option `name` (without dashes) is written, not read. */
static int is_output(const program_info *p, const char *name)
{
    for (size_t i = 0; i < INPUT_OPTION_COUNT; i++)
        if (strcmp(input_options[i].program, p->name) == 0 && strcmp(input_options[i].option + 2, name) == 0)
            return 0;
    return 1;
}

/* What --images writes here: png with libpng, else ppm (image_stage_path);
 * learnt in main() from a program's refusal of --out x.png without libpng. */
static const char *image_ext = "png";

/* Fixtures of the output checks (made in main(), beside the FIFO): a symbolic
 * link into a missing folder, one to a device, a CSV that is the header and
 * then NUL bytes, an empty folder for --images, and one where each program's
 * first stage image would go but a folder is in the way. */
static char dangling_link[160], device_link[160], nul_csv[160], images_dir[160], blocked_images_dir[160];

static void make_output_fixtures(void)
{
    const char *dir = harness_scratch("test_cli_fifo");
    snprintf(dangling_link, sizeof dangling_link, "%s/dangling.ppm", dir);
    snprintf(device_link, sizeof device_link, "%s/device.ppm", dir);
    snprintf(nul_csv, sizeof nul_csv, "%s/nul.csv", dir);
    snprintf(images_dir, sizeof images_dir, "%s/images", dir);
    snprintf(blocked_images_dir, sizeof blocked_images_dir, "%s/blocked-images", dir);
    char target[200];
    snprintf(target, sizeof target, "%s/no-such-folder/x.ppm", dir);
    FILE *f = fopen(nul_csv, "wb");
    static const char zeros[64];
    if (symlink(target, dangling_link) != 0 || symlink("/dev/null", device_link) != 0 || !f ||
        fprintf(f, "%s\n", REPORT_CSV_HEADER) < 0 || fwrite(zeros, 1, sizeof zeros, f) != sizeof zeros ||
        fclose(f) != 0 || mkdir(images_dir, 0755) != 0 || mkdir(blocked_images_dir, 0755) != 0) {
        perror("test_cli_programs: the output fixtures");
        exit(1);
    }
    for (size_t p = 0; p < PROGRAM_COUNT; p++) {
        char path[400];
        snprintf(path, sizeof path, "%s/%s-%s.%s", blocked_images_dir, programs[p].name, programs[p].first_stage,
                 image_ext);
        if (programs[p].images && mkdir(path, 0755) != 0) {
            perror(path);
            exit(1);
        }
    }
}

/* Every output of every program (item 3, 4 and 11 of issue 44): a symbolic
 * link into a missing folder is refused, not followed into a file it would
 * create; a link to a device is refused like the device; two outputs naming
 * one file are refused (each pair of the program's FILE outputs, the default
 * chNN.ppm against --csv, an --images file against --csv); a CSV that is the
 * header and NUL bytes is refused; an --images file with a folder in the way
 * is refused. All before any work: exit 2, nothing written. */
static void add_output_vectors(const program_info *p)
{
    for (int o = 0; p->file[o][0]; o++) {
        if (!is_output(p, p->file[o]))
            continue;
        char opt[32], other[32];
        snprintf(opt, sizeof opt, "--%s", p->file[o]);
        bad_vector *v = add_vector(p->name, "symbolic link");
        push(v, opt);
        push(v, dangling_link);
        v = add_vector(p->name, "not a regular file");
        push(v, opt);
        push(v, device_link);
        for (int q = o + 1; p->file[q][0]; q++) {
            if (!is_output(p, p->file[q]))
                continue;
            snprintf(other, sizeof other, "--%s", p->file[q]);
            v = add_vector(p->name, "same file");
            push(v, opt);
            push(v, "same.ppm");
            push(v, other);
            push(v, "./same.ppm");
        }
    }
    if (!takes_text(p, "--csv"))
        return;
    bad_vector *v = add_vector(p->name, "not a text file");
    push(v, "--csv");
    push(v, nul_csv);
    if (takes_text(p, "--out")) {
        char name[64];
        snprintf(name, sizeof name, "%s.ppm", p->name);
        v = add_vector(p->name, "same file"); /* the default output */
        push(v, "--csv");
        push(v, name);
    }
    if (p->images) {
        char path[400];
        snprintf(path, sizeof path, "%s/%s-%s.%s", images_dir, p->name, p->first_stage, image_ext);
        v = add_vector(p->name, "same file");
        push(v, "--images");
        push(v, images_dir);
        push(v, "--csv");
        push(v, path);
        v = add_vector(p->name, "is a folder");
        push(v, "--images");
        push(v, blocked_images_dir);
    }
}

static void build_vectors(void)
{
    test_rng rng = {4242};
    for (size_t p = 0; p < PROGRAM_COUNT; p++) {
        const char *prog = programs[p].name;
        for (int o = 0; programs[p].numeric[o][0]; o++) {
            char opt[32];
            snprintf(opt, sizeof opt, "--%s", programs[p].numeric[o]);
            for (size_t b = 0; b < sizeof bad_numbers / sizeof bad_numbers[0]; b++) {
                if (strcmp(opt, "--device") == 0 && strcmp(bad_numbers[b], "0") == 0)
                    continue; /* device 0 exists: the one option where 0 is valid */
                if (strcmp(opt, "--n") == 0 && strcmp(bad_numbers[b], "5000000000") == 0)
                    continue; /* a valid --n (up to 2^40); too large for every other option */
                bad_vector *v = add_vector(prog, opt);
                push(v, opt);
                push(v, bad_numbers[b]);
            }
            for (int j = 0; j < 5; j++) {
                char junk[24];
                random_junk(&rng, junk, sizeof junk);
                bad_vector *v = add_vector(prog, opt);
                push(v, opt);
                push(v, junk);
            }
            bad_vector *v = add_vector(prog, opt); /* a value missing at the end */
            push(v, "--quiet");
            push(v, opt);
            v = add_vector(prog, opt); /* a good value, then a bad one for the same option */
            push(v, opt);
            push(v, "3");
            push(v, opt);
            push(v, "-3");
        }
        const char *others[][3] = {
            {"--bogus", NULL, "--bogus"},
            {"--stage", "no-such-stage", "no-such-stage"},
            {"--stage", "", "--stage"},
            {"--stage", "ALL", "ALL"},
            {"--out", "/no/such/folder/x.ppm", "/no/such/folder"},
            {"--out", "picture.jpg", "picture.jpg"},
            {"--out", "", "--out"},
            {"--out", "/etc/hostname/x.ppm", "/etc/hostname"},
            {"--out", "/tmp", "folder"},
            {"--out", long_name, "its name is 304 bytes"},
            {"--out", long_path, "the path is longer than"},
            {"--out", "/dev/null", "not a regular file"},
            {"--out", fifo_path, "not a regular file"},
            {"--csv", "/dev/full", "not a regular file"},
            {"--csv", fifo_path, "not a regular file"},
            {"--scene", fifo_path, "not a regular file"},
            {"--csv", "/no/such/folder/r.csv", "/no/such/folder"},
            {"--csv", "", "--csv"},
            {"--images", "/no/such/folder", "/no/such/folder"},
            {"--images", "/etc/hostname", "/etc/hostname"},
            {"--images", "", "--images"},
            {"--rng-divisor", "65535", "--rng-divisor"},
            {"stray", NULL, "stray"},
            {"-x", NULL, "-x"},
            {"--threads", "4", "--threads"},
            {"--n", "1024", "--n"},
            {"--device", "0", "--device"},
            {"--width=", NULL, "--width"},
            {"--spp=12abc", NULL, "--spp"},
            {"-xy", NULL, "'-x'"},
            {"--quiet=1", NULL, "--quiet"},
        };
        for (size_t k = 0; k < sizeof others / sizeof others[0]; k++) {
            if (others[k][1] && takes_number(&programs[p], others[k][0]))
                continue; /* e.g. --threads 4 is fine for ch03 */
            int unknown = others[k][1] && strncmp(others[k][0], "--", 2) == 0 &&
                          !takes_text(&programs[p], others[k][0]) && !takes_number(&programs[p], others[k][0]);
            bad_vector *v = add_vector(prog, unknown ? others[k][0] : others[k][2]); /* e.g. ch06 has no --out */
            push(v, others[k][0]);
            if (others[k][1])
                push(v, others[k][1]);
        }
        if (takes_number(&programs[p], "--height")) { /* --h: --height or --help */
            bad_vector *v = add_vector(prog, "ambiguous");
            push(v, "--h");
            push(v, "3");
        }
        add_file_vectors(&programs[p]);
        add_output_vectors(&programs[p]);
        char bad[1024];
        if (strlen(programs[p].bad) >= sizeof bad) {
            fprintf(stderr, "test_cli_programs: %s's _BAD list is longer than %zu bytes\n", prog, sizeof bad - 1);
            exit(1);
        }
        snprintf(bad, sizeof bad, "%s", programs[p].bad);
        for (char *save = NULL, *item = strtok_r(bad, ";", &save); item; item = strtok_r(NULL, ";", &save)) {
            char option[64], value[64], expect[64];
            if (sscanf(item, " %63s %63s %63[^;]", option, value, expect) != 3)
                continue;
            bad_vector *v = add_vector(prog, expect);
            push(v, option);
            push(v, value);
        }
    }
}

static char *read_all(int fd)
{
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    ssize_t n;
    while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
        len += (size_t)n;
        if (len + 1 == cap)
            buf = realloc(buf, cap *= 2);
    }
    buf[len] = '\0';
    return buf;
}

START_TEST(bad_vector_is_refused)
{
    const bad_vector *v = &vectors[_i];
    char dir[] = "/tmp/test_cli.XXXXXX", exe[512];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(exe, sizeof exe, "%s/%s", PROGRAM_DIR, v->program);
    ck_assert_msg(access(exe, X_OK) == 0, "%s is not built", exe);
    int err[2];
    ck_assert_int_eq(pipe(err), 0);
    FILE *out = tmpfile(); /* stdout: a file, so a full pipe cannot block the child */
    ck_assert_ptr_nonnull(out);
    pid_t pid = fork();
    if (pid == 0) {
        char *argv[MAX_ARGS + 2];
        argv[0] = (char *)v->program;
        for (int i = 0; i < v->argc; i++)
            argv[i + 1] = (char *)v->args[i];
        argv[v->argc + 1] = NULL;
        dup2(err[1], 2);
        dup2(fileno(out), 1);
        if (chdir(dir) != 0)
            _exit(99);
        execv(exe, argv);
        _exit(98);
    }
    close(err[1]);
    char *text = read_all(err[0]);
    close(err[0]);
    int status;
    waitpid(pid, &status, 0);

    char shown[600] = "";
    for (int i = 0; i < v->argc; i++)
        snprintf(shown + strlen(shown), sizeof shown - strlen(shown), " '%s'", v->args[i]);
    ck_assert_msg(WIFEXITED(status), "%s%s: killed by signal %d", v->program, shown, WTERMSIG(status));
    ck_assert_msg(WEXITSTATUS(status) == 2, "%s%s: exit %d%s, stderr: %s", v->program, shown, WEXITSTATUS(status),
                  WEXITSTATUS(status) == CLI_EXIT_LATE ? " (refused after work began: check it before cli_begin_work)"
                                                       : "", text);
    char printed[200] = "";
    rewind(out);
    size_t got = fread(printed, 1, sizeof printed - 1, out);
    fclose(out);
    ck_assert_msg(got == 0, "%s%s: printed on stdout: %s", v->program, shown, printed);
    char prefix[32];
    snprintf(prefix, sizeof prefix, "%s: error: ", v->program);
    char *newline = strchr(text, '\n');
    ck_assert_msg(newline != NULL, "%s%s: no line on stderr", v->program, shown);
    *newline = '\0';
    ck_assert_msg(strncmp(text, prefix, strlen(prefix)) == 0, "%s%s: first line '%s'", v->program, shown, text);
    ck_assert_msg(strstr(text, v->expect) != NULL, "%s%s: '%s' does not name '%s'", v->program, shown, text,
                  v->expect);
    ck_assert_msg(strncmp(newline + 1, "usage: ", 7) == 0, "%s%s: no usage line", v->program, shown);
    free(text);

    char cmd[128];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A %s)\"", harness_q(dir));
    ck_assert_msg(system(cmd) == 0, "%s%s: left a file behind", v->program, shown);
    rmdir(dir);
}
END_TEST

/* The input table names options the programs take, as FILE (so a renamed or
 * new option is not silently left untested). */
START_TEST(input_options_are_in_help)
{
    const input_option *in = &input_options[_i];
    for (size_t p = 0; p < PROGRAM_COUNT; p++)
        if (strcmp(programs[p].name, in->program) == 0)
            for (int o = 0; programs[p].file[o][0]; o++)
                if (strcmp(programs[p].file[o], in->option + 2) == 0)
                    return;
    ck_abort_msg("%s %s: not a FILE option in its --help", in->program, in->option);
}
END_TEST

START_TEST(help_exits_zero_and_lists_stages)
{
    const char *prog = programs[_i].name;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "P=%s && cd /tmp && \"$P\"/%s --help | grep -q '^stages'", harness_q(PROGRAM_DIR), prog);
    ck_assert_msg(system(cmd) == 0, "%s --help", prog);
}
END_TEST

/* --list-stages (stage.h): one line per stage of --help's list, in its
 * order, six tab-separated fields; where is cpu, gpu or all-gpus; a gpu stage
 * names its kernel; every argument set its row asks `make bench` for is
 * accepted by the program's parser. */
static int in_temp_folder(const char *script);
START_TEST(list_stages_is_the_stage_table)
{
    const char *prog = programs[_i].name;
    char script[2048];
    snprintf(script, sizeof script,
             "\"$P\"/%1$s --list-stages > list && [ -s list ] && "
             "awk -F'\t' 'NF != 6 || $2 !~ /^(cpu|gpu|all-gpus)$/ || ($2 == \"gpu\" && $3 == \"-\") || $6 == \"\" "
             "{ print \"bad row: \" $0 > \"/dev/stderr\"; bad = 1 } END { exit bad }' list && "
             "cut -f1 list > names && \"$P\"/%1$s --help | sed -n '/^stages/,/^$/p' | awk 'NR > 1 && NF {print $1}' > help && "
             "cmp names help && "
             "awk -F'\t' '$4 != \"-\" {n = split($4, set, \";\"); for (i = 1; i <= n; i++) print $1 \"\t\" set[i]}' list | "
             "while IFS=\"$(printf '\\t')\" read -r name set; do \"$P\"/%1$s --stage \"$name\" $set --help > /dev/null || exit 1; done",
             prog);
    ck_assert_msg(in_temp_folder(script) == 0, "%s --list-stages", prog);
}
END_TEST

/* tools/evidence.py's decomposition and counted_flops on two made-up reports
 * whose numbers are chosen by hand: stage b runs half the thread instructions
 * of a, on fuller warps (x2), issuing at half the rate (x0.5) with the SMs
 * busy all the time (x2): elapsed cycles / 4, as the bench measured it (2.0
 * ms against 0.5 ms: no residual); and a's FP32 work is known. */
START_TEST(book_tables_from_counters)
{
    const char *report =
        "printf '# device: Test GPU, 1.0 (nvidia-smi: name, driver)\\n"
        "    smsp__thread_inst_executed.sum   inst %s\\n    smsp__inst_executed.sum   inst %s\\n"
        "    sm__cycles_active.avg   cycle %s\\n    sm__cycles_elapsed.avg   cycle %s\\n"
        "    smsp__sass_thread_inst_executed_op_fadd_pred_on.sum   inst 1,000\\n"
        "    smsp__sass_thread_inst_executed_op_fmul_pred_on.sum   inst 2,000\\n"
        "    smsp__sass_thread_inst_executed_op_ffma_pred_on.sum   inst 3,000\\n"
        "    Duration   %s\\n' > data/profiles/M/%s.txt";
    char a[600], b[600], script[3000];
    snprintf(a, sizeof a, report, "1,000", "100", "50", "100", "ms   2.00", "ch99_a");
    snprintf(b, sizeof b, report, "500", "25", "25", "25", "us   500", "ch99_b");
    snprintf(script, sizeof script,
             "mkdir -p data/profiles/M data/results && %s && %s && "
             "printf 'chapter,stage,workload,threads,median_ms,value,unit,check,device,date,commit,run_id,machine_id,sm_mhz_start,sm_mhz_end,power_w_start,power_w_end,temp_c_start,temp_c_end\\nch99,a,w,0,2.0\\nch99,b,w,0,0.5\\nch07,ceiling-fp32-peak,w,0,1,0.009,GFLOP/s\\n' > data/results/M.csv && "
             "\"$P\"/tools/evidence.py decomposition > d.md && "
             "grep -q '^| ch99 | b (after a) | 4.00 | 4.00 | 4.00 | 2.00 | 2.00 | 0.50 | 2.00 | +0.0%% | - | instructions |$' d.md && "
             "\"$P\"/tools/evidence.py counted_flops > f.md && grep -q '^| ch99_a | 1e+03 | 2e+03 | 3e+03 | 9000 | 2 ms | 0 | 50.0%% |$' f.md",
             a, b);
    ck_assert_msg(in_temp_folder(script) == 0, "the book's counter tables from hand-made reports");
}
END_TEST

/* The rooflines (tools/evidence.py roofline) from hand-made reports and ceilings: an
 * FP32 kernel at the ridge (10 FP32 operations per byte, 50 of 100 GFLOP/s)
 * and an integer one against the memory roof alone; a machine lacking a
 * ceiling gets no roofline and says so. */
START_TEST(rooflines_from_counters)
{
    const char *report =
        "printf '# device: Test GPU, 1.0 (nvidia-smi: name, driver)\n"
        "    smsp__sass_thread_inst_executed_op_fadd_pred_on.sum   inst %s\n"
        "    smsp__sass_thread_inst_executed_op_fmul_pred_on.sum   inst 0\n"
        "    smsp__sass_thread_inst_executed_op_ffma_pred_on.sum   inst 0\n"
        "    dram__bytes_read.sum   Mbyte   %s\n    dram__bytes_write.sum   Mbyte   %s\n"
        "    Duration   ms   %s\n%s' > data/profiles/%s.txt";
    /* c: 10 FP32 operations a warp instruction on 1 SM at 1 GHz: an issue-slot ceiling of 40 GFLOP/s,
     * under the FP32 ceiling (100) and the memory roof there (10 per byte x 10 GB/s) */
    const char *issue = "    smsp__inst_executed.sum   inst   100,000,000\n    # SMs   SM   1\n    SM Frequency   Ghz   1.00\n";
    char a[900], b[900], c[900], script[4500];
    snprintf(a, sizeof a, report, "1,000,000,000", "50", "50", "20.00", "", "M/ch05_a");
    snprintf(b, sizeof b, report, "0", "1,000", "0", "200.00", "", "M/ch06_b");
    snprintf(c, sizeof c, report, "1,000,000,000", "50", "50", "50.00", issue, "M/ch05_c");
    snprintf(script, sizeof script,
             "mkdir -p data/profiles/M data/profiles/N data/results data/plots && %s && %s && %s && cp data/profiles/M/ch05_a.txt "
             "data/profiles/N/ && printf 'chapter,stage,workload,threads,median_ms,value,unit,check,device,date,commit,run_id,machine_id,sm_mhz_start,sm_mhz_end,power_w_start,power_w_end,temp_c_start,temp_c_end\nch07,ceiling-fp32-peak,w,0,1,100,GFLOP/s\n"
             "ch06,ceiling-read-stream,w,0,1,10,GB/s\n' > data/results/M.csv && "
             "printf 'chapter,stage,workload,threads,median_ms,value,unit,check,device,date,commit,run_id,machine_id,sm_mhz_start,sm_mhz_end,power_w_start,power_w_end,temp_c_start,temp_c_end\nch07,ceiling-fp32-peak,w,0,1,100,GFLOP/s\n' > data/results/N.csv && "
             "\"$P\"/tools/evidence.py roofline . > r.md && "
             "grep -q '^| ch05_a | 1e+09 | 0 | 1e+08 | 10 | 50 | 5 | - | 100 | 50.0%% | arithmetic |$' r.md && "
             "grep -q '^| ch05_c | 1e+09 | 0 | 1e+08 | 10 | 20 | 2 | 40 | 40 | 50.0%% | issue slots |$' r.md && "
             "grep -q '^| ch06_b | 0 | 0 | 1e+09 | - | - | 5 | - | 10 GB/s | 50.0%% | memory (no floating point) |$' r.md && "
             "grep -q 'No roofline for .N.' r.md || { cat r.md; exit 1; }",
             a, b, c);
    ck_assert_msg(in_temp_folder(script) == 0, "the rooflines from hand-made reports and ceilings");
}
END_TEST

/* The models against the counters (tools/evidence.py model_check), from hand-made
 * reports: a GB/s row whose DRAM bytes match its rate x time holds, one that
 * read twice that does not, a GFLOP/s row (its spread two fields wide) with
 * half its modelled FP32 operations does not; and a GB/s report without its
 * counter makes --check fail, naming it. */
START_TEST(models_checked_against_counters)
{
    const char *bytes_report = "printf '# device: Test GPU, 1.0\n%s 0 2.000 - 1.00x 0.500 GB/s ok note\n%s' > data/profiles/%s.txt";
    char a[400], b[400], c[600], d[400], script[3000];
    snprintf(a, sizeof a, bytes_report, "x", "    dram__bytes_read.sum   Mbyte   1.00\n", "M/ch06_x");
    snprintf(b, sizeof b, bytes_report, "y", "    dram__bytes_read.sum   Mbyte   2.00\n", "M/ch06_y");
    snprintf(c, sizeof c, "printf '# device: Test GPU, 1.0\nz 0 1.000 0.900-1.100 x3 1.00x 100.000 GFLOP/s ok\n"
             "    smsp__sass_thread_inst_executed_op_fadd_pred_on.sum   inst   50,000,000\n"
             "    smsp__sass_thread_inst_executed_op_fmul_pred_on.sum   inst   0\n"
             "    smsp__sass_thread_inst_executed_op_ffma_pred_on.sum   inst   0\n' > data/profiles/M/ch07_z.txt");
    snprintf(d, sizeof d, bytes_report, "w", "", "N/ch06_w");
    snprintf(script, sizeof script,
             "mkdir -p data/profiles/M data/profiles/N && %s && %s && %s && "
             "\"$P\"/tools/evidence.py model_check > r.md 2> r.err; rc=$?; "
             "grep -q '^| ch06_x | DRAM bytes read | 1e+06 | 1e+06 | 1.00 | the model holds |$' r.md && "
             "grep -q '^| ch06_y | DRAM bytes read | 1e+06 | 2e+06 | 2.00 | more than the model: read the counter |$' r.md && "
             "grep -q '^| ch07_z | FP32 operations | 1e+08 | 5e+07 | 0.50 | less than the model: read the counter |$' r.md && "
             "[ $rc = 0 ] && %s && ! \"$P\"/tools/evidence.py model_check --check > /dev/null 2> r.err && grep -q 'ch06_w has a rate' r.err "
             "|| { cat r.md r.err; exit 1; }",
             a, b, c, d);
    ck_assert_msg(in_temp_folder(script) == 0, "the models against hand-made reports");
    ck_assert_msg(harness_shell("cd %s && tools/evidence.py model_check --check > /dev/null", harness_q(PROGRAM_DIR)) == 0,
                  "a committed profile with a rate lacks its counter");
}
END_TEST

/* The raytracer chapters that can run here: every one without a GPU part,
 * and the GPU ones only on a machine with a GPU. */
static const program_info *runnable[PROGRAM_COUNT];
static int runnable_count, skipped_for_gpu;

static void find_runnable(void)
{
    int gpu = system("nvidia-smi -L > /dev/null 2>&1") == 0;
    for (size_t p = 0; p < PROGRAM_COUNT; p++) {
        if (!programs[p].raytracer)
            continue;
        if (strcmp(programs[p].gpu, "none") != 0 && !gpu)
            skipped_for_gpu++;
        else
            runnable[runnable_count++] = &programs[p];
    }
}

/* Runs a shell command in a fresh temporary folder; returns its exit status
 * (128 + signal if one ended it) and removes the folder. */
static int in_temp_folder(const char *script)
{
    char dir[] = "/tmp/test_cli.XXXXXX", cmd[4096];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "cd %s && P=%s && { %s ; }", harness_q(dir), harness_q(PROGRAM_DIR), script);
    int rc = system(cmd);
    snprintf(cmd, sizeof cmd, "chmod -R u+w '%s'; rm -rf '%s'", dir, dir);
    ck_assert_int_eq(system(cmd), 0);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);
}

/* --images DIR: one image per stage of the program's own --help list, named
 * chNN-<stage>.png (.ppm without libpng), and nothing else in DIR. */
START_TEST(images_written_for_every_stage)
{
    const program_info *p = runnable[_i];
    char script[2000];
    snprintf(script, sizeof script,
             "\"$P\"/%s %s --repeat 1 --quiet --images . --out x.ppm > log 2>&1 || { cat log; exit 1; }; n=0; "
             "for s in $(\"$P\"/%s --help | awk '/^stages/ {f = 1; next} f && NF == 0 {exit} f {print $1}'); do "
             "ls %s-$s.png %s-$s.ppm 2>/dev/null | grep -q . || { echo \"no image for stage $s\"; exit 1; }; "
             "n=$((n + 1)); done; [ $(ls | grep -c '^%s-') -eq $n ] && [ $n -gt 0 ]",
             p->name, p->small, p->name, p->name, p->name, p->name);
    ck_assert_msg(in_temp_folder(script) == 0, "%s --images: not one image per stage", p->name);
}
END_TEST

/* The default output is checked up front, like --out: where chNN.ppm is a
 * folder, exit 2 before any work and nothing written. */
START_TEST(unwritable_default_output_is_refused_first)
{
    const program_info *p = runnable[_i];
    char script[1000];
    snprintf(script, sizeof script,
             "mkdir %s.ppm && \"$P\"/%s %s --quiet 2> err; rc=$?; grep -q 'default output' err || exit 9; "
             "[ $(ls -A | wc -l) -eq 2 ] || exit 8; exit $rc", p->name, p->name, p->small);
    ck_assert_int_eq(in_temp_folder(script), 2);
}
END_TEST

/* A CSV that is not the course's is refused (exit 2) and left as it was; a
 * CSV whose row cannot be written whole (a file size limit: ulimit -f 1, the
 * file already 1024 bytes) is a run-time error (exit 1) that names the real
 * reason, leaves the file as it was (no half row) and writes no image. */
START_TEST(csv_foreign_header_refused_and_full_disk_fails)
{
    const program_info *p = runnable[_i];
    char script[1600];
    snprintf(script, sizeof script,
             "printf 'a,b\\n1,2\\n' > r.csv && \"$P\"/%s %s --quiet --csv r.csv --out x.ppm 2> err; "
             "[ $? -eq 2 ] && grep -q 'header' err && [ \"$(cat r.csv)\" = \"$(printf 'a,b\\n1,2')\" ] && [ ! -e x.ppm ] "
             "|| exit 7; { echo '%s'; head -c $((1023 - %zu)) /dev/zero | tr '\\0' '#'; echo; } > full.csv; "
             "[ $(stat -c %%s full.csv) -eq 1024 ] || exit 4; cp full.csv before.csv; "
             "(ulimit -f 1; \"$P\"/%s %s --quiet --csv full.csv --out x.ppm > /dev/null 2> err); rc=$?; "
             "grep -q 'full.csv: File too large' err || { cat err; exit 6; }; [ ! -e x.ppm ] || exit 5; "
             "cmp -s full.csv before.csv || exit 3; exit $rc",
             p->name, p->small, REPORT_CSV_HEADER, sizeof REPORT_CSV_HEADER, p->name, p->small);
    ck_assert_int_eq(in_temp_folder(script), 1);
}
END_TEST

/* The results table is the output: a standard output that cannot take it
 * (/dev/full) is exit 1 with a message, never a silent 0. */
START_TEST(full_stdout_is_an_error)
{
    const program_info *p = runnable[_i];
    char script[800];
    snprintf(script, sizeof script,
             "\"$P\"/%s %s --quiet --out x.ppm > /dev/full 2> err; rc=$?; grep -q 'standard output' err || exit 9; exit $rc",
             p->name, p->small);
    ck_assert_int_eq(in_temp_folder(script), 1);
}
END_TEST

/* A file size limit while the image is written: exit 1 with the reason, no
 * temporary file left, no signal (SIGXFSZ) death. */
START_TEST(file_size_limit_on_the_image_is_a_write_error)
{
    const char *script = "(ulimit -f 16; \"$P\"/ch01 --width 128 --height 128 --spp 1 --quiet --out x.ppm > /dev/null "
                         "2> err); rc=$?; grep -q 'File too large' err || exit 9; [ -z \"$(ls -A | grep -v '^err$')\" ] "
                         "|| exit 8; exit $rc";
    ck_assert_int_eq(in_temp_folder(script), 1);
}
END_TEST

/* As an ordinary user (issue 44, items 3 and 11): no output replaces a file
 * the user may not write. For every program and each output option, a
 * root-owned file of mode 0444 in a folder the user may write (a rename would
 * replace it) and a file the user may write in a folder they may not (the
 * rename needs the folder), and for --images a 0444 stage image: each is
 * refused before any work (exit 2, "chNN: error: " first), the file as it
 * was. The files hold the course's CSV header, so --csv's header check
 * passes and only the permissions can refuse them. Root passes every W_OK check, so the programs run as nobody (setpriv,
 * or su); main() skips this, saying why, where neither works. */
static char as_user_def[200]; /* a shell function as_user: runs its arguments as nobody */

START_TEST(outputs_respect_permissions)
{
    const program_info *p = &programs[_i];
    char script[4000], opts[400] = "";
    for (int o = 0; p->file[o][0]; o++)
        if (is_output(p, p->file[o]))
            snprintf(opts + strlen(opts), sizeof opts - strlen(opts), " --%s", p->file[o]);
    snprintf(script, sizeof script,
             "%s; keep='%s'; chmod 777 . && echo \"$keep\" > ro.ppm && chmod 444 ro.ppm && mkdir fixed && "
             "echo \"$keep\" > fixed/w.ppm && chmod 666 fixed/w.ppm && chmod 555 fixed && mkdir images && "
             "chmod 777 images && echo \"$keep\" > images/%s-%s.%s && chmod 444 images/%s-%s.%s || exit 1; "
             "was=$(stat -c %%a%%U ro.ppm fixed/w.ppm); "
             "try() { as_user \"$P\"/%s %s --quiet \"$@\" > out 2> err; rc=$?; "
             "[ $rc -eq 2 ] || { echo \"%s $*: exit $rc, not 2\"; cat err; exit 1; }; "
             "head -n 1 err | grep -q '^%s: error: ' || { echo \"%s $*:\"; cat err; exit 1; }; }; "
             "for o in %s; do for t in ro.ppm fixed/w.ppm; do try $o $t; "
             "[ \"$(cat $t)\" = \"$keep\" ] && [ \"$(stat -c %%a%%U ro.ppm fixed/w.ppm)\" = \"$was\" ] || "
             "{ echo \"$o $t was replaced\"; exit 1; }; "
             "done; done; [ %d = 0 ] || try --images images; "
             "[ \"$(cat images/*)\" = \"$keep\" ] || { echo '--images: the stage image was replaced'; exit 1; }",
             as_user_def, REPORT_CSV_HEADER, p->name, p->first_stage, image_ext, p->name, p->first_stage, image_ext, p->name, p->small,
             p->name, p->name, p->name, opts, p->images);
    ck_assert_msg(in_temp_folder(script) == 0, "%s: an output the user may not write (the script says which)", p->name);
}
END_TEST

/* A symbolic link given as an output (to a whole PPM: only the course's
 * kind is replaced) is written through to its file and stays a link; the replaced file keeps its permission bits (a new file has
 * the umask's); a CSV through a link is appended to the link's file; and
 * --help says what happens to links and hard links. */
START_TEST(outputs_write_through_links_and_keep_modes)
{
    char script[2400];
    snprintf(script, sizeof script,
             "run() { \"$P\"/ch01 %s --quiet \"$@\" > /dev/null 2> err || { echo \"ch01 $*:\"; cat err; exit 1; }; }; "
             "printf 'P3\\n1 1\\n255\\n0 0 0\\n' > real.ppm && chmod 640 real.ppm && ln -s real.ppm link.ppm && run --out link.ppm; "
             "[ -L link.ppm ] || { echo 'the link was replaced by a file'; exit 2; }; "
             "[ \"$(head -c 2 real.ppm)\" = P6 ] || { echo 'the file of the link was not written'; exit 3; }; "
             "[ \"$(stat -c %%a real.ppm)\" = 640 ] || { echo \"mode $(stat -c %%a real.ppm), not 640\"; exit 4; }; "
             "printf 'P3\\n1 1\\n255\\n0 0 0\\n' > plain.ppm && chmod 600 plain.ppm && run --out plain.ppm; "
             "[ \"$(stat -c %%a plain.ppm)\" = 600 ] || { echo \"plain: mode $(stat -c %%a plain.ppm), not 600\"; exit 5; }; "
             "printf '%%s\\n' '%s' > real.csv && ln -s real.csv link.csv && run --csv link.csv --out x.ppm; "
             "[ -L link.csv ] && [ $(wc -l < real.csv) -gt 1 ] || { echo 'the CSV link was not appended through'; exit 6; }; "
             "[ -z \"$(ls -A | grep '^\\.img-')\" ] || { echo 'a temporary file was left'; exit 7; }; "
             "\"$P\"/ch01 --help | grep -q 'hard links' || { echo '--help does not say what happens to hard links'; exit 8; }",
             programs[program_index("ch01")].small, REPORT_CSV_HEADER);
    ck_assert_msg(in_temp_folder(script) == 0, "ch01: an output through a symbolic link (the script says what)");
}
END_TEST

/* A CSV locked by another process: the wait is said on stderr, and ends after
 * CSV_LOCK_TIMEOUT_S (here 1 s) with exit 1, a reason, no row and no image.
 * (It waited silently for ever; `timeout` ends it here instead.) */
START_TEST(csv_lock_wait_is_said_and_ends)
{
    char dir[] = "/tmp/test_cli_lock.XXXXXX", path[200], cmd[1600];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/r.csv", dir);
    int fd = open(path, O_RDWR | O_CREAT, 0644);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(flock(fd, LOCK_EX), 0);
    snprintf(cmd, sizeof cmd,
             "cd %s && CSV_LOCK_TIMEOUT_S=1 timeout 20 %s/ch01 %s --quiet --csv r.csv --out x.ppm > /dev/null 2> err; "
             "rc=$?; grep -q 'waiting for the lock on r.csv held by another process' err || { cat err; exit 9; }; "
             "grep -q 'r.csv: another process held its lock for more than 1 s' err || { cat err; exit 8; }; "
             "[ ! -e x.ppm ] && [ ! -s r.csv ] || exit 7; exit $rc",
             harness_q(dir), harness_q(PROGRAM_DIR), programs[program_index("ch01")].small);
    int rc = harness_shell("%s", cmd);
    close(fd);
    harness_shell("rm -rf %s", harness_q(dir));
    ck_assert_msg(rc == 1, "ch01 with its CSV locked by another process: status %d, not 1", rc);
}
END_TEST

/* ch11 under a rank number other than 0 (as an outer mpirun leaves in the
 * environment) says its usage error (it said nothing: only rank 0 spoke), and
 * leaves the usage line to rank 0. */
START_TEST(ch11_usage_error_on_every_rank)
{
    const char *script =
        "OMPI_COMM_WORLD_RANK=1 \"$P\"/ch11 --bogus > out 2> err; rc=$?; [ $rc -eq 2 ] || exit 9; "
        "[ \"$(head -n 1 err)\" = \"ch11: error: unknown option '--bogus'\" ] || { cat err; exit 8; }; "
        "! grep -q '^usage:' err || { echo 'rank 1 printed the usage'; exit 7; }; "
        "OMPI_COMM_WORLD_RANK=0 \"$P\"/ch11 --bogus > out 2> err; [ $? -eq 2 ] && grep -q '^usage:' err || exit 6";
    ck_assert_msg(in_temp_folder(script) == 0, "ch11 --bogus on rank 1 (the script's exit says what)");
}
END_TEST

/* How a test gets mounts of its own, unseen by the rest of the machine: a
 * private mount namespace (root), or one inside a user namespace; "" if
 * neither can be made here (main() skips those tests, saying why). */
static const char *mount_ns = "";

/* A --state-out that cannot be written (a full disk: a 4 KiB tmpfs, mounted
 * in a private namespace; a file size limit would stop MPI_Init first) says
 * why, with the path, not only "not written"; exit 1, nothing left there. */
START_TEST(ch11_state_out_failure_says_why)
{
    char script[1000];
    snprintf(script, sizeof script,
             "mkdir small && %s sh -c 'mount -t tmpfs -o size=4k none small && \"$0\"/ch11 --n 64 --steps 1 "
             "--repeat 1 --quiet --state-out small/s.txt > /dev/null 2> err; echo $? > rc; ls -A small > left' \"$P\"; "
             "grep -q 'small/s.txt.*No space left on device' err || { cat err; exit 9; }; [ ! -s left ] || "
             "{ cat left; exit 8; }; exit $(cat rc)", mount_ns);
    ck_assert_int_eq(in_temp_folder(script), 1);
}
END_TEST

/* ch08 in a moved checkout (its default scene, an absolute path fixed at
 * build time, is gone: here an empty folder is mounted over data/scenes in
 * a private mount namespace) names the default scene and how to choose one,
 * and does not blame --scene, which was not given. */
START_TEST(ch08_missing_default_scene_is_not_blamed_on_scene)
{
    char script[1000];
    snprintf(script, sizeof script,
             "mkdir empty && %s sh -c 'mount --bind \"$1\" \"$2/data/scenes\" && exec \"$2\"/ch08 --width 4 "
             "--height 4 --spp 4 --quiet' sh \"$PWD/empty\" \"$P\" > /dev/null 2> err; rc=$?; head -n 1 err > first; "
             "grep -q '^ch08: error: the default scene (no --scene given): ' first && grep -q -- '--scene FILE' first || "
             "{ cat err; exit 9; }; exit $rc", mount_ns);
    ck_assert_int_eq(in_temp_folder(script), 2);
}
END_TEST

/* make grade and make hint take EX as data: shell or make code in it is never
 * run, a name that is not an exercise is refused (exit 2, the list named),
 * surrounding blanks are fine for both, and hint takes one name. */
START_TEST(exercise_names_are_data)
{
    char script[1600];
    snprintf(script, sizeof script,
             "T=$PWD; cd \"$P\" || exit 1; export MAKEFLAGS=; "
             "for ex in '$(true)' \"ch01 \\$(touch $T/F1)\" 'ch01 `touch '$T'/F2`' 'x\"; touch '$T'/F3; echo \"' '*'; do "
             "make -s grade EX=\"$ex\" > $T/out 2>&1; [ $? -eq 2 ] || { echo \"grade $ex\"; exit 3; }; "
             "grep -q \"no exercise\" $T/out || { cat $T/out; exit 4; }; "
             "make -s hint EX=\"$ex\" > $T/out 2>&1; [ $? -eq 2 ] || { echo \"hint $ex\"; exit 5; }; done; "
             "make -s hint EX='ch01 ch02' > $T/out 2>&1; [ $? -eq 2 ] || exit 6; "
             "HINTS_DIR=$T/hints make -s hint EX=' ch01 ' > $T/out 2>&1 || { cat $T/out; exit 7; }; "
             "ls $T/F* 2> /dev/null && exit 8; exit 0");
    ck_assert_msg(in_temp_folder(script) == 0, "make grade/hint ran or accepted EX's text (script exit shows which)");
}
END_TEST

/* Every exercise has three hints in tests/hints/ (none in its own folder), and
 * the third ("nearly the code") repeats no line of the solution: it leads, it
 * does not give the answer. */
START_TEST(hints_lead_without_giving_the_answer)
{
    const char *script =
        "cd \"$P\" && eval \"$(MAKEFLAGS= make -s print-registry)\" || exit 1; for e in $EXERCISES; do "
        "f=tests/hints/$e.txt; eval \"d=\\$ex_${e}_DIR\"; [ -f $f ] || { echo \"no $f\"; exit 2; }; "
        "[ $(grep -c '^---$' $f) -eq 2 ] || { echo \"$f: not three hints\"; exit 3; }; "
        "[ ! -e exercises/$d/hints.txt ] || { echo \"exercises/$d/hints.txt: hints in the exercise folder\"; exit 4; }; "
        "awk '/^---$/ {n++; next} n == 2' $f | tr -s ' \\t' ' ' | sed 's/^ //; s/ $//' | awk 'length >= 20' > $OLDPWD/h3; "
        "cat solutions/$d/* | tr -s ' \\t' ' ' | sed 's/^ //; s/ $//' > $OLDPWD/sol; "
        "if grep -Fxf $OLDPWD/h3 $OLDPWD/sol; then echo \"$f: the third hint gives a line of the solution\"; exit 5; fi; "
        "done";
    ck_assert_msg(in_temp_folder(script) == 0, "the hints (the script's output above says which)");
}
END_TEST

/* make -n works for every target make help lists (and CUDA_COMPILER=clang
 * chNN where a clang compiles CUDA) on a fresh copy of the tree, with no build
 * folders, and writes nothing (tests/make_dry_run.sh). */
START_TEST(make_dry_run_of_every_target)
{
    ck_assert_msg(in_temp_folder("$P/tests/make_dry_run.sh $P") == 0,
                  "make -n (the script's output above says for which target)");
}
END_TEST

/* ch10 asked for a GPU stage on a machine without a GPU: nothing rendered,
 * nothing written (not the CPU's picture), exit 3, at once. And NVRTC is
 * loaded only to compile a kernel: under a 400 MB address-space limit the CPU
 * stage still runs (exit 3: no GPU), where loading NVRTC at start died in the
 * loader (exit 127). */
START_TEST(ch10_gpu_stage_without_gpu_writes_nothing)
{
    const char *script = "\"$P\"/ch10 --stage gpu-generated --width 33 --height 31 --quiet --out x.ppm > /dev/null 2> err; "
                         "rc=$?; [ ! -e x.ppm ] || exit 9; [ $rc -eq 3 ] || exit $rc; "
                         "(ulimit -v 400000; \"$P\"/ch10 --width 33 --height 31 --quiet --out y.ppm > /dev/null 2> err); "
                         "rc=$?; [ -e y.ppm ] || exit 8; exit $rc";
    ck_assert_int_eq(in_temp_folder(script), 3);
}
END_TEST

/* Out of memory is an error, not a signal: under a 200 MB address-space limit
 * a 16384x16384 image (805 MB) cannot be allocated. One line, exit 1. */
START_TEST(out_of_memory_is_reported_not_a_crash)
{
    const program_info *p = runnable[_i];
    if (strcmp(p->gpu, "none") != 0)
        return; /* the CUDA runtime alone reserves more address space than the limit */
    char script[1000];
    snprintf(script, sizeof script,
             "(ulimit -v 200000; exec \"$P\"/%s --width 16384 --height 16384 --spp 1 --repeat 1 --quiet 2> err); rc=$?; "
             "grep -q 'out of memory' err || { cat err; exit 9; }; [ $(ls -A | wc -l) -eq 1 ] || exit 8; exit $rc",
             p->name);
    ck_assert_int_eq(in_temp_folder(script), 1);
}
END_TEST

/* ch03's check at valid small sizes (it once failed at 512x19 and 512x3 with
 * a fixed 38 dB threshold): rand-shared passes, its bound measured from two
 * honest renders of the same workload (chapters/ch03_threads/problem.c). */
static const char *const ch03_small_runs[] = {"--width 512 --height 19 --spp 64", "--width 512 --height 3 --spp 64",
                                              "--width 33 --height 31 --spp 2", "--width 1 --height 1 --spp 1"};

START_TEST(ch03_check_holds_at_small_sizes)
{
    char script[600];
    snprintf(script, sizeof script, "\"$P\"/ch03 --stage rand-shared --threads 2 %s --quiet --out x.ppm > log 2>&1 "
             "|| { cat log; exit 1; }", ch03_small_runs[_i]);
    ck_assert_msg(in_temp_folder(script) == 0, "ch03 %s: a check failed at a valid size", ch03_small_runs[_i]);
}
END_TEST

/* ch06's CPU rows take turns with the host's read ceiling's kernel (measure.h's
 * ruler): with the ceiling measured, a CPU row's note gives its share of that
 * kernel's passes taken in turn, above 0 (a row measured without its ruler
 * would say 0.0%) and at most 1000% (each pair reads the same input). */
START_TEST(ch06_cpu_rows_take_turns_with_the_read_ceiling)
{
    const char *script =
        "\"$P\"/ch06 --n 1000003 --threads 2 --stage cpu-prefetch > log 2>&1 || { cat log; exit 1; }; "
        "share=$(sed -n 's/.*; \\([0-9.]*\\)% ([0-9.]*-[0-9.]*) of its kernel.s passes taken in turn.*/\\1/p' log); "
        "[ -n \"$share\" ] && awk -v s=\"$share\" 'BEGIN { exit !(s > 0 && s <= 1000) }' || { cat log; exit 1; }";
    ck_assert_msg(in_temp_folder(script) == 0, "ch06 cpu-prefetch: no share of the ceiling's passes taken in turn");
}
END_TEST

/* ch07's CPU rows take turns with the host's FMA ceiling's kernel, the same
 * flops a run (measure.h's ruler): a CPU row's note gives its share of those
 * runs, above 0 (a row measured without its ruler would say 0.0%) and at
 * most 1000%, beside its share of the ceiling on the stage's own threads (one
 * for cpu-scalar, a row on any CPU; with --threads 2 a one-thread stage held
 * to the two-thread ceiling would say so), and the flops the ruler's threads
 * counted a run: 20 n^2 a step to the nearest whole iteration of the
 * ceiling's kernel (2 x 12 chains x its ISA's lanes, the ceiling row's "at
 * ISA"), at least one. 1027 bodies, 1 step: 21094580 flops, more than a
 * twentieth of an iteration from a whole one at any ISA, so a note that
 * printed the asked flops, not the counted, fails; one body: 20 flops, one
 * whole iteration, and the row still passes (its share then compares
 * unlike work, microseconds of it: any share above 0). */
static const char *const ch07_ruler_runs[] = {"--n 1027 --steps 1", "--n 1 --steps 1"};

START_TEST(ch07_cpu_rows_take_turns_with_the_fma_ceiling)
{
    char script[1600];
    snprintf(script, sizeof script,
             "\"$P\"/ch07 %s --threads 2 --stage cpu-scalar > log 2>&1 || { cat log; exit 1; }; "
             "n=$(echo '%s' | cut -d' ' -f2); "
             "share=$(sed -n 's/^cpu-scalar .*%% of the host.s FMA ceiling on 1 thread (\\([0-9.]*\\)%% "
             "([0-9.]*-[0-9.]*) of its kernel.s runs of the stage.s flops to a whole iteration, [0-9]* a run, taken in turn.*/\\1/p' log); "
             "flops=$(sed -n 's/^cpu-scalar .* of its kernel.s runs of the stage.s flops to a whole iteration, \\([0-9]*\\) a run,.*/\\1/p' log); "
             "isa=$(sed -n 's/^ceiling-cpu-fma .* chains at \\([a-z0-9]*\\),.*/\\1/p' log | head -n 1); "
             "[ -n \"$share\" ] && [ -n \"$flops\" ] && [ -n \"$isa\" ] && awk -v s=\"$share\" -v f=\"$flops\" "
             "-v isa=\"$isa\" -v n=\"$n\" 'BEGIN { it = 24 * (isa == \"avx512\" ? 16 : isa == \"avx2\" ? 8 : 1); "
             "w = 20 * n * n; k = int(w / it + 0.5); if (k < 1) k = 1; exit !(s > 0 && (n == 1 || s <= 1000) && f == k * it) }' "
             "|| { cat log; exit 1; }",
             ch07_ruler_runs[_i], ch07_ruler_runs[_i]);
    ck_assert_msg(in_temp_folder(script) == 0, "ch07 cpu-scalar %s: no share of the FMA ceiling's runs taken in "
                  "turn, or not the flops a pass for the stage's runs", ch07_ruler_runs[_i]);
}
END_TEST

/* tools/image_diff (the book's difference images): |a - b| x gain, clipped,
 * on two fixed-seed random 33x31 images; refuses bad input with 2, mismatched
 * sizes with 1. */
static void write_ppm(const char *path, int w, int h, const unsigned char *rgb)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "P6\n%d %d\n255\n", w, h);
    ck_assert_int_eq(fwrite(rgb, 1, (size_t)w * h * 3, f), (size_t)w * h * 3);
    fclose(f);
}

START_TEST(image_diff_scales_and_clips)
{
    enum { W = 33, H = 31, N = W * H * 3 };
    static unsigned char a[N], b[N], d[N];
    test_rng r = {3131};
    for (int i = 0; i < N; i++) {
        a[i] = (unsigned char)(test_rng_next(&r) >> 56);
        b[i] = i % 5 ? a[i] : (unsigned char)(test_rng_next(&r) >> 56); /* every fifth byte differs */
    }
    char dir[] = "/tmp/test_image_diff.XXXXXX", cmd[1024], pa[300], pb[300], pd[300];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(pa, sizeof pa, "%s/a.ppm", dir);
    snprintf(pb, sizeof pb, "%s/b.ppm", dir);
    snprintf(pd, sizeof pd, "%s/d.ppm", dir);
    write_ppm(pa, W, H, a);
    write_ppm(pb, W, H, b);
    snprintf(cmd, sizeof cmd, "%s/build/image_diff %s %s %s 5 > %s/out.txt", harness_q(PROGRAM_DIR), pa, pb, pd, dir);
    ck_assert_int_eq(system(cmd), 0);
    FILE *f = fopen(pd, "rb");
    ck_assert_ptr_nonnull(f);
    int w, h, maxval;
    ck_assert_int_eq(fscanf(f, "P6 %d %d %d", &w, &h, &maxval), 3);
    fgetc(f);
    ck_assert(w == W && h == H && maxval == 255);
    ck_assert_int_eq(fread(d, 1, N, f), N);
    fclose(f);
    for (int i = 0; i < N; i++) {
        int want = abs(a[i] - b[i]) * 5;
        ck_assert_int_eq(d[i], want > 255 ? 255 : want);
    }
    /* an output that cannot be written: refused first (2), before any image is read */
    snprintf(cmd, sizeof cmd, "%s/build/image_diff %s %s /nonexistent/d.ppm 2> %s/err; rc=$?; "
             "grep -q '/nonexistent/d.ppm cannot' %s/err || exit 9; exit $rc", harness_q(PROGRAM_DIR), pa, pb, dir, dir);
    int rc0 = system(cmd);
    ck_assert_msg(WIFEXITED(rc0) && WEXITSTATUS(rc0) == 2, "image_diff with an unwritable output: status %d", rc0);
    /* bad gain: usage, 2; an image against a smaller one: 1 */
    snprintf(cmd, sizeof cmd, "%s/build/image_diff %s %s %s 0 2>/dev/null", harness_q(PROGRAM_DIR), pa, pb, pd);
    int rc = system(cmd);
    ck_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 2);
    write_ppm(pb, W - 1, H, b);
    snprintf(cmd, sizeof cmd, "%s/build/image_diff %s %s %s 2>/dev/null", harness_q(PROGRAM_DIR), pa, pb, pd);
    rc = system(cmd);
    ck_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 1);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* A read-only output (no write bit in its mode) is refused as root too
 * (access(W_OK) says yes to root whatever the mode): --out, the default
 * output, --csv and an --images file of mode 0444 that hold the course's own
 * kind of file, each before any work (exit 2, "read-only"), the file as it was. */
START_TEST(read_only_outputs_refused_for_root_too)
{
    char script[2400];
    snprintf(script, sizeof script,
             "printf 'P6\\n1 1\\n255\\nabc' > ro.ppm && printf '%%s\\n' '%s' > ro.csv && mkdir images && "
             "cp ro.ppm ch01.ppm && cp ro.ppm images/ch01-%s.ppm && cp ro.ppm images/ch01-%s.png && "
             "chmod 444 ro.ppm ro.csv ch01.ppm images/* && sum0=$(cat ro.ppm ro.csv ch01.ppm images/* | cksum) || exit 1; "
             "try() { \"$P\"/ch01 %s --quiet \"$@\" > out 2> err; rc=$?; "
             "[ $rc -eq 2 ] && head -n 1 err | grep -q '^ch01: error: .*read-only' || "
             "{ echo \"ch01 $*: exit $rc\"; cat err; exit 1; }; }; "
             "try --out ro.ppm; try --csv ro.csv --out w.ppm; try; try --images images --out w.ppm; "
             "[ \"$(cat ro.ppm ro.csv ch01.ppm images/* | cksum)\" = \"$sum0\" ] && [ ! -e w.ppm ] || "
             "{ echo 'a read-only file was changed, or work was done'; exit 1; }",
             REPORT_CSV_HEADER, programs[program_index("ch01")].first_stage,
             programs[program_index("ch01")].first_stage, programs[program_index("ch01")].small);
    ck_assert_msg(in_temp_folder(script) == 0, "ch01: a read-only output (the script says which)");
}
END_TEST

/* An image output that holds another kind of file (text where a PPM goes, a
 * PPM where a PNG goes) is refused before any work, as --csv refuses a CSV
 * without the course's header: --out, the default output and an --images
 * file; an empty file is written over, as --csv appends to an empty one. */
START_TEST(image_outputs_of_another_kind_refused)
{
    char script[2400];
    snprintf(script, sizeof script,
             "printf 'my notes\\n' > notes.ppm && printf 'P6\\n1 1\\n255\\nabc' > p.png && cp notes.ppm ch01.ppm && "
             "mkdir images && cp notes.ppm images/ch01-%s.ppm && cp notes.ppm images/ch01-%s.png && "
             "sum0=$(cat notes.ppm p.png ch01.ppm images/* | cksum) || exit 1; "
             "try() { \"$P\"/ch01 %s --quiet \"$@\" > out 2> err; rc=$?; "
             "[ $rc -eq 2 ] && head -n 1 err | grep -q \"^ch01: error: .*$want\" || "
             "{ echo \"ch01 $*: exit $rc\"; cat err; exit 1; }; }; "
             "want='not a PPM' try --out notes.ppm; want='not a PPM' try; "
             "want='not a P' try --images images --out w.ppm; "
             "[ \"$(cat notes.ppm p.png ch01.ppm images/* | cksum)\" = \"$sum0\" ] && [ ! -e w.ppm ] || "
             "{ echo 'a file of another kind was changed, or work was done'; exit 1; }; "
             "if \"$P\"/ch01 --out probe.png --bogus 2>&1 | grep -q libpng; then :; else want='not a PNG' try --out p.png; fi; "
             ": > empty.ppm && \"$P\"/ch01 %s --quiet --out empty.ppm > out 2> err && [ \"$(head -c 2 empty.ppm)\" = P6 ] "
             "|| { echo 'an empty --out file was not written'; cat err; exit 1; }",
             programs[program_index("ch01")].first_stage, programs[program_index("ch01")].first_stage,
             programs[program_index("ch01")].small, programs[program_index("ch01")].small);
    ck_assert_msg(in_temp_folder(script) == 0, "ch01: an image output holding another kind of file (the script says which)");
}
END_TEST

/* --version: the program's name and the commit it was built from (as
 * tools/commit.sh names it: the checkout's HEAD, or COURSE_COMMIT for a tree
 * copied without its history; -dirty where its tracked files differed), exit
 * 0; --help lists it. */
START_TEST(version_names_program_and_commit)
{
    const char *prog = programs[_i].name;
    int rc = harness_shell("cd %s && head=$(tools/commit.sh) && head=${head%%-dirty} && "
                           "./%s --version > /tmp/version.$$ 2>&1 && read -r name word commit rest < /tmp/version.$$ && "
                           "rm -f /tmp/version.$$ && [ \"$name\" = %s ] && [ \"${commit%%-dirty}\" = \"$head\" ] && "
                           "./%s --help | grep -q -e '--version'",
                           harness_q(PROGRAM_DIR), prog, prog, prog);
    ck_assert_msg(rc == 0, "%s --version: not 'NAME commit HASH' with this checkout's commit, or --help lacks it", prog);
}
END_TEST

/* --inject FAULT@R names a rank that must exist: under three ranks (as
 * mpirun tells them, before MPI_Init) fail@5 is refused (exit 2, it says
 * why), and so is fail@1 run alone (one rank); fail@2 of three is taken. */
START_TEST(ch11_inject_names_an_existing_rank)
{
    const char *script =
        "for env in 'OMPI_COMM_WORLD_SIZE=3 OMPI_COMM_WORLD_RANK=0' 'PMI_SIZE=3 PMI_RANK=1'; do "
        "env $env \"$P\"/ch11 --inject fail@5 --n 64 --steps 1 --repeat 1 --quiet > out 2> err; rc=$?; "
        "[ $rc -eq 2 ] && grep -q 'ch11: error: --inject .fail@5.: .*rank 5.*3 ranks' err || "
        "{ echo \"$env: exit $rc\"; cat err; exit 1; }; done; "
        "\"$P\"/ch11 --inject fail@1 --n 64 --steps 1 --repeat 1 --quiet > out 2> err; rc=$?; "
        "[ $rc -eq 2 ] && grep -q 'rank 1.*1 rank' err || { echo \"alone: exit $rc\"; cat err; exit 1; }; "
        "command -v mpirun > /dev/null || exit 0; "
        "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 timeout 120 "
        "mpirun -np 3 --quiet \"$P\"/ch11 --inject fail@5 --n 64 --steps 1 --repeat 1 --quiet > out 2> err; rc=$?; "
        "[ $rc -eq 2 ] && grep -q 'rank 5' err || { echo \"mpirun -np 3: exit $rc\"; cat err; exit 1; }";
    ck_assert_msg(in_temp_folder(script) == 0, "ch11 --inject naming a rank that does not exist (the script says how)");
}
END_TEST

/* A chapter's own outputs (ch07 --timeline, ch08 --linear-out, ch11
 * --state-out and --phases) replace only a file of their own kind (issue
 * 65): each given a copy of the README is refused before any work (exit 2,
 * "holds something else"), the copy as it was and nothing else written; ch11's
 * own state and phases files are replaced by a second run, but not once notes
 * follow their numbers or their header. */
START_TEST(chapter_outputs_of_another_kind_refused)
{
    static const char *const outputs[][2] = {
        {"ch07", "--timeline"}, {"ch08", "--linear-out"}, {"ch11", "--state-out"}, {"ch11", "--phases"}};
    char script[3600], tries[1200] = "";
    for (size_t i = 0; i < sizeof outputs / sizeof outputs[0]; i++) {
        int p = program_index(outputs[i][0]);
        if (p >= 0)
            snprintf(tries + strlen(tries), sizeof tries - strlen(tries), "try %s %s %s; ", outputs[i][0],
                     outputs[i][1], programs[p].small);
    }
    int ch11 = program_index("ch11");
    snprintf(script, sizeof script,
             "cp \"$P\"/README.md mine && sum0=$(cksum < mine) || exit 1; "
             "try() { prog=$1 opt=$2; shift 2; \"$P\"/$prog \"$@\" --quiet $opt mine > out 2> err; rc=$?; "
             "[ $rc -eq 2 ] && head -n 1 err | grep -q \"^$prog: error: $opt 'mine' holds something else\" || "
             "{ echo \"$prog $opt: exit $rc\"; cat err; exit 1; }; [ \"$(cksum < mine)\" = \"$sum0\" ] && "
             "[ \"$(ls -A | sort | tr '\\n' ' ')\" = 'err mine out ' ] || { echo \"$prog $opt: changed: $(ls -A)\"; "
             "exit 1; }; }; %s"
             "[ %d -lt 0 ] && exit 0; run() { \"$P\"/ch11 %s --quiet \"$@\" > out 2> err || { echo \"ch11 $*:\"; "
             "cat err; exit 1; }; }; run --state-out s.txt --phases p.csv && cp s.txt s0 && cp p.csv p0 && "
             "run --state-out s.txt --phases p.csv && [ -s s.txt ] && [ -s p.csv ] || exit 1; "
             "for f in s.txt p.csv; do echo 'my notes' >> $f; cp $f before; done; "
             "for o in '--state-out s.txt' '--phases p.csv'; do \"$P\"/ch11 %s --quiet $o > out 2> err; rc=$?; "
             "[ $rc -eq 2 ] && grep -q 'holds something else' err || { echo \"notes after ch11's $o: exit $rc\"; "
             "cat err; exit 1; }; done; tail -n 1 s.txt p.csv | grep -c 'my notes' | grep -qx 2 || "
             "{ echo 'a file with notes was replaced'; exit 1; }",
             tries, ch11, ch11 >= 0 ? programs[ch11].small : "", ch11 >= 0 ? programs[ch11].small : "");
    ck_assert_msg(in_temp_folder(script) == 0, "a chapter's own output over a file of another kind (the script says which)");
}
END_TEST

/* A file of another kind that this user may write but not read (mode 0222)
 * is refused, not replaced: its kind cannot be checked (as an ordinary
 * user: root reads it). --out and the default output, before any work. */
START_TEST(unreadable_output_refused)
{
    char script[1600];
    snprintf(script, sizeof script,
             "%s; chmod 777 . && printf 'my notes\\n' > w.ppm && cp w.ppm ch01.ppm && chmod 222 w.ppm ch01.ppm && "
             "{ [ $(id -u) -ne 0 ] || chown 65534:65534 w.ppm ch01.ppm; } || exit 1; "
             "for o in '--out w.ppm' ''; do as_user \"$P\"/ch01 %s --quiet $o > out 2> err; rc=$?; "
             "[ $rc -eq 2 ] && head -n 1 err | grep -q '^ch01: error: .*cannot be read to check that it is a PPM' || "
             "{ echo \"ch01 $o: exit $rc\"; cat err; exit 1; }; done; chmod 644 w.ppm ch01.ppm; "
             "[ \"$(cat w.ppm ch01.ppm)\" = \"$(printf 'my notes\\nmy notes')\" ] || { echo 'a write-only file was replaced'; "
             "exit 1; }",
             as_user_def, programs[program_index("ch01")].small);
    ck_assert_msg(in_temp_folder(script) == 0, "ch01: a write-only output of another kind (the script says how)");
}
END_TEST

/* The kind and the mode are checked again at the write (the image's, just
 * before its temporary file is made and renamed; file_write_end's, just
 * before the rename): ch01 renders (past its checks: 0.2 s of CPU time used)
 * while its --out, a PPM at the start, is given other contents, or made
 * read-only; the write fails (exit 1, saying why), the file keeps what it was
 * given and no temporary file is left. */
START_TEST(kind_checked_again_before_the_rename)
{
    const char *script =
        "change() { printf 'P6\\n1 1\\n255\\nabc' > x.ppm && \"$P\"/ch01 --width 192 --height 192 --spp 8 --repeat 1 "
        "--quiet --out x.ppm > out 2> err & pid=$!; "
        "while [ \"$(awk '{print $14}' /proc/$pid/stat 2> /dev/null || echo 99)\" -lt 20 ]; do sleep 0.02; done; "
        "eval \"$1\"; wait $pid; rc=$?; [ $rc -eq 1 ] && grep -q \"^ch01: x.ppm.*$2\" err || "
        "{ echo \"$1: exit $rc\"; cat err; exit 1; }; "
        "[ -z \"$(ls -A | grep '^\\.img-')\" ] || { echo \"$1: a temporary file was left\"; exit 1; }; }; "
        "change \"printf 'my notes\\n' > x.ppm\" 'holds something else: not a PPM'; "
        "[ \"$(cat x.ppm)\" = 'my notes' ] || { echo 'the notes were replaced'; exit 1; }; "
        "change 'chmod 444 x.ppm' 'read-only'; [ \"$(tail -c 3 x.ppm)\" = abc ] || { echo 'a read-only file was "
        "replaced'; exit 1; }";
    ck_assert_msg(in_temp_folder(script) == 0, "ch01: an output changed during the work (the script says how)");
}
END_TEST

/* A kind's first bytes are not enough: a PPM signature followed by notes,
 * a P6 header with too few or too many pixel bytes, a P3 with notes after its
 * numbers, a PNG signature followed by notes are refused (exit 2, the file as
 * it was); a whole P6 or P3 (comments in its header) is replaced. */
START_TEST(image_kind_checked_past_its_first_bytes)
{
    char script[2400];
    snprintf(script, sizeof script,
             "try() { f=$1; shift; cp $f keep; \"$P\"/ch01 %s --quiet --out $f > out 2> err; rc=$?; "
             "[ $rc -eq 2 ] && head -n 1 err | grep -q \"^ch01: error: --out '$f' holds something else: not a P\" && "
             "cmp -s $f keep || { echo \"$f: exit $rc\"; cat err; exit 1; }; }; "
             "printf 'P6\\nmy notes\\n' > a.ppm && printf 'P6\\n1 1\\n255\\nab' > b.ppm && "
             "printf 'P6\\n1 1\\n255\\nabc and my notes' > c.ppm && printf 'P3\\n1 1\\n255\\n0 0 0\\nmy notes\\n' > d.ppm || "
             "exit 1; for f in a.ppm b.ppm c.ppm d.ppm; do try $f; done; "
             "if ! \"$P\"/ch01 --out probe.png --bogus 2>&1 | grep -q libpng; then "
             "{ printf '\\211PNG\\r\\n\\032\\n'; echo 'my notes'; } > e.png && try e.png; fi; "
             "printf 'P6\\n# a comment\\n1 1\\n255\\nabc' > f.ppm && printf 'P3\\n1 1 255\\n0 0 0\\n' > g.ppm || exit 1; "
             "for f in f.ppm g.ppm; do \"$P\"/ch01 %s --quiet --out $f > out 2> err && [ \"$(head -c 2 $f)\" = P6 ] || "
             "{ echo \"a whole PPM ($f) was not replaced\"; cat err; exit 1; }; done",
             programs[program_index("ch01")].small, programs[program_index("ch01")].small);
    ck_assert_msg(in_temp_folder(script) == 0, "ch01: an image output of another kind that starts like one (the script says which)");
}
END_TEST

/* A file whose owner may not write it is read-only whoever else its mode
 * lets write: modes 0464 and 0446 (a group or other write bit alone) are
 * refused for --out and --csv, for root too (exit 2, "read-only"), the files
 * as they were. */
START_TEST(owner_write_bit_decides_for_root_too)
{
    char script[1600];
    snprintf(script, sizeof script,
             "printf 'P6\\n1 1\\n255\\nabc' > g.ppm && cp g.ppm o.ppm && printf '%%s\\n' '%s' > g.csv && chmod 464 g.ppm g.csv "
             "&& chmod 446 o.ppm && sum0=$(cat g.ppm o.ppm g.csv | cksum) || exit 1; "
             "for o in '--out g.ppm' '--out o.ppm' '--csv g.csv --out w.ppm'; do \"$P\"/ch01 %s --quiet $o > out 2> err; "
             "rc=$?; [ $rc -eq 2 ] && head -n 1 err | grep -q '^ch01: error: .*read-only (mode 04[46][46]: its owner may "
             "not write it)' || { echo \"ch01 $o: exit $rc\"; cat err; exit 1; }; done; "
             "[ \"$(cat g.ppm o.ppm g.csv | cksum)\" = \"$sum0\" ] && [ ! -e w.ppm ] || { echo 'a file was changed'; exit 1; }",
             REPORT_CSV_HEADER, programs[program_index("ch01")].small);
    ck_assert_msg(in_temp_folder(script) == 0, "ch01: a file its owner may not write (the script says which)");
}
END_TEST

/* The --csv is checked again once it is locked for the append, as at the
 * start: ch01 renders (past its checks) while its CSV, the course's header
 * at the start, is given other contents, NUL bytes after the header, a mode
 * its owner may not write, or becomes a symbolic link to nothing; the row is
 * not written (exit 1, saying why), the file keeps what it was given and
 * nothing is made where the link points. */
START_TEST(csv_checked_again_before_the_append)
{
    char script[2400];
    snprintf(script, sizeof script,
             "change() { printf '%%s\\n' '%s' > x.csv && \"$P\"/ch01 --width 192 --height 192 --spp 8 --repeat 1 "
             "--quiet --out x.ppm --csv x.csv > out 2> err & pid=$!; "
             "while [ \"$(awk '{print $14}' /proc/$pid/stat 2> /dev/null || echo 99)\" -lt 20 ]; do sleep 0.02; done; "
             "eval \"$1\"; sum=$(cat x.csv 2> /dev/null | cksum); wait $pid; rc=$?; "
             "[ $rc -eq 1 ] && grep -q \"^ch01: cannot append to x.csv: .*$2\" err || "
             "{ echo \"$1: exit $rc\"; cat err; exit 1; }; "
             "[ \"$(cat x.csv 2> /dev/null | cksum)\" = \"$sum\" ] || { echo \"$1: the CSV was changed\"; exit 1; }; "
             "chmod 644 x.csv 2> /dev/null; rm -f x.csv; }; "
             "change \"printf 'my notes\\n' > x.csv\" 'does not have the course'; "
             "change \"head -c 64 /dev/zero >> x.csv\" 'is not a text file'; "
             "change 'chmod 444 x.csv' 'read-only'; "
             "change 'rm x.csv && ln -s gone.csv x.csv' 'symbolic link to nothing'; "
             "[ ! -e gone.csv ] || { echo 'a CSV was made where a dangling link points'; exit 1; }",
             REPORT_CSV_HEADER);
    ck_assert_msg(in_temp_folder(script) == 0, "ch01: a --csv changed during the work (the script says how)");
}
END_TEST

/* A text output whose one line is longer than the program may allocate is
 * not read as ended there: ch07's --timeline, its header then 64 MiB on one
 * line, under a 60 MB address-space limit, is refused (exit 2, "too long"),
 * the file as it was. */
START_TEST(text_output_with_a_line_past_memory_refused)
{
    const char *script =
        "{ echo 'stage,step,lane,what,start_ms,end_ms'; head -c 67108864 /dev/zero | tr '\\0' a; echo; } > t.csv && "
        "sum=$(cksum < t.csv) || exit 1; (ulimit -v 60000 && exec \"$P\"/ch07 --timeline t.csv --n 64 --cpu-n 64 "
        "--steps 1 --repeat 1 --quiet) > out 2> err; rc=$?; "
        "[ $rc -eq 2 ] && head -n 1 err | grep -q \"^ch07: error: --timeline 't.csv' holds something else: .*too long\" "
        "|| { echo \"exit $rc\"; cat err; exit 1; }; [ \"$(cksum < t.csv)\" = \"$sum\" ] || { echo 'replaced'; exit 1; }";
    ck_assert_msg(in_temp_folder(script) == 0, "ch07: a --timeline with a line past memory (the script says how)");
}
END_TEST

/* How the permission test becomes an ordinary user: as one already, nothing;
 * as root, setpriv, else su, to nobody, who must reach the programs. NULL with
 * the reason in `why` if neither works. */
static const char *choose_as_user(char *why, size_t size)
{
    if (geteuid() != 0)
        return "as_user() { \"$@\"; }";
    const char *q = harness_q(PROGRAM_DIR);
    if (harness_shell("setpriv --reuid=65534 --regid=65534 --clear-groups test -x %s/ch01 2> /dev/null", q) == 0)
        return "as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups \"$@\"; }";
    if (harness_shell("su nobody -s /bin/sh -c 'test -x \"$0\"/ch01' %s 2> /dev/null", q) == 0)
        return "as_user() { su nobody -s /bin/sh -c '\"$0\" \"$@\"' \"$@\"; }";
    snprintf(why, size, "running as root, and neither setpriv nor su can run %s/ch01 as nobody", PROGRAM_DIR);
    return NULL;
}

/* mount_ns's value: the first of unshare -m, unshare -rm that can mount a
 * tmpfs in a scratch folder here, or "". */
static const char *choose_mount_ns(void)
{
    static const char *const ways[] = {"unshare -m", "unshare -rm"};
    char dir[200];
    snprintf(dir, sizeof dir, "%s/mount-probe", harness_scratch("test_cli_fifo"));
    if (mkdir(dir, 0755) != 0)
        return "";
    for (size_t i = 0; i < sizeof ways / sizeof ways[0]; i++)
        if (harness_shell("%s sh -c 'mount -t tmpfs -o size=4k none \"$0\"' %s 2> /dev/null", ways[i],
                          harness_q(dir)) == 0)
            return ways[i];
    return "";
}

int main(void)
{
    make_odd_paths();
    make_input_files();
    for (size_t p = 0; p < PROGRAM_COUNT; p++)
        learn_options(&programs[p]);
    if (harness_shell("cd /tmp && %s/ch01 --out probe.png --bogus 2>&1 | grep -q libpng", harness_q(PROGRAM_DIR)) == 0)
        image_ext = "ppm"; /* built without libpng: --images writes PPM */
    make_output_fixtures();
    find_runnable();
    build_vectors();
    if (getenv("LIST_VECTORS")) { /* for debugging: print the table */
        for (int i = 0; i < vector_count; i++) {
            printf("%d %s", i, vectors[i].program);
            for (int a = 0; a < vectors[i].argc; a++)
                printf(" '%s'", vectors[i].args[a]);
            printf("  -> %s\n", vectors[i].expect);
        }
        return 0;
    }
    Suite *s = suite_create("bad input");
    TCase *tc = tcase_create("vectors");
    tcase_set_timeout(tc, 30);
    tcase_add_loop_test(tc, bad_vector_is_refused, 0, vector_count);
    tcase_add_loop_test(tc, input_options_are_in_help, 0, INPUT_OPTION_COUNT);
    tcase_add_loop_test(tc, help_exits_zero_and_lists_stages, 0, PROGRAM_COUNT);
    tcase_add_loop_test(tc, list_stages_is_the_stage_table, 0, PROGRAM_COUNT);
    tcase_add_test(tc, book_tables_from_counters);
    tcase_add_test(tc, rooflines_from_counters);
    tcase_add_test(tc, models_checked_against_counters);
    /* The GPU raytracers render on the GPU: without one their tests are skipped. */
    tcase_add_loop_test(tc, images_written_for_every_stage, 0, runnable_count);
    tcase_add_loop_test(tc, unwritable_default_output_is_refused_first, 0, runnable_count);
    tcase_add_loop_test(tc, csv_foreign_header_refused_and_full_disk_fails, 0, runnable_count);
    tcase_add_loop_test(tc, out_of_memory_is_reported_not_a_crash, 0, runnable_count);
    tcase_add_loop_test(tc, full_stdout_is_an_error, 0, runnable_count);
    int skipped = 5 * skipped_for_gpu;
    tcase_add_test(tc, file_size_limit_on_the_image_is_a_write_error);
    /* eleven runs of make (each reads the whole registry, a second or two): a
     * time limit of their own, so a busy machine does not fail them */
    TCase *makes = tcase_create("make runs");
    tcase_set_timeout(makes, 180);
    tcase_add_test(makes, exercise_names_are_data);
    tcase_add_test(makes, hints_lead_without_giving_the_answer);
    suite_add_tcase(s, makes);
    /* a make -n per target, some forty, on a copy of the tree: minutes on a busy machine */
    TCase *dry_runs = tcase_create("make -n");
    tcase_set_timeout(dry_runs, 900);
    tcase_add_test(dry_runs, make_dry_run_of_every_target);
    suite_add_tcase(s, dry_runs);
    if (system("nvidia-smi -L > /dev/null 2>&1") != 0)
        tcase_add_test(tc, ch10_gpu_stage_without_gpu_writes_nothing);
    else
        skipped++; /* with a GPU the stage runs: make check's GPU runs cover it */
    tcase_add_test(tc, image_diff_scales_and_clips);
    /* the outputs' own checks (issue 44): a case of their own (CK_RUN_CASE=outputs) */
    TCase *outs = tcase_create("outputs");
    tcase_set_timeout(outs, 60);
    char why[300];
    const char *as_user = choose_as_user(why, sizeof why);
    if (as_user) {
        snprintf(as_user_def, sizeof as_user_def, "%s", as_user);
        tcase_add_loop_test(outs, outputs_respect_permissions, 0, PROGRAM_COUNT);
    } else {
        printf("%s: %zu permission test runs skipped\n", why, PROGRAM_COUNT);
        skipped += (int)PROGRAM_COUNT;
    }
    tcase_add_test(outs, outputs_write_through_links_and_keep_modes);
    tcase_add_test(outs, csv_lock_wait_is_said_and_ends);
    mount_ns = choose_mount_ns();
    if (!mount_ns[0])
        printf("no private mount namespace here (unshare -m, or -rm, cannot mount a tmpfs): the tests that need "
               "their own mounts (ch08's moved checkout, ch11's full disk) are skipped\n");
    if (program_index("ch11") >= 0) {
        tcase_add_test(outs, ch11_usage_error_on_every_rank);
        if (mount_ns[0])
            tcase_add_test(outs, ch11_state_out_failure_says_why);
        else
            skipped++;
    } else {
        printf("ch11 is not built (no MPI): its 2 output tests skipped\n");
        skipped += 2;
    }
    if (mount_ns[0])
        tcase_add_test(outs, ch08_missing_default_scene_is_not_blamed_on_scene);
    else
        skipped++;
    suite_add_tcase(s, outs);
    /* round 4 of the outputs' checks (CK_RUN_CASE=round4) */
    TCase *round4 = tcase_create("round4");
    tcase_set_timeout(round4, 120);
    tcase_add_test(round4, read_only_outputs_refused_for_root_too);
    tcase_add_test(round4, image_outputs_of_another_kind_refused);
    tcase_add_loop_test(round4, version_names_program_and_commit, 0, PROGRAM_COUNT);
    if (program_index("ch11") >= 0)
        tcase_add_test(round4, ch11_inject_names_an_existing_rank);
    else
        skipped++; /* ch11 not built (no MPI): its --inject test */
    /* the attack on round 4's fixes (issue 65): a chapter's own outputs, kinds past their first bytes, write time */
    tcase_add_test(round4, chapter_outputs_of_another_kind_refused);
    if (as_user)
        tcase_add_test(round4, unreadable_output_refused);
    else
        skipped++; /* said above, with the permission tests */
    tcase_add_test(round4, kind_checked_again_before_the_rename);
    tcase_add_test(round4, image_kind_checked_past_its_first_bytes);
    tcase_add_test(round4, owner_write_bit_decides_for_root_too);
    tcase_add_test(round4, csv_checked_again_before_the_append);
    tcase_add_test(round4, text_output_with_a_line_past_memory_refused);
    suite_add_tcase(s, round4);
    tcase_add_test(tc, ch06_cpu_rows_take_turns_with_the_read_ceiling);
    tcase_add_loop_test(tc, ch07_cpu_rows_take_turns_with_the_fma_ceiling, 0,
                        sizeof ch07_ruler_runs / sizeof ch07_ruler_runs[0]);
    tcase_add_loop_test(tc, ch03_check_holds_at_small_sizes, 0, sizeof ch03_small_runs / sizeof ch03_small_runs[0]);
    suite_add_tcase(s, tc);
    return harness_run(s, "bad-input", skipped);
}
