/* test_ch05.cu - ch05's stages: CPU tests (run in CI) and GPU tests (skipped
 * without a device, counted as skipped).
 *
 *   - sphere-list and bounding-box change no pixel: on the CPU each image is
 *     byte-identical to the stage before's, and no ray that hits a sphere
 *     misses the box (20000 rays, seed 505); letter-boxes likewise, with
 *     fewer sphere tests, and each hit lies in its letter's box; float-only and sphere-algebra
 *     move pixels only by rounding (PSNR >= 40 dB against the stage before);
 *   - x^99 and x^4 by squaring stay within their error bounds of pow() in
 *     double, and keep the sign of a negative base (x in [-1, 1], seed 506).
 *     Each squaring doubles the relative error and adds one rounding u =
 *     2^-24, so x^64 carries up to 63u, x^32 31u, x^2 u, and the three final
 *     products 3u: 98u in all for x^99, 3u for x^4;
 *   - GPU: every stage's kernel, in every build (plain, -use_fast_math, and
 *     each of its flags alone), against the CPU at odd sizes (PSNR >= 35 dB),
 *     and no NaN/Inf;
 *   - lanes: one lane is the one-thread-per-pixel image bit for bit; the
 *     butterfly gives every lane the same sum; 4 lanes render the same
 *     picture up to noise; GPU: every lane count against the CPU at odd
 *     sizes, with fewer samples than lanes;
 *   - GPU: a sweep (block shapes, lanes) launches its winner last, so the
 *     launch make profile measures is the one its row reports;
 *   - GPU: the trap ch05 avoids is real: the float-only kernel (powf) built
 *     with -use_fast_math, where powf becomes __powf, gives NaN pixels
 *     (__powf of a negative base is NaN).
 *
 * The GPU-against-CPU checks run the same card.h on both sides: a bug in it
 * passes them. So the images are also compared with references that share
 * no code with it: ch03's card.c (the same per-pixel seeds, one lane: equal
 * up to rounding), and, at 512x512x64, ch01's committed image (another random
 * sequence: equal up to noise; this covers the lanes too). A planted bug
 * (card.h with one sign flipped, made by chapter.mk) fails against ch03.
 */
#include "harness.h"

#include "card.h"
#include "render.h"
#include "problem.h"

#include "cuda_util.h"

#include <math.h>
#include <string.h>

#include "card_reference.h"

/* card.h with mirrors reflecting the wrong way (chapter.mk's sed). */
namespace planted {
#undef CH05_CARD_H
#include "ch05_card_planted.h"
}

static void cpu_image_lanes(int flags, int lanes, int w, int h, int spp, unsigned char *rgb)
{
    for (int row = 0; row < h; row++)
        for (int col = 0; col < w; col++)
            ck_assert(cpu_render_picture_pixel(flags, lanes, col, row, w, h, spp, rgb + 3 * (row * w + col)));
}

static void cpu_image(int flags, int w, int h, int spp, unsigned char *rgb)
{
    cpu_image_lanes(flags, 1, w, h, spp, rgb);
}

START_TEST(less_scanning_and_the_box_keep_the_image_byte_identical)
{
    enum { W = 48, H = 40, SPP = 2 };
    static unsigned char scan[W * H * 3], list[W * H * 3], box[W * H * 3];
    cpu_image(SET_POW_SQUARING, W, H, SPP, scan);
    cpu_image(SET_SPHERE_LIST, W, H, SPP, list);
    ck_assert_mem_eq(scan, list, sizeof scan);
    cpu_image(SET_BOUNDING_BOX, W, H, SPP, box);
    ck_assert_mem_eq(list, box, sizeof list);
    static unsigned char letters[W * H * 3];
    unsigned long long before = cpu_sphere_tests();
    cpu_image(SET_BOUNDING_BOX, W, H, SPP, box);
    unsigned long long box_tests = cpu_sphere_tests() - before;
    cpu_image(SET_LETTER_BOXES, W, H, SPP, letters);
    unsigned long long letter_tests = cpu_sphere_tests() - before - box_tests;
    ck_assert_mem_eq(list, letters, sizeof list);
    ck_assert_msg(letter_tests < box_tests, "letter boxes: %llu sphere tests, the big box %llu", letter_tests,
                  box_tests);
    static unsigned char algebra[W * H * 3], algebra_box[W * H * 3];
    cpu_image(SET_SPHERE_ALGEBRA, W, H, SPP, algebra);
    cpu_image(SET_ALGEBRA_BOX, W, H, SPP, algebra_box);
    ck_assert_mem_eq(algebra, algebra_box, sizeof algebra);
}
END_TEST

