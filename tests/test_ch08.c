/* test_ch08.c - ch08's scene parser, and every radiance function of the path
 * tracer on the CPU (the GPU kernels' own code, compiled for the host):
 * against analytic cases, against each other's statistics, and against the
 * converged reference image. Fixed seeds throughout.
 *
 * The GPU stages' own check against the CPU (problem.c's spot check) runs path.h
 * on both sides, so a bug in path.h passes it. The check that shares no code
 * with it is the noise test against the committed reference image: with a
 * GPU, every GPU stage of ./ch08 is run where that test applies (128x96, 64
 * spp) and must pass it; on any machine, a planted bug in path.h (chapter.mk's
 * sed, tests/ch08_planted.c) shows that the same-code comparison passes such a
 * bug and the noise test fails it. */
#include "ch08_planted.h"
#include "harness.h"
#include "render.h"
#include "linear.h"
#include "scene.h"

#include "cpu_ceiling.h"
#include "image.h"
#include "status.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef REFERENCE_DIR
#define REFERENCE_DIR "data/reference"
#endif
#ifndef PROGRAM_DIR /* make sanitize's build: run from the repository's root */
#define PROGRAM_DIR "."
#endif
#define DEFAULT_SCENE REFERENCE_DIR "/../scenes/cornell.txt"

/* path.h in float, here too: to render with the surface offset switched off. */
typedef float real;
#define R(x) ((float)(x))
#include "path.h"

/* Every kernel's code (KERNEL_CAPPED_F64 is KERNEL_REGENERATE_F64's code
 * under a register cap: on the CPU the same function). */
static const int all_kernels[] = {KERNEL_RECURSIVE_F64, KERNEL_LOOP_F64, KERNEL_REGENERATE_F64,
                                  KERNEL_REGENERATE_F32, KERNEL_LIGHT_F32};
#define KERNELS (int)(sizeof all_kernels / sizeof all_kernels[0])

static void load_default(scene *s)
{
    char err[SCENE_ERROR_SIZE];
    ck_assert_msg(scene_load(DEFAULT_SCENE, s, err, sizeof err) == 0, "%s", err);
}

static void render_with(int kernel, const scene *sc, image *img, int spp, unsigned int seed, long *bad)
{
    for (int row = 0; row < img->height; row++)
        for (int col = 0; col < img->width; col++)
            *bad += !cpu_kernel_pixel(kernel, sc, col, row, img->width, img->height, spp, seed,
                                      img->rgb + 3 * ((size_t)row * img->width + col));
}

static double mse(const image *a, const image *b)
{
    image_diff d;
    ck_assert_int_eq(image_compare(a, b, &d), 0);
    return d.mse;
}

/* ---------------------------------------------------------------- the scene file */
START_TEST(default_scene_is_smallpts)
{
    scene s;
    load_default(&s);
    ck_assert_int_eq(s.count, 9);
    int diffuse = 0, mirror = 0, glass = 0;
    for (int i = 0; i < s.count; i++) {
        diffuse += s.spheres[i].material == MATERIAL_DIFFUSE;
        mirror += s.spheres[i].material == MATERIAL_MIRROR;
        glass += s.spheres[i].material == MATERIAL_GLASS;
    }
    ck_assert_int_eq(diffuse, 7);
    ck_assert_int_eq(mirror, 1);
    ck_assert_int_eq(glass, 1);
    ck_assert_int_eq(s.light_count, 1);
    ck_assert_int_eq(s.spheres[s.lights[0].sphere].radius, 600);
}
END_TEST

/* The light's visible cap, checked geometrically: its rim lies on the
 * ceiling sphere, its centre points down, and a point just inside the rim is
 * inside the room (within the ceiling sphere) while one just outside is not. */
START_TEST(light_cap_rim_lies_on_the_ceiling)
{
    scene s;
    load_default(&s);
    const scene_light *l = &s.lights[0];
    const scene_sphere *light = &s.spheres[l->sphere], *ceiling = &s.spheres[5];
    ck_assert(l->axis[1] < -0.999999);
    ck_assert(l->cos_min > 0.999 && l->cos_min < 1);
    for (int k = -1; k <= 1; k++) {
        double c = l->cos_min + k * 1e-7, sn = sqrt(1 - c * c);
        double p[3] = {light->centre[0] + light->radius * sn, light->centre[1] + light->radius * c * l->axis[1],
                       light->centre[2]};
        double d = sqrt(pow(p[0] - ceiling->centre[0], 2) + pow(p[1] - ceiling->centre[1], 2) +
                        pow(p[2] - ceiling->centre[2], 2));
        if (k == 0)
            ck_assert_msg(fabs(d - ceiling->radius) < 1e-6, "rim %.9f from the ceiling", d - ceiling->radius);
        else
            ck_assert_msg(k > 0 ? d < ceiling->radius : d > ceiling->radius, "k=%d: %.9f", k, d - ceiling->radius);
    }
}
END_TEST

