/* test_ch12.cu - every stage of ch12 multiplies right at awkward shapes.
 *
 * Shapes: 1, 31, 33, 2^k +- 1 and m != n != k, each checked element by element
 * against the FP64 reference (chapters/ch12_gemm/problem.c), within the
 * bound stated per precision there, with NaN in the inputs' padding (a
 * stage that lets it into a sum fails) and C poisoned before each run (a
 * stage that leaves an element unwritten fails, as one that writes C's
 * padding does). The CPU stages run everywhere (CI); the GPU stages need a
 * device and are counted as skipped without one; under make sanitize the
 * GPU suite runs in compute-sanitizer, which sees a read past A or B. The
 * check itself is tested too: planted mistakes (a term of the sum dropped,
 * the padding summed, an element left out) must fail it.
 */
#include "harness.h"

#include "problem.h"
#include "stages.h"

#include "cuda_util.h"

#include <cublas_v2.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int m, n, k;
} shape;

static const shape cpu_shapes[] = {{1, 1, 1}, {31, 33, 17}, {33, 31, 65}, {64, 64, 64}, {100, 7, 300},
                                   {127, 129, 131}, {257, 65, 33}};
#define CPU_SHAPES (sizeof cpu_shapes / sizeof cpu_shapes[0])
static const shape gpu_shapes[] = {{1, 1, 1},       {31, 33, 17},   {33, 31, 65},   {128, 128, 128},
                                   {255, 257, 129}, {1000, 513, 264}, {4097, 33, 31}, {129, 4095, 257},
                                   {65, 63, 4097},  {1024, 1024, 1024}};
#define GPU_SHAPES (sizeof gpu_shapes / sizeof gpu_shapes[0])

static int stage_can_run(const stage *s)
{
    char why[256];
    return !s->supported || s->supported(why, sizeof why);
}

static void check_ok(problem *p, const stage *s, const char *what)
{
    char note[256] = "";
    double worst, vs;
    int ok = problem_check(p, s->input, s->tensor_cores, note, sizeof note, &worst, &vs);
    ck_assert_msg(ok, "%s, %dx%dx%d, %s: %s", s->info.name, p->s.m, p->s.n, p->s.k, what, note);
}

START_TEST(cpu_stages_multiply_right)
{
    shape sh = cpu_shapes[_i];
    problem p;
    problem_init(&p, sh.m, sh.n, sh.k, 2);
    size_t a_bytes = (size_t)sh.m * p.s.lda * sizeof(float), b_bytes = (size_t)sh.k * p.s.ldb * sizeof(float);
    float *a0 = (float *)malloc(a_bytes), *b0 = (float *)malloc(b_bytes);
    memcpy(a0, p.a, a_bytes);
    memcpy(b0, p.b, b_bytes);
    for (size_t i = 0; i < STAGE_COUNT; i++) {
        const stage *s = &stages[i];
        if (s->info.where != STAGE_CPU || !stage_can_run(s))
            continue;
        for (int threads = 1; threads <= (s->info.all_cores ? 5 : 1); threads += 2) {
            problem_poison(p.c, &p.s);
            s->cpu(&p.s, p.a, p.b, p.c, threads);
            char what[32];
            snprintf(what, sizeof what, "%d threads", threads);
            check_ok(&p, s, what);
            ck_assert_msg(memcmp(a0, p.a, a_bytes) == 0 && memcmp(b0, p.b, b_bytes) == 0, "%s changed its inputs",
                          s->info.name);
        }
    }
    free(a0);
    free(b0);
    problem_free(&p);
}
END_TEST

/* Mistakes a stage could make, each of which the check must catch. */
static void multiply(const problem *p, int k_end, int pad_in, int skip_last)
{
    const gemm_shape *s = &p->s;
    for (int i = 0; i < s->m; i++)
        for (int j = 0; j < s->n; j++) {
            if (skip_last && i == s->m - 1 && j == s->n - 1)
                continue;
            float sum = 0;
            for (int k = 0; k < k_end; k++)
                sum += p->a[(size_t)i * s->lda + k] * p->b[(size_t)k * s->ldb + j];
            if (pad_in)
                sum += p->a[(size_t)i * s->lda + s->k]; /* a padding value into the sum */
            p->c[(size_t)i * s->ldc + j] = sum;
        }
}