START_TEST(no_sphere_hit_outside_the_box)
{
    test_rng r = {505};
    int hits = 0, letter_hits[3] = {0, 0, 0};
    for (int i = 0; i < 20000; i++) {
        vec o = vec_make((float)test_rng_uniform(&r, -5, 25), (float)test_rng_uniform(&r, -8, 20),
                         (float)test_rng_uniform(&r, 0.1, 16));
        vec d = vec_normalize(vec_make((float)test_rng_uniform(&r, -1, 1), (float)test_rng_uniform(&r, -1, 1),
                                       (float)test_rng_uniform(&r, -1, 1)));
        float t;
        vec n;
        if (trace<SET_POW_SQUARING>(o, d, &t, &n) == HIT_SPHERE) {
            hits++;
            ck_assert_msg(meets_sphere_box(o, d), "ray %d hits a sphere but misses the box", i);
            /* The letter boxes: the nearest hit (its sphere's centre x = k) lies in its letter's box. */
            vec p = vec_add(o, vec_scale(d, t));
            int k = (int)lroundf(p.x - n.x), letter = k >= 14 ? 0 : k >= 7 ? 1 : 2;
            sphere_letter L = letter_of_list(letter);
            letter_hits[letter]++;
            ck_assert_msg(sphere_code(L.first) >> 4 >= k && k >= sphere_code(L.last - 1) >> 4,
                          "sphere x = %d is not in letter %d's part of the list", k, letter);
            ck_assert_msg(meets_box(o, d, L.x0, L.x1, L.z0, L.z1), "ray %d hits letter %d (sphere x = %d) but misses its box",
                          i, letter, k);
        }
    }
    ck_assert_int_gt(hits, 200);
    for (int l = 0; l < 3; l++)
        ck_assert_msg(letter_hits[l] > 20, "letter %d: only %d hits", l, letter_hits[l]);
}
END_TEST

/* The box counts: a warp misses the box whole only if each of its rays does,
 * so its share is at most the rays'; with one thread per block, or 32 lanes
 * per pixel, every warp is one ray and the two shares are equal; the rays'
 * share does not depend on how pixels are grouped (the same rays); the card's
 * picture has rays both inside and outside the box. */
START_TEST(box_warp_counts_are_consistent)
{
    double rays, warps, rays1, warps1, rays32, warps32, rays4, warps4;
    cpu_primary_box_misses(512, 512, 16, 16, 1, &rays, &warps);
    ck_assert_msg(rays > 0 && rays < 1 && warps <= rays, "rays %g, warps %g", rays, warps);
    cpu_primary_box_misses(33, 31, 1, 1, 1, &rays1, &warps1);
    ck_assert_msg(rays1 == warps1 && rays1 > 0 && rays1 < 1, "1x1 blocks: rays %g, warps %g", rays1, warps1);
    cpu_primary_box_misses(512, 512, 1, 8, 32, &rays32, &warps32);
    ck_assert_msg(rays32 == warps32 && rays32 == rays, "32 lanes: rays %g, warps %g (one lane: rays %g)", rays32,
                  warps32, rays);
    cpu_primary_box_misses(512, 512, 8, 8, 4, &rays4, &warps4);
    ck_assert_msg(rays4 == rays && warps4 <= rays4 && warps4 >= warps, "4 lanes: rays %g, warps %g (32 pixels a "
                  "warp: %g)", rays4, warps4, warps);
}
END_TEST

