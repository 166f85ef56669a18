/* test_ex_ch07gpu.cu - exercise ch07, part 2: the tile loop, to the instruction.
 *
 * 1. From the machine code (no GPU): the exercise's tile_loop.cuh compiled to
 *    PTX (nvcc -ptx); in the basic block with the most square roots (sqrt or
 *    rsqrt: one per interaction), instructions / square roots <= 14.7.
 *    Chapter 07's plain tiled loop costs 18.3; the minimum the arithmetic
 *    needs is 14 (see the solution), plus the loop's own counter and branch.
 * 2. On a GPU: n = 1, 255, 257, 1000, 4097 bodies (seed 7071); every body's
 *    acceleration within 1e-4 relative (of the sum of magnitudes) of a
 *    double-precision sum on the CPU. Skipped without a GPU.
 * 3. On a GPU with compute-sanitizer: the kernel (n = 513, three tiles) under
 *    racecheck reports no hazard, and under memcheck no invalid access: a
 *    tile overwritten while other warps still read it is a race even when the
 *    sums come out right. */
#include "harness.h"

#include "tile_loop.cuh"

#include "cuda_util.h"

#include <math.h>

static const int sizes[] = {1, 255, 257, 1000, 4097};

START_TEST(tile_loop_matches_double)
{
    int n = sizes[_i];
    float4 *b = (float4 *)malloc(n * sizeof(float4)), *d_b;
    float3 *a = (float3 *)malloc(n * sizeof(float3)), *d_a;
    test_rng r = {7071};
    for (int i = 0; i < n; i++)
        b[i] = make_float4((float)test_rng_uniform(&r, -1, 1), (float)test_rng_uniform(&r, -1, 1),
                           (float)test_rng_uniform(&r, -1, 1), (float)test_rng_uniform(&r, 0.5, 1.5) / n);
    CUDA_CHECK(cudaMalloc(&d_b, n * sizeof(float4)));
    CUDA_CHECK(cudaMalloc(&d_a, n * sizeof(float3)));
    CUDA_CHECK(cudaMemcpy(d_b, b, n * sizeof(float4), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_a, 0xFF, n * sizeof(float3)));
    exercise_tiled_kernel<<<(n + EX_TILE - 1) / EX_TILE, EX_TILE>>>(d_b, d_a, n);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(a, d_a, n * sizeof(float3), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        double w[3] = {0, 0, 0}, size = 0;
        for (int j = 0; j < n; j++) {
            double rx = (double)b[j].x - b[i].x, ry = (double)b[j].y - b[i].y, rz = (double)b[j].z - b[i].z;
            double d2 = rx * rx + ry * ry + rz * rz + 1e-4, s = b[j].w / (d2 * sqrt(d2));
            w[0] += rx * s, w[1] += ry * s, w[2] += rz * s;
            size += sqrt(d2 - 1e-4) * s;
        }
        double got[3] = {a[i].x, a[i].y, a[i].z};
        for (int c = 0; c < 3; c++)
            ck_assert_msg(fabs(got[c] - w[c]) <= 1e-4 * size + 1e-30, "n=%d body %d: %g vs %g", n, i, got[c], w[c]);
    }
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_a));
    free(b);
    free(a);
}
END_TEST

/* --launch-once (run by compute-sanitizer): the kernel once on three tiles, then exit. */
static int launch_once(void)
{
    enum { N = 2 * EX_TILE + 1 };
    static float4 b[N];
    test_rng r = {7072};
    for (int i = 0; i < N; i++)
        b[i] = make_float4((float)test_rng_uniform(&r, -1, 1), (float)test_rng_uniform(&r, -1, 1),
                           (float)test_rng_uniform(&r, -1, 1), 1.0f / N);
    float4 *d_b;
    float3 *d_a;
    CUDA_CHECK(cudaMalloc(&d_b, sizeof b));
    CUDA_CHECK(cudaMalloc(&d_a, N * sizeof(float3)));
    CUDA_CHECK(cudaMemcpy(d_b, b, sizeof b, cudaMemcpyHostToDevice));
    exercise_tiled_kernel<<<(N + EX_TILE - 1) / EX_TILE, EX_TILE>>>(d_b, d_a, N);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_a));
    return 0;
}

START_TEST(clean_under_compute_sanitizer)
{
    char why[400];
    int rc = harness_sanitize_kernel(NVCC, why, sizeof why);
    ck_assert_msg(rc == 0, "compute-sanitizer on your kernel (n = %d): %s (every warp must be done reading "
                           "a tile before any thread loads the next: a barrier after the inner loop)",
                  2 * EX_TILE + 1, why);
}
END_TEST

#define MAX_PER_INTERACTION 14.7

START_TEST(few_instructions_per_interaction)
{
    char *ptx = harness_nvcc(NVCC, CUDA_ARCH, EX_DIR, NULL, PROJECT_DIR "/tests/ex_ch07_kernel.cu", "ptx");
    ck_assert_msg(ptx != NULL, "your tile_loop.cuh does not compile (nvcc -ptx)");
    int n = 0, roots = 0, best_n = 0, best_roots = 0;
    for (char *line = strtok(ptx, "\n"); line; line = strtok(NULL, "\n")) {
        const char *text = line + strspn(line, " \t");
        int block_edge = strncmp(line, "$L__BB", 6) == 0 || text[0] == '{' || text[0] == '}';
        if (block_edge) {
            if (roots > best_roots) {
                best_roots = roots;
                best_n = n;
            }
            n = roots = 0;
        } else if (line[0] == '\t' && ((line[1] >= 'a' && line[1] <= 'z') || line[1] == '@')) {
            n++;
            roots += strstr(line, "sqrt") != NULL;
        }
    }
    if (roots > best_roots) {
        best_roots = roots;
        best_n = n;
    }
    ck_assert_msg(best_roots > 0, "no square root in the PTX: where is the interaction?");
    double per = (double)best_n / best_roots;
    ck_assert_msg(per <= MAX_PER_INTERACTION, "got: %.2f PTX instructions per interaction (%d for %d interactions); "
                  "want: at most %.1f", per, best_n, best_roots, MAX_PER_INTERACTION);
    free(ptx);
}
END_TEST

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--launch-once") == 0)
        return launch_once();
    Suite *s = suite_create("exercise ch07 (GPU)");
    TCase *tc = tcase_create("tiles");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, few_instructions_per_interaction);
    int skipped = harness_add_gpu_test(tc, tile_loop_matches_double, (int)(sizeof sizes / sizeof sizes[0]));
    if (harness_can_sanitize(NVCC))
        tcase_add_test(tc, clean_under_compute_sanitizer);
    else
        skipped++, printf("no GPU or no compute-sanitizer: the compute-sanitizer runs are skipped\n");
    suite_add_tcase(s, tc);
    return harness_run_gpu(s, "exercise-ch07gpu", skipped);
}
