/* test_common.c - common/: timer, image, cli, report. */
#define _GNU_SOURCE
#include "harness.h"

#include "cli.h"
#include "cpu_ceiling.h"
#include "image.h"
#include "measure.h"
#include "report.h"
#include "team.h"
#include "timer.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[256];

static void make_tmpdir(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test_common.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void remove_tmpdir(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    ck_assert_int_eq(system(cmd), 0);
}

static int folder_entries(const char *dir)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
    FILE *p = popen(cmd, "r");
    int n = -1;
    ck_assert_int_eq(fscanf(p, "%d", &n), 1);
    pclose(p);
    return n;
}

/* Fills img with fixed-seed random bytes. */
static void random_image(image *img, int w, int h, unsigned long long seed)
{
    ck_assert_int_eq(image_alloc(img, w, h), 0);
    test_rng rng = {seed};
    for (size_t i = 0; i < image_bytes(img); i++)
        img->rgb[i] = (unsigned char)(test_rng_next(&rng) >> 56);
}

/* ------------------------------------------------------------------ timer */
START_TEST(timer_is_monotonic)
{
    double last = now_seconds();
    for (int i = 0; i < 100000; i++) {
        double t = now_seconds();
        ck_assert(t >= last);
        last = t;
    }
}
END_TEST

START_TEST(median_odd_even_one_zero)
{
    double odd[] = {5, 1, 9, 3, 7};
    ck_assert_double_eq(median(odd, 5), 5);
    ck_assert_double_eq(odd[0], 1); /* sorted in place */
    double even[] = {4, 1, 3, 2};
    ck_assert_double_eq(median(even, 4), 2.5);
    double one[] = {42};
    ck_assert_double_eq(median(one, 1), 42);
    ck_assert_double_eq(median(one, 0), 0);
    double outlier[] = {10, 10, 10, 1e9, 10};
    ck_assert_double_eq(median(outlier, 5), 10);
}
END_TEST

/* ------------------------------------------------------------------ image */
START_TEST(image_alloc_refuses_bad_sizes)
{
    image img;
    ck_assert_int_eq(image_alloc(&img, 0, 5), -1);
    ck_assert_int_eq(image_alloc(&img, 5, -1), -1);
    ck_assert_int_eq(image_alloc(&img, IMAGE_MAX_SIDE + 1, 1), -1);
    ck_assert_ptr_null(img.rgb);
    ck_assert_int_eq(image_alloc(&img, 1, 1), 0);
    ck_assert_int_eq(image_bytes(&img), 3);
    image_free(&img);
}
END_TEST

static const int round_trip_sizes[][2] = {{1, 1}, {7, 3}, {33, 31}, {1, 257}, {255, 2}};

START_TEST(ppm_round_trip)
{
    make_tmpdir();
    image a, b;
    int w = round_trip_sizes[_i][0], h = round_trip_sizes[_i][1];
    random_image(&a, w, h, 1234 + (unsigned long long)_i);
    char path[300], err[256];
    snprintf(path, sizeof path, "%s/x.ppm", tmpdir);
    ck_assert_int_eq(image_write_ppm(&a, path, err, sizeof err), 0);
    ck_assert_int_eq(folder_entries(tmpdir), 1); /* no temporary file left */
    ck_assert_int_eq(image_read_ppm(&b, path, err, sizeof err), 0);
    ck_assert_int_eq(b.width, w);
    ck_assert_int_eq(b.height, h);
    ck_assert_mem_eq(a.rgb, b.rgb, image_bytes(&a));
    image_free(&a);
    image_free(&b);
    remove_tmpdir();
}
END_TEST

START_TEST(ppm_reader_takes_any_header_whitespace_and_comments)
{
    make_tmpdir();
    char path[300], err[256];
    snprintf(path, sizeof path, "%s/h.ppm", tmpdir);
    FILE *f = fopen(path, "wb");
    fputs("P6 # a comment\n2\t1 255 ", f); /* the original card writes "P6 512 512 255 " */
    fwrite("\x01\x02\x03\xfd\xfe\xff", 1, 6, f);
    fclose(f);
    image img;
    ck_assert_int_eq(image_read_ppm(&img, path, err, sizeof err), 0);
    ck_assert_int_eq(img.width, 2);
    ck_assert_int_eq(img.rgb[5], 0xff);
    image_free(&img);
    f = fopen(path, "wb"); /* plain PPM, as smallpt writes it: "P3\nW H\n255\n" and numbers */
    fputs("P3\n2 1\n255\n1 2 3 253 254 255 ", f);
    fclose(f);
    ck_assert_int_eq(image_read_ppm(&img, path, err, sizeof err), 0);
    ck_assert_int_eq(img.rgb[0], 1);
    ck_assert_int_eq(img.rgb[5], 255);
    image_free(&img);
    remove_tmpdir();
}
END_TEST

START_TEST(ppm_reader_refuses_bad_files)
{
    make_tmpdir();
    char path[300], err[256] = "";
    image img;
    snprintf(path, sizeof path, "%s/missing.ppm", tmpdir);
    ck_assert_int_eq(image_read_ppm(&img, path, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "missing.ppm"));
    const char *bad[] = {"P5 2 1 255 abcdef", "P6 2 1 65535 abcdef", "P6 2 1 255 abc", "P6 -2 1 255 abcdef", "",
                         "P3 2 1 255 1 2 3 4 5", "P3 2 1 255 1 2 3 4 5 256", "P3 2 1 255 1 2 3 4 5 -1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(path, sizeof path, "%s/bad%zu.ppm", tmpdir, i);
        FILE *f = fopen(path, "wb");
        fputs(bad[i], f);
        fclose(f);
        ck_assert_msg(image_read_ppm(&img, path, err, sizeof err) == -1, "accepted '%s'", bad[i]);
    }
    remove_tmpdir();
}
END_TEST

START_TEST(write_into_missing_folder_fails_and_leaves_nothing)
{
    make_tmpdir();
    image a;
    random_image(&a, 4, 4, 7);
    char path[300], err[256] = "";
    snprintf(path, sizeof path, "%s/no/such/folder/x.ppm", tmpdir);
    ck_assert_int_eq(image_write(&a, path, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "x.ppm"));
    snprintf(path, sizeof path, "%s/x.jpg", tmpdir);
    ck_assert_int_eq(image_write(&a, path, err, sizeof err), -1);
    ck_assert_int_eq(folder_entries(tmpdir), 0);
    image_free(&a);
    remove_tmpdir();
}
END_TEST

START_TEST(png_written_or_refused_clearly)
{
    make_tmpdir();
    image a;
    random_image(&a, 9, 5, 9);
    char path[300], err[256] = "";
    snprintf(path, sizeof path, "%s/x.png", tmpdir);
    int rc = image_write(&a, path, err, sizeof err);
    if (image_png_supported()) {
        ck_assert_int_eq(rc, 0);
        unsigned char sig[8];
        FILE *f = fopen(path, "rb");
        ck_assert_int_eq(fread(sig, 1, 8, f), 8);
        fclose(f);
        ck_assert_mem_eq(sig, "\x89PNG\r\n\x1a\n", 8);
        ck_assert_int_eq(folder_entries(tmpdir), 1);
    } else {
        ck_assert_int_eq(rc, -1);
        ck_assert_ptr_nonnull(strstr(err, "libpng"));
        ck_assert_int_eq(folder_entries(tmpdir), 0);
    }
    image_free(&a);
    remove_tmpdir();
}
END_TEST

/* --images: one file per stage, named program-stage, read back unchanged (PNG
 * with libpng, else PPM), through image_read for either kind. */
START_TEST(stage_image_written_and_read_back)
{
    make_tmpdir();
    image a, b;
    random_image(&a, 33, 31, 31);
    ck_assert_int_eq(image_write_stage(&a, tmpdir, "ch99", "some-stage"), 0);
    char path[300], err[256];
    snprintf(path, sizeof path, "%s/ch99-some-stage.%s", tmpdir, image_png_supported() ? "png" : "ppm");
    ck_assert_int_eq(image_read(&b, path, err, sizeof err), 0);
    ck_assert_int_eq(b.width, 33);
    ck_assert_int_eq(b.height, 31);
    ck_assert_mem_eq(a.rgb, b.rgb, image_bytes(&a));
    ck_assert_int_eq(folder_entries(tmpdir), 1);
    image_free(&b);
    snprintf(path, sizeof path, "%s/no-such-folder", tmpdir);
    ck_assert_int_eq(image_write_stage(&a, path, "ch99", "x"), -1);
    ck_assert_int_eq(folder_entries(tmpdir), 1);
    image_free(&a);
    remove_tmpdir();
}
END_TEST

