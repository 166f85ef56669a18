/* test_ex_ch04.cu - exercise ch04: tinted mirrors as a loop without a stack.
 *
 * 1. On the CPU (nvcc-built host code), so in CI too: 5000 random rays (seed
 *    4040), half aimed at the letters; colours within 1e-4 relative + 1e-3
 *    absolute of tinted_sample_recursive(), and the same random numbers
 *    consumed.
 * 2. The machine code: tests/ex_ch04_kernel.cu, which calls the exercise's
 *    loop, compiled with ptxas -v; every function it reports must have 0
 *    bytes of stack frame and no spill (recursion needs a stack frame).
 * 3. On a GPU: that same kernel runs the same 5000 rays through the answer's
 *    device code, checked against the same recursion on the CPU; at most 1%
 *    of the rays may differ there (GPU_DIFFER says why). Device code is
 *    graded as device code: a device path that is not the host path (a dummy
 *    under #ifdef __CUDA_ARCH__, whose machine code passes 2 while the host
 *    code passes 1) fails here. Without a GPU it is counted as skipped.
 * Every call into the answer goes through ANSWER / harness_answer (harness.h,
 * "the probe and the judge"): for grading, the checks and the reference run in
 * a process the answer never ran in (built with the stub, whose recursion is
 * the course's own).
 */
#include "harness.h"

#include "ex_ch04_kernel.cu"

#include <math.h>

/* GPU_DIFFER: the rays that may differ on a GPU (1%). nvcc contracts a * b + c
 * into one fused multiply-add (its default, -fmad=true), rounded once where
 * the CPU rounds twice; a ray that grazes a sphere's edge, a shadow's or a
 * tile's border can then take another path, and its colour is another colour,
 * not the same one rounded otherwise. On an H200 (nvcc 13.0, sm_90) 7 of these
 * 5000 rays do, for the model answer and for the recursion itself run on the
 * GPU alike (0.19% of 200000). A device path that is not the host's differs on
 * far more: a dummy on 99% of them, an untinted sky on 20%. */
enum { RAYS = 5000, SEED = 4040, BLOCK = 128, GPU_DIFFER = RAYS / 100 };

/* The rays every part grades, made the same way each time. */
typedef struct {
    vec origin[RAYS], dir[RAYS];
    uint32_t seed[RAYS];
} ray_set;

static void make_rays(ray_set *r)
{
    test_rng g = {SEED};
    for (int i = 0; i < RAYS; i++) {
        vec origin = vec_make((float)test_rng_uniform(&g, 0, 20), (float)test_rng_uniform(&g, 0, 20),
                              (float)test_rng_uniform(&g, 0.5, 10));
        vec aim = i % 2 ? vec_make((float)test_rng_uniform(&g, 0, 18), 0, (float)test_rng_uniform(&g, 4, 12))
                        : vec_make((float)test_rng_uniform(&g, -20, 40), (float)test_rng_uniform(&g, -20, 40),
                                   (float)test_rng_uniform(&g, -5, 20));
        r->origin[i] = origin;
        r->dir[i] = vec_normalize(vec_add(aim, vec_scale(origin, -1)));
        r->seed[i] = (uint32_t)test_rng_next(&g);
    }
}

/* How many random numbers were drawn from seed to reach state, in words ("4
 * draws", or a state no number of draws reaches: at most 10000 are tried). In
 * one of two rotating buffers. */
static const char *draws(uint32_t seed, uint32_t state)
{
    static char text[2][80];
    static int next;
    char *out = text[next++ % 2];
    snprintf(out, sizeof text[0], "a state that no number of draws from the seed reaches");
    for (int k = 0; k <= 10000; k++, random_unit(&seed))
        if (seed == state) {
            snprintf(out, sizeof text[0], "%d draw%s", k, k == 1 ? "" : "s");
            break;
        }
    return out;
}

static int close_to(float got, float want)
{
    return fabsf(want - got) <= 1e-4f * fabsf(want) + 1e-3f;
}

static int same_colour(vec got, vec want)
{
    return close_to(got.x, want.x) && close_to(got.y, want.y) && close_to(got.z, want.z);
}

