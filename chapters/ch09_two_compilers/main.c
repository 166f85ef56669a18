/* ch09 - one source, two GPU compilers: the kernels of ch05, ch06 and ch07,
 * each compiled by nvcc and by clang, linked into one program.
 *
 *   make ch09 && ./ch09                 # every kernel, both compilers
 *   ./ch09 --stage ch07-naive-clang
 *
 * The Makefile compiles ch05's render.cu (plain, and with fast math), ch06's
 * reduce_gpu.cu and ch07's gpu.cu once with each compiler, keeps each
 * object's C functions and renames them <function>_<compiler> (objcopy), so
 * stage "<kernel>-nvcc" and stage "<kernel>-clang" run the same source.
 * Without a clang that compiles CUDA for the GPU (the Makefile tries
 * clang++-22, then clang++) only the nvcc half is built, and it says why.
 *
 * Each stage is checked as in its own chapter, before and after timing:
 *   ch05  512x512 at 64 spp (--width --height --spp), 16x16 blocks for both
 *         compilers: no NaN/Inf pixel; 256 fixed-seed pixels (seed 0xC4EC4)
 *         rendered by ch05's CPU code within 35 dB PSNR; at 512x512x64 the
 *         whole image within 38 dB of ch01's;
 *   ch06  --n int32 values (default 2^28) from ch06's own generator
 *         (reduce_fill, xorshift64*, seed 0x5EED06): the int64 sum exact;
 *   ch07  min(--n, 2^17) bodies from ch07's initial state: the forces within
 *         ch07's error bound of its double-precision reference.
 * Times: the median of --repeat kernel runs (CUDA events; default 10).
 * Rates in each chapter's unit: Msamples/s, GB/s read, GFLOP/s (20 flops per
 * interaction, ch07's convention).
 *
 * Without a CUDA device: which builds exist, then exit status 3.
 */
#include "../ch05_intrinsics/render.h"
/* Each chapter calls its stage type `stage` and has its own ON_CPU, ON_GPU:
 * renamed here, where three chapters meet. */
#define stage ch06_stage
#define ON_CPU CH06_ON_CPU
#define ON_GPU CH06_ON_GPU
#include "../ch06_reduction/reduce.h"
#undef stage
#undef ON_CPU
#undef ON_GPU
#define stage ch07_stage
#define ON_CPU CH07_ON_CPU
#define ON_GPU CH07_ON_GPU
#define ON_ALL_GPUS CH07_ON_ALL_GPUS
#include "../ch07_nbody/nbody.h"
#undef stage
#undef ON_CPU
#undef ON_GPU
#undef ON_ALL_GPUS

#include "../../common/cli.h"
#include "../../common/cuda_util.h"
#include "../../common/image.h"
#include "../../common/report.h"
#include "../../common/timer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef REFERENCE_DIR
#define REFERENCE_DIR "data/reference"
#endif
#ifndef CH09_HAVE_CLANG
#define CH09_HAVE_CLANG 0
#endif
#ifndef CH09_NO_CLANG_WHY
#define CH09_NO_CLANG_WHY "no clang half"
#endif
#ifndef CH09_CLANG
#define CH09_CLANG "clang"
#endif
#define REFERENCE_IMAGE REFERENCE_DIR "/kensler_512x512x64.ppm"
#define CPU_CHECK_PIXELS 256
#define CPU_PSNR_DB 35.0
#define ORIGINAL_PSNR_DB 38.0
#define MAX_BODIES 131072
#define BLOCK 16

/* The renamed functions of each compiler's objects (chapter.mk). */
#define CH09_DECLARE(c)                                                                                         \
    render_fn gpu_render_##c, gpu_render_fast_##c;                                                             \
    reduce_fn reduce_sequential_##c, reduce_vector_shuffle_##c;                                                \
    forces_fn gpu_naive_forces_##c, gpu_tiled_forces_##c, gpu_tiled_ftz_forces_##c;
CH09_DECLARE(nvcc)
#if CH09_HAVE_CLANG
CH09_DECLARE(clang)
#endif

enum { PART_CH05, PART_CH06, PART_CH07, PART_COUNT };

typedef struct {
    const char *name;
    const char *description;
    int part;
    render_fn *render; /* ch05: the build's render, and the stage's set of changes */
    int flags;
    reduce_fn *reduce; /* ch06 */
    forces_fn *forces; /* ch07 */
} stage;

/* Each kernel once per compiler, side by side. */
#if CH09_HAVE_CLANG
#define BOTH(make, ...) make(nvcc, __VA_ARGS__), make(clang, __VA_ARGS__)
#else
#define BOTH(make, ...) make(nvcc, __VA_ARGS__)
#endif
#define RENDER(c, name, what, fn, set) {name "-" #c, what ", by " #c, PART_CH05, fn##_##c, set, NULL, NULL}
#define REDUCE(c, name, what, fn) {name "-" #c, what ", by " #c, PART_CH06, NULL, 0, fn##_##c, NULL}
#define FORCES(c, name, what, fn) {name "-" #c, what ", by " #c, PART_CH07, NULL, 0, NULL, fn##_##c}