START_TEST(png_reader_refuses_what_is_not_png)
{
    make_tmpdir();
    char path[300], err[256] = "";
    snprintf(path, sizeof path, "%s/x.png", tmpdir);
    FILE *f = fopen(path, "wb");
    fputs("P6\n1 1\n255\nabc", f); /* a PPM with a .png name */
    fclose(f);
    image img = {0};
    ck_assert_int_eq(image_read(&img, path, err, sizeof err), -1);
    ck_assert_ptr_null(img.rgb);
    ck_assert_ptr_nonnull(strstr(err, path));
    remove_tmpdir();
}
END_TEST

START_TEST(psnr_of_identical_images_is_infinite)
{
    image a, b;
    random_image(&a, 31, 33, 11);
    random_image(&b, 31, 33, 11);
    image_diff d;
    ck_assert_int_eq(image_compare(&a, &b, &d), 0);
    ck_assert(isinf(d.psnr) && d.psnr > 0);
    ck_assert_int_eq(d.max_abs, 0);
    ck_assert_int_eq(d.differing, 0);
    ck_assert_double_eq(d.mean_abs, 0);
    ck_assert_double_eq(d.mse, 0);
    image_free(&a);
    image_free(&b);
}
END_TEST

START_TEST(known_perturbation_gives_known_psnr)
{
    /* Change k of the n bytes by +-d: MSE = k d^2 / n, PSNR = 10 log10(255^2 n / (k d^2)). */
    image a, b;
    random_image(&a, 64, 48, 21);
    random_image(&b, 64, 48, 21);
    size_t n = image_bytes(&a);
    int d = 10, k = 0;
    for (size_t i = 0; i < n; i += 7) {
        b.rgb[i] = (unsigned char)(b.rgb[i] < 128 ? b.rgb[i] + d : b.rgb[i] - d);
        k++;
    }
    image_diff diff;
    ck_assert_int_eq(image_compare(&a, &b, &diff), 0);
    double expected = 10.0 * log10(255.0 * 255.0 * (double)n / ((double)k * d * d));
    ck_assert_double_eq_tol(diff.psnr, expected, 1e-9);
    ck_assert_int_eq(diff.max_abs, d);
    ck_assert_int_eq(diff.differing, k);
    ck_assert_double_eq_tol(diff.mean_abs, (double)k * d / (double)n, 1e-12);
    ck_assert_double_eq_tol(diff.mse, (double)k * d * d / (double)n, 1e-12);
    image c;
    random_image(&c, 48, 64, 21);
    ck_assert_int_eq(image_compare(&a, &c, &diff), -1); /* sizes differ */
    image_free(&a);
    image_free(&b);
    image_free(&c);
}
END_TEST

/* ------------------------------------------------------------------ cli */
START_TEST(parser_refuses_bad_numbers)
{
    const char *bad[] = {"abc", "-1", "0", "12x", "1e99", "", " 12", "12 ", "0x10", "1.5", "--3",
                         "99999999999999999999", "-99999999999999999999", "9223372036854775808", "+", "-"};
    long long v = 777;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(cli_parse_long(bad[i], 1, 1000000, &v) != NULL, "accepted '%s'", bad[i]);
    ck_assert_int_eq(v, 777); /* untouched on failure */
}
END_TEST

START_TEST(parser_accepts_good_numbers_inside_range)
{
    long long v;
    ck_assert_ptr_null(cli_parse_long("1", 1, 512, &v));
    ck_assert_int_eq(v, 1);
    ck_assert_ptr_null(cli_parse_long("512", 1, 512, &v));
    ck_assert_int_eq(v, 512);
    ck_assert_ptr_null(cli_parse_long("+7", 1, 512, &v));
    ck_assert_int_eq(v, 7);
    ck_assert_ptr_nonnull(cli_parse_long("513", 1, 512, &v));
    ck_assert_ptr_null(cli_parse_long("0", 0, 63, &v));
    ck_assert_ptr_null(cli_parse_long("1099511627776", 1, 1LL << 40, &v));
    ck_assert_int_eq(v, 1LL << 40);
    double x;
    ck_assert_ptr_null(cli_parse_double("2.5e-3", 0, 1, &x));
    ck_assert_double_eq(x, 2.5e-3);
    const char *bad[] = {"1e99", "nan", "inf", "-inf", "1e400", "2,5", "", "x1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(cli_parse_double(bad[i], 0, 1e6, &x) != NULL, "accepted '%s'", bad[i]);
}
END_TEST

START_TEST(writable_path_check)
{
    ck_assert_ptr_null(cli_check_writable("/tmp/fine.ppm"));
    ck_assert_ptr_null(cli_check_writable("fine.ppm")); /* current folder */
    ck_assert_ptr_nonnull(cli_check_writable(""));
    ck_assert_ptr_nonnull(cli_check_writable("/tmp"));
    ck_assert_ptr_nonnull(cli_check_writable("/no/such/folder/x.ppm"));
    ck_assert_ptr_nonnull(cli_check_writable("/etc/hostname/x.ppm")); /* a file, not a folder */
    ck_assert_ptr_null(cli_check_folder("/tmp"));
    ck_assert_ptr_null(cli_check_folder("."));
    ck_assert_ptr_nonnull(cli_check_folder(""));
    ck_assert_ptr_nonnull(cli_check_folder(NULL));
    ck_assert_ptr_nonnull(cli_check_folder("/no/such/folder"));
    ck_assert_ptr_nonnull(cli_check_folder("/etc/hostname"));
    ck_assert_int_eq(access("/tmp/fine.ppm", F_OK), -1);                /* created nothing */
}
END_TEST

/* ------------------------------------------------------------------ report */
/* The nine columns after the date: commit, run and machine from the
 * environment make bench sets ("-" without it), the GPU state "-" for a CPU
 * row, and for a GPU row where NVML gives no reading (no driver here; where
 * there is one, six numbers); then the spread's three, "-" for a row that
 * gave no runs. */
static void row_of(const char *path, int threads, char *line, size_t size)
{
    unlink(path);
    report r;
    report_init(&r, "ch99", "1x1x1spp", path, 1);
    report_add(&r, (report_entry){.stage = "s", .threads = threads, .ms = 1, .value = 1, .unit = "GB/s", .ok = REPORT_OK, .device = "d"});
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(fgets(line, (int)size, f));
    ck_assert_ptr_nonnull(fgets(line, (int)size, f));
    fclose(f);
    line[strcspn(line, "\n")] = '\0';
}

START_TEST(csv_rows_carry_their_provenance)
{
    make_tmpdir();
    char path[300], line[1024];
    snprintf(path, sizeof path, "%s/p.csv", tmpdir);
    unsetenv("BENCH_COMMIT");
    unsetenv("BENCH_RUN_ID");
    unsetenv("BENCH_MACHINE_ID");
    row_of(path, 3, line, sizeof line);
    const char *none = ",ok,d,";
    const char *p = strstr(line, none);
    ck_assert_msg(p != NULL, "%s", line);
    p = strchr(p + strlen(none), ','); /* past the date */
    ck_assert_msg(p && strcmp(p, ",-,-,-,-,-,-,-,-,-,-,-,-") == 0, "by hand, no provenance: %s", line);
    setenv("BENCH_COMMIT", "abc1234-dirty", 1);
    setenv("BENCH_RUN_ID", "20261126T0415Z-3f9a", 1);
    setenv("BENCH_MACHINE_ID", "0badcafe,x", 1); /* a comma cannot split the row */
    row_of(path, 3, line, sizeof line);
    ck_assert_msg(strstr(line, ",abc1234-dirty,20261126T0415Z-3f9a,0badcafe x,-,-,-,-,-,-") != NULL, "%s", line);
    row_of(path, REPORT_ON_GPU, line, sizeof line);
    p = strstr(line, ",0badcafe x,");
    ck_assert_msg(p != NULL, "%s", line);
    if (gpu_state_now().ok) { /* a GPU and its driver here: six numbers */
        unsigned mhz0, mhz1, t0, t1;
        double w0, w1;
        ck_assert_int_eq(sscanf(p + 12, "%u,%u,%lf,%lf,%u,%u", &mhz0, &mhz1, &w0, &w1, &t0, &t1), 6);
        ck_assert(mhz0 > 0 && mhz1 > 0 && w0 > 0 && t1 > 0);
    } else {
        ck_assert_str_eq(p + 12, "-,-,-,-,-,-,-,-,-");
    }
    unsetenv("BENCH_COMMIT");
    unsetenv("BENCH_RUN_ID");
    unsetenv("BENCH_MACHINE_ID");
}
END_TEST

START_TEST(csv_rows_have_the_design_format)
{
    make_tmpdir();
    char path[300];
    snprintf(path, sizeof path, "%s/r.csv", tmpdir);
    report r;
    report_init(&r, "ch99", "7x3x1spp", path, 1);
    report_add(&r, (report_entry){.stage = "first", .threads = 1, .ms = 20.0, .value = 1.5, .unit = "Msamples/s", .ok = REPORT_OK, .device = "CPU, with a comma",
                                  .runs = 5, .lo_ms = 19.5, .hi_ms = 22.25});
    report_add(&r, (report_entry){.stage = "second", .threads = 4, .ms = 5.0, .value = 6.0, .unit = "Msamples/s", .ok = REPORT_FAIL, .device = "CPU"});
    report_add(&r, (report_entry){.stage = "third", .threads = 2, .ms = 10.0, .value = 3.0, .unit = "GB/s", .ok = REPORT_NO_CHECK, .device = "CPU"});
    ck_assert_int_eq(report_all_ok(&r), 0);
    FILE *f = fopen(path, "r");
    char line[1024];
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    ck_assert_str_eq(line, REPORT_CSV_HEADER "\n");
    const char *checks[] = {"ok", "FAIL", "n/a"};
    for (int i = 0; i < 3; i++) {
        ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
        int commas = 0;
        for (char *p = line; *p; p++)
            commas += *p == ',';
        ck_assert_int_eq(commas, 21);
        ck_assert(strncmp(line, "ch99,", 5) == 0);
        /* the spread's columns last: runs, fastest, slowest; "-" where the row gave no runs */
        const char *spread = line;
        for (int c = 0; c < 19; c++)
            spread = strchr(spread, ',') + 1;
        ck_assert_str_eq(spread, i == 0 ? "5,19.5,22.25\n" : "-,-,-\n");
        char field[8][64];
        ck_assert_int_eq(sscanf(line, "%63[^,],%63[^,],%63[^,],%63[^,],%63[^,],%63[^,],%63[^,],%63[^,],", field[0],
                                field[1], field[2], field[3], field[4], field[5], field[6], field[7]),
                         8);
        ck_assert_str_eq(field[2], "7x3x1spp");
        ck_assert_str_eq(field[7], checks[i]);
    }
    ck_assert_ptr_null(fgets(line, sizeof line, f));
    fclose(f);
    /* a second report appends without a second header */
    report_init(&r, "ch99", "w", path, 1);
    report_add(&r, (report_entry){.stage = "again", .threads = 1, .ms = 1, .value = 1, .unit = "x", .ok = REPORT_OK, .device = "CPU"});
    ck_assert_int_eq(folder_entries(tmpdir), 1);
    f = fopen(path, "r");
    int headers = 0, rows = 0;
    while (fgets(line, sizeof line, f)) {
        headers += strncmp(line, "chapter,", 8) == 0;
        rows++;
    }
    fclose(f);
    ck_assert_int_eq(headers, 1);
    ck_assert_int_eq(rows, 5);
    remove_tmpdir();
}
END_TEST

/* Runs fn in a child process; returns its exit status, or 128 + signal. */
static int in_child(void (*fn)(const char *), const char *arg)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 2);
        fn(arg);
        _exit(0);
    }
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void add_one_row(const char *path)
{
    report r;
    report_init(&r, "ch99", "w", path, 1);
    report_add(&r, (report_entry){.stage = "stage", .threads = 1, .ms = 1, .value = 1, .unit = "x", .ok = REPORT_OK, .device = "CPU"});
}

