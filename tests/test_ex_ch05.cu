/* test_ex_ch05.cu - exercise ch05: ex_shade without FP64.
 *
 * 1. The machine code: nvcc -ptx of tests/ex_ch05_kernel.cu (a kernel calling
 *    ex_shade); every PTX instruction that names an .f64 type is counted (the
 *    register declarations are not instructions). Want: 0. No GPU needed.
 * 2. The values on the CPU: 200000 inputs from seed 5050 (dir_z in [-1, 1],
 *    spec_base in [-1, 1], lambert in [-0.5, 1], px, py in [-40, 40]), then
 *    fixed edge inputs (a negative spec_base where the highlight is lit, the
 *    horizon and the zenith, the origin), against the same formula computed
 *    here in double: |got - want| <= 1e-4 * (|sky| + |specular| + |floor
 *    term|) + 1e-6. Float carries 2^-24 relative per operation; x^99 by
 *    squaring carries up to 98 of them, powf about one.
 * 3. The values on a GPU: that same kernel runs the same inputs through the
 *    answer's device code, against the same reference. Device code is graded
 *    as device code: a device path that differs from the host path (__powf,
 *    exp2(y log2 x), which is NaN for a negative base; a dummy under
 *    #ifdef __CUDA_ARCH__) fails here. Without a GPU it is counted as skipped.
 * Every call into the answer goes through harness_answer (harness.h, "the
 * probe and the judge"): for grading, the checks run in a process the answer
 * never ran in.
 */
#include "harness.h"

#include "ex_ch05_kernel.cu"

#include <math.h>

enum { RANDOM = 200000, SEED = 5050, BLOCK = 256 };

/* Edge inputs (dir_z, spec_base, lambert, px, py): a lit highlight on a
 * negative base (x^99 < 0; exp2(99 log2 x) has no value there), one unlit, the
 * highlight's ends (-1, 0, 1), the horizon (dir_z 0), straight up and down,
 * the origin of the floor and its far corners. */
static const float edges[][5] = {
    {0.3f, -1.0f, 1.0f, 3.5f, -7.25f},    {0.3f, -0.999f, 0.5f, 12.0f, 1.0f}, {-0.2f, -0.99f, 0.01f, -3.0f, 2.0f},
    {0.9f, -0.5f, 0.25f, 0.5f, 0.5f},     {0.0f, -0.95f, 1.0f, -1.0f, -1.0f}, {0.5f, -0.001f, 0.8f, 20.0f, -20.0f},
    {0.1f, -0.97f, 0.75f, 33.0f, 21.0f},  {-0.7f, -0.9f, -0.5f, 2.0f, 3.0f},  {0.4f, -1.0f, 0.0f, -6.0f, 8.0f},
    {1.0f, 0.0f, 1.0f, 0.0f, 0.0f},       {-1.0f, 1.0f, 1.0f, 0.0f, 0.0f},  {1.0f, 1.0f, -0.5f, -40.0f, -40.0f},
    {-1.0f, -1.0f, 0.001f, 39.5f, 39.5f}, {0.0f, 0.999f, 1.0f, 40.0f, -40.0f},
};
enum { EDGES = sizeof edges / sizeof edges[0], INPUTS = RANDOM + EDGES };

/* The inputs every part grades, five floats each, made the same way each time. */
static float in[5 * INPUTS];

static void make_inputs(void)
{
    test_rng r = {SEED};
    for (int i = 0; i < RANDOM; i++) {
        double dz = test_rng_uniform(&r, -1, 1), sb = test_rng_uniform(&r, -1, 1), lam = test_rng_uniform(&r, -0.5, 1);
        double px = test_rng_uniform(&r, -40, 40), py = test_rng_uniform(&r, -40, 40);
        float v[5] = {(float)dz, (float)sb, (float)lam, (float)px, (float)py};
        memcpy(in + 5 * i, v, sizeof v);
    }
    memcpy(in + 5 * RANDOM, edges, sizeof edges);
}

/* The reference for input i, in double, and the size of its terms (for the bound). */
static double reference(int i, double *size)
{
    const float *v = in + 5 * i;
    float fdz = v[0], fsb = v[1], flam = v[2], fpx = v[3], fpy = v[4];
    double sky = 0.7 * pow(1 - (double)fdz, 4), spec = flam > 0 ? pow((double)fsb, 99) : 0;
    int odd = (int)(ceil((double)fpx * 0.2) + ceil((double)fpy * 0.2)) & 1;
    double floor_term = ((double)flam * 0.2 + 0.1) * (odd ? 3 : 1) / sqrt((double)fpx * fpx + (double)fpy * fpy + 1);
    *size = fabs(sky) + fabs(spec) + fabs(floor_term);
    return sky + spec + floor_term;
}

static int within(float got, double want, double size)
{
    return fabs(got - want) <= 1e-4 * size + 1e-6; /* false for a NaN */
}

/* The answer's values (got) against the reference; the message names the
 * first input that differs and how many do. where: "" on the CPU, "on the GPU,
 * " there; host (the answer's own values on the CPU, NULL on the CPU) lets a
 * GPU message say when the device differs from the host. */