START_TEST(check_catches_mistakes)
{
    problem p;
    problem_init(&p, 33, 31, 65, 1);
    char note[256];
    double worst, vs;
    problem_poison(p.c, &p.s); /* C's padding as a run leaves it: poisoned, untouched */
    multiply(&p, p.s.k, 0, 0);
    ck_assert_msg(problem_check(&p, INPUT_FP32, 0, note, sizeof note, &worst, &vs), "the plain loop fails: %s", note);
    multiply(&p, p.s.k - 1, 0, 0);
    ck_assert_msg(!problem_check(&p, INPUT_FP32, 0, note, sizeof note, &worst, &vs), "a term dropped passes");
    ck_assert_msg(!problem_check(&p, INPUT_FP32, 1, note, sizeof note, &worst, &vs),
                  "a term dropped passes the tensor cores' bound");
    problem_poison(p.c, &p.s);
    multiply(&p, p.s.k, 1, 0);
    ck_assert_msg(!problem_check(&p, INPUT_FP32, 0, note, sizeof note, &worst, &vs), "NaN padding summed passes");
    problem_poison(p.c, &p.s);
    multiply(&p, p.s.k, 0, 1);
    ck_assert_msg(!problem_check(&p, INPUT_FP32, 0, note, sizeof note, &worst, &vs), "an element unwritten passes");
    multiply(&p, p.s.k, 0, 0);
    p.c[p.s.n] = 1; /* row 0's first padding column */
    ck_assert_msg(!problem_check(&p, INPUT_FP32, 0, note, sizeof note, &worst, &vs), "C's padding written passes");
    problem_free(&p);
}
END_TEST

/* bf16 rounding, to nearest even, by the bit patterns. */
START_TEST(bf16_rounds_to_nearest_even)
{
    ck_assert_uint_eq(bf16_from_float(1.0f), 0x3F80);
    ck_assert_uint_eq(bf16_from_float(1.0f + 0x1p-8f), 0x3F80);        /* a tie: to the even 1.0 */
    ck_assert_uint_eq(bf16_from_float(1.0f + 0x1p-8f + 0x1p-20f), 0x3F81); /* past the tie: up */
    ck_assert_uint_eq(bf16_from_float(1.0f + 3 * 0x1p-8f), 0x3F82);    /* a tie from an odd one: up to even */
    ck_assert_uint_eq(bf16_from_float(-2.0f), 0xC000);
    ck_assert_uint_eq(bf16_from_float(NAN) & 0x7FC0, 0x7FC0);
    ck_assert(float_from_bf16(0x3F81) == 1.0f + 0x1p-7f);
}
END_TEST

START_TEST(gpu_stages_multiply_right)
{
    shape sh = gpu_shapes[_i];
    problem p;
    problem_init(&p, sh.m, sh.n, sh.k, 4);
    problem_want_bf16(&p);
    size_t na = (size_t)sh.m * p.s.lda, nb = (size_t)sh.k * p.s.ldb, nc = (size_t)sh.m * p.s.ldc;
    gemm_gpu_args g;
    memset(&g, 0, sizeof g);
    g.s = p.s;
    float *a, *b, *c;
    uint16_t *a16, *b16;
    /* each buffer its exact size: a read past it is compute-sanitizer's to see */
    CUDA_CHECK(cudaMalloc(&a, na * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&b, nb * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&c, nc * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&a16, na * sizeof(uint16_t)));
    CUDA_CHECK(cudaMalloc(&b16, nb * sizeof(uint16_t)));
    CUDA_CHECK(cudaMemcpy(a, p.a, na * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(b, p.b, nb * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(a16, p.a16, na * sizeof(uint16_t), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(b16, p.b16, nb * sizeof(uint16_t), cudaMemcpyHostToDevice));
    cublasHandle_t handle;
    ck_assert(cublasCreate(&handle) == CUBLAS_STATUS_SUCCESS);
    int sms;
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    g.a = a, g.b = b, g.c = c, g.a16 = a16, g.b16 = b16, g.cublas = handle, g.sms = sms;
    for (size_t i = 0; i < STAGE_COUNT; i++) {
        const stage *s = &stages[i];
        if (s->info.where != STAGE_GPU || !stage_can_run(s))
            continue;
        for (int run = 1; run <= 2; run++) { /* state a stage keeps between launches must not leak into the next */
            problem_poison(p.c, &p.s);
            CUDA_CHECK(cudaMemcpy(c, p.c, nc * sizeof(float), cudaMemcpyHostToDevice));
            s->gpu(&g);
            CUDA_CHECK(cudaDeviceSynchronize());
            CUDA_CHECK(cudaMemcpy(p.c, c, nc * sizeof(float), cudaMemcpyDeviceToHost));
            check_ok(&p, s, run == 1 ? "first run" : "second run");
        }
    }
    ck_assert(cublasDestroy(handle) == CUBLAS_STATUS_SUCCESS);
    void *all[] = {a, b, c, a16, b16};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        CUDA_CHECK(cudaFree(all[i]));
    problem_free(&p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ch12");
    TCase *tc = tcase_create("all");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, cpu_stages_multiply_right, 0, CPU_SHAPES);
    tcase_add_test(tc, check_catches_mistakes);
    tcase_add_test(tc, bf16_rounds_to_nearest_even);
    int skipped = harness_add_gpu_test(tc, gpu_stages_multiply_right, GPU_SHAPES);
    suite_add_tcase(s, tc);
    return harness_run_gpu(s, "ch12", skipped);
}