/* A CSV row that cannot be written is a run-time error (exit 1), never a
 * silent 0 and never half a row: /dev/full, a read-only file. */
START_TEST(csv_write_failures_exit_1)
{
    ck_assert_int_eq(in_child(add_one_row, "/dev/full"), 1);
    make_tmpdir();
    char path[300];
    snprintf(path, sizeof path, "%s/ro.csv", tmpdir);
    FILE *f = fopen(path, "w");
    fputs(REPORT_CSV_HEADER "\n", f);
    fclose(f);
    chmod(path, 0444);
    if (geteuid() != 0) /* root writes read-only files anyway */
        ck_assert_int_eq(in_child(add_one_row, path), 1);
    remove_tmpdir();
}
END_TEST

START_TEST(a_test_that_fails)
{
    char path[200];
    snprintf(path, sizeof path, "%s/made-by-the-test", harness_scratch("unused"));
    FILE *f = fopen(path, "w");
    if (f)
        fclose(f);
    ck_abort_msg("failing on purpose");
}
END_TEST

/* A row cut short (a file size limit mid-row) is taken back: the file keeps
 * its old length, and the run exits 1. */
static void add_one_row_over_the_limit(const char *path)
{
    signal(SIGXFSZ, SIG_IGN); /* as cli_parse does: EFBIG, not death */
    setrlimit(RLIMIT_FSIZE, &(struct rlimit){1024, 1024});
    add_one_row(path);
}

START_TEST(csv_short_write_is_rolled_back)
{
    make_tmpdir();
    char path[300];
    snprintf(path, sizeof path, "%s/full.csv", tmpdir);
    FILE *f = fopen(path, "w");
    fprintf(f, "%s\n%*s\n", REPORT_CSV_HEADER, (int)(1020 - sizeof REPORT_CSV_HEADER - 1), "x");
    fclose(f);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(st.st_size, 1020); /* a row of ~40 bytes cannot fit under 1024 */
    ck_assert_int_eq(in_child(add_one_row_over_the_limit, path), 1);
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_msg(st.st_size == 1020, "the file is %lld bytes after the failed row, want 1020 (no half row)",
                  (long long)st.st_size);
    remove_tmpdir();
}
END_TEST

#ifndef __SANITIZE_ADDRESS__ /* ASan reserves terabytes of address space: no RLIMIT_AS under it */
/* An image whose pixels do not fit in memory: "out of memory", not "not a PPM". */
static void read_under_128_mb(const char *path)
{
    setrlimit(RLIMIT_AS, &(struct rlimit){128 << 20, 128 << 20});
    image img;
    char err[IMAGE_ERROR_SIZE];
    int rc = image_read_ppm(&img, path, err, sizeof err);
    _exit(rc != 0 && strstr(err, "out of memory") ? 0 : 5);
}

START_TEST(image_too_big_for_memory_says_out_of_memory)
{
    make_tmpdir();
    char path[300];
    snprintf(path, sizeof path, "%s/big.ppm", tmpdir);
    FILE *f = fopen(path, "w");
    fputs("P6\n8192 8192\n255\n", f); /* 201 MB of pixels declared; the read stops at the allocation */
    fclose(f);
    ck_assert_msg(in_child(read_under_128_mb, path) == 0, "no 'out of memory' for an 8192x8192 PPM under 128 MB");
    remove_tmpdir();
}
END_TEST
#endif

/* harness_scratch's folder goes when the test program ends, even after a
 * failed test (whose forked child exits without cleaning up). */
START_TEST(scratch_folder_removed_after_a_failed_test)
{
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) { /* a test program of its own: one scratch folder, one failing test */
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        const char *dir = harness_scratch("test_scratch");
        if (write(fds[1], dir, strlen(dir) + 1) < 0)
            _exit(3);
        harness_ledger = NULL; /* the inner run's test is not one of the outer run's */
        Suite *inner = suite_create("inner");
        TCase *tc = tcase_create("inner");
        tcase_add_test(tc, a_test_that_fails);
        suite_add_tcase(inner, tc);
        SRunner *sr = srunner_create(inner);
        srunner_set_fork_status(sr, CK_FORK);
        srunner_run_all(sr, CK_SILENT);
        srunner_free(sr);
        exit(0); /* atexit: the folder goes */
    }
    close(fds[1]);
    char dir[128] = "";
    ck_assert_int_gt(read(fds[0], dir, sizeof dir - 1), 0);
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    ck_assert_int_eq(access(dir, F_OK), -1);
}
END_TEST

/* A foreign header is refused before any work (report_check_csv, which
 * cli_parse calls for --csv) and the file is left as it was; a file whose last
 * row lost its newline is not glued onto. */
