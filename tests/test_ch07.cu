/* test_ch07.cu - every ch07 stage against the double-precision reference,
 * every body compared, at n = 1, 31, 33, 255, 257, 1023, 1025, 4095 and 4097
 * (not multiples of the 8 lanes or the 256-body tile), within check.c's bound;
 * n = 1 must give exactly zero (a body does not pull itself). CPU stages run
 * everywhere (CI); GPU stages skip without a device. Each size prints one line
 * of every stage's error, also as e / (sqrt(n) u): the number check.c's
 * FORCE_ERROR_SUM rests on, to judge the bound by on a new machine.
 *
 * Then the check's teeth: forces computed with one fault each (a body short,
 * the last partial tile skipped, one body's force lost, eps^2 doubled or
 * missing, a 1e-4 scale error) must fail the check at every size but 1, and
 * the same loop without a fault must pass. */
#include "harness.h"

#include "nbody.h"
#include "stages.h"

#include "cuda_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const int sizes[] = {1, 31, 33, 255, 257, 1023, 1025, 4095, 4097};
#define SIZE_COUNT (int)(sizeof sizes / sizeof sizes[0])

static void setup(int n, body **b, vec3 **v, vec3 **a, reference *r)
{
    *b = (body *)malloc(n * sizeof(body));
    *v = (vec3 *)malloc(n * sizeof(vec3));
    *a = (vec3 *)malloc(n * sizeof(vec3));
    nbody_init(*b, *v, n);
    make_reference(r, *b, n);
    ck_assert_msg(r->count == n, "n=%d: the check compares %d bodies, not every one", n, r->count);
}

static void teardown(body *b, vec3 *v, vec3 *a, reference *r)
{
    free(b);
    free(v);
    free(a);
    free_reference(r);
}

/* One size's errors, printed as one line when the size is done: each stage's
 * error and e / (sqrt(n) u), or each fault's error and its multiple of the
 * bound. */
typedef struct {
    char text[4096];
    size_t used;
    int per_bound; /* show e / bound, not e / (sqrt(n) u) */
} error_line;

static void line_begin(error_line *l, const char *what, int n, int per_bound)
{
    l->per_bound = per_bound;
    l->used = (size_t)snprintf(l->text, sizeof l->text, "ch07 %s n=%d, bound %.2g = %.2f sqrt(n) u; error (%s):", what,
                               n, error_bound(n), error_bound(n) / (sqrt((double)n) * 0x1p-24),
                               per_bound ? "x bound" : "/ sqrt(n) u");
}

static void line_add(error_line *l, const char *name, int n, double e)
{
    double ratio = l->per_bound ? e / error_bound(n) : e / (sqrt((double)n) * 0x1p-24);
    if (l->used < sizeof l->text)
        l->used += (size_t)snprintf(l->text + l->used, sizeof l->text - l->used, " %s %.2g (%.3g)", name, e, ratio);
}

static void line_print(const error_line *l)
{
    printf("%s\n", l->text);
    fflush(stdout);
}

START_TEST(cpu_stages_within_bound)
{
    int n = sizes[_i];
    body *b;
    vec3 *v, *a;
    reference r;
    setup(n, &b, &v, &a, &r);
    error_line line;
    line_begin(&line, "cpu stages", n, 0);
    for (size_t s = 0; s < STAGE_COUNT; s++) {
        if (stages[s].info.where != STAGE_CPU || (stages[s].run != cpu_scalar_forces && !cpu_simd_supported()))
            continue;
        /* every AVX-512 stage (its row's note says which ISA ran) also as it runs without AVX-512
         * (CPU_ISA=avx2: the AVX2 path) */
        int paths = stages[s].note == cpu_isa_note || stages[s].note == cpu_scheduled_note ? 2 : 1;
        for (int path = 0; path < paths; path++)
        for (int threads = 1; threads <= 5; threads += 4) {
            for (int i = 0; i < n; i++)
                a[i] = vec3{NAN, NAN, NAN};
            if (path == 1)
                setenv("CPU_ISA", "avx2", 1);
            stages[s].run(b, a, n, threads);
            unsetenv("CPU_ISA");
            double e = force_error(&r, a);
            ck_assert_msg(e <= error_bound(n), "%s%s n=%d threads=%d: error %g > %g", stages[s].info.name,
                          path ? " (CPU_ISA=avx2)" : "", n, threads, e, error_bound(n));
            if (n == 1)
                ck_assert(a[0].x == 0 && a[0].y == 0 && a[0].z == 0);
            if (threads == 1)
                line_add(&line, stages[s].info.name, n, e);
        }
    }
    line_print(&line);
    teardown(b, v, a, &r);
}
END_TEST