static const stage stages[] = {
    BOTH(RENDER, "ch05-loop", "ch05 loop: ch04's port, FP64 in it", gpu_render, SET_LOOP),
    BOTH(RENDER, "ch05-sphere-list", "ch05 sphere-list: float, intrinsics, pow by squaring, a sphere list", gpu_render,
         SET_SPHERE_LIST),
    BOTH(RENDER, "ch05-fast-math", "ch05 fast-math: sphere-list with fast math (each compiler's flags for it)",
         gpu_render_fast, SET_SPHERE_LIST),
    BOTH(RENDER, "ch05-bounding-box", "ch05 bounding-box: fast-math, spheres only inside their box", gpu_render_fast,
         SET_BOUNDING_BOX),
    BOTH(REDUCE, "ch06-sequential", "ch06 sequential: a tree in shared memory", reduce_sequential),
    BOTH(REDUCE, "ch06-vector-shuffle", "ch06 vector-shuffle: int4 loads, warp shuffles", reduce_vector_shuffle),
    BOTH(FORCES, "ch07-naive", "ch07 naive: every body from global memory", gpu_naive_forces),
    BOTH(FORCES, "ch07-tiled", "ch07 tiled: bodies through shared memory", gpu_tiled_forces),
    BOTH(FORCES, "ch07-tiled-ftz", "ch07 tiled-ftz: float4, rsqrt, unrolled, flush to zero", gpu_tiled_ftz_forces),
};
#define STAGE_COUNT (sizeof stages / sizeof stages[0])

static const cli_spec spec = {
    .program = "ch09",
    .summary = "one source, two GPU compilers: ch05, ch06 and ch07's kernels by nvcc and by clang",
    .accepts = CLI_WIDTH | CLI_HEIGHT | CLI_SPP | CLI_N | CLI_REPEAT | CLI_DEVICE | CLI_STAGE | CLI_CSV | CLI_QUIET,
    CLI_STAGE_TABLE(stages),
    .notes = "ch05 stages render --width x --height at --spp (default 512x512x64); ch06 stages sum --n int32\n"
             "values (default 2^28); ch07 stages compute the forces on min(--n, 2^17) bodies. --repeat 10.\n"
             "Each stage is checked as in its own chapter (chapters/ch09_two_compilers/main.c).\n"
             "Without a CUDA device: the builds this program holds, then exit status 3.",
};

typedef struct {
    long long n;
    int bodies, width, height, spp, repeat;
    /* ch05 */
    image host, original;
    int have_original;
    unsigned char *d_rgb;
    int *d_bad;
    /* ch06 */
    int *d_in;
    long long *d_sum, exact;
    reduce_ctx ctx;
    /* ch07 */
    body *b, *d_b;
    vec3 *a, *d_a;
    reference ref;
} run;

typedef struct {
    const run *r;
    const stage *s;
} launch;

/* ---------------------------------------------------------------- ch05 */
static double psnr_vs_cpu(run *r, int flags, int *bad)
{
    unsigned long long x = 0xC4EC4;
    double sq = 0;
    int n = 0;
    for (int i = 0; i < CPU_CHECK_PIXELS; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        int col = (int)((x >> 33) % (unsigned long long)r->width), row = (int)((x >> 13) % (unsigned long long)r->height);
        unsigned char cpu[3];
        *bad += !cpu_render_picture_pixel(flags, 1, col, row, r->width, r->height, r->spp, cpu);
        const unsigned char *gpu = r->host.rgb + 3 * ((size_t)row * r->width + col);
        for (int c = 0; c < 3; c++, n++)
            sq += (double)(cpu[c] - gpu[c]) * (cpu[c] - gpu[c]);
    }
    return sq == 0 ? INFINITY : 10 * log10(255.0 * 255.0 * n / sq);
}

static void launch_render(void *p)
{
    const launch *l = p;
    l->s->render(l->s->flags, 1, l->r->d_rgb, l->r->d_bad, l->r->width, l->r->height, l->r->spp, BLOCK, BLOCK, NULL);
    CUDA_CHECK_LAUNCH();
}