START_TEST(csv_header_checked_and_rows_never_glued)
{
    make_tmpdir();
    char path[300], line[512];
    snprintf(path, sizeof path, "%s/foreign.csv", tmpdir);
    FILE *f = fopen(path, "w");
    fputs("name,value\nx,1\n", f);
    fclose(f);
    ck_assert_ptr_nonnull(report_check_csv(path));
    ck_assert_int_eq(in_child(add_one_row, path), 1);
    f = fopen(path, "r");
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    ck_assert_str_eq(line, "name,value\n");
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    ck_assert_ptr_null(fgets(line, sizeof line, f)); /* untouched */
    fclose(f);
    /* a file of the course's older format (no spread columns) is refused by name, and left as it was */
    snprintf(path, sizeof path, "%s/older.csv", tmpdir);
    f = fopen(path, "w");
    fputs("chapter,stage,workload,threads,median_ms,value,unit,check,device,date,commit,run_id,machine_id,"
          "sm_mhz_start,sm_mhz_end,power_w_start,power_w_end,temp_c_start,temp_c_end\n"
          "ch99,a,w,1,1,1,x,ok,CPU,d,-,-,-,-,-,-,-,-,-\n", f);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(report_check_csv(path), "older version"));
    ck_assert_int_eq(in_child(add_one_row, path), 1);
    snprintf(path, sizeof path, "%s/cut.csv", tmpdir);
    f = fopen(path, "w");
    fputs(REPORT_CSV_HEADER "\nch99,b", f); /* a row cut short */
    fclose(f);
    ck_assert_ptr_null(report_check_csv(path));
    add_one_row(path);
    f = fopen(path, "r");
    int rows = 0;
    while (fgets(line, sizeof line, f))
        rows++;
    fclose(f);
    ck_assert_int_eq(rows, 3); /* header, the cut row, the new row on its own line */
    snprintf(path, sizeof path, "%s/missing.csv", tmpdir);
    ck_assert_ptr_null(report_check_csv(path));
    remove_tmpdir();
}
END_TEST

/* Eight processes create the same new CSV at once: one header, eight rows. */
START_TEST(concurrent_writers_write_one_header)
{
    make_tmpdir();
    char path[300], line[512];
    snprintf(path, sizeof path, "%s/new.csv", tmpdir);
    pid_t pids[8];
    for (int k = 0; k < 8; k++)
        if ((pids[k] = fork()) == 0) {
            add_one_row(path);
            _exit(0);
        }
    for (int k = 0; k < 8; k++)
        waitpid(pids[k], NULL, 0);
    FILE *f = fopen(path, "r");
    int headers = 0, rows = 0;
    while (fgets(line, sizeof line, f)) {
        headers += strcmp(line, REPORT_CSV_HEADER "\n") == 0;
        rows++;
    }
    fclose(f);
    ck_assert_int_eq(headers, 1);
    ck_assert_int_eq(rows, 9);
    remove_tmpdir();
}
END_TEST

/* Every valid name works, however long: the temporary file has a short name
 * of its own in the destination's folder. A failed write leaves an existing
 * destination as it was. */
START_TEST(long_names_write_and_failures_keep_the_old_file)
{
    make_tmpdir();
    image a;
    random_image(&a, 5, 3, 77);
    char path[PATH_MAX], err[IMAGE_ERROR_SIZE];
    int n = snprintf(path, sizeof path, "%s/", tmpdir);
    memset(path + n, 'x', 251);
    strcpy(path + n + 251, ".ppm"); /* a 255-byte name, the longest allowed */
    ck_assert_int_eq(image_write(&a, path, err, sizeof err), 0);
    ck_assert_int_eq(folder_entries(tmpdir), 1);
    /* a deep path near PATH_MAX: its folder does not exist, so the write fails whole */
    char deep[PATH_MAX];
    n = snprintf(deep, sizeof deep, "%s/", tmpdir);
    for (; n < PATH_MAX - 300; n += 200) {
        memset(deep + n, 'd', 199);
        deep[n + 199] = '/';
    }
    strcpy(deep + n, "x.ppm");
    ck_assert_int_eq(image_write(&a, deep, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "cannot create"));
    /* an existing file whose folder became read-only: the write fails, the file stays */
    image b;
    random_image(&b, 5, 3, 78);
    chmod(tmpdir, 0555);
    if (geteuid() != 0) {
        ck_assert_int_eq(image_write(&b, path, err, sizeof err), -1);
        image c;
        ck_assert_int_eq(image_read_ppm(&c, path, err, sizeof err), 0);
        ck_assert_mem_eq(c.rgb, a.rgb, image_bytes(&a));
        image_free(&c);
    }
    chmod(tmpdir, 0755);
    image_free(&a);
    image_free(&b);
    remove_tmpdir();
}
END_TEST

/* A signal whose default action ends the process, while an image is being
 * written: the process dies of the signal and no temporary file is left, only
 * (at most) complete images. */
static const int signals_to_test[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGALRM, SIGPIPE};

static void write_forever(const char *dir)
{
    /* Start as a chapter program does: default signal actions, own group
     * (not the test runner's handlers, which end the whole test); no core
     * file from SIGQUIT. */
    for (size_t i = 0; i < sizeof signals_to_test / sizeof signals_to_test[0]; i++)
        signal(signals_to_test[i], SIG_DFL);
    setrlimit(RLIMIT_CORE, &(struct rlimit){0, 0});
    setpgid(0, 0);
    image big;
    if (image_alloc(&big, 4096, 4096) != 0)
        _exit(3);
    char path[300], err[IMAGE_ERROR_SIZE];
    snprintf(path, sizeof path, "%s/big.ppm", dir);
    for (;;)
        if (image_write(&big, path, err, sizeof err) != 0)
            _exit(4);
}

static int temporary_file_in(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int found = 0;
    while (d && (e = readdir(d)))
        found |= strncmp(e->d_name, ".img-", 5) == 0;
    if (d)
        closedir(d);
    return found;
}

START_TEST(signal_during_write_leaves_no_temporary_file)
{
    make_tmpdir();
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0)
        write_forever(tmpdir);
    ck_assert_int_gt(pid, 0);
    for (int tries = 0; !temporary_file_in(tmpdir) && tries < 2000; tries++)
        usleep(1000); /* until a temporary file exists */
    ck_assert_msg(temporary_file_in(tmpdir), "no temporary file appeared");
    kill(pid, signals_to_test[_i]);
    int status;
    waitpid(pid, &status, 0);
    ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == signals_to_test[_i], "did not die of the signal");
    ck_assert_msg(!temporary_file_in(tmpdir), "a temporary file was left behind");
    remove_tmpdir();
}
END_TEST

/* A signal the caller ignores (HUP under nohup) arriving during the write:
 * ignored, as asked, and the image is written whole. */
START_TEST(ignored_signal_during_write_loses_nothing)
{
    make_tmpdir();
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGHUP, SIG_IGN);
        image big;
        char path[300], err[IMAGE_ERROR_SIZE];
        snprintf(path, sizeof path, "%s/big.ppm", tmpdir);
        if (image_alloc(&big, 4096, 4096) != 0)
            _exit(3);
        for (int i = 0; i < 20; i++)
            if (image_write(&big, path, err, sizeof err) != 0) {
                fprintf(stderr, "%s\n", err);
                _exit(4);
            }
        _exit(0);
    }
    ck_assert_int_gt(pid, 0);
    int status = 0, sent = 0;
    while (waitpid(pid, &status, WNOHANG) == 0) {
        if (temporary_file_in(tmpdir))
            sent += kill(pid, SIGHUP) == 0;
        usleep(500);
    }
    ck_assert_msg(sent > 0, "no HUP was sent during a write");
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the writer failed (status %d) after %d HUPs",
                  status, sent);
    ck_assert_msg(!temporary_file_in(tmpdir), "a temporary file was left behind");
    remove_tmpdir();
}
END_TEST

/* A file size limit (ulimit -f) is a write error, not death by SIGXFSZ: the
 * write fails with its reason and the temporary file is removed. */
static void write_under_16_kb_limit(const char *dir)
{
    signal(SIGXFSZ, SIG_DFL);
    setrlimit(RLIMIT_FSIZE, &(struct rlimit){16384, 16384});
    image img;
    char path[300], err[IMAGE_ERROR_SIZE];
    snprintf(path, sizeof path, "%s/big.ppm", dir);
    if (image_alloc(&img, 512, 512) != 0)
        _exit(3);
    int rc = image_write(&img, path, err, sizeof err);
    _exit(rc != 0 && strstr(err, "File too large") ? 0 : 5);
}

START_TEST(file_size_limit_is_a_write_error)
{
    make_tmpdir();
    int status = in_child(write_under_16_kb_limit, tmpdir);
    ck_assert_msg(status == 0, "the writer's status %d, want 0: a 'File too large' error (%d: killed by SIGXFSZ)",
                  status, 128 + SIGXFSZ);
    ck_assert_msg(!temporary_file_in(tmpdir), "a temporary file was left behind");
    remove_tmpdir();
}
END_TEST

START_TEST(cpu_name_is_known)
{
    const char *name = host_cpu_name();
    ck_assert(strlen(name) > 0);
    ck_assert_ptr_null(strchr(name, '\n'));
}
END_TEST