/* ---------------------------------------------------------------- the check's teeth */
/* What a wrong kernel might do, one at a time. */
enum fault {
    FAULT_NONE,         /* the control: must pass */
    FAULT_LAST_BODY,    /* the source loop stops one body short */
    FAULT_LAST_TILE,    /* the last partial tile of 256 skipped (all of it below 256) */
    FAULT_ONE_BODY,     /* one body's force lost (body n/2: a check of 66 samples misses it) */
    FAULT_EPS2_DOUBLED, /* softening 2 eps^2 */
    FAULT_EPS2_MISSING, /* no softening (the self-term skipped, or it is 0/0: NaN) */
    FAULT_SCALE,        /* every force 1 + 1e-4 times too large */
    FAULT_COUNT
};
static const char *const fault_names[FAULT_COUNT] = {"none", "last-body", "last-tile", "one-body",
                                                     "eps2-doubled", "eps2-missing", "scale-1e-4"};

/* cpu-scalar's loop (nbody.h's interaction written out, eps^2 a variable)
 * with fault f. */
static void faulty_forces(const body *b, vec3 *a, int n, int f)
{
    int sources = f == FAULT_LAST_BODY ? n - 1 : f == FAULT_LAST_TILE ? n / 256 * 256 : n;
    float eps2 = f == FAULT_EPS2_DOUBLED ? 2 * SOFTENING2 : f == FAULT_EPS2_MISSING ? 0 : SOFTENING2;
    float scale = f == FAULT_SCALE ? 1 + 1e-4f : 1;
    for (int i = 0; i < n; i++) {
        vec3 acc = {0, 0, 0};
        for (int j = 0; j < sources; j++) {
            if (j == i && eps2 == 0)
                continue;
            float rx = b[j].x - b[i].x, ry = b[j].y - b[i].y, rz = b[j].z - b[i].z;
            float inv = 1.0f / sqrtf(rx * rx + ry * ry + rz * rz + eps2);
            float s = b[j].m * inv * inv * inv;
            acc.x += rx * s, acc.y += ry * s, acc.z += rz * s;
        }
        a[i] = f == FAULT_ONE_BODY && i == n / 2 ? vec3{0, 0, 0} : vec3{acc.x * scale, acc.y * scale, acc.z * scale};
    }
}

/* At every size but 1 (where every force is zero, and so right), each fault
 * fails the check and the fault-free loop passes. */
START_TEST(faults_fail_the_check)
{
    int n = sizes[_i + 1];
    body *b;
    vec3 *v, *a;
    reference r;
    setup(n, &b, &v, &a, &r);
    error_line line;
    line_begin(&line, "faults", n, 1);
    for (int f = 0; f < FAULT_COUNT; f++) {
        faulty_forces(b, a, n, f);
        double e = force_error(&r, a);
        line_add(&line, fault_names[f], n, e);
        if (f == FAULT_NONE)
            ck_assert_msg(e <= error_bound(n), "n=%d: the loop without a fault: error %g > bound %g", n, e,
                          error_bound(n));
        else
            ck_assert_msg(!(e <= error_bound(n)), "n=%d: fault %s passed the check: error %g <= bound %g", n,
                          fault_names[f], e, error_bound(n));
    }
    line_print(&line);
    teardown(b, v, a, &r);
}
END_TEST

/* Without the self-term skipped, missing softening is 0/0 for j = i: NaN,
 * which the check fails whatever the bound. */
START_TEST(nan_fails_the_check)
{
    int n = 33;
    body *b;
    vec3 *v, *a;
    reference r;
    setup(n, &b, &v, &a, &r);
    cpu_scalar_forces(b, a, n, 1);
    a[n / 2].y = NAN;
    ck_assert(isinf(force_error(&r, a)));
    teardown(b, v, a, &r);
}
END_TEST