static const struct {
    const char *text, *where, *says;
} bad_scenes[] = {
    {"", "t:1:1: ", "no sphere"},
    {"# only a comment\n\n", "t:2:1: ", "no sphere"},
    {"sphere 1 2 3\n", "t:1:13: ", "11 fields"},
    {"sphere 1 0 0 0 0 0 0 .5 .5 .5 diffuse extra\n", "t:1:39: ", "11 fields"},
    {"spere 1 0 0 0 0 0 0 .5 .5 .5 diffuse\n", "t:1:1: ", "expected 'sphere'"},
    {"\n  sphere 1x 0 0 0 0 0 0 .5 .5 .5 diffuse\n", "t:2:10: ", "radius: '1x' is not a decimal number"},
    {"sphere 1 0 0 0 0 0 0 .5 .5 .5 diffuse\nsphere 1 nan 0 0 0 0 0 .5 .5 .5 glass\n", "t:2:10: ", "not a decimal"},
    {"sphere 1 0 0 inf 0 0 0 .5 .5 .5 mirror\n", "t:1:14: ", "centre z: 'inf' is not a decimal number"},
    {"sphere 1e999 0 0 0 0 0 0 .5 .5 .5 mirror\n", "t:1:8: ", "'1e999' is too large for a double"},
    {"sphere 0x1.08p4 0 0 0 0 0 0 .5 .5 .5 mirror\n", "t:1:8: ", "'0x1.08p4' is not a decimal number"},
    {"sphere 0 0 0 0 0 0 0 .5 .5 .5 diffuse\n", "t:1:8: ", "greater than 0"},
    {"sphere -2 0 0 0 0 0 0 .5 .5 .5 diffuse\n", "t:1:8: ", "greater than 0"},
    {"sphere 1 0 0 0 0 -1 0 .5 .5 .5 diffuse\n", "t:1:18: ", "emission green"},
    {"sphere 1 0 0 0 0 0 0 .5 1.5 .5 diffuse\n", "t:1:25: ", "green: 1.5 must lie in [0, 1]"},
    {"sphere 1 0 0 0 0 0 0 .5 .5 .5 velvet\n", "t:1:31: ", "'velvet' is not diffuse"},
    {"sphere\t1\t0 0 0 0 0 0 .5 .5 .5 Diffuse # capitals are not the name\n", "t:1:31: ", "not diffuse"},
    {"sphere 1 0 0 0 0 0 0 .5 .5 .5 diffuse\n\x01\n", "t:2:1: ", "byte 0x01"},
    {"sphere 1 0 0 0 0 0 0 .5 .5 .5 diffuse \xc3\xa9\n", "t:1:39: ", "byte 0xc3"},
};

START_TEST(bad_scene_names_line_and_column)
{
    scene s;
    char err[SCENE_ERROR_SIZE];
    const char *text = bad_scenes[_i].text;
    ck_assert_int_eq(scene_parse(text, strlen(text), "t", &s, err, sizeof err), -1);
    ck_assert_msg(strncmp(err, bad_scenes[_i].where, strlen(bad_scenes[_i].where)) == 0, "%s: want %s", err,
                  bad_scenes[_i].where);
    ck_assert_msg(strstr(err, bad_scenes[_i].says), "%s: want '%s'", err, bad_scenes[_i].says);
}
END_TEST

/* The format's numbers are decimal, and every finite one is taken: a value
 * that rounds to a subnormal (1e-310) or to 0 (1e-400) is a number, not an error. */
START_TEST(tiny_decimal_numbers_are_numbers)
{
    scene s;
    char err[SCENE_ERROR_SIZE];
    const char text[] = "sphere 1 1e-310 1e-400 -2.5E-3 0 0 0 .5 .5 .5 diffuse\n";
    ck_assert_msg(scene_parse(text, strlen(text), "t", &s, err, sizeof err) == 0, "%s", err);
    ck_assert(s.spheres[0].centre[0] == 1e-310 && s.spheres[0].centre[1] == 0 && s.spheres[0].centre[2] == -2.5e-3);
}
END_TEST

START_TEST(too_many_spheres_long_lines_and_nul_bytes)
{
    scene s;
    char err[SCENE_ERROR_SIZE], text[8192] = "";
    for (int i = 0; i <= SCENE_MAX_SPHERES; i++)
        strcat(text, "sphere 1 0 0 0 0 0 0 .5 .5 .5 diffuse\n");
    ck_assert_int_eq(scene_parse(text, strlen(text), "t", &s, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "t:33:1: more than 32 spheres"), "%s", err);
    memset(text, ' ', SCENE_LINE_MAX + 1);
    ck_assert_int_eq(scene_parse(text, SCENE_LINE_MAX + 1, "t", &s, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "longer than"), "%s", err);
    const char nul[] = "sphere 1 0 0 0 0\0 0 0 .5 .5 .5 diffuse\n";
    ck_assert_int_eq(scene_parse(nul, sizeof nul - 1, "t", &s, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "t:1:17: unexpected byte 0x00"), "%s", err);
    /* nine lights is one too many; the last line ends without a newline, which is fine */
    text[0] = '\0';
    for (int i = 0; i < SCENE_MAX_LIGHTS; i++)
        strcat(text, "sphere 1 0 0 0 1 1 1 0 0 0 diffuse\n");
    strcat(text, "sphere 1 0 0 0 1 1 1 0 0 0 diffuse");
    ck_assert_int_eq(scene_parse(text, strlen(text), "t", &s, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "at most 8 may"), "%s", err);
}
END_TEST

START_TEST(files_that_cannot_be_scenes)
{
    scene s;
    char err[SCENE_ERROR_SIZE];
    ck_assert_int_eq(scene_load("/nonexistent/x.txt", &s, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "/nonexistent/x.txt: cannot open"), "%s", err);
    ck_assert_int_eq(scene_load("/tmp", &s, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "/tmp: cannot open: not a regular file"), "%s", err);
    char dir[] = "/tmp/test_ch08_fifo.XXXXXX", fifo[64]; /* a FIFO with no writer: refused, not waited on */
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(fifo, sizeof fifo, "%s/f", dir);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    int loaded = scene_load(fifo, &s, err, sizeof err);
    unlink(fifo);
    rmdir(dir);
    ck_assert_int_eq(loaded, -1);
    ck_assert_msg(strstr(err, "not a regular file"), "%s", err);
    char path[] = "/tmp/test_ch08_big.XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    for (int i = 0; i <= SCENE_MAX_BYTES / 64; i++)
        fprintf(f, "%63s\n", "# padding");
    fclose(f);
    ck_assert_int_eq(scene_load(path, &s, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "larger than"), "%s", err);
    remove(path);
}
END_TEST

/* Mutations of the default file (seed 0x5CE4E): each parses, or fails with
 * "fuzz:LINE:COLUMN: " inside the text. Under ASan (make sanitize) a read
 * past the text would stop the run. */
