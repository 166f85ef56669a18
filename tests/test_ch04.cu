/* test_ch04.cu - ch04's __host__ __device__ card: CPU tests (run in CI) and
 * GPU tests (skipped without a device, counted as skipped).
 *
 * The main CPU test: sample_loop() and sample_recursive() give the same colour
 * for 5000 random rays (seed 404, origins around the camera, directions
 * uniform on the sphere) and consume the same random numbers. The loop adds
 * the same terms in another order, so colours agree to 1e-4 relative (+1e-3
 * absolute), not bit for bit.
 *
 * The GPU kernels run the same card.h as cpu_render_picture_pixel, so
 * comparing the two cannot see a bug in card.h. Two references that share no
 * code with it: ch03's card.c (the code card.h was ported from, compiled as C;
 * the same per-pixel seeds, so the same samples: equal up to rounding at any
 * size), and ch01's image at 512x512x64 (Kensler's program, libc rand(): equal
 * only up to noise, data/reference/kensler_512x512x64.ppm). A planted bug
 * (card.h with one sign flipped, made by chapter.mk) shows the difference on
 * the CPU: compared with itself it passes, compared with ch03 it fails.
 */
#include "harness.h"

#include "card.h"
#include "render.h"

#include "cuda_util.h"

#include <math.h>
#include <string.h>

#include "card_reference.h"

/* card.h with mirrors reflecting the wrong way (chapter.mk's sed). */
namespace planted {
#undef CH04_CARD_H
#include "ch04_card_planted.h"
}

/* This card.h (planted = 0) or the planted copy on the CPU, a whole picture. */
static void template_image(int planted_bug, int sampler, int w, int h, int spp, unsigned char *rgb)
{
    planted::camera cam = planted::make_camera(w, h);
    for (int row = 0; row < h; row++)
        for (int col = 0; col < w; col++) {
            unsigned char *px = rgb + 3 * ((size_t)row * w + col);
            if (planted_bug)
                planted::render_picture_pixel(&cam, col, row, spp, sampler, px);
            else
                cpu_render_picture_pixel(sampler, col, row, w, h, spp, px);
        }
}

static vec random_direction(test_rng *r)
{
    for (;;) {
        vec d = vec_make((float)test_rng_uniform(r, -1, 1), (float)test_rng_uniform(r, -1, 1),
                         (float)test_rng_uniform(r, -1, 1));
        float l = vec_dot(d, d);
        if (l > 0.01f && l <= 1)
            return vec_normalize(d);
    }
}

START_TEST(loop_equals_recursion_for_random_rays)
{
    test_rng r = {404};
    int hits = 0;
    for (int i = 0; i < 5000; i++) {
        vec origin = vec_make((float)test_rng_uniform(&r, 0, 20), (float)test_rng_uniform(&r, 0, 20),
                              (float)test_rng_uniform(&r, 0.5, 10));
        vec dir = random_direction(&r);
        if (i % 2) /* half the rays aimed at the letters, so many reflect */
            dir = vec_normalize(vec_add(vec_make((float)test_rng_uniform(&r, 0, 18), 0,
                                                 (float)test_rng_uniform(&r, 4, 12)),
                                        vec_scale(origin, -1)));
        uint32_t s1 = (uint32_t)test_rng_next(&r), s2 = s1;
        vec a = sample_recursive(origin, dir, &s1), b = sample_loop(origin, dir, &s2);
        ck_assert_msg(s1 == s2, "ray %d: the two samplers drew different random numbers", i);
        ck_assert_msg(fabsf(a.x - b.x) <= 1e-4f * fabsf(a.x) + 1e-3f && fabsf(a.y - b.y) <= 1e-4f * fabsf(a.y) + 1e-3f &&
                          fabsf(a.z - b.z) <= 1e-4f * fabsf(a.z) + 1e-3f,
                      "ray %d: recursive (%g %g %g) loop (%g %g %g)", i, a.x, a.y, a.z, b.x, b.y, b.z);
        float t;
        vec n;
        hits += trace(origin, dir, &t, &n) == HIT_SPHERE;
    }
    ck_assert_int_gt(hits, 500); /* the test did exercise reflections */
}
END_TEST

START_TEST(cpu_pixels_of_both_samplers_agree)
{
    int differ = 0;
    for (int row = 0; row < 31; row++)
        for (int col = 0; col < 33; col++) {
            unsigned char a[3], b[3];
            ck_assert(cpu_render_picture_pixel(SAMPLER_RECURSIVE, col, row, 33, 31, 3, a));
            ck_assert(cpu_render_picture_pixel(SAMPLER_LOOP, col, row, 33, 31, 3, b));
            for (int c = 0; c < 3; c++) {
                ck_assert_int_le(abs(a[c] - b[c]), 1); /* a rounding apart at most */
                differ += a[c] != b[c];
            }
        }
    ck_assert_int_lt(differ, 33 * 31 * 3 / 10);
}
END_TEST