/* A speedup compares one work: a stage tagged work=LABEL is timed against
 * the first row of its own work (marked *), never against the first stage's;
 * "work=" inside another tag is not the tag. */
typedef struct {
    stage_info info;
} work_stage;
static const work_stage work_stages[] = {
    {{"first", "untagged", .where = STAGE_CPU}},
    {{"faster", "untagged, twice as fast", .where = STAGE_CPU, .tags = "racy"}},
    {{"float-a", "another precision", .where = STAGE_GPU, .tags = "mse-ladder work=float"}},
    {{"float-b", "the same, four times as fast", .where = STAGE_GPU, .tags = "work=float ptx-mix=1"}},
    {{"lookalike", "a tag ending in work=", .where = STAGE_GPU, .tags = "nowork=less"}},
};
static const cli_spec work_spec = {.program = "worktest", .summary = "work tags", CLI_STAGE_TABLE(work_stages)};

START_TEST(speedups_compare_one_work)
{
    cli_options opt = {0};
    char *argv[] = {"worktest", NULL}, buf[32];
    cli_parse(&work_spec, &opt, 1, argv);
    ck_assert_str_eq(stage_work("float-a", buf, sizeof buf), "float");
    ck_assert_str_eq(stage_work("float-b", buf, sizeof buf), "float");
    ck_assert_str_eq(stage_work("faster", buf, sizeof buf), "");
    ck_assert_str_eq(stage_work("lookalike", buf, sizeof buf), "");
    ck_assert_str_eq(stage_work("no-such-stage", buf, sizeof buf), "");
    report rep;
    report_init(&rep, "worktest", "w", NULL, 1);
    const char *names[] = {"first", "faster", "float-a", "float-b", "lookalike", "float-b"};
    double ms[] = {80, 40, 10, 2.5, 20, 1};
    for (int i = 0; i < 6; i++) /* the last: a checked row in another unit (ch08's MSE rows): no speedup */
        report_add(&rep, (report_entry){.stage = names[i], .threads = 1, .ms = ms[i], .value = 1,
                                        .unit = i < 5 ? "u" : "other", .ok = REPORT_OK, .device = "cpu"});
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    ck_assert_ptr_nonnull(f);
    report_print(&rep, f);
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_msg(strstr(text, " 2.00x ") && strstr(text, " 4.00x ") && strstr(text, " 1.00x* ") &&
                  strstr(text, " 4.00x* ") && !strstr(text, " 8.00x") && !strstr(text, "32.00x") &&
                  !strstr(text, "10.00x") && !strstr(text, "80.00x"), "%s", text);
    ck_assert_msg(strstr(text, "work=: float)"), "no footnote naming the work: %s", text);
    free(text);
}
END_TEST

/* A chapter's word options (.choices): any other word is refused while
 * parsing, with exit 2 and one line naming the choices ("yes or no", "a, b
 * or c"); a choice is taken and found again by cli_choice_index. */
static const char *choice_ceiling = "yes", *choice_math;
static const char *const choice_maths[] = {"strict", "fma", "fast"};
static const cli_option choice_options[] = {
    {"ceiling", "yes|no", "measure", .text = &choice_ceiling, .choices = cli_yes_no, .choice_count = 2},
    {"math", "M", "arithmetic", .text = &choice_math, .choices = choice_maths, .choice_count = 3},
};
static const cli_spec choice_spec = {.program = "choicetest", .summary = "word options",
                                     CLI_STAGE_TABLE(work_stages), CLI_OPTION_TABLE(choice_options)};

/* Runs body(arg) in a child whose stderr is read into err (size bytes,
 * NUL-ended); returns the child's exit status, or -1. */
typedef void child_body(const void *arg);
static int in_child_stderr(child_body *body, const void *arg, char *err, size_t size)
{
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 2);
        body(arg);
        _exit(0);
    }
    close(fds[1]);
    size_t len = 0; /* stderr is unbuffered: the line may come in several writes */
    for (ssize_t n; len < size - 1 && (n = read(fds[0], err + len, size - 1 - len)) > 0;)
        len += (size_t)n;
    err[len] = '\0';
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The test passes when body, in a child of its own, exits 0; else it fails
 * with the child's status and what the child said on stderr. */
static void child_passes(child_body *body)
{
    char err[512];
    int status = in_child_stderr(body, NULL, err, sizeof err);
    ck_assert_msg(status == 0, "exit %d: %s", status, err);
}

/* cli_parse of a NULL-ended argv; exits 0 if the two words are then "no"
 * and "fma", 9 if they are others. */
static void parse_choices_body(const void *arg)
{
    char **argv = (char **)arg;
    int argc = 0;
    while (argv[argc])
        argc++;
    cli_options opt = {0};
    cli_parse(&choice_spec, &opt, argc, argv);
    _exit(strcmp(choice_ceiling, "no") == 0 && choice_math && strcmp(choice_math, "fma") == 0 ? 0 : 9);
}

static int parse_choices(char **argv, char *err, size_t size)
{
    return in_child_stderr(parse_choices_body, argv, err, size);
}

START_TEST(word_options_take_only_their_choices)
{
    char err[1024];
    char *good[] = {"choicetest", "--ceiling", "no", "--math=fma", NULL};
    ck_assert_int_eq(parse_choices(good, err, sizeof err), 0);
    char *maybe[] = {"choicetest", "--ceiling", "maybe", NULL};
    ck_assert_int_eq(parse_choices(maybe, err, sizeof err), 2);
    ck_assert_msg(strstr(err, "choicetest: error: --ceiling 'maybe': yes or no\n"), "%s", err);
    char *exact[] = {"choicetest", "--math", "FMA", NULL}; /* a choice is a word as written */
    ck_assert_int_eq(parse_choices(exact, err, sizeof err), 2);
    ck_assert_msg(strstr(err, "--math 'FMA': strict, fma or fast\n"), "%s", err);
    ck_assert_int_eq(cli_choice_index(choice_maths, 3, "fast"), 2);
    ck_assert_int_eq(cli_choice_index(choice_maths, 3, "strict"), 0);
    ck_assert_int_eq(cli_choice_index(choice_maths, 3, "fas"), -1);
    ck_assert_int_eq(cli_choice_index(choice_maths, 3, NULL), -1);
    ck_assert_int_eq(cli_choice_index(cli_yes_no, 2, "no"), 1);
}
END_TEST

/* cli_selected_where counts the stages that run on one side: all of them,
 * or the one asked for where it runs there. */
START_TEST(selected_where_counts_the_stages_that_run)
{
    cli_options all = {.stage_index = -1}, one_gpu = {.stage_index = 3}, one_cpu = {.stage_index = 1};
    ck_assert_int_eq(cli_selected_where(&work_spec, &all, STAGE_CPU), 2);
    ck_assert_int_eq(cli_selected_where(&work_spec, &all, STAGE_GPU), 3);
    ck_assert_int_eq(cli_selected_where(&work_spec, &all, STAGE_ALL_GPUS), 0);
    ck_assert_int_eq(cli_selected_where(&work_spec, &one_gpu, STAGE_GPU), 1);
    ck_assert_int_eq(cli_selected_where(&work_spec, &one_gpu, STAGE_CPU), 0);
    ck_assert_int_eq(cli_selected_where(&work_spec, &one_cpu, STAGE_CPU), 1);
    ck_assert_int_ge(cli_online_cpus(), 1);
}
END_TEST

/* A stage checked at every run (check_each_run) whose check finds nothing to
 * say has no note: not what the result held before. */
static void quiet_run(void *context) { (void)context; }
static int quiet_check(void *context, char *note, size_t size)
{
    (void)context, (void)note, (void)size;
    return 1;
}

/* In a child of its own: measure_stage refuses to run in a process whose
 * command line was parsed and whose work has not begun (cli.h), and under
 * CK_FORK=no (make sanitize) an earlier test's cli_parse stays in force. The
 * child exits 0 when the note came back empty and the check ok, else 1 and
 * says what it got. */
static void note_body(const void *arg)
{
    (void)arg;
    measure_result m;
    memset(&m, 'X', sizeof m);
    m.note[sizeof m.note - 1] = '\0';
    cli_begin_work(&work_spec);
    measure_stage(&(measure_plan){.run = quiet_run, .check = quiet_check, .repeat = 2, .check_each_run = 1}, &m);
    if (m.ok != REPORT_OK || m.note[0] != '\0') {
        fprintf(stderr, "ok %d, note '%.40s'", m.ok, m.note);
        _exit(1);
    }
    _exit(0);
}

START_TEST(each_run_checked_note_starts_empty)
{
    child_passes(note_body);
}
END_TEST