/* Lanes: one lane is the one-thread-per-pixel image, bit for bit; the lanes'
 * butterfly sum gives every lane the same bits (checked on one pixel's
 * lanes); and 4 lanes with their own streams render the same picture up to
 * noise (PSNR against one lane, at enough samples for the noise to be small). */
START_TEST(lanes_share_the_samples)
{
    enum { W = 24, H = 20, SPP = 32 };
    static unsigned char one[W * H * 3], lanes1[W * H * 3], four[W * H * 3];
    cpu_image(SET_BOUNDING_BOX, W, H, SPP, one);
    camera cam = make_camera(W, H);
    for (int row = 0; row < H; row++)
        for (int col = 0; col < W; col++) {
            vec c = lane_samples<SET_BOUNDING_BOX>(&cam, W - 1 - col, H - 1 - row, SPP, 0, 1);
            ck_assert(store_colour(c, lanes1 + 3 * (row * W + col)));
        }
    ck_assert_mem_eq(one, lanes1, sizeof one);
    vec part[8];
    for (int l = 0; l < 8; l++)
        part[l] = lane_samples<SET_BOUNDING_BOX>(&cam, 5, 7, 3, l, 8); /* 3 samples: lanes 3..7 draw none */
    ck_assert(part[5].x == 0 && part[5].y == 0 && part[5].z == 0 && part[0].x >= 13);
    volatile int lanes = 8; /* not a constant: a gcc newer than Debian 12's, unrolling add_lanes for exactly 8,
                             * warns of indices l ^ step that no l < 8 and step < 8 reach (-Warray-bounds) */
    add_lanes(part, lanes);
    for (int l = 1; l < 8; l++)
        ck_assert(memcmp(&part[l], &part[0], sizeof part[0]) == 0);
    cpu_image_lanes(SET_BOUNDING_BOX, 4, W, H, SPP, four);
    double db = psnr(one, four, sizeof one);
    ck_assert_msg(db >= 30 && db < INFINITY, "4 lanes vs 1: %.1f dB", db);
}
END_TEST

START_TEST(power_by_squaring_matches_pow)
{
    test_rng r = {506};
    for (int i = 0; i < 100000; i++) {
        float x = (float)test_rng_uniform(&r, -1, 1);
        double p99 = pow((double)x, 99), p4 = pow((double)x, 4);
        float s99 = power<POW_SQUARING, 99>(x), s4 = power<POW_SQUARING, 4>(x);
        const double u = 0x1.0p-24;
        if (fabs(p99) > 1e-36) /* below that, float's subnormals lose relative precision */
            ck_assert_msg(fabs(s99 - p99) <= 98 * u * fabs(p99), "x=%a: %g vs %g", x, s99, p99);
        ck_assert_msg(fabs(s4 - p4) <= 3 * u * fabs(p4), "x=%a: %g vs %g", x, s4, p4);
        ck_assert(x >= 0 || s99 <= 0); /* odd power keeps the sign */
    }
}
END_TEST

START_TEST(float_only_and_algebra_move_the_picture_only_by_rounding)
{
    enum { W = 40, H = 32, SPP = 4 };
    static unsigned char fp64[W * H * 3], fp32[W * H * 3], list[W * H * 3], algebra[W * H * 3];
    cpu_image(SET_LOOP, W, H, SPP, fp64);
    cpu_image(SET_FLOAT_ONLY, W, H, SPP, fp32);
    double db = psnr(fp64, fp32, sizeof fp64);
    ck_assert_msg(db >= 40, "float-only: %.1f dB", db);
    cpu_image(SET_SPHERE_LIST, W, H, SPP, list);
    cpu_image(SET_SPHERE_ALGEBRA, W, H, SPP, algebra);
    db = psnr(list, algebra, sizeof list);
    ck_assert_msg(db >= 40, "sphere-algebra: %.1f dB", db);
}
END_TEST