START_TEST(tiny_images_are_finite)
{
    unsigned char px[3];
    ck_assert(cpu_render_picture_pixel(SAMPLER_LOOP, 0, 0, 1, 1, 4, px));
    for (int row = 0; row < 3; row++)
        for (int col = 0; col < 7; col++)
            ck_assert(cpu_render_picture_pixel(SAMPLER_LOOP, col, row, 7, 3, 2, px));
}
END_TEST

/* Odd sizes for the comparisons: width, height, spp. */
static const int gpu_sizes[][3] = {{1, 1, 2}, {7, 3, 4}, {33, 31, 3}, {65, 17, 2}};
#define SIZES (int)(sizeof gpu_sizes / sizeof gpu_sizes[0])

/* card.h on the CPU against ch03's code, both samplers (each PSNR printed). */
START_TEST(cpu_code_matches_ch03_at_odd_sizes)
{
    int w = gpu_sizes[_i][0], h = gpu_sizes[_i][1], spp = gpu_sizes[_i][2];
    image ref;
    ch03_image(&ref, w, h, spp);
    unsigned char *rgb = (unsigned char *)malloc(image_bytes(&ref));
    for (int sampler = SAMPLER_LOOP; sampler <= SAMPLER_RECURSIVE; sampler++) {
        template_image(0, sampler, w, h, spp, rgb);
        double db = psnr(rgb, ref.rgb, image_bytes(&ref));
        printf("ch04 CPU %dx%dx%d %s: vs ch03 %.1f dB (threshold %.0f)\n", w, h, spp, sampler ? "recursive" : "loop",
               db, INDEPENDENT_PSNR_DB);
        ck_assert_msg(db >= INDEPENDENT_PSNR_DB, "%dx%dx%d: %.1f dB against ch03", w, h, spp, db);
    }
    free(rgb);
    image_free(&ref);
}
END_TEST

/* The planted bug, on the CPU: it changes the picture, and the comparison with
 * ch03 fails it. (The GPU-against-CPU check compares card.h with card.h, so it
 * compares the planted copy with itself and passes it.) */
START_TEST(planted_bug_fails_against_ch03)
{
    int w = 33, h = 31, spp = 3;
    image ref;
    ch03_image(&ref, w, h, spp);
    size_t bytes = image_bytes(&ref);
    unsigned char *good = (unsigned char *)malloc(bytes), *bad = (unsigned char *)malloc(bytes);
    template_image(0, SAMPLER_LOOP, w, h, spp, good);
    template_image(1, SAMPLER_LOOP, w, h, spp, bad);
    double changed = psnr(good, bad, bytes), db = psnr(bad, ref.rgb, bytes);
    printf("ch04 planted bug %dx%dx%d (CPU): vs card.h %.1f dB, vs ch03 %.1f dB (threshold %.0f)\n", w, h, spp,
           changed, db, INDEPENDENT_PSNR_DB);
    ck_assert_msg(changed < INDEPENDENT_PSNR_DB, "the planted bug hardly changes the picture: %.1f dB", changed);
    ck_assert_msg(db < INDEPENDENT_PSNR_DB, "the planted bug passed the comparison with ch03: %.1f dB", db);
    free(good);
    free(bad);
    image_free(&ref);
}
END_TEST

/* GPU: the kernels against the CPU (the same code) and against ch03 (not), at
 * odd sizes; one line each of what was measured. */

START_TEST(gpu_matches_cpu_and_ch03_at_odd_sizes)
{
    int w = gpu_sizes[_i][0], h = gpu_sizes[_i][1], spp = gpu_sizes[_i][2];
    size_t bytes = (size_t)w * h * 3;
    unsigned char *d_rgb, *gpu = (unsigned char *)malloc(bytes);
    int *d_bad, bad;
    CUDA_CHECK(cudaMalloc(&d_rgb, bytes));
    CUDA_CHECK(cudaMalloc(&d_bad, sizeof(int)));
    image ref;
    ch03_image(&ref, w, h, spp);
    gpu_prepare_stack(STACK_BYTES);
    for (int recursive = SAMPLER_LOOP; recursive <= SAMPLER_RECURSIVE; recursive++) {
        CUDA_CHECK(cudaMemset(d_bad, 0, sizeof(int)));
        CUDA_CHECK(cudaMemset(d_rgb, 0xEE, bytes));
        gpu_render(recursive, d_rgb, d_bad, w, h, spp, 16, 16, NULL);
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaMemcpy(gpu, d_rgb, bytes, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(&bad, d_bad, sizeof bad, cudaMemcpyDeviceToHost));
        ck_assert_int_eq(bad, 0);
        double sq = 0;
        for (int row = 0; row < h; row++)
            for (int col = 0; col < w; col++) {
                unsigned char cpu[3];
                cpu_render_picture_pixel(recursive, col, row, w, h, spp, cpu);
                for (int c = 0; c < 3; c++) {
                    double d = cpu[c] - gpu[3 * (row * w + col) + c];
                    sq += d * d;
                }
            }
        double vs_cpu = sq == 0 ? INFINITY : 10 * log10(255.0 * 255.0 * bytes / sq);
        double vs_ch03 = psnr(gpu, ref.rgb, bytes);
        printf("ch04 GPU %dx%dx%d %s: vs CPU (same code) %.1f dB (threshold 35), vs ch03 %.1f dB (threshold %.0f)\n",
               w, h, spp, recursive ? "recursive" : "loop", vs_cpu, vs_ch03, INDEPENDENT_PSNR_DB);
        ck_assert_msg(vs_cpu >= 35, "%dx%d %s: %.1f dB", w, h, recursive ? "recursive" : "loop", vs_cpu);
        ck_assert_msg(vs_ch03 >= INDEPENDENT_PSNR_DB, "%dx%d %s: %.1f dB against ch03", w, h,
                      recursive ? "recursive" : "loop", vs_ch03);
    }
    CUDA_CHECK(cudaFree(d_rgb));
    CUDA_CHECK(cudaFree(d_bad));
    free(gpu);
    image_free(&ref);
}
END_TEST