/* The answer's colours and random states for the rays (got, got_rng) against
 * the recursion's, computed here: more than `allowed` rays that differ fail,
 * and the message names the first and how many. where: "" on the CPU, "on the
 * GPU, " there; host, host_rng (the answer's own results on the CPU for the
 * same rays, NULL on the CPU) let a GPU message say when the device code is
 * what differs. */
static void check_rays(const ray_set *r, const char *where, const vec *got, const uint32_t *got_rng, const vec *host,
                       const uint32_t *host_rng, int allowed)
{
    int first = -1, bad = 0, host_right = 0;
    vec first_want = vec_make(0, 0, 0);
    uint32_t first_want_rng = 0;
    for (int i = 0; i < RAYS; i++) {
        uint32_t want_rng = r->seed[i];
        vec want = tinted_sample_recursive(r->origin[i], r->dir[i], &want_rng);
        if (same_colour(got[i], want) && got_rng[i] == want_rng)
            continue;
        if (bad++ == 0)
            first = i, first_want = want, first_want_rng = want_rng;
        host_right += host && same_colour(host[i], want) && host_rng[i] == want_rng;
    }
    if (bad <= allowed)
        return;
    char count[300], why[300] = "";
    snprintf(count, sizeof count, "%d of %d rays differ%s", bad, RAYS,
             allowed ? ", and at most 1% may on a GPU (where a fused multiply-add can send a ray that grazes an "
                       "edge another way)"
                     : "");
    if (host && bad - host_right <= allowed)
        snprintf(why, sizeof why, " Your host code gives the right result for %d of these rays: the device runs "
                 "other code (under #ifdef __CUDA_ARCH__, or a device-only function); device code is graded as "
                 "device code.", host_right);
    int i = first;
    ck_assert_msg(same_colour(got[i], first_want),
                  "%sray %d (from (%g %g %g) along (%g %g %g)): got (%g %g %g), want (%g %g %g), the recursion's "
                  "colour (%s).%s",
                  where, i, r->origin[i].x, r->origin[i].y, r->origin[i].z, r->dir[i].x, r->dir[i].y, r->dir[i].z,
                  got[i].x, got[i].y, got[i].z, first_want.x, first_want.y, first_want.z, count, why);
    ck_assert_msg(0, "%sray %d, its random numbers: got %s, want %s, as the recursion makes (shade() draws two at "
                  "each hit: call it once a bounce, in the same order) (%s).%s",
                  where, i, draws(r->seed[i], got_rng[i]), draws(r->seed[i], first_want_rng), count, why);
}

static ray_set rays;
static vec got[RAYS], host[RAYS];
static uint32_t got_rng[RAYS], host_rng[RAYS];

/* The answer on the CPU: colours into c, random states into s. */
static void run_on_cpu(vec *c, uint32_t *s)
{
    for (int i = 0; i < RAYS; i++) {
        s[i] = rays.seed[i];
        c[i] = exercise_sample_loop(rays.origin[i], rays.dir[i], &s[i]);
    }
}

START_TEST(loop_equals_recursion)
{
    make_rays(&rays);
    if (HARNESS_CALLS_ANSWER)
        run_on_cpu(got, got_rng);
    harness_answer(got, sizeof got);
    harness_answer(got_rng, sizeof got_rng);
    check_rays(&rays, "", got, got_rng, NULL, NULL, 0);
    int reflections = 0;
    for (int i = 0; i < RAYS; i++) {
        float t;
        vec n;
        reflections += trace(rays.origin[i], rays.dir[i], &t, &n) == HIT_SPHERE;
    }
    ck_assert_int_gt(reflections, 500);
}
END_TEST

START_TEST(no_stack_frame_in_the_machine_code)
{
    HARNESS_JUDGE_ONLY;
    char *text = harness_nvcc(NVCC, CUDA_ARCH, EX_DIR, PROJECT_DIR "/chapters/ch04_gpu_loop",
                              PROJECT_DIR "/tests/ex_ch04_kernel.cu", "ptxas");
    ck_assert_msg(text != NULL, "your sample_loop.h does not compile for the GPU (nvcc)");
    int functions = 0;
    for (char *p = strstr(text, "bytes stack frame"); p; p = strstr(p + 1, "bytes stack frame")) {
        const char *line = p;
        while (line > text && line[-1] != '\n')
            line--;
        int stack = -1, spills = -1;
        ck_assert(sscanf(line, " %d bytes stack frame, %d bytes spill stores", &stack, &spills) == 2);
        ck_assert_msg(stack == 0 && spills == 0, "got: %d bytes of stack frame, %d bytes of spill stores in a function "
                      "(ptxas -v); want: 0 and 0 (a recursion needs a stack)", stack, spills);
        functions++;
    }
    ck_assert_int_gt(functions, 0);
    free(text);
}
END_TEST