/* A ruler takes turns with the stage: stage, its check, ruler, run after run,
 * each timed by the plan's timer; the share is ruler ms over stage ms run for
 * run (the median of the pairs, not of two medians), and the stage's own times
 * are its own. Without a ruler the share is all 0. The scripted timer hands
 * out the times; the log keeps the order. */
static char ruler_log[32];
static int ruler_step;
static void log_stage(void *context) { (void)context, strcat(ruler_log, "S"); }
static double log_ruler(void *context) { (void)context, strcat(ruler_log, "R"); return 7; }
static int log_check(void *context, char *note, size_t size)
{
    (void)context, (void)note, (void)size;
    strcat(ruler_log, "C");
    return 1;
}
static double scripted_ms(measure_fn *run, void *context)
{
    static const double ms[] = {2, 1, 4, 1, 8, 6}; /* stage, ruler, stage, ruler, stage, ruler */
    run(context);
    return ms[ruler_step++ % 6];
}

static void ruler_body(const void *arg)
{
    (void)arg;
    measure_result m, none;
    cli_begin_work(&work_spec);
    measure_stage(&(measure_plan){.run = log_stage, .check = log_check, .timer = scripted_ms, .repeat = 3,
                                  .check_each_run = 1, .ruler = log_ruler, .ruler_work = 7}, &m);
    if (strcmp(ruler_log, "SCRSCRSCR") != 0 || m.share.median != 0.5 || m.share.lo != 0.25 || m.share.hi != 0.75 ||
        m.share.runs != 3 || m.times.median != 4 || m.times.lo != 2 || m.times.hi != 8)
        fprintf(stderr, "order %s, share %g (%g-%g, %d), stage %g (%g-%g)", ruler_log, m.share.median, m.share.lo,
                m.share.hi, m.share.runs, m.times.median, m.times.lo, m.times.hi), _exit(1);
    ruler_log[0] = '\0', ruler_step = 0; /* checked before and after, the ruler after each timed run */
    measure_stage(&(measure_plan){.run = log_stage, .check = log_check, .timer = scripted_ms, .repeat = 2,
                                  .ruler = log_ruler, .ruler_work = 7}, &m);
    if (strcmp(ruler_log, "SCSRSRSC") != 0 || m.share.runs != 2 || m.share.median != 0.375 || m.ok != 1 ||
        m.ruler_counted != 7)
        fprintf(stderr, "checked before and after: order %s, share %g of %d", ruler_log, m.share.median,
                m.share.runs), _exit(1);
    ruler_log[0] = '\0', ruler_step = 0;
    measure_stage(&(measure_plan){.run = log_stage, .check = log_check, .timer = scripted_ms, .repeat = 2}, &none);
    if (strcmp(ruler_log, "SCSSSC") != 0 || none.share.median != 0 || none.share.runs != 0)
        fprintf(stderr, "no ruler: order %s, share %g of %d", ruler_log, none.share.median, none.share.runs), _exit(1);
    _exit(0);
}

START_TEST(ruler_takes_turns_with_the_stage)
{
    child_passes(ruler_body);
}
END_TEST

/* A ruler counts the work it did, and a run that counted other work than the
 * plan asked fails the row (its share would compare unlike work), with what
 * it counted in the note and in ruler_counted, though the stage's own checks
 * pass: after the check's own note where it wrote one (ch07's always does),
 * alone where it wrote none, and with nothing to check at all. The second
 * run's ruler strays here, the third's by more: the first stray is the one
 * kept. The result is poisoned before each plan, so no case passes on the
 * one before it. */
static int stray_runs;
static double straying_ruler(void *context)
{
    (void)context;
    stray_runs++;
    return stray_runs == 1 ? 96 : stray_runs == 2 ? 48 : 12;
}

static int noted_check(void *context, char *note, size_t size)
{
    (void)context;
    snprintf(note, size, "max error 1e-6");
    return 1;
}

static void stray_body(const void *arg)
{
    (void)arg;
    static measure_check_fn *const checks[] = {noted_check, log_check, NULL};
    static const char *const notes[] = {"max error 1e-6; the ruler: counted 48, not the 96 asked",
                                        "the ruler: counted 48, not the 96 asked",
                                        "the ruler: counted 48, not the 96 asked"};
    cli_begin_work(&work_spec);
    for (int i = 0; i < 3; i++) {
        measure_result m;
        memset(&m, 0xA5, sizeof m);
        m.note[sizeof m.note - 1] = '\0';
        stray_runs = 0, ruler_log[0] = '\0', ruler_step = 0;
        measure_stage(&(measure_plan){.run = log_stage, .check = checks[i], .timer = scripted_ms, .repeat = 3,
                                      .check_each_run = checks[i] == NULL, .ruler = straying_ruler,
                                      .ruler_work = 96}, &m);
        if (m.ok != REPORT_FAIL || m.ruler_counted != 48 || strncmp(m.note, notes[i], strlen(notes[i])) != 0 ||
            m.share.runs != 3)
            fprintf(stderr, "case %d: ok %d, counted %g, note \"%s\", %d pairs", i, m.ok, m.ruler_counted, m.note,
                    m.share.runs), _exit(1);
    }
    _exit(0);
}

START_TEST(a_ruler_that_counts_other_work_fails_the_row)
{
    child_passes(stray_body);
}
END_TEST

/* The host's read ceiling as a row: a reference (check n/a) in GB/s, on its
 * threads, its note naming the loads and the runs. */
START_TEST(cpu_read_ceiling_row_is_a_reference)
{
    report rep;
    report_init(&rep, "ch06", "n=1", NULL, 1);
    cpu_ceiling c = {.rate = 12.5, .ms = 3.0, .isa = "avx2", .threads = 2, .one_pass = 10.3, .loads = "with"};
    cpu_read_ceiling_row(&rep, &c, 5);
    ck_assert_int_eq(rep.count, 1);
    ck_assert_str_eq(rep.rows[0].stage, "ceiling-cpu-read");
    ck_assert_str_eq(rep.rows[0].unit, "GB/s");
    ck_assert_int_eq(rep.rows[0].ok, REPORT_NO_CHECK);
    ck_assert_int_eq(rep.rows[0].threads, 2);
    ck_assert_double_eq(rep.rows[0].value, 12.5);
    ck_assert_double_eq(rep.rows[0].ms, 3.0);
    ck_assert_msg(strstr(rep.rows[0].note, "avx2 loads, 1 MiB pieces taken as threads are free, the best of 5 runs of at least 50 ms, with and without a "
                                            "software prefetch of every line 8 KiB ahead (faster with); one pass timed as a stage "
                                            "(median of 5): 10.3 GB/s"), "%s",
                  rep.rows[0].note);
    c.loads = NULL; /* plain C tries no prefetch: the note must not say it did */
    cpu_read_ceiling_row(&rep, &c, 5);
    ck_assert_msg(strstr(rep.rows[1].note, "at least 50 ms, plain loads only (no prefetch variant in plain C); one "
                                            "pass") && !strstr(rep.rows[1].note, "with and without"), "%s",
                  rep.rows[1].note);
}
END_TEST

/* cli_begin_work: a refusal before it is a usage error (2, the usage line);
 * after it, an internal error (70) that says so, without the usage; work that
 * needs it (measure_stage) without it is 70 too; a new cli_parse starts over. */
static void gate_no_work(void *context) { (void)context; }

static void gate_body(const void *arg)
{
    int which = *(const int *)arg;
    cli_options opt = {0};
    char *argv[] = {"worktest", NULL};
    cli_parse(&work_spec, &opt, 1, argv);
    if (which == 1 || which == 3)
        cli_begin_work(&work_spec);
    if (which == 3)
        cli_parse(&work_spec, &opt, 1, argv); /* a new command line: checked afresh */
    if (which == 2) {
        measure_result m;
        measure_stage(&(measure_plan){.run = gate_no_work, .repeat = 1}, &m);
        _exit(0);
    }
    cli_usage_error(&work_spec, "--thing '%s' is bad", "x");
}

static int gate_scenario(int which, char *err, size_t size)
{
    return in_child_stderr(gate_body, &which, err, size);
}

START_TEST(refusal_after_work_began_is_an_internal_error)
{
    char err[1024];
    ck_assert_int_eq(gate_scenario(0, err, sizeof err), CLI_EXIT_USAGE);
    ck_assert_msg(strncmp(err, "worktest: error: --thing 'x' is bad\nusage: worktest", 51) == 0, "%s", err);
    ck_assert_int_eq(gate_scenario(1, err, sizeof err), CLI_EXIT_LATE);
    ck_assert_str_eq(err, "worktest: internal error: bad input detected after work began: --thing 'x' is bad\n");
    ck_assert_int_eq(gate_scenario(2, err, sizeof err), CLI_EXIT_LATE);
    ck_assert_msg(strstr(err, "worktest: internal error: a stage was measured before cli_begin_work") == err, "%s",
                  err);
    ck_assert_int_eq(gate_scenario(3, err, sizeof err), CLI_EXIT_USAGE);
}
END_TEST