static int check_render(run *r, const stage *s, char *note, size_t len)
{
    int bad = 0;
    CUDA_CHECK(cudaMemset(r->d_bad, 0, sizeof(int)));
    CUDA_CHECK(cudaMemset(r->d_rgb, 0xEE, image_bytes(&r->host)));
    launch l = {r, s};
    launch_render(&l);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(r->host.rgb, r->d_rgb, image_bytes(&r->host), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&bad, r->d_bad, sizeof bad, cudaMemcpyDeviceToHost));
    double db = psnr_vs_cpu(r, s->flags, &bad);
    int ok = bad == 0 && db >= CPU_PSNR_DB;
    int used = snprintf(note, len, "vs CPU %.1f dB", db);
    if (r->have_original && used > 0 && (size_t)used < len) {
        image_diff d;
        image_compare(&r->host, &r->original, &d);
        ok &= d.psnr >= ORIGINAL_PSNR_DB;
        used += snprintf(note + used, len - (size_t)used, ", vs ch01 %.1f dB", d.psnr);
    }
    if (bad && used > 0 && (size_t)used < len)
        snprintf(note + used, len - (size_t)used, ", %d NaN/Inf pixels", bad);
    return ok;
}

/* ---------------------------------------------------------------- ch06 */
static void launch_reduce(void *p)
{
    const launch *l = p;
    l->s->reduce(l->r->d_in, (size_t)l->r->n, l->r->d_sum, &l->r->ctx);
    CUDA_CHECK_LAUNCH();
}

static int check_reduce(run *r, const stage *s, char *note, size_t len)
{
    launch l = {r, s};
    long long got = 0;
    launch_reduce(&l);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(&got, r->d_sum, sizeof got, cudaMemcpyDeviceToHost));
    snprintf(note, len, "sum %lld, %s", got, got == r->exact ? "exact" : "WRONG");
    return got == r->exact;
}

/* ---------------------------------------------------------------- ch07 */
static void launch_forces(void *p)
{
    const launch *l = p;
    l->s->forces(l->r->d_b, l->r->d_a, l->r->bodies, 0);
    CUDA_CHECK_LAUNCH();
}

static int check_forces(run *r, const stage *s, char *note, size_t len)
{
    launch l = {r, s};
    CUDA_CHECK(cudaMemset(r->d_a, 0xFF, (size_t)r->bodies * sizeof(vec3))); /* NaN poison */
    launch_forces(&l);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(r->a, r->d_a, (size_t)r->bodies * sizeof(vec3), cudaMemcpyDeviceToHost));
    double err = force_error(&r->ref, r->a), bound = error_bound(r->bodies);
    snprintf(note, len, "error %.2g (bound %.2g)", err, bound);
    return err <= bound;
}

/* ---------------------------------------------------------------- setup */
static void prepare(run *r, int parts_wanted[PART_COUNT])
{
    if (parts_wanted[PART_CH05]) {
        char err[IMAGE_ERROR_SIZE];
        if (image_alloc(&r->host, r->width, r->height) != 0) {
            fprintf(stderr, "ch09: out of memory (%dx%d image)\n", r->width, r->height);
            exit(EXIT_CHECK_FAIL);
        }
        r->have_original = r->width == 512 && r->height == 512 && r->spp == 64 &&
                           image_read_ppm(&r->original, REFERENCE_IMAGE, err, sizeof err) == 0;
        CUDA_CHECK(cudaMalloc((void **)&r->d_rgb, image_bytes(&r->host)));
        CUDA_CHECK(cudaMalloc((void **)&r->d_bad, sizeof(int)));
    }
    if (parts_wanted[PART_CH06]) {
        int *in = cli_alloc((size_t)r->n * sizeof(int), "the input");
        r->exact = reduce_fill(in, (size_t)r->n);
        CUDA_CHECK(cudaMalloc((void **)&r->d_in, (size_t)r->n * sizeof(int)));
        CUDA_CHECK(cudaMemcpy(r->d_in, in, (size_t)r->n * sizeof(int), cudaMemcpyHostToDevice));
        free(in);
        CUDA_CHECK(cudaMalloc((void **)&r->d_sum, sizeof(long long)));
        r->ctx.scratch_bytes = reduce_scratch_bytes((size_t)r->n);
        CUDA_CHECK(cudaMalloc(&r->ctx.scratch, r->ctx.scratch_bytes));
    }
    if (parts_wanted[PART_CH07]) {
        r->b = cli_alloc((size_t)r->bodies * sizeof(body), "the bodies");
        r->a = cli_alloc((size_t)r->bodies * sizeof(vec3), "the forces");
        vec3 *v = cli_alloc((size_t)r->bodies * sizeof(vec3), "the velocities");
        nbody_init(r->b, v, r->bodies);
        free(v);
        make_reference(&r->ref, r->b, r->bodies);
        CUDA_CHECK(cudaMalloc((void **)&r->d_b, (size_t)r->bodies * sizeof(body)));
        CUDA_CHECK(cudaMalloc((void **)&r->d_a, (size_t)r->bodies * sizeof(vec3)));
        CUDA_CHECK(cudaMemcpy(r->d_b, r->b, (size_t)r->bodies * sizeof(body), cudaMemcpyHostToDevice));
    }
}