START_TEST(fuzzed_scenes_parse_or_fail_cleanly)
{
    FILE *f = fopen(DEFAULT_SCENE, "rb");
    ck_assert_ptr_nonnull(f);
    char base[4096];
    size_t n = fread(base, 1, sizeof base, f);
    fclose(f);
    unsigned long long x = 0x5CE4E;
    const char alphabet[] = " \t\n#.-+e0123456789xsphere\x7f\x00";
    for (int trial = 0; trial < 3000; trial++) {
        char *text = malloc(n);
        ck_assert_ptr_nonnull(text);
        memcpy(text, base, n);
        size_t len = n;
        for (int m = 0; m < 1 + trial % 4; m++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            size_t at = (size_t)(x >> 33) % len;
            int kind = (int)((x >> 20) % 3);
            if (kind == 0)
                text[at] = alphabet[(x >> 8) % (sizeof alphabet - 1)];
            else if (kind == 1)
                len = at + 1; /* cut short */
            else
                text[at] = (char)(x >> 40);
        }
        scene s;
        char err[SCENE_ERROR_SIZE];
        if (scene_parse(text, len, "fuzz", &s, err, sizeof err) == 0) {
            ck_assert(s.count >= 1 && s.count <= SCENE_MAX_SPHERES);
        } else {
            int line = 0, col = 0;
            ck_assert_msg(sscanf(err, "fuzz:%d:%d: ", &line, &col) == 2, "trial %d: %s", trial, err);
            ck_assert_msg(line >= 1 && line <= 40 && col >= 1 && col <= SCENE_LINE_MAX + 1, "trial %d: %s", trial, err);
        }
        free(text);
    }
}
END_TEST

/* ---------------------------------------------------------------- radiance, analytic */
/* The furnace: the camera inside one closed sphere of albedo rho that emits
 * Le everywhere. Every point then has radiance L = Le + rho L, so
 * L = Le / (1 - rho) in every pixel (to rho^64, the depth cap): with Le = 0.1
 * and rho = 0.5, L = 0.2, the byte 255 * 0.2^(1/2.2) + 0.5 = 123. Russian
 * roulette and light sampling may add noise, never bias: the mean of the
 * image must be 123 within 0.5, and every pixel within 6. Once with a diffuse
 * sphere; once with a mirror, where the light arrives through specular
 * bounces only (with light sampling, emission met after a specular bounce
 * must still count). */
static const struct {
    const char *scene;
    int width, height, spp;
    unsigned seed;
} furnaces[] = {
    {"sphere 1000  50 50 150  0.1 0.1 0.1  0.5 0.5 0.5  diffuse\n", 17, 13, 16, 3},
    {"sphere 1000  50 50 150  0.1 0.1 0.1  0.5 0.5 0.5  mirror\n", 9, 7, 8, 5},
};
#define FURNACES (int)(sizeof furnaces / sizeof furnaces[0])