static const int gpu_sizes[][3] = {{1, 1, 2}, {7, 3, 4}, {33, 31, 2}};
#define SIZES (int)(sizeof gpu_sizes / sizeof gpu_sizes[0])
#define LIST_SET(name, value) name,
static const int gpu_flags[] = {CH05_FLAG_SETS(LIST_SET)}; /* every set render.h lists */
#define SETS (sizeof gpu_flags / sizeof gpu_flags[0])

/* Every set on the CPU against ch03's code; the worst PSNR printed. */
START_TEST(cpu_sets_match_ch03_at_odd_sizes)
{
    int w = gpu_sizes[_i][0], h = gpu_sizes[_i][1], spp = gpu_sizes[_i][2];
    image ref;
    ch03_image(&ref, w, h, spp);
    unsigned char *rgb = (unsigned char *)malloc(image_bytes(&ref));
    double worst = INFINITY;
    for (size_t f = 0; f < SETS; f++) {
        cpu_image(gpu_flags[f], w, h, spp, rgb);
        double db = psnr(rgb, ref.rgb, image_bytes(&ref));
        ck_assert_msg(db >= INDEPENDENT_PSNR_DB, "%dx%dx%d flags %d: %.1f dB against ch03", w, h, spp, gpu_flags[f], db);
        worst = fmin(worst, db);
    }
    printf("ch05 CPU %dx%dx%d, every set: vs ch03 %.1f dB at worst (threshold %.0f)\n", w, h, spp, worst,
           INDEPENDENT_PSNR_DB);
    free(rgb);
    image_free(&ref);
}
END_TEST

/* The planted bug on the CPU (the plain loop): it changes the picture, and
 * ch03's comparison fails it; the same-code check would compare it with
 * itself. */
START_TEST(planted_bug_fails_against_ch03)
{
    int w = 33, h = 31, spp = 2;
    image ref;
    ch03_image(&ref, w, h, spp);
    size_t bytes = image_bytes(&ref);
    unsigned char *good = (unsigned char *)malloc(bytes), *bad = (unsigned char *)malloc(bytes);
    cpu_image(SET_LOOP, w, h, spp, good);
    planted::camera cam = planted::make_camera(w, h);
    for (int row = 0; row < h; row++)
        for (int col = 0; col < w; col++)
            planted::render_picture_pixel<SET_LOOP>(&cam, col, row, spp, bad + 3 * (row * w + col));
    double changed = psnr(good, bad, bytes), db = psnr(bad, ref.rgb, bytes);
    printf("ch05 planted bug %dx%dx%d (CPU): vs card.h %.1f dB, vs ch03 %.1f dB (threshold %.0f)\n", w, h, spp,
           changed, db, INDEPENDENT_PSNR_DB);
    ck_assert_msg(changed < INDEPENDENT_PSNR_DB, "the planted bug hardly changes the picture: %.1f dB", changed);
    ck_assert_msg(db < INDEPENDENT_PSNR_DB, "the planted bug passed the comparison with ch03: %.1f dB", db);
    free(good);
    free(bad);
    image_free(&ref);
}
END_TEST