static void check_values(const char *where, const float *got, const float *host)
{
    int first = -1, bad = 0;
    for (int i = 0; i < INPUTS; i++) {
        double size, want = reference(i, &size);
        if (!within(got[i], want, size) && bad++ == 0)
            first = i;
    }
    if (bad == 0)
        return;
    const float *v = in + 5 * first;
    double size, want = reference(first, &size);
    int host_right = host && within(host[first], want, size);
    const char *trap = isnan(got[first]) && v[1] < 0 && v[2] > 0
                           ? " NaN for a lit highlight on a negative spec_base: x^99 of a negative x is negative, but "
                             "exp2(99 * log2(x)), which is what __powf computes, has no value for x < 0."
                           : "";
    const char *device = host_right ? " Your host code gives the right value for this input: the device runs other "
                                      "code (under #ifdef __CUDA_ARCH__, or a device-only function such as __powf); "
                                      "device code is graded as device code."
                                    : "";
    ck_assert_msg(0, "%sinput %d (dir_z %g, spec_base %g, lambert %g, px %g, py %g): got %.9g, want %.9g, the formula "
                  "in double (%d of %d inputs differ).%s%s",
                  where, first, v[0], v[1], v[2], v[3], v[4], got[first], want, bad, INPUTS, trap, device);
}

static float got[INPUTS], host[INPUTS];

/* The answer on the CPU, every input. */
static void run_on_cpu(float *out)
{
    for (int i = 0; i < INPUTS; i++)
        out[i] = ex_shade(in[5 * i], in[5 * i + 1], in[5 * i + 2], in[5 * i + 3], in[5 * i + 4]);
}

START_TEST(no_fp64_instruction_in_the_ptx)
{
    HARNESS_JUDGE_ONLY;
    char *ptx = harness_nvcc(NVCC, CUDA_ARCH, EX_DIR, NULL, PROJECT_DIR "/tests/ex_ch05_kernel.cu", "ptx");
    ck_assert_msg(ptx != NULL, "your shade.h does not compile for the GPU (nvcc -ptx)");
    int fp64 = 0;
    char first[200] = "";
    for (char *line = strtok(ptx, "\n"); line; line = strtok(NULL, "\n")) {
        while (*line == ' ' || *line == '\t')
            line++;
        if (strncmp(line, ".reg", 4) == 0 || strncmp(line, "//", 2) == 0 || !strstr(line, ".f64"))
            continue;
        if (!fp64++)
            snprintf(first, sizeof first, "%s", line);
    }
    ck_assert_msg(fp64 == 0, "got: %d FP64 instructions in the PTX (the first: %s); want: 0", fp64, first);
    free(ptx);
}
END_TEST

START_TEST(values_match_double_within_float_accuracy)
{
    make_inputs();
    if (HARNESS_CALLS_ANSWER)
        run_on_cpu(got);
    harness_answer(got, sizeof got);
    check_values("", got, NULL);
}
END_TEST

/* The first failing CUDA call of run_on_gpu, for the message. */
static char gpu_failed[160];

#define GPU_STEP(call) HARNESS_GPU_STEP(err, gpu_failed, call)

/* The answer on the GPU (shade_kernel, one input a thread), into out. Every
 * CUDA call is checked; returns the first error (its call in gpu_failed),
 * cudaSuccess when all went through. */
static cudaError_t run_on_gpu(float *out)
{
    cudaError_t err = cudaSuccess;
    float *d_in = NULL, *d_out = NULL;
    GPU_STEP(cudaMalloc(&d_in, sizeof in));
    GPU_STEP(cudaMalloc(&d_out, sizeof got));
    GPU_STEP(cudaMemcpy(d_in, in, sizeof in, cudaMemcpyHostToDevice));
    if (err == cudaSuccess)
        shade_kernel<<<(INPUTS + BLOCK - 1) / BLOCK, BLOCK>>>(d_out, d_in, INPUTS);
    GPU_STEP(cudaGetLastError());
    GPU_STEP(cudaDeviceSynchronize());
    GPU_STEP(cudaMemcpy(out, d_out, sizeof got, cudaMemcpyDeviceToHost));
    GPU_STEP(cudaFree(d_in));
    GPU_STEP(cudaFree(d_out));
    return err;
}

START_TEST(gpu_values_match_double_within_float_accuracy)
{
    make_inputs();
    cudaError_t err = cudaSuccess;
    memset(got, 0, sizeof got);
    if (HARNESS_CALLS_ANSWER) {
        run_on_cpu(host);
        err = run_on_gpu(got);
    }
    harness_answer(&err, sizeof err);
    harness_answer(gpu_failed, sizeof gpu_failed);
    harness_answer(got, sizeof got);
    harness_answer(host, sizeof host);
    gpu_failed[sizeof gpu_failed - 1] = '\0';
    ck_assert_msg(err == cudaSuccess, "on the GPU, shade_kernel (tests/ex_ch05_kernel.cu) calling your ex_shade: %s "
                  "failed: %s (%s)", gpu_failed, cudaGetErrorName(err), cudaGetErrorString(err));
    check_values("on the GPU, ", got, host);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("exercise ch05");
    TCase *tc = tcase_create("no fp64");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, no_fp64_instruction_in_the_ptx);
    tcase_add_test(tc, values_match_double_within_float_accuracy);
    int skipped = harness_add_gpu_test(tc, gpu_values_match_double_within_float_accuracy, 1);
    suite_add_tcase(s, tc);
    return harness_run_gpu(s, "exercise-ch05", skipped);
}