/* Errors from a float sum of n terms grow as sqrt(n): the bound must too, or
 * big runs fail and small ones lose their teeth. */
START_TEST(bound_grows_as_sqrt_n)
{
    ck_assert(error_bound(4 * 4097) < 2.0 * error_bound(4097));
    ck_assert(error_bound(4 * 4097) > 1.5 * error_bound(4097));
}
END_TEST

/* Each row's function is the one it runs: a multi-GPU row runs multi_gpu_run
 * (its mode set) and names no forces function it would never call; every
 * other row names its function and no mode; only a CPU row may be
 * unsupported. */
START_TEST(rows_name_what_they_run)
{
    for (size_t s = 0; s < STAGE_COUNT; s++) {
        const stage *r = &stages[s];
        int multi = r->info.where == STAGE_ALL_GPUS;
        ck_assert_msg(multi ? r->run == NULL && r->multi != 0 : r->run != NULL && r->multi == 0,
                      "%s: a multi-GPU row has a mode and no forces function; any other, a function and no mode",
                      r->info.name);
        ck_assert_msg(r->supported == NULL || r->info.where == STAGE_CPU,
                      "%s: only a CPU row may be unsupported (problem.c asks only the CPU rows)", r->info.name);
    }
}
END_TEST

START_TEST(gpu_stages_within_bound)
{
    int n = sizes[_i];
    body *b, *d_b;
    vec3 *v, *a, *d_a;
    reference r;
    setup(n, &b, &v, &a, &r);
    CUDA_CHECK(cudaMalloc(&d_b, n * sizeof(body)));
    CUDA_CHECK(cudaMalloc(&d_a, n * sizeof(vec3)));
    CUDA_CHECK(cudaMemcpy(d_b, b, n * sizeof(body), cudaMemcpyHostToDevice));
    error_line line;
    line_begin(&line, "gpu stages", n, 0);
    char failed[2048] = "";
    for (size_t s = 0; s < STAGE_COUNT; s++) {
        if (stages[s].info.where == STAGE_CPU)
            continue;
        CUDA_CHECK(cudaMemset(d_a, 0xFF, n * sizeof(vec3))); /* NaN */
        if (stages[s].info.where == STAGE_ALL_GPUS) {
            vec3 *v2 = (vec3 *)calloc(n, sizeof(vec3));
            body *b2 = (body *)malloc(n * sizeof(body));
            memcpy(b2, b, n * sizeof(body));
            int devices = 0;
            CUDA_CHECK(cudaGetDeviceCount(&devices));
            multi_gpu_run(b2, v2, n, 1, 1e-4f, devices, a, stages[s].multi);
            free(v2);
            free(b2);
        } else {
            stages[s].run(d_b, d_a, n, 0);
            CUDA_CHECK(cudaDeviceSynchronize());
            CUDA_CHECK(cudaMemcpy(a, d_a, n * sizeof(vec3), cudaMemcpyDeviceToHost));
        }
        double e = force_error(&r, a);
        line_add(&line, stages[s].info.name, n, e);
        if (!(e <= error_bound(n)))
            snprintf(failed + strlen(failed), sizeof failed - strlen(failed), " %s (%g)", stages[s].info.name, e);
    }
    line_print(&line); /* every stage's numbers, whether or not one failed */
    CUDA_CHECK(cudaSetDevice(0));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_a));
    teardown(b, v, a, &r);
    ck_assert_msg(failed[0] == 0, "n=%d: over the bound %g:%s", n, error_bound(n), failed);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ch07");
    TCase *tc = tcase_create("all");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, cpu_stages_within_bound, 0, SIZE_COUNT);
    tcase_add_loop_test(tc, faults_fail_the_check, 0, SIZE_COUNT - 1);
    tcase_add_test(tc, nan_fails_the_check);
    tcase_add_test(tc, bound_grows_as_sqrt_n);
    tcase_add_test(tc, rows_name_what_they_run);
    int skipped = harness_add_gpu_test(tc, gpu_stages_within_bound, SIZE_COUNT);
    suite_add_tcase(s, tc);
    return harness_run_gpu(s, "ch07", skipped);
}