START_TEST(gpu_stages_match_cpu_at_odd_sizes)
{
    int w = gpu_sizes[_i][0], h = gpu_sizes[_i][1], spp = gpu_sizes[_i][2];
    size_t bytes = (size_t)w * h * 3;
    unsigned char *d_rgb, *gpu = (unsigned char *)malloc(bytes), *cpu = (unsigned char *)malloc(bytes);
    int *d_bad, bad;
    CUDA_CHECK(cudaMalloc(&d_rgb, bytes));
    CUDA_CHECK(cudaMalloc(&d_bad, sizeof(int)));
    render_fn *builds[] = {gpu_render, gpu_render_fast, gpu_render_ftz, gpu_render_approx_div, gpu_render_approx_sqrt};
    image ref;
    ch03_image(&ref, w, h, spp);
    double worst_cpu = INFINITY, worst_ch03 = INFINITY;
    for (size_t f = 0; f < SETS; f++)
        for (int fast = 0; fast < (int)(sizeof builds / sizeof builds[0]); fast++) {
            if (fast && !(gpu_flags[f] & INTRINSICS))
                continue; /* plain powf under fast math is the trap tested below */
            CUDA_CHECK(cudaMemset(d_bad, 0, sizeof(int)));
            CUDA_CHECK(cudaMemset(d_rgb, 0xEE, bytes));
            builds[fast](gpu_flags[f], 1, d_rgb, d_bad, w, h, spp, fast ? 8 : 16, fast ? 8 : 16, NULL);
            CUDA_CHECK(cudaDeviceSynchronize());
            CUDA_CHECK(cudaMemcpy(gpu, d_rgb, bytes, cudaMemcpyDeviceToHost));
            CUDA_CHECK(cudaMemcpy(&bad, d_bad, sizeof bad, cudaMemcpyDeviceToHost));
            cpu_image(gpu_flags[f], w, h, spp, cpu);
            ck_assert_msg(bad == 0, "flags %d build %d: %d NaN/Inf pixels", gpu_flags[f], fast, bad);
            double db = psnr(cpu, gpu, bytes), vs_ch03 = psnr(ref.rgb, gpu, bytes);
            ck_assert_msg(db >= 35, "%dx%d flags %d build %d: %.1f dB", w, h, gpu_flags[f], fast, db);
            ck_assert_msg(vs_ch03 >= INDEPENDENT_PSNR_DB, "%dx%d flags %d build %d: %.1f dB against ch03", w, h,
                          gpu_flags[f], fast, vs_ch03);
            worst_cpu = fmin(worst_cpu, db), worst_ch03 = fmin(worst_ch03, vs_ch03);
        }
    printf("ch05 GPU %dx%dx%d, every set and build: vs CPU (same code) %.1f dB at worst (threshold 35), vs ch03 "
           "%.1f dB (threshold %.0f)\n", w, h, spp, worst_cpu, worst_ch03, INDEPENDENT_PSNR_DB);
    image_free(&ref);
    CUDA_CHECK(cudaFree(d_rgb));
    CUDA_CHECK(cudaFree(d_bad));
    free(gpu);
    free(cpu);
}
END_TEST

/* Every lane count, at odd sizes and with fewer samples than lanes: the GPU's
 * shuffles against the CPU's add_lanes (same streams, same order of sums). */
START_TEST(gpu_lanes_match_cpu_at_odd_sizes)
{
    int w = gpu_sizes[_i][0], h = gpu_sizes[_i][1], spp = gpu_sizes[_i][2] + 1;
    size_t bytes = (size_t)w * h * 3;
    unsigned char *d_rgb, *gpu = (unsigned char *)malloc(bytes), *cpu = (unsigned char *)malloc(bytes);
    int *d_bad, bad;
    CUDA_CHECK(cudaMalloc(&d_rgb, bytes));
    CUDA_CHECK(cudaMalloc(&d_bad, sizeof(int)));
    for (int lanes = 2; lanes <= 32; lanes *= 2) {
        CUDA_CHECK(cudaMemset(d_bad, 0, sizeof(int)));
        CUDA_CHECK(cudaMemset(d_rgb, 0xEE, bytes));
        gpu_render_fast(SET_LETTER_BOXES, lanes, d_rgb, d_bad, w, h, spp, 32 / lanes, 8, NULL);
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaMemcpy(gpu, d_rgb, bytes, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(&bad, d_bad, sizeof bad, cudaMemcpyDeviceToHost));
        cpu_image_lanes(SET_LETTER_BOXES, lanes, w, h, spp, cpu);
        ck_assert_msg(bad == 0, "%d lanes: %d NaN/Inf pixels", lanes, bad);
        double db = psnr(cpu, gpu, bytes);
        ck_assert_msg(db >= 35, "%dx%d, %d spp, %d lanes: %.1f dB", w, h, spp, lanes, db);
    }
    CUDA_CHECK(cudaFree(d_rgb));
    CUDA_CHECK(cudaFree(d_bad));
    free(gpu);
    free(cpu);
}
END_TEST