/* ---------------------------------------------------------------- team.h */
static atomic_int member_calls[TEAM_MAX];
static atomic_int bad_team_size;

static void count_member(void *context, int index, int threads)
{
    if (threads != *(int *)context)
        atomic_fetch_add(&bad_team_size, 1);
    atomic_fetch_add(&member_calls[index], 1);
}

/* One run of `threads`: every member called once, none beyond the team. */
static void check_one_team_run(int threads)
{
    for (int t = 0; t < TEAM_MAX; t++)
        atomic_store(&member_calls[t], 0);
    team_run(threads, count_member, &threads);
    for (int t = 0; t < threads + 3 && t < TEAM_MAX; t++)
        ck_assert_msg(atomic_load(&member_calls[t]) == (t < threads), "team of %d: member %d ran %d times", threads,
                      t, atomic_load(&member_calls[t]));
    ck_assert_int_eq(atomic_load(&bad_team_size), 0);
}

/* The kept threads serve teams that grow and shrink, and a forked child
 * (which has none of them) starts its own. */
START_TEST(team_runs_each_member_once_at_any_size_and_after_fork)
{
    static const int sizes[] = {1, 5, 3, 7, 7, 2, 33};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        check_one_team_run(sizes[k]);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int threads = 6;
        team_run(threads, count_member, &threads);
        int ok = 1;
        for (int t = 0; t < 6; t++)
            ok &= atomic_load(&member_calls[t]) >= 1;
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "a team in a forked child: status %d", status);
    check_one_team_run(4);
}
END_TEST

static void note_thread(void *context, int index, int threads)
{
    if (index == threads - 1) /* the last member only: one writer */
        *(pthread_t *)context = pthread_self();
}

/* A team of one is the calling thread (a one-thread row and its ruler time
 * their work, not a pool thread's wake-up); a team of two is not. */
START_TEST(a_team_of_one_is_the_calling_thread)
{
    pthread_t ran = 0;
    team_run(1, note_thread, &ran);
    ck_assert_msg(pthread_equal(ran, pthread_self()), "a team of one ran on another thread");
    team_run(2, note_thread, &ran);
    ck_assert_msg(!pthread_equal(ran, pthread_self()), "a team of two ran on the calling thread");
}
END_TEST

static atomic_int row_calls[1031];

static void count_row(void *context, int row)
{
    (void)context;
    atomic_fetch_add(&row_calls[row], 1);
}

/* Rows on demand: every row once, whatever the team (more threads than rows too). */
START_TEST(team_rows_renders_each_row_once)
{
    static const int cases[][2] = {{1, 1}, {3, 1031}, {8, 5}, {2, 0}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int threads = cases[k][0], rows = cases[k][1];
        for (int r = 0; r < 1031; r++)
            atomic_store(&row_calls[r], 0);
        progress bar;
        progress_begin(&bar, "rows", rows, 1);
        team_rows(threads, rows, count_row, NULL, &bar);
        progress_end(&bar);
        for (int r = 0; r < 1031; r++)
            ck_assert_msg(atomic_load(&row_calls[r]) == (r < rows), "%d threads, %d rows: row %d ran %d times",
                          threads, rows, r, atomic_load(&row_calls[r]));
    }
}
END_TEST

/* The progress estimate's arithmetic (not its accuracy, which is a timing):
 * the small render's CPU time scaled by the work and divided by the even
 * share of the CPUs among the runnable threads, less what a hypervisor took;
 * the time left from the rate seen, steadied by the expected whole. */
START_TEST(progress_estimate_arithmetic)
{
    ck_assert_double_eq_tol(progress_expected_seconds(1.5, 64, 2, 1, 0), 96, 1e-9);   /* alone */
    ck_assert_double_eq_tol(progress_expected_seconds(1.5, 64, 2, 2, 0), 96, 1e-9);   /* a CPU each */
    ck_assert_double_eq_tol(progress_expected_seconds(1.5, 64, 2, 3, 0), 144, 1e-9);  /* 2/3 of one */
    ck_assert_double_eq_tol(progress_expected_seconds(1.5, 64, 2, 4, 0), 192, 1e-9);  /* half of one */
    ck_assert_double_eq_tol(progress_expected_seconds(1.5, 64, 0, 4, 0), 96, 1e-9);   /* CPUs unknown */
    ck_assert_double_eq_tol(progress_expected_seconds(1.5, 64, 2, 1, .25), 128, 1e-9); /* a quarter stolen */
    ck_assert_double_eq_tol(progress_expected_seconds(1.5, 64, 2, 3, .25), 192, 1e-9);
    ck_assert_double_eq_tol(progress_expected_seconds(1.5, 64, 2, 1, 1), 96, 1e-9); /* nonsense steal ignored */

    ck_assert_double_eq_tol(progress_seconds_left(0, 10, .25), 30, 1e-9); /* no expectation: the rate seen */
    ck_assert_double_eq_tol(progress_seconds_left(0, 10, 0), 0, 1e-9);
    ck_assert_double_eq_tol(progress_seconds_left(100, 0, 0), 100, 1e-9); /* nothing seen yet: the expectation */
    ck_assert_double_eq_tol(progress_seconds_left(100, 25, .25), 75, 1e-9); /* on schedule */
    ck_assert_double_eq_tol(progress_seconds_left(100, 80, 1), 0, 1e-9);
    /* Half the expected rate so far: between the two, nearer the rate seen as the run goes on. */
    double early = progress_seconds_left(100, 20, .1), late = progress_seconds_left(100, 100, .5);
    ck_assert_msg(early > 90 && early < 180, "10%% after 20 s of an expected 100 s: %g s left", early);
    ck_assert_msg(late > 50 && late < 100, "50%% after 100 s of an expected 100 s: %g s left", late);
    ck_assert_msg((late - 50) / 50 > (early - 90) / 90, "the rate seen gains no weight as the run goes on");
}
END_TEST

/* The ruler's pass (cpu_read_ceiling_pass) by every kernel this CPU can run,
 * with and without the prefetch: it counts every byte once, folds a buffer of
 * zeros to 0, and a single byte set (every byte of a buffer up to 12 KiB + 5,
 * past the prefetch distance; in a larger one, the first and last 300, either
 * side of every piece's end, a page's end and the prefetch distance) to not
 * 0: a kernel that skips one of those bytes, or stops short of the tail,
 * fails. buf holds 7s on entry and on return; it says what failed on stderr
 * and returns 0. */
static int ruler_reads_every_byte(const cpu_ceiling *c, char *buf, size_t bytes)
{
    static const char *isas[] = {"scalar", "avx2", "avx512"};
    enum { EVERY_BYTE_UP_TO = 12 * 1024 + 5 };
    static size_t at[EVERY_BYTE_UP_TO];
    size_t places = 0;
    if (bytes > (size_t)16 << 20) /* at most 16 pieces' ends below */
        return fprintf(stderr, "ruler_reads_every_byte: %zu bytes is more than it was written for", bytes), 0;
    for (size_t k = 0; bytes <= EVERY_BYTE_UP_TO && k < bytes; k++)
        at[places++] = k;
    for (size_t k = 0; bytes > EVERY_BYTE_UP_TO && k < 300; k++) /* the loops' ends and tails */
        at[places++] = k, at[places++] = bytes - 1 - k;
    for (size_t piece = (size_t)1 << 20; piece < bytes; piece += (size_t)1 << 20) /* either side of a piece's end */
        for (size_t k = piece - 2; k < piece + 2; k++)
            at[places++] = k;
    const size_t more[] = {4095, 4096, 8191, 8192, 8256}; /* a page's end, the prefetch distance */
    for (size_t k = 0; bytes > EVERY_BYTE_UP_TO && k < sizeof more / sizeof more[0]; k++)
        at[places++] = more[k];
    const char *widest = cpu_widest_isa();
    int count = 1; /* none wider than this CPU has */
    while (count < 3 && strcmp(isas[count - 1], widest) != 0)
        count++;
    memset(buf, 0, bytes);
    for (int i = 0; i < count; i++)
        for (int with = 0; with < 2; with++) {
            cpu_ceiling ruler = *c;
            ruler.isa = isas[i], ruler.loads = with ? "with" : "without";
            uint64_t folded = 1;
            size_t read = cpu_read_ceiling_pass(&ruler, buf, bytes, &folded);
            if (read != bytes || folded != 0)
                return fprintf(stderr, "%s, %s the prefetch, %zu bytes: counted %zu, zeros folded to %llx", ruler.isa,
                               ruler.loads, bytes, read, (unsigned long long)folded), 0;
            for (size_t k = 0; k < places; k++) {
                if (at[k] >= bytes)
                    continue;
                buf[at[k]] = 0x5a;
                cpu_read_ceiling_pass(&ruler, buf, bytes, &folded);
                buf[at[k]] = 0;
                if (folded == 0)
                    return fprintf(stderr, "%s, %s the prefetch, %zu bytes: the byte at %zu was not read", ruler.isa,
                                   ruler.loads, bytes, at[k]), 0;
            }
        }
    memset(buf, 7, bytes);
    return 1;
}