START_TEST(furnace_gives_le_over_one_minus_albedo)
{
    int kernel = all_kernels[_i % KERNELS], which = _i / KERNELS;
    scene s;
    char err[SCENE_ERROR_SIZE];
    const char *text = furnaces[which].scene;
    ck_assert_msg(scene_parse(text, strlen(text), "furnace", &s, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(s.light_count, 1);
    ck_assert(s.lights[0].cos_min == -1); /* nothing cuts it: the whole sphere is sampled */
    image img;
    ck_assert_int_eq(image_alloc(&img, furnaces[which].width, furnaces[which].height), 0);
    long bad = 0;
    render_with(kernel, &s, &img, furnaces[which].spp, furnaces[which].seed, &bad);
    ck_assert_int_eq(bad, 0);
    int expected = (int)(255 * pow(0.2, 1 / 2.2) + 0.5);
    ck_assert_int_eq(expected, 123);
    double sum = 0;
    for (size_t i = 0; i < image_bytes(&img); i++) {
        ck_assert_msg(abs(img.rgb[i] - expected) <= 6, "furnace %d, kernel %d: byte %zu is %d", which, kernel, i,
                      img.rgb[i]);
        sum += img.rgb[i];
    }
    double mean = sum / (double)image_bytes(&img);
    ck_assert_msg(fabs(mean - expected) < 0.5, "furnace %d, kernel %d: mean %.3f, want %d", which, kernel, mean,
                  expected);
    image_free(&img);
}
END_TEST

/* ---------------------------------------------------------------- the CPU stages' threads */
/* Both CPU stages: the same bytes at 1 and 5 threads, and each pixel the one
 * its GPU kernel's function gives (recursion: gpu-recursive's; the loop:
 * gpu-loop's), so the CPU side of a ratio renders the GPU's estimator. */
static const int cpu_kernels[][2] = {{ON_CPU, KERNEL_RECURSIVE_F64}, {ON_CPU_LOOP, KERNEL_LOOP_F64}};
START_TEST(same_image_at_any_thread_count)
{
    int cpu = cpu_kernels[_i][0], gpu_kernel = cpu_kernels[_i][1];
    scene s;
    load_default(&s);
    image one, many;
    ck_assert_int_eq(image_alloc(&one, 33, 31), 0);
    ck_assert_int_eq(image_alloc(&many, 33, 31), 0);
    ck_assert_int_eq(cpu_render(cpu, &s, &one, 8, 11, 1, "test", 1), 0);
    ck_assert_int_eq(cpu_render(cpu, &s, &many, 8, 11, 5, "test", 1), 0);
    ck_assert_mem_eq(one.rgb, many.rgb, image_bytes(&one));
    for (int k = 0; k < 3; k++) {
        static const int at[][2] = {{7, 30}, {0, 0}, {32, 15}};
        unsigned char px[3];
        ck_assert(cpu_kernel_pixel(gpu_kernel, &s, at[k][0], at[k][1], 33, 31, 8, 11, px));
        ck_assert_mem_eq(px, one.rgb + 3 * (at[k][1] * 33 + at[k][0]), 3);
    }
    image_free(&one);
    image_free(&many);
}
END_TEST

/* Path regeneration changes the order of work, not the samples: the same
 * bytes as the plain loop, in double (the kernels) and in float (this file's
 * own float path.h). */
START_TEST(regeneration_renders_the_same_samples)
{
    scene s;
    load_default(&s);
    world w = make_world(&s, 128, 96, EPS_F32, OFFSET_F32);
    unsigned char a[3], b[3];
    for (int i = 0; i < 40; i++) {
        int col = (i * 37) % 128, row = (i * 53) % 96;
        ck_assert(cpu_kernel_pixel(KERNEL_LOOP_F64, &s, col, row, 128, 96, 12, 21, a));
        ck_assert(cpu_kernel_pixel(KERNEL_REGENERATE_F64, &s, col, row, 128, 96, 12, 21, b));
        ck_assert_msg(memcmp(a, b, 3) == 0, "double, pixel %d,%d", col, row);
        ck_assert(render_pixel(&w, PT_LOOP, col, row, 12, 21, a, NULL));
        ck_assert(render_pixel_regenerating(&w, 0, col, row, 12, 21, b, NULL));
        ck_assert_msg(memcmp(a, b, 3) == 0, "float, pixel %d,%d", col, row);
    }
}
END_TEST

/* ---------------------------------------------------------------- against the reference */
/* Every radiance function at 128x96, 64 spp, seeds 1 and 2, passes problem.c's
 * noise test against the converged 128x96 reference; and the test can fail:
 * the same image a quarter too dark (every byte x 0.75) does not pass. (At
 * 64 spp smallpt's estimator has an MSE near 1300, so the test's slack, a
 * quarter of that, hides a bias of up to about 18 levels; light sampling's
 * noise is ten times smaller, and so is what it can hide.) */
START_TEST(every_kernel_passes_the_noise_test)
{
    int kernel = all_kernels[_i];
    scene s;
    load_default(&s);
    image ref, a, b;
    char err[IMAGE_ERROR_SIZE];
    ck_assert_msg(image_read_ppm(&ref, REFERENCE_DIR "/ch08_cornell_128x96.ppm", err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(image_alloc(&a, 128, 96), 0);
    ck_assert_int_eq(image_alloc(&b, 128, 96), 0);
    long bad = 0;
    render_with(kernel, &s, &a, 64, 1, &bad);
    render_with(kernel, &s, &b, 64, 2, &bad);
    ck_assert_int_eq(bad, 0);
    double ab = mse(&a, &b), bound = noise_bound(ab, 0);
    double ma = mse(&a, &ref), mb = mse(&b, &ref);
    printf("ch08 CPU kernel %d 128x96x64: MSE vs reference %.1f, %.1f (bound %.1f, noise %.1f)\n", kernel, ma, mb,
           bound, ab / 2);
    ck_assert_msg(ma <= bound && mb <= bound, "kernel %d: MSE %.1f, %.1f against bound %.1f (noise %.1f)", kernel, ma,
                  mb, bound, ab / 2);
    for (size_t i = 0; i < image_bytes(&a); i++)
        a.rgb[i] = (unsigned char)(a.rgb[i] * 0.75);
    ck_assert_msg(mse(&a, &ref) > bound, "kernel %d: a 25%% darker image passes (%.1f <= %.1f)", kernel, mse(&a, &ref),
                  bound);
    image_free(&ref);
    image_free(&a);
    image_free(&b);
}
END_TEST

/* ---------------------------------------------------------------- a bug the template shares
 * Where problem.c's noise test applies: a size with a reference (its table:
 * 128x96, whose own noise is 1.3) and at least NOISE_TEST_MIN_SPP. */
#define REF_W 128
#define REF_H 96
#define REF_SPP 64
#define REF_NOISE 1.3
/* problem.c's spot check at that size: 256 pixels picked from seed 0xC8C8, their
 * MSE against the CPU's within SPOT_FRACTION n + 1 (n: one render's noise). */
#define SPOT_PIXELS 256
#define SPOT_FRACTION 0.5

/* The planted copy's double kernels: the CPU stage's and gpu-recursive's
 * recursion, and the loop of gpu-loop and the stages after it. */
static const int planted_kernels[] = {KERNEL_RECURSIVE_F64, KERNEL_LOOP_F64};

static void render_planted(int kernel, const scene *sc, image *img, unsigned int seed)
{
    for (int row = 0; row < img->height; row++)
        for (int col = 0; col < img->width; col++)
            ck_assert(planted_kernel_pixel(kernel, sc, col, row, img->width, img->height, REF_SPP, seed,
                                           img->rgb + 3 * ((size_t)row * img->width + col)));
}

/* problem.c's spot check of img (rendered with `seed`) against the planted code's
 * own pixels: what the GPU-against-CPU check compares when the bug is in
 * path.h. (Here the CPU is on both sides, so they are equal; on a GPU they
 * differ by fused multiply-adds, within the limit.) */
static double same_code_spot_mse(int kernel, const scene *sc, const image *img, unsigned int seed)
{
    unsigned long long x = 0xC8C8;
    double sq = 0;
    for (int i = 0; i < SPOT_PIXELS; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        int col = (int)((x >> 33) % REF_W), row = (int)((x >> 13) % REF_H);
        unsigned char px[3];
        ck_assert(planted_kernel_pixel(kernel, sc, col, row, REF_W, REF_H, REF_SPP, seed, px));
        const unsigned char *got = img->rgb + 3 * ((size_t)row * REF_W + col);
        for (int c = 0; c < 3; c++)
            sq += (double)(px[c] - got[c]) * (px[c] - got[c]);
    }
    return sq / (3 * SPOT_PIXELS);
}

/* path.h with the mirror's sign flipped (chapter.mk's sed): the check that
 * compares the code with itself passes it, the noise test against the
 * committed reference fails it, as problem.c applies both. */
START_TEST(planted_bug_passes_the_same_code_check_and_fails_the_noise_test)
{
    int kernel = planted_kernels[_i];
    scene s;
    load_default(&s);
    image ref, a, b;
    char err[IMAGE_ERROR_SIZE];
    ck_assert_msg(image_read_ppm(&ref, REFERENCE_DIR "/ch08_cornell_128x96.ppm", err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(image_alloc(&a, REF_W, REF_H), 0);
    ck_assert_int_eq(image_alloc(&b, REF_W, REF_H), 0);
    render_planted(kernel, &s, &a, 1);
    render_planted(kernel, &s, &b, 2);
    double n = mse(&a, &b) / 2, limit = SPOT_FRACTION * n + 1, spot = same_code_spot_mse(kernel, &s, &a, 1);
    double bound = noise_bound(2 * n, REF_NOISE), ma = mse(&a, &ref), mb = mse(&b, &ref);
    printf("ch08 planted bug (CPU, kernel %d, %dx%dx%d): vs the same code MSE %.1f (limit %.1f); "
           "vs the reference %.1f, %.1f (bound %.1f, noise %.1f)\n",
           kernel, REF_W, REF_H, REF_SPP, spot, limit, ma, mb, bound, n);
    ck_assert_msg(spot <= limit, "kernel %d: the same-code check failed the planted bug: %.1f > %.1f", kernel, spot,
                  limit);
    ck_assert_msg(!(ma <= bound && mb <= bound), "kernel %d: the noise test passed the planted bug: %.1f, %.1f <= %.1f",
                  kernel, ma, mb, bound);
    image_free(&ref);
    image_free(&a);
    image_free(&b);
}
END_TEST

/* ---------------------------------------------------------------- ./ch08's GPU stages
 * Every GPU stage of ./ch08 (its --list-stages rows not on the CPU), run
 * where its noise test applies: it exits 0, its CSV rows say ok, one of them
 * is the MSE row (the noise test ran), and the results table's note gives
 * MSE(A, ref), MSE(B, ref) within the bound (printed: the margins). Added
 * only with a CUDA device; otherwise counted as skipped. */
#define MAX_GPU_STAGES 32
static char gpu_stages[MAX_GPU_STAGES][64];
static int gpu_stage_count;

/* A file of the scratch folder, read whole (malloc'd), or NULL. */
static char *scratch_file(const char *name, const char *ext)
{
    char path[400];
    snprintf(path, sizeof path, "%s/%s.%s", harness_scratch("test_ch08"), name, ext);
    return harness_read_file(path);
}

/* ./ch08 --list-stages into gpu_stages; -1 if it could not run. */
static int list_gpu_stages(void)
{
    if (harness_shell("%s/ch08 --list-stages > %s/stages.txt 2> /dev/null", harness_q(PROGRAM_DIR),
                      harness_q(harness_scratch("test_ch08"))) != 0)
        return -1;
    char *text = scratch_file("stages", "txt");
    if (!text)
        return -1;
    for (char *line = strtok(text, "\n"); line && gpu_stage_count < MAX_GPU_STAGES; line = strtok(NULL, "\n")) {
        char name[64], where[16];
        if (sscanf(line, "%63[^\t]\t%15[^\t]", name, where) == 2 && strcmp(where, "cpu") != 0)
            snprintf(gpu_stages[gpu_stage_count++], sizeof gpu_stages[0], "%s", name);
    }
    free(text);
    return 0;
}

/* The number of GPU stage runs to add: every GPU stage when nvidia-smi lists
 * a device and ./ch08 does not exit EXIT_NO_GPU on a tiny render; otherwise
 * 0, and *skipped gains the runs not added. */
static int gpu_stage_runs(int *skipped)
{
    if (list_gpu_stages() != 0) {
        printf("%s/ch08 --list-stages failed (not built?): its GPU stages' test skipped\n", PROGRAM_DIR);
        *skipped += 1;
        return 0;
    }
    int gpu = gpu_stage_count > 0 && harness_shell("nvidia-smi -L > /dev/null 2>&1") == 0 &&
              harness_shell("%s/ch08 --stage %s --width 8 --height 8 --spp 4 --repeat 1 --quiet --out %s/probe.ppm "
                            "> /dev/null 2>&1",
                            harness_q(PROGRAM_DIR), gpu_stages[0], harness_q(harness_scratch("test_ch08"))) != EXIT_NO_GPU;
    if (gpu)
        return gpu_stage_count;
    printf("no CUDA device: %d GPU stage run%s of ./ch08 skipped\n", gpu_stage_count, gpu_stage_count == 1 ? "" : "s");
    *skipped += gpu_stage_count;
    return 0;
}

/* The stage's row of the results table: v = MSE(A, ref), MSE(B, ref), noise,
 * bound, from its note. 0, or -1 if there is no such row. */
static int table_numbers(const char *table, const char *stage, double v[4])
{
    size_t len = strlen(stage);
    for (const char *line = table; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        const char *end = strchr(line, '\n'), *at = strstr(line, "MSE vs reference ");
        if (strncmp(line, stage, len) == 0 && line[len] == ' ' && at && (!end || at < end) &&
            sscanf(at, "MSE vs reference %lf, %lf (noise %lf, bound %lf", &v[0], &v[1], &v[2], &v[3]) == 4)
            return 0;
    }
    return -1;
}

/* 1 if the stage has CSV rows and every one says ok; *mse_row gets its MSE
 * row's value (-1 without one). */
static int csv_rows_ok(const char *csv, const char *stage, double *mse_row)
{
    int rows = 0, ok = 1;
    *mse_row = -1;
    for (const char *line = csv; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        char name[64], unit[32], check[8];
        double value;
        if (sscanf(line, "ch08,%63[^,],%*[^,],%*d,%*f,%lf,%31[^,],%7[^,],", name, &value, unit, check) != 4 ||
            strcmp(name, stage) != 0)
            continue;
        rows++;
        ok &= strcmp(check, "ok") == 0;
        if (strcmp(unit, "MSE") == 0)
            *mse_row = value;
    }
    return rows > 0 && ok;
}

START_TEST(gpu_stage_passes_the_noise_test)
{
    const char *stage = gpu_stages[_i], *dir = harness_scratch("test_ch08");
    const char *q = harness_q(dir);
    int rc = harness_shell("%s/ch08 --stage %s --width %d --height %d --spp %d --repeat 1 --quiet --csv %s/%s.csv "
                           "--out %s/%s.ppm > %s/%s.txt 2>&1",
                           harness_q(PROGRAM_DIR), stage, REF_W, REF_H, REF_SPP, q, stage, q, stage, q, stage);
    char *table = scratch_file(stage, "txt"), *csv = scratch_file(stage, "csv");
    ck_assert_msg(rc == 0 && table && csv, "./ch08 --stage %s exited %d:\n%s", stage, rc, table ? table : "");
    double v[4], mse_row;
    ck_assert_msg(table_numbers(table, stage, v) == 0, "%s: no noise test in its row:\n%s", stage, table);
    printf("ch08 GPU %s %dx%dx%d: MSE vs reference %.1f, %.1f (bound %.1f, noise %.1f)\n", stage, REF_W, REF_H,
           REF_SPP, v[0], v[1], v[3], v[2]);
    ck_assert_msg(csv_rows_ok(csv, stage, &mse_row), "%s: a row is not ok, or none:\n%s", stage, csv);
    ck_assert_msg(fabs(mse_row - v[0]) < 0.1, "%s: the CSV's MSE %.1f is not the table's %.1f", stage, mse_row, v[0]);
    ck_assert_msg(v[0] <= v[3] && v[1] <= v[3], "%s: MSE %.1f, %.1f against the bound %.1f", stage, v[0], v[1], v[3]);
    free(table);
    free(csv);
}
END_TEST

/* smallpt's own picture, top rows: rows 0-7 of Beason's smallpt at
 * 1024x768, 1024 spp, built as its header says (g++ -O3 -fopenmp; `make
 * smallpt-vs-port` builds and compares the whole picture). The camera rays of
 * those rows are where a port that reads smallpt's camera line left to right
 * goes wrong (path.h, camera_ray): they start above the ceiling and the top
 * row comes out white, 180 levels above the original's. The converged
 * reference must agree with the original there: each row's mean within 2
 * levels. (At 1024 spp the original lies about 0.3 levels below the
 * converged picture everywhere, gamma's curvature acting on its noise; the
 * rows' standard errors are about 0.17.) */
START_TEST(reference_has_the_originals_top_rows)
{
    image ref, original;
    char err[IMAGE_ERROR_SIZE];
    ck_assert_msg(image_read_ppm(&ref, REFERENCE_DIR "/ch08_cornell_1024x768.ppm", err, sizeof err) == 0, "%s", err);
    ck_assert_msg(image_read_ppm(&original, REFERENCE_DIR "/smallpt_1024x768_1024spp_top8.ppm", err, sizeof err) == 0,
                  "%s", err);
    ck_assert_int_eq(original.width, ref.width);
    for (int row = 0; row < original.height; row++) {
        double sum = 0;
        for (int i = 0; i < 3 * original.width; i++)
            sum += (double)ref.rgb[3 * (size_t)row * ref.width + i] - original.rgb[3 * (size_t)row * original.width + i];
        double mean = sum / (3 * original.width);
        ck_assert_msg(fabs(mean) <= 2, "row %d: the reference is %+.1f levels from the original's", row, mean);
    }
    image_free(&ref);
    image_free(&original);
}
END_TEST

/* Why float rays start OFFSET_F32 off the surface (path.h, make_world): with
 * the offset at 0 a ray leaving a wall of radius 1e5 may start just outside
 * the room, "hit" the wall again from outside, and reach the light above the
 * ceiling. The same float loop at 128x96, 64 spp, seeds 1 and 2, then fails the
 * noise test that it passes with the offset (every_kernel_passes_the_noise_test),
 * and the top eighth of the image (the ceiling) comes out brighter than the
 * reference's. */
START_TEST(float_without_the_offset_leaks_light)
{
    scene s;
    load_default(&s);
    world w = make_world(&s, 128, 96, EPS_F32, 0.0f);
    image ref, a, b;
    char err[IMAGE_ERROR_SIZE];
    ck_assert_msg(image_read_ppm(&ref, REFERENCE_DIR "/ch08_cornell_128x96.ppm", err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(image_alloc(&a, 128, 96), 0);
    ck_assert_int_eq(image_alloc(&b, 128, 96), 0);
    for (int row = 0; row < 96; row++)
        for (int col = 0; col < 128; col++) {
            size_t at = 3 * ((size_t)row * 128 + col);
            render_pixel(&w, PT_LOOP, col, row, 64, 1, a.rgb + at, NULL);
            render_pixel(&w, PT_LOOP, col, row, 64, 2, b.rgb + at, NULL);
        }
    double bound = noise_bound(mse(&a, &b), 0), got = mse(&a, &ref), top = 0;
    for (size_t i = 0; i < 3 * 128 * 12; i++)
        top += (double)a.rgb[i] - ref.rgb[i];
    top /= 3 * 128 * 12;
    printf("  float, no offset: MSE %.1f against the bound %.1f; the top eighth %+.1f levels\n", got, bound, top);
    ck_assert_msg(got > bound, "no leak: MSE %.1f within the bound %.1f", got, bound);
    ck_assert_msg(top > 0, "the ceiling is not brighter (%.1f levels)", top);
    image_free(&ref);
    image_free(&a);
    image_free(&b);
}
END_TEST

/* ---------------------------------------------------------------- linear radiance
 * --linear-out's numbers are the pixel's samples averaged before clamp and
 * gamma: the same as the samples summed one by one (add_pixel_radiance), in
 * the loop and in the regenerating loop alike. */
START_TEST(linear_output_is_the_unclamped_mean)
{
    scene s;
    load_default(&s);
    world w = make_world(&s, 64, 48, EPS_F32, OFFSET_F32);
    for (int i = 0; i < 20; i++) {
        int col = (i * 37) % 64, row = (i * 23) % 48;
        unsigned char px[3];
        float a[3], b[3];
        double sum[3] = {0, 0, 0}, sum2[3] = {0, 0, 0};
        ck_assert(render_pixel(&w, PT_LOOP, col, row, 12, 5, px, a));
        ck_assert(render_pixel_regenerating(&w, 0, col, row, 12, 5, px, b));
        add_pixel_radiance(&w, PT_LOOP, col, row, 12, 5, sum, sum2);
        for (int c = 0; c < 3; c++) {
            ck_assert_msg(fabs(a[c] - sum[c] / 12) <= 1e-5 * (1 + sum[c]), "pixel %d,%d: %g against %g", col, row,
                          a[c], sum[c] / 12);
            ck_assert(a[c] == b[c]);
        }
    }
}
END_TEST

START_TEST(pfm_round_trip_and_bad_files)
{
    char dir[] = "/tmp/ch08-pfm-XXXXXX", path[64], err[512];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/a.pfm", dir);
    float rgb[3 * 3 * 5];
    for (int i = 0; i < 45; i++)
        rgb[i] = (float)i * 0.25f;
    ck_assert_int_eq(linear_write_pfm(path, rgb, 3, 5, err, sizeof err), 0);
    float *back = NULL;
    ck_assert_msg(linear_read_pfm(path, &back, 3, 5, err, sizeof err) == 0, "%s", err);
    ck_assert_mem_eq(back, rgb, sizeof rgb);
    free(back);
    ck_assert_int_eq(linear_read_pfm(path, &back, 5, 3, err, sizeof err), -1); /* another size */
    ck_assert_ptr_null(back);
    rgb[7] = NAN;
    ck_assert_int_eq(linear_write_pfm(path, rgb, 3, 5, err, sizeof err), 0);
    ck_assert_int_eq(linear_read_pfm(path, &back, 3, 5, err, sizeof err), -1); /* NaN is refused */
    FILE *f = fopen(path, "wb");
    fputs("PF\n3 5\n-1.0\n", f); /* truncated */
    fclose(f);
    ck_assert_int_eq(linear_read_pfm(path, &back, 3, 5, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "truncated"));
    snprintf(path, sizeof path, "%s/no/such.pfm", dir);
    ck_assert_int_eq(linear_write_pfm(path, rgb, 3, 5, err, sizeof err), -1);
    harness_shell("rm -rf %s", harness_q(dir));
    /* the relative MSE: (a - r)^2 / (r^2 + 0.01), averaged */
    float a[3] = {1, 2, 0.5f}, r[3] = {0, 1, 0.5f};
    ck_assert(fabs(linear_mse(a, r, 3) - (100 + 1 / 1.01) / 3) < 1e-9);
    ck_assert(linear_mse(r, r, 3) == 0);
}
END_TEST

/* ---------------------------------------------------------------- bias, linear
 * An estimator's bias, measured before clamp and gamma: the image is cut
 * into BIAS_REGIONS x BIAS_REGIONS regions, and in each region and channel
 * the mean over its pixels of d = (pixel mean radiance by estimator A) -
 * (the same by the double loop, KERNEL_LOOP_F64) is compared with its
 * standard error se = sd(d) / sqrt(pixels). A passes if no region's bias is
 * significantly above BIAS_TOLERANCE of the region's mean:
 * |mean d| <= BIAS_TOLERANCE * mean + 3 se everywhere. Each test also plants
 * a bias of BIAS_PLANTED (A's image scaled) to show the measure sees it. */
#define BIAS_W 64
#define BIAS_H 48
#define BIAS_REGIONS 4
#define BIAS_SPP 256
#define BIAS_TOLERANCE 0.01
#define BIAS_PLANTED 1.03

typedef double pixel_means[BIAS_H][BIAS_W][3];
typedef void (*pixel_mean_fn)(const void *ctx, int col, int row, double mean[3]);
typedef struct {
    int kernel;
    const scene *sc;
} kernel_ctx;

static void kernel_mean(const void *ctx, int col, int row, double mean[3])
{
    const kernel_ctx *k = ctx;
    radiance_sums acc = {{0, 0, 0}, {0, 0, 0}, 0};
    cpu_kernel_radiance(k->kernel, k->sc, col, row, BIAS_W, BIAS_H, BIAS_SPP, 7, &acc);
    for (int c = 0; c < 3; c++)
        mean[c] = acc.sum[c] / (double)acc.samples;
}

/* This file's float world (path.h above), for what no kernel renders. */
static void float_world_mean(const void *ctx, int col, int row, double mean[3])
{
    double sum[3] = {0, 0, 0}, sum2[3] = {0, 0, 0};
    add_pixel_radiance(ctx, PT_LOOP, col, row, BIAS_SPP, 7, sum, sum2);
    for (int c = 0; c < 3; c++)
        mean[c] = sum[c] / BIAS_SPP;
}

static void render_means(pixel_mean_fn fn, const void *ctx, pixel_means out)
{
    for (int row = 0; row < BIAS_H; row++)
        for (int col = 0; col < BIAS_W; col++)
            fn(ctx, col, row, out[row][col]);
}

/* The double loop's means, the yardstick (rendered once per test). */
static void render_double_loop(const scene *sc, pixel_means out)
{
    kernel_ctx loop = {KERNEL_LOOP_F64, sc};
    render_means(kernel_mean, &loop, out);
}

/* 1 if A (scaled by `scale`) passes against B; *worst gets the largest
 * relative bias seen, for the message. */
static int bias_within_tolerance(const pixel_means a, const pixel_means b, double scale, double *worst)
{
    int rw = BIAS_W / BIAS_REGIONS, rh = BIAS_H / BIAS_REGIONS, n = rw * rh, ok = 1;
    *worst = 0;
    for (int ry = 0; ry < BIAS_REGIONS; ry++)
        for (int rx = 0; rx < BIAS_REGIONS; rx++)
            for (int c = 0; c < 3; c++) {
                double sd = 0, sd2 = 0, sb = 0;
                for (int row = ry * rh; row < (ry + 1) * rh; row++)
                    for (int col = rx * rw; col < (rx + 1) * rw; col++) {
                        double d = scale * a[row][col][c] - b[row][col][c];
                        sd += d, sd2 += d * d, sb += b[row][col][c];
                    }
                double mean_d = sd / n, var = (sd2 - sd * mean_d) / (n - 1), se = sqrt(var / n);
                double mean_b = sb / n, rel = fabs(mean_d) / mean_b;
                *worst = rel > *worst ? rel : *worst;
                ok &= fabs(mean_d) <= BIAS_TOLERANCE * mean_b + 3 * se;
            }
    return ok;
}

static pixel_means means_a, means_b; /* static: 74 kB each */

/* float's rays start OFFSET_F32 off a surface where double's start on it
 * (path.h, make_world): a change of estimator, so measured. At 1024 spp the
 * worst region was the ceiling beside the light, 0.5% brighter in float
 * (z = 4); nowhere near 1%. Without the offset the light leaks (the regions
 * under the ceiling many times too bright), and the measure says so. */
START_TEST(float_offset_bias_is_within_one_percent)
{
    scene s;
    load_default(&s);
    kernel_ctx f32 = {KERNEL_REGENERATE_F32, &s};
    render_double_loop(&s, means_b);
    render_means(kernel_mean, &f32, means_a);
    double worst;
    int ok = bias_within_tolerance(means_a, means_b, 1, &worst);
    printf("  float with its offset: largest regional difference %.2f%% (noise included)\n", 100 * worst);
    ck_assert_msg(ok, "float's offset biases a region by %.2f%% (tolerance %.0f%% + 3 se)", 100 * worst,
                  100 * BIAS_TOLERANCE);
    ck_assert_msg(!bias_within_tolerance(means_a, means_b, BIAS_PLANTED, &worst), "a planted %.0f%% bias passes",
                  100 * (BIAS_PLANTED - 1));
    world no_offset = make_world(&s, BIAS_W, BIAS_H, EPS_F32, 0.0f);
    render_means(float_world_mean, &no_offset, means_a);
    ck_assert_msg(!bias_within_tolerance(means_a, means_b, 1, &worst), "float without the offset passes");
    printf("  float without the offset: largest regional bias %.0f%%\n", 100 * worst);
}
END_TEST

/* The loop plays Russian roulette at glass where smallpt's recursion takes
 * both rays for the first two bounces: the same expectation, measured. */
START_TEST(glass_roulette_bias_is_within_one_percent)
{
    scene s;
    load_default(&s);
    kernel_ctx recursive = {KERNEL_RECURSIVE_F64, &s};
    render_double_loop(&s, means_b);
    render_means(kernel_mean, &recursive, means_a);
    double worst;
    int ok = bias_within_tolerance(means_a, means_b, 1, &worst);
    printf("  recursion (both rays at glass) against the loop (one): largest regional difference %.2f%%\n",
           100 * worst);
    ck_assert_msg(ok, "the loop's roulette at glass differs by %.2f%% (tolerance %.0f%% + 3 se)", 100 * worst,
                  100 * BIAS_TOLERANCE);
    ck_assert_msg(!bias_within_tolerance(means_a, means_b, BIAS_PLANTED, &worst), "a planted %.0f%% bias passes",
                  100 * (BIAS_PLANTED - 1));
}
END_TEST

/* The program prints the host's FMA ceiling after its CPU stages, on their
 * threads, at the ISA this CPU has (the note says which, and the host's
 * CPUs), as a reference row (check n/a), in its table and its CSV. */
#include "fma_ceiling_row.h"

START_TEST(the_fma_ceiling_row_is_printed)
{
    check_fma_ceiling_row("ch08",
                          "--stage cpu-threads-loop --width 9 --height 7 --spp 4 --threads 3 --quiet",
                          "cpu-threads-loop", "ch08,ceiling-cpu-fma,9x7x4spp,3,");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ch08");
    TCase *tc = tcase_create("ch08");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, default_scene_is_smallpts);
    tcase_add_test(tc, light_cap_rim_lies_on_the_ceiling);
    tcase_add_loop_test(tc, bad_scene_names_line_and_column, 0, sizeof bad_scenes / sizeof bad_scenes[0]);
    tcase_add_test(tc, too_many_spheres_long_lines_and_nul_bytes);
    tcase_add_test(tc, tiny_decimal_numbers_are_numbers);
    tcase_add_test(tc, files_that_cannot_be_scenes);
    tcase_add_test(tc, fuzzed_scenes_parse_or_fail_cleanly);
    tcase_add_loop_test(tc, furnace_gives_le_over_one_minus_albedo, 0, KERNELS * FURNACES);
    tcase_add_loop_test(tc, same_image_at_any_thread_count, 0, 2);
    tcase_add_test(tc, regeneration_renders_the_same_samples);
    tcase_add_loop_test(tc, every_kernel_passes_the_noise_test, 0, KERNELS);
    tcase_add_test(tc, float_without_the_offset_leaks_light);
    tcase_add_test(tc, reference_has_the_originals_top_rows);
    tcase_add_test(tc, linear_output_is_the_unclamped_mean);
    tcase_add_test(tc, pfm_round_trip_and_bad_files);
    tcase_add_test(tc, float_offset_bias_is_within_one_percent);
    tcase_add_test(tc, glass_roulette_bias_is_within_one_percent);
    tcase_add_loop_test(tc, planted_bug_passes_the_same_code_check_and_fails_the_noise_test, 0,
                        (int)(sizeof planted_kernels / sizeof planted_kernels[0]));
    int skipped = 0, gpu_runs = gpu_stage_runs(&skipped);
    if (harness_shell("%s/ch08 --list-stages > /dev/null 2>&1", harness_q(PROGRAM_DIR)) == 0)
        tcase_add_test(tc, the_fma_ceiling_row_is_printed);
    else
        skipped++; /* gpu_stage_runs has said why */
    if (gpu_runs > 0)
        tcase_add_loop_test(tc, gpu_stage_passes_the_noise_test, 0, gpu_runs);
    suite_add_tcase(s, tc);
    return harness_run(s, "ch08", skipped);
}