/* At ch01's size, against ch01's image: the plain loop, and the last set
 * under fast math with 1 and 32 lanes (the lanes' samples are not ch03's). */
START_TEST(gpu_matches_ch01_image)
{
    static const struct {
        render_fn *fn;
        int flags, lanes;
        const char *name;
    } runs[] = {{gpu_render, SET_LOOP, 1, "loop"},
                {gpu_render_fast, SET_LETTER_BOXES, 1, "letter-boxes fast"},
                {gpu_render_fast, SET_LETTER_BOXES, 32, "letter-boxes fast, 32 lanes"}};
    image ref, got;
    char err[256];
    ck_assert_msg(image_read_ppm(&ref, REFERENCE_DIR "/kensler_512x512x64.ppm", err, sizeof err) == 0, "%s", err);
    ck_assert(image_alloc(&got, ref.width, ref.height) == 0);
    unsigned char *d_rgb;
    int *d_bad, bad;
    CUDA_CHECK(cudaMalloc(&d_rgb, image_bytes(&got)));
    CUDA_CHECK(cudaMalloc(&d_bad, sizeof(int)));
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
        CUDA_CHECK(cudaMemset(d_bad, 0, sizeof(int)));
        runs[k].fn(runs[k].flags, runs[k].lanes, d_rgb, d_bad, got.width, got.height, 64, 32 / runs[k].lanes, 8, NULL);
        CUDA_CHECK(cudaMemcpy(got.rgb, d_rgb, image_bytes(&got), cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(&bad, d_bad, sizeof bad, cudaMemcpyDeviceToHost));
        double db = psnr(got.rgb, ref.rgb, image_bytes(&got));
        printf("ch05 GPU 512x512x64 %s: vs ch01's image %.1f dB (threshold %.0f)\n", runs[k].name, db, CH01_PSNR_DB);
        ck_assert_int_eq(bad, 0);
        ck_assert_msg(db >= CH01_PSNR_DB, "%s: %.1f dB against ch01's image", runs[k].name, db);
    }
    CUDA_CHECK(cudaFree(d_rgb));
    CUDA_CHECK(cudaFree(d_bad));
    image_free(&ref);
    image_free(&got);
}
END_TEST

/* The geometry of the last launch measure_best made. */
static int last_bx, last_by, last_lanes;
static void recording_render(int flags, int lanes, unsigned char *d_rgb, int *d_bad, int width, int height, int spp,
                             int block_x, int block_y, kernel_info *info)
{
    last_bx = block_x, last_by = block_y, last_lanes = lanes;
    gpu_render_fast(flags, lanes, d_rgb, d_bad, width, height, spp, block_x, block_y, info);
}

/* A sweeping stage launches its winner last: the launch make profile measures
 * (tools/profile.sh: the stage's last launch of its kernel) and the image it
 * writes are the geometry its row reports. Before the fix the last launch was
 * the sweep's last shape (32x16) or lane count (2), whichever won. */