/* The host's ceilings count the work their threads did, pieces taken on
 * demand: every byte of every pass read once, every piece of FMA chains run
 * once, whatever the size (odd, smaller than a piece, empty) and the team.
 * In a child of its own, so the team's threads end with it (under CK_FORK=no
 * they would outlive the test, and the leak checker of a later test's child
 * would find them); it exits 0, or 1 and says what it counted. */
static void ceilings_body(const void *arg)
{
    (void)arg;
    static const size_t sizes[] = {((size_t)3 << 20) + 17, 1, 0};
    static const int teams[] = {3, 2, 1};
    char *buf = malloc(sizes[0]);
    if (!buf)
        fprintf(stderr, "no memory"), _exit(1);
    memset(buf, 7, sizes[0]);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        cpu_ceiling c = cpu_read_ceiling(buf, sizes[k], teams[k], 1);
        int whole = sizes[k] == 0 || (c.expected > 0 && fmod(c.expected, (double)sizes[k]) == 0);
        int one_pass_ok = sizes[k] == 0 ? c.one_pass == 0 : c.one_pass > 0 && isfinite(c.one_pass);
        if (c.work != c.expected || !whole || c.ms < CPU_CEILING_MIN_MS || !one_pass_ok)
            fprintf(stderr, "%zu bytes, %d threads: read %.0f bytes of %.0f in %.1f ms, one pass %g GB/s", sizes[k],
                    teams[k], c.work, c.expected, c.ms, c.one_pass), _exit(1);
        if (!ruler_reads_every_byte(&c, buf, sizes[k]))
            _exit(1);
        if (sizes[k] == 1 && !ruler_reads_every_byte(&c, buf, 12 * 1024 + 5)) /* every byte, on c's team */
            _exit(1);
    }
    free(buf);
    cpu_ceiling f = cpu_fma_ceiling(3, 1);
    if (f.work != f.expected || !(f.expected > 0) || !(f.rate > 0 && isfinite(f.rate)))
        fprintf(stderr, "FMA: %.0f flops counted of %.0f, rate %g", f.work, f.expected, f.rate), _exit(1);
    /* The ruler's pass: the flops asked for, to the nearest iteration (an
     * iteration: 12 FMAs of `lanes` lanes, 2 flops each), whatever the count
     * against its pieces of 4096 iterations; none with no ceiling or no work. */
    static const long iterations[] = {1, 4095, 4096, 4097, 3 * 4096 + 5};
    double per_iteration = 2.0 * 12 * (strcmp(f.isa, "avx512") == 0 ? 16 : strcmp(f.isa, "avx2") == 0 ? 8 : 1);
    for (size_t k = 0; k < sizeof iterations / sizeof iterations[0]; k++) {
        double asked = ((double)iterations[k] + (k % 2 ? 0.4 : -0.4)) * per_iteration;
        double done = cpu_fma_ceiling_pass(&f, asked);
        if (done != (double)iterations[k] * per_iteration)
            fprintf(stderr, "FMA pass: %.0f flops asked, %.0f counted", asked, done), _exit(1);
    }
    if (cpu_fma_ceiling_pass(&(cpu_ceiling){0}, 1e6) != 0 || cpu_fma_ceiling_pass(&f, 0) != 0)
        fprintf(stderr, "FMA pass: work counted with no ceiling or none asked"), _exit(1);
    /* Fewer flops than an iteration, or halfway between two (ch07's row
     * checks what its ruler counted against this promise): at least one
     * whole iteration, half a one rounding up; the iteration as the ruler's
     * check reads it, and none without a ceiling. */
    static const double fractions[] = {0.01, 0.49, 0.5, 1.49, 1.5, 4096.51};
    static const double whole[] = {1, 1, 1, 1, 2, 4097};
    for (size_t k = 0; k < sizeof fractions / sizeof fractions[0]; k++) {
        double done = cpu_fma_ceiling_pass(&f, fractions[k] * per_iteration);
        if (done != whole[k] * per_iteration)
            fprintf(stderr, "FMA pass of %g iterations: %.0f flops counted, %.0f wanted", fractions[k], done,
                    whole[k] * per_iteration), _exit(1);
    }
    if (cpu_fma_iteration_flops(&f) != per_iteration || cpu_fma_iteration_flops(&(cpu_ceiling){0}) != 0)
        fprintf(stderr, "FMA: an iteration of %.0f flops said, %.0f wanted", cpu_fma_iteration_flops(&f),
                per_iteration), _exit(1);
    _exit(0);
}

START_TEST(cpu_ceilings_count_every_piece_once)
{
    child_passes(ceilings_body);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("common");
    TCase *tc = tcase_create("all");
    tcase_add_test(tc, timer_is_monotonic);
    tcase_add_test(tc, cpu_ceilings_count_every_piece_once);
    tcase_add_test(tc, median_odd_even_one_zero);
    tcase_add_test(tc, image_alloc_refuses_bad_sizes);
    tcase_add_loop_test(tc, ppm_round_trip, 0, sizeof round_trip_sizes / sizeof round_trip_sizes[0]);
    tcase_add_test(tc, ppm_reader_takes_any_header_whitespace_and_comments);
    tcase_add_test(tc, ppm_reader_refuses_bad_files);
    tcase_add_test(tc, write_into_missing_folder_fails_and_leaves_nothing);
    tcase_add_test(tc, png_written_or_refused_clearly);
    tcase_add_test(tc, stage_image_written_and_read_back);
    tcase_add_test(tc, png_reader_refuses_what_is_not_png);
    tcase_add_test(tc, psnr_of_identical_images_is_infinite);
    tcase_add_test(tc, known_perturbation_gives_known_psnr);
    tcase_add_test(tc, parser_refuses_bad_numbers);
    tcase_add_test(tc, parser_accepts_good_numbers_inside_range);
    tcase_add_test(tc, writable_path_check);
    tcase_add_test(tc, csv_rows_have_the_design_format);
    tcase_add_test(tc, csv_rows_carry_their_provenance);
    tcase_add_test(tc, cpu_name_is_known);
    tcase_add_test(tc, speedups_compare_one_work);
    tcase_add_test(tc, word_options_take_only_their_choices);
    tcase_add_test(tc, selected_where_counts_the_stages_that_run);
    tcase_add_test(tc, each_run_checked_note_starts_empty);
    tcase_add_test(tc, ruler_takes_turns_with_the_stage);
    tcase_add_test(tc, a_ruler_that_counts_other_work_fails_the_row);
    tcase_add_test(tc, cpu_read_ceiling_row_is_a_reference);
    tcase_add_test(tc, refusal_after_work_began_is_an_internal_error);
    tcase_add_test(tc, csv_write_failures_exit_1);
    tcase_add_test(tc, csv_header_checked_and_rows_never_glued);
    tcase_add_test(tc, concurrent_writers_write_one_header);
    tcase_add_test(tc, long_names_write_and_failures_keep_the_old_file);
    tcase_add_test(tc, ignored_signal_during_write_loses_nothing);
    tcase_add_test(tc, team_runs_each_member_once_at_any_size_and_after_fork);
    tcase_add_test(tc, a_team_of_one_is_the_calling_thread);
    tcase_add_test(tc, team_rows_renders_each_row_once);
    tcase_add_test(tc, progress_estimate_arithmetic);
    tcase_add_test(tc, csv_short_write_is_rolled_back);
    tcase_add_test(tc, scratch_folder_removed_after_a_failed_test);
#ifndef __SANITIZE_ADDRESS__
    tcase_add_test(tc, image_too_big_for_memory_says_out_of_memory);
#endif
    tcase_add_test(tc, file_size_limit_is_a_write_error);
    tcase_add_loop_test(tc, signal_during_write_leaves_no_temporary_file, 0,
                        sizeof signals_to_test / sizeof signals_to_test[0]);
    suite_add_tcase(s, tc);
    return harness_run(s, "common", 0);
}