static void release(run *r)
{
    CUDA_CHECK(cudaFree(r->d_rgb));
    CUDA_CHECK(cudaFree(r->d_bad));
    CUDA_CHECK(cudaFree(r->d_in));
    CUDA_CHECK(cudaFree(r->d_sum));
    CUDA_CHECK(cudaFree(r->ctx.scratch));
    CUDA_CHECK(cudaFree(r->d_b));
    CUDA_CHECK(cudaFree(r->d_a));
    image_free(&r->host);
    image_free(&r->original);
    free(r->b);
    free(r->a);
}

/* One stage: check, time, check again; its row in its part's report. */
static void run_stage(run *r, const stage *s, report *rep, const char *device)
{
    static int (*const check[PART_COUNT])(run *, const stage *, char *, size_t) = {check_render, check_reduce,
                                                                                 check_forces};
    static cuda_launch_fn *const launcher[PART_COUNT] = {launch_render, launch_reduce, launch_forces};
    char note[200], after[200];
    int ok = check[s->part](r, s, note, sizeof note);
    launch l = {r, s};
    double times[REPEAT_MAX];
    for (int i = 0; i < r->repeat; i++)
        times[i] = cuda_median_ms(launcher[s->part], &l, 1);
    run_times t = summarize_runs(times, r->repeat);
    ok &= check[s->part](r, s, after, sizeof after);
    double value;
    const char *unit;
    if (s->part == PART_CH05)
        value = (double)r->width * r->height * r->spp / (t.median * 1e3), unit = "Msamples/s";
    else if (s->part == PART_CH06)
        value = (double)r->n * sizeof(int) / (t.median * 1e6), unit = "GB/s";
    else
        value = 20.0 * r->bodies * (double)r->bodies / (t.median * 1e6), unit = "GFLOP/s";
    report_add(rep, (report_entry){.stage = s->name, .threads = REPORT_ON_GPU, .ms = t.median, .value = value,
                                   .unit = unit, .ok = ok, .device = device, .note = note, .runs = t.runs,
                                   .lo_ms = t.lo, .hi_ms = t.hi});
}

int main(int argc, char **argv)
{
    cli_options opt = {.width = 512, .height = 512, .spp = 64, .n = 1LL << 28, .repeat = 10};
    cli_parse(&spec, &opt, argc, argv);
    if (opt.n > (1LL << 31) - 1)
        cli_usage_error(&spec, "--n %lld: at most 2^31 - 1 values (ch06's stages index with int)", opt.n);
    if (!opt.quiet || CH09_HAVE_CLANG == 0)
        fprintf(stderr, "ch09: %zu stages, built by nvcc%s\n", STAGE_COUNT,
                CH09_HAVE_CLANG ? " and by clang (" CH09_CLANG ")" : " only (" CH09_NO_CLANG_WHY ")");
    cuda_require_device(spec.program, (int)opt.device);
    cuda_device_info info;
    cuda_describe_device((int)opt.device, &info);
    if (!opt.quiet)
        cuda_print_device(stderr, (int)opt.device, &info);

    run r;
    memset(&r, 0, sizeof r);
    r.n = opt.n;
    r.bodies = opt.n < MAX_BODIES ? (int)opt.n : MAX_BODIES;
    r.width = (int)opt.width, r.height = (int)opt.height, r.spp = (int)opt.spp, r.repeat = (int)opt.repeat;
    int wanted[PART_COUNT] = {0};
    for (size_t i = 0; i < STAGE_COUNT; i++)
        if (opt.stage_index < 0 || (size_t)opt.stage_index == i)
            wanted[stages[i].part] = 1;
    prepare(&r, wanted);

    char workload[PART_COUNT][96];
    snprintf(workload[PART_CH05], sizeof workload[0], "ch05 %dx%dx%dspp", r.width, r.height, r.spp);
    snprintf(workload[PART_CH06], sizeof workload[0], "ch06 n=%lld", r.n);
    snprintf(workload[PART_CH07], sizeof workload[0], "ch07 n=%d", r.bodies);
    static report reports[PART_COUNT];
    for (int p = 0; p < PART_COUNT; p++)
        report_init(&reports[p], spec.program, workload[p], opt.csv, opt.quiet);
    for (size_t i = 0; i < STAGE_COUNT; i++)
        if (opt.stage_index < 0 || (size_t)opt.stage_index == i)
            run_stage(&r, &stages[i], &reports[stages[i].part], info.name);
    int all_ok = 1;
    for (int p = 0; p < PART_COUNT; p++)
        if (wanted[p]) {
            report_print(&reports[p], stdout);
            all_ok &= report_all_ok(&reports[p]);
        }
    release(&r);
    if (!all_ok)
        fprintf(stderr, "ch09: a check failed\n");
    return all_ok ? EXIT_OK : EXIT_CHECK_FAIL;
}
