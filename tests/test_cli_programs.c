/* test_cli_programs.c - every chapter program refuses bad input the same way.
 *
 * Each vector runs a real chapter binary (./chNN in the repository root) in an
 * empty temporary folder and asserts: exit status 2, no signal, the first line
 * on stderr is "chNN: error: ..." and names the offending option or text, and
 * the folder is still empty afterwards (no image, no CSV, no temporary file).
 * Vectors are generated from a table of bad values plus fixed-seed random junk
 * (seed 4242), for every numeric option each program accepts.
 */
#define _GNU_SOURCE
#include "harness.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#ifndef PROGRAM_DIR
#define PROGRAM_DIR "."
#endif

#define MAX_ARGS 8
#define MAX_VECTORS 2048

typedef struct {
    const char *program;
    char args[MAX_ARGS][64];
    int argc;
    char expect[64]; /* must appear in the first stderr line */
} bad_vector;

static bad_vector vectors[MAX_VECTORS];
static int vector_count;

typedef struct {
    const char *name;
    const char *numeric[8]; /* numeric options it accepts */
    const char *text[6];    /* options taking text it accepts */
    const char *extra[3];   /* one more vector of its own: option, value, expected text */
} program_info;

#define RAYTRACER_TEXT {"stage", "out", "csv", "images"}
static const program_info programs[] = {
    {"ch01", {"width", "height", "spp", "repeat"}, RAYTRACER_TEXT, {NULL}},
    {"ch02", {"width", "height", "spp", "repeat"}, RAYTRACER_TEXT, {NULL}},
    {"ch03", {"width", "height", "spp", "repeat", "threads", "rng-divisor"}, RAYTRACER_TEXT, {NULL}},
    {"ch04", {"width", "height", "spp", "repeat", "device"}, RAYTRACER_TEXT, {NULL}},
    {"ch05", {"width", "height", "spp", "repeat", "device"}, RAYTRACER_TEXT, {NULL}},
    {"ch06", {"n", "threads", "repeat", "device"}, {"stage", "csv"}, {"--n", "1099511627776", "host memory"}},
    {"ch07", {"n", "steps", "threads", "repeat", "device"}, {"stage", "csv"}, {"--n", "16777217", "--n"}},
};

/* 1 if the program takes option (given as "--name") with a text value. */
static int takes_text(const program_info *p, const char *option)
{
    for (int o = 0; p->text[o]; o++)
        if (strcmp(option + 2, p->text[o]) == 0)
            return 1;
    return 0;
}

/* 1 if the program takes option (given as "--name") as a number. */
static int takes_number(const program_info *p, const char *option)
{
    for (int o = 0; p->numeric[o]; o++)
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
    snprintf(v->args[v->argc++], sizeof v->args[0], "%s", arg);
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

static void build_vectors(void)
{
    test_rng rng = {4242};
    for (size_t p = 0; p < sizeof programs / sizeof programs[0]; p++) {
        const char *prog = programs[p].name;
        for (int o = 0; programs[p].numeric[o]; o++) {
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
        if (programs[p].extra[0]) {
            bad_vector *v = add_vector(prog, programs[p].extra[2]);
            push(v, programs[p].extra[0]);
            push(v, programs[p].extra[1]);
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
    pid_t pid = fork();
    if (pid == 0) {
        char *argv[MAX_ARGS + 2];
        argv[0] = (char *)v->program;
        for (int i = 0; i < v->argc; i++)
            argv[i + 1] = (char *)v->args[i];
        argv[v->argc + 1] = NULL;
        dup2(err[1], 2);
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
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
    ck_assert_msg(WEXITSTATUS(status) == 2, "%s%s: exit %d, stderr: %s", v->program, shown, WEXITSTATUS(status),
                  text);
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
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A %s)\"", dir);
    ck_assert_msg(system(cmd) == 0, "%s%s: left a file behind", v->program, shown);
    rmdir(dir);
}
END_TEST

START_TEST(help_exits_zero_and_lists_stages)
{
    const char *prog = programs[_i].name;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "cd /tmp && %s/%s --help | grep -q '^stages'", PROGRAM_DIR, prog);
    ck_assert_msg(system(cmd) == 0, "%s --help", prog);
}
END_TEST

/* --images DIR: one image per stage of the program's own --help list, named
 * chNN-<stage>.png (.ppm without libpng), and nothing else in DIR. */
static const char *image_programs[] = {"ch01", "ch02", "ch03", "ch04", "ch05"};
#define CPU_IMAGE_PROGRAMS 3 /* the first three need no GPU */

START_TEST(images_written_for_every_stage)
{
    const char *prog = image_programs[_i];
    char dir[] = "/tmp/test_images.XXXXXX", cmd[2000];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(cmd, sizeof cmd,
             "cd %s && %s/%s --width 9 --height 7 --spp 1 --repeat 1 --quiet --images . --out x.ppm > log 2>&1 "
             "|| { cat log; exit 1; }; n=0; "
             "for s in $(%s/%s --help | awk '/^stages/ {f = 1; next} f && NF == 0 {exit} f {print $1}'); do "
             "ls %s-$s.png %s-$s.ppm 2>/dev/null | grep -q . || { echo \"no image for stage $s\"; exit 1; }; "
             "n=$((n + 1)); done; "
             "[ $(ls | grep -c '^%s-') -eq $n ] && [ $n -gt 0 ]",
             dir, PROGRAM_DIR, prog, PROGRAM_DIR, prog, prog, prog, prog);
    int rc = system(cmd);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_msg(rc == 0, "%s --images: not one image per stage", prog);
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
    snprintf(cmd, sizeof cmd, "%s/build/image_diff %s %s %s 5 > %s/out.txt", PROGRAM_DIR, pa, pb, pd, dir);
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
    /* bad gain: usage, 2; an image against a smaller one: 1 */
    snprintf(cmd, sizeof cmd, "%s/build/image_diff %s %s %s 0 2>/dev/null", PROGRAM_DIR, pa, pb, pd);
    int rc = system(cmd);
    ck_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 2);
    write_ppm(pb, W - 1, H, b);
    snprintf(cmd, sizeof cmd, "%s/build/image_diff %s %s %s 2>/dev/null", PROGRAM_DIR, pa, pb, pd);
    rc = system(cmd);
    ck_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 1);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

int main(void)
{
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
    tcase_add_loop_test(tc, help_exits_zero_and_lists_stages, 0, sizeof programs / sizeof programs[0]);
    /* ch04 and ch05 render on the GPU: without one their image tests are skipped. */
    int images = sizeof image_programs / sizeof image_programs[0], skipped = 0;
    if (system("nvidia-smi -L > /dev/null 2>&1") != 0) {
        skipped = images - CPU_IMAGE_PROGRAMS;
        images = CPU_IMAGE_PROGRAMS;
    }
    tcase_add_loop_test(tc, images_written_for_every_stage, 0, images);
    tcase_add_test(tc, image_diff_scales_and_clips);
    suite_add_tcase(s, tc);
    return harness_run(s, "bad-input", skipped);
}