/* The loop kernel at ch01's size against ch01's image (Kensler's program,
 * another random sequence: equal up to noise). */
START_TEST(gpu_matches_ch01_image)
{
    image ref, got;
    char err[256];
    ck_assert_msg(image_read_ppm(&ref, REFERENCE_DIR "/kensler_512x512x64.ppm", err, sizeof err) == 0, "%s", err);
    ck_assert(image_alloc(&got, ref.width, ref.height) == 0);
    unsigned char *d_rgb;
    int *d_bad, bad;
    CUDA_CHECK(cudaMalloc(&d_rgb, image_bytes(&got)));
    CUDA_CHECK(cudaMalloc(&d_bad, sizeof(int)));
    CUDA_CHECK(cudaMemset(d_bad, 0, sizeof(int)));
    gpu_render(SAMPLER_LOOP, d_rgb, d_bad, got.width, got.height, 64, 16, 16, NULL);
    CUDA_CHECK(cudaMemcpy(got.rgb, d_rgb, image_bytes(&got), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&bad, d_bad, sizeof bad, cudaMemcpyDeviceToHost));
    double db = psnr(got.rgb, ref.rgb, image_bytes(&got));
    printf("ch04 GPU 512x512x64 loop: vs ch01's image %.1f dB (threshold %.0f)\n", db, CH01_PSNR_DB);
    ck_assert_int_eq(bad, 0);
    ck_assert_msg(db >= CH01_PSNR_DB, "%.1f dB against ch01's image", db);
    CUDA_CHECK(cudaFree(d_rgb));
    CUDA_CHECK(cudaFree(d_bad));
    image_free(&ref);
    image_free(&got);
}
END_TEST

/* Launches that fail on purpose, as a user of ./ch04 sees them: the
 * recursive kernel's 134 registers a thread times 1024 threads are more than
 * an SM's 65536 registers, so a 32x32 block is refused at launch; and with
 * 128 bytes of stack a thread (one call of sample() needs 240) the kernel
 * writes past its stack, which the GPU reports at the next synchronisation as
 * an illegal memory access. Either way: exit status 1, the CUDA error's name
 * and text with file:line, and no image written. */
static const struct {
    const char *args, *message;
} failures[] = {
    {"--block 32x32", "too many resources requested for launch"},
    {"--stack-bytes 128", "an illegal memory access was encountered"},
};

START_TEST(launches_that_fail_say_why)
{
    char dir[] = "/tmp/ch04-fail-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char program[600];
    snprintf(program, sizeof program, "%s/ch04", PROGRAM_DIR);
    int rc = harness_shell("cd %s && %s --stage recursive --spp 4 --repeat 1 --quiet %s --out x.ppm "
                           "> out.txt 2> err.txt",
                           harness_q(dir), harness_q(program), failures[_i].args);
    int said = harness_shell("cd %s && grep -q %s err.txt", harness_q(dir), harness_q(failures[_i].message)) == 0;
    int wrote = harness_shell("test -e %s/x.ppm", harness_q(dir)) == 0;
    harness_shell("cd %s && cat err.txt; rm -rf %s", harness_q(dir), harness_q(dir));
    ck_assert_msg(rc == 1, "%s: exit status %d, want 1", failures[_i].args, rc);
    ck_assert_msg(said, "%s: stderr does not say '%s'", failures[_i].args, failures[_i].message);
    ck_assert_msg(!wrote, "%s: an image was written", failures[_i].args);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ch04");
    TCase *tc = tcase_create("all");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, loop_equals_recursion_for_random_rays);
    tcase_add_test(tc, cpu_pixels_of_both_samplers_agree);
    tcase_add_test(tc, tiny_images_are_finite);
    tcase_add_loop_test(tc, cpu_code_matches_ch03_at_odd_sizes, 0, SIZES);
    tcase_add_test(tc, planted_bug_fails_against_ch03);
    int skipped = harness_add_gpu_test(tc, gpu_matches_cpu_and_ch03_at_odd_sizes, SIZES);
    skipped += harness_add_gpu_test(tc, gpu_matches_ch01_image, 1);
    skipped += harness_add_gpu_test(tc, launches_that_fail_say_why, sizeof failures / sizeof failures[0]);
    suite_add_tcase(s, tc);
    return harness_run_gpu(s, "ch04", skipped);
}