START_TEST(a_sweep_launches_its_winner_last)
{
    static const int sweeps[] = {SWEEP_SHAPES, SWEEP_LANES};
    run r = {};
    r.width = 67, r.height = 45, r.spp = 4; /* odd sizes; the winner depends on timing */
    ck_assert(image_alloc(&r.pic.host, r.width, r.height) == 0);
    CUDA_CHECK(cudaMalloc((void **)&r.pic.d_rgb, image_bytes(&r.pic.host)));
    CUDA_CHECK(cudaMalloc((void **)&r.pic.d_bad, sizeof(int)));
    for (int k = 0; k < 2; k++) {
        stage s = {};
        s.info.name = "sweep", s.info.description = "test", s.info.where = STAGE_GPU;
        s.run = recording_render, s.flags = SET_SPHERE_LIST, s.sweep = sweeps[k], s.lanes = k == 0 ? 1 : 0;
        int best = 0;
        kernel_info info;
        measure_result m;
        measure_best(&r, &s, 3, &best, &info, &m, 1);
        ck_assert_msg(m.ok == REPORT_OK, "sweep %d: %s", k, m.note);
        ck_assert_msg(last_bx == r.bx && last_by == r.by && last_lanes == r.lanes,
                      "sweep %d kept %dx%d x %d lanes but launched %dx%d x %d lanes last", k, r.bx, r.by, r.lanes,
                      last_bx, last_by, last_lanes);
    }
    CUDA_CHECK(cudaFree(r.pic.d_rgb));
    CUDA_CHECK(cudaFree(r.pic.d_bad));
    image_free(&r.pic.host);
}
END_TEST

START_TEST(fast_math_powf_of_a_negative_base_is_nan)
{
    enum { W = 64, H = 48, SPP = 4 };
    unsigned char *d_rgb;
    int *d_bad, bad;
    CUDA_CHECK(cudaMalloc(&d_rgb, W * H * 3));
    CUDA_CHECK(cudaMalloc(&d_bad, sizeof(int)));
    CUDA_CHECK(cudaMemset(d_bad, 0, sizeof(int)));
    gpu_render_fast(SET_FLOAT_ONLY, 1, d_rgb, d_bad, W, H, SPP, 16, 16, NULL);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(&bad, d_bad, sizeof bad, cudaMemcpyDeviceToHost));
    ck_assert_msg(bad > 0, "no NaN pixel: did -use_fast_math stop turning powf into __powf?");
    CUDA_CHECK(cudaFree(d_rgb));
    CUDA_CHECK(cudaFree(d_bad));
}
END_TEST

/* problem.c names no stage: it says LESS WORK of the rows tagged work=less, and
 * what the box saves of the row marked box_note; those are these rows. */
START_TEST(less_work_and_the_box_note_are_the_rows_own)
{
    stage_table_use(stages, STAGE_COUNT, sizeof stages[0]);
    for (size_t i = 0; i < STAGE_COUNT; i++) {
        const char *name = stages[i].info.name;
        char work[32];
        int less = strcmp(stage_work(name, work, sizeof work), "less") == 0;
        int box = strcmp(name, "bounding-box") == 0;
        ck_assert_msg(less == (box || strcmp(name, "letter-boxes") == 0), "%s: work=less %d", name, less);
        ck_assert_msg(stages[i].box_note == box, "%s: box_note %d", name, stages[i].box_note);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ch05");
    TCase *tc = tcase_create("all");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, less_scanning_and_the_box_keep_the_image_byte_identical);
    tcase_add_test(tc, no_sphere_hit_outside_the_box);
    tcase_add_test(tc, power_by_squaring_matches_pow);
    tcase_add_test(tc, box_warp_counts_are_consistent);
    tcase_add_test(tc, float_only_and_algebra_move_the_picture_only_by_rounding);
    tcase_add_test(tc, lanes_share_the_samples);
    tcase_add_loop_test(tc, cpu_sets_match_ch03_at_odd_sizes, 0, SIZES);
    tcase_add_test(tc, planted_bug_fails_against_ch03);
    tcase_add_test(tc, less_work_and_the_box_note_are_the_rows_own);
    int skipped = harness_add_gpu_test(tc, gpu_stages_match_cpu_at_odd_sizes, SIZES);
    skipped += harness_add_gpu_test(tc, gpu_lanes_match_cpu_at_odd_sizes, SIZES);
    skipped += harness_add_gpu_test(tc, gpu_matches_ch01_image, 1);
    skipped += harness_add_gpu_test(tc, fast_math_powf_of_a_negative_base_is_nan, 1);
    skipped += harness_add_gpu_test(tc, a_sweep_launches_its_winner_last, 1);
    suite_add_tcase(s, tc);
    return harness_run_gpu(s, "ch05", skipped);
}