/* The first failing CUDA call of run_on_gpu, for the message. */
static char gpu_failed[160];

#define GPU_STEP(call) HARNESS_GPU_STEP(err, gpu_failed, call)

/* The answer on the GPU (tinted_kernel, one ray a thread): colours into c,
 * random states into s. Every CUDA call is checked; returns the first error
 * (its call in gpu_failed), cudaSuccess when all went through. */
static cudaError_t run_on_gpu(vec *c, uint32_t *s)
{
    cudaError_t err = cudaSuccess;
    vec *d_out = NULL, *d_origin = NULL, *d_dir = NULL;
    uint32_t *d_rng = NULL;
    /* A recursion needs a stack: room for the chapter's depth, so one is
     * graded by its values here and by its stack frame in the ptxas test. */
    GPU_STEP(cudaDeviceSetLimit(cudaLimitStackSize, 8192));
    GPU_STEP(cudaMalloc(&d_out, sizeof got));
    GPU_STEP(cudaMalloc(&d_rng, sizeof got_rng));
    GPU_STEP(cudaMalloc(&d_origin, sizeof rays.origin));
    GPU_STEP(cudaMalloc(&d_dir, sizeof rays.dir));
    GPU_STEP(cudaMemcpy(d_origin, rays.origin, sizeof rays.origin, cudaMemcpyHostToDevice));
    GPU_STEP(cudaMemcpy(d_dir, rays.dir, sizeof rays.dir, cudaMemcpyHostToDevice));
    GPU_STEP(cudaMemcpy(d_rng, rays.seed, sizeof rays.seed, cudaMemcpyHostToDevice));
    if (err == cudaSuccess)
        tinted_kernel<<<(RAYS + BLOCK - 1) / BLOCK, BLOCK>>>(d_out, d_rng, d_origin, d_dir, RAYS);
    GPU_STEP(cudaGetLastError());
    GPU_STEP(cudaDeviceSynchronize());
    GPU_STEP(cudaMemcpy(c, d_out, sizeof got, cudaMemcpyDeviceToHost));
    GPU_STEP(cudaMemcpy(s, d_rng, sizeof got_rng, cudaMemcpyDeviceToHost));
    void *buffers[] = {d_out, d_rng, d_origin, d_dir};
    for (int k = 0; k < 4; k++)
        GPU_STEP(cudaFree(buffers[k]));
    return err;
}

START_TEST(gpu_loop_equals_recursion)
{
    make_rays(&rays);
    cudaError_t err = cudaSuccess;
    memset(got, 0, sizeof got);
    memset(got_rng, 0, sizeof got_rng);
    if (HARNESS_CALLS_ANSWER) {
        run_on_cpu(host, host_rng);
        err = run_on_gpu(got, got_rng);
    }
    harness_answer(&err, sizeof err);
    harness_answer(gpu_failed, sizeof gpu_failed);
    harness_answer(got, sizeof got);
    harness_answer(got_rng, sizeof got_rng);
    harness_answer(host, sizeof host);
    harness_answer(host_rng, sizeof host_rng);
    gpu_failed[sizeof gpu_failed - 1] = '\0';
    ck_assert_msg(err == cudaSuccess, "on the GPU, tinted_kernel (tests/ex_ch04_kernel.cu) calling your "
                  "exercise_sample_loop: %s failed: %s (%s)", gpu_failed, cudaGetErrorName(err),
                  cudaGetErrorString(err));
    check_rays(&rays, "on the GPU, ", got, got_rng, host, host_rng, GPU_DIFFER);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("exercise ch04");
    TCase *tc = tcase_create("loop");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, loop_equals_recursion);
    tcase_add_test(tc, no_stack_frame_in_the_machine_code);
    int skipped = harness_add_gpu_test(tc, gpu_loop_equals_recursion, 1);
    suite_add_tcase(s, tc);
    return harness_run_gpu(s, "exercise-ch04", skipped);
}
