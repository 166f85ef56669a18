/* ch09 - one source, two GPU compilers: the kernels of ch05, ch06 and ch07,
 * each compiled by nvcc and by clang, linked into one program.
 *
 *   make ch09 && ./ch09                 # every kernel, both compilers
 *   ./ch09 --stage ch07-naive-clang
 *
 * The Makefile compiles ch05's render.cu and render_fast.cu (fast math), ch06's
 * reduce_gpu.cu and ch07's gpu_tiled.cu once with each compiler, keeps each
 * object's C functions and renames them <function>_<compiler> (objcopy), so
 * stage "<kernel>-nvcc" and stage "<kernel>-clang" run the same source.
 * Without a clang that compiles CUDA for the GPU (the Makefile tries
 * clang++-22, then clang++) only the nvcc half is built, and it says why.
 *
 * Each stage is measured as every chapter's are (common/measure.h) and
 * checked as in its own chapter (below), before and after timing:
 *   ch05  512x512 at 64 spp (--width --height --spp), 16x16 blocks for both
 *         compilers: no NaN/Inf pixel; 256 fixed-seed pixels (seed 0xC4EC4)
 *         rendered by ch05's CPU code within 35 dB PSNR; at 512x512x64 the
 *         whole image within 38 dB of ch01's;
 *   ch06  --n int32 values (default 2^28) from ch06's own generator
 *         (reduce_fill, xorshift64*, seed 0x5EED06): the int64 sum exact;
 *   ch07  min(--n, 2^17) bodies from ch07's initial state: the forces within
 *         ch07's error bound of its double-precision reference;
 *   talk  min(--n, 2^24) elements of the clang talk's three optimisations
 *         (talk.cu): every result equal to the CPU's, bit for bit.
 * Times: the median and spread of --repeat kernel runs (CUDA events; default 10).
 * Rates in each chapter's unit: Msamples/s, GB/s read, GFLOP/s (20 flops per
 * interaction, ch07's convention); Gelements/s for the talk's kernels.
 *
 * Without a CUDA device: which builds exist, then exit status 3.
 */
#include "stages.h"

#include "../../common/cli.h"
#include "../../common/cuda_util.h"
#include "../../common/image.h"
#include "../../common/measure.h"
#include "../../common/program_cuda.h"
#include "../../common/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef REFERENCE_DIR
#define REFERENCE_DIR "data/reference"
#endif
#define REFERENCE_IMAGE REFERENCE_DIR "/kensler_512x512x64.ppm"
#define CPU_CHECK_PIXELS 256
#define CPU_PSNR_DB 35.0
#define ORIGINAL_PSNR_DB 38.0
#define BLOCK 16
#define MAX_BODIES 131072
#define MAX_TALK (1 << 24)

#ifndef CH09_NO_CLANG_WHY
#define CH09_NO_CLANG_WHY "no clang half"
#endif
#ifndef CH09_CLANG
#define CH09_CLANG "clang"
#endif

static const cli_spec spec = {
    .program = "ch09",
    .summary = "one source, two GPU compilers: ch05, ch06 and ch07's kernels by nvcc and by clang",
    .accepts = CLI_WIDTH | CLI_HEIGHT | CLI_SPP | CLI_N | CLI_REPEAT | CLI_DEVICE | CLI_STAGE | CLI_CSV | CLI_QUIET,
    CLI_STAGE_TABLE(stages),
    .notes = "ch05 stages render --width x --height at --spp (default 512x512x64); ch06 stages sum --n int32\n"
             "values (default 2^28); ch07 stages compute the forces on min(--n, 2^17) bodies; talk-* stages\n"
             "take min(--n, 2^24) elements. --repeat 10.\n"
             "Each stage is checked as in its own chapter (chapters/ch09_two_compilers/problem.c).\n"
             "Without a CUDA device: the builds this program holds, then exit status 3.",
};

/* The program's data: each part's, prepared once (its table's .begin), and
 * the stage being measured. */
typedef struct {
    long long n;
    const ch09_stage *s; /* the stage being measured */
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
    /* the talk's kernels: talk_n elements; the division's operands narrow
     * (within 32 bits) and wide, its quotients; floats in (4 per element) and out */
    int talk_n;
    long long *narrow[2], *wide[2], *d_narrow[2], *d_wide[2], *quotient, *d_quotient;
    float *fin, *fout, *d_fin, *d_fout;
} run;

static run ch;
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

static int check_render(run *r, char *note, size_t len)
{
    const ch09_stage *s = r->s;
    int bad = 0;
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
static int check_reduce(run *r, char *note, size_t len)
{
    long long got = 0;
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(&got, r->d_sum, sizeof got, cudaMemcpyDeviceToHost));
    snprintf(note, len, "sum %lld, %s", got, got == r->exact ? "exact" : "WRONG");
    return got == r->exact;
}

/* ---------------------------------------------------------------- ch07 */
static int check_nbody(run *r, char *note, size_t len)
{
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(r->a, r->d_a, (size_t)r->bodies * sizeof(vec3), cudaMemcpyDeviceToHost));
    double err = force_error(&r->ref, r->a), bound = error_bound(r->bodies);
    snprintf(note, len, "error %.2g (bound %.2g)", err, bound);
    return err <= bound;
}

/* ---------------------------------------------------------------- the talk's kernels */
/* Operands for the division: narrow ones fit in 32 bits (a < 2^31, b < 2^16),
 * wide ones do not (a near 2^62, b near 2^33); fixed seeds. */
static void fill_operands(long long *a, long long *b, int n, int wide)
{
    unsigned long long x = wide ? 0x5EED64ULL : 0x5EED32ULL;
    for (int i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        a[i] = wide ? (long long)(x >> 2) : (long long)(x >> 33);
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        b[i] = wide ? (long long)((x >> 31) | 1) : (long long)((x >> 48) | 1);
    }
}

static long long *to_device(const void *host, size_t bytes)
{
    void *d = NULL;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    CUDA_CHECK(cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice));
    return d;
}

static void prepare_talk(run *r)
{
    int n = r->talk_n;
    size_t ll = (size_t)n * sizeof(long long);
    for (int k = 0; k < 2; k++) {
        r->narrow[k] = cli_alloc(ll, "the division's operands");
        r->wide[k] = cli_alloc(ll, "the division's operands");
    }
    fill_operands(r->narrow[0], r->narrow[1], n, 0);
    fill_operands(r->wide[0], r->wide[1], n, 1);
    for (int k = 0; k < 2; k++) {
        r->d_narrow[k] = to_device(r->narrow[k], ll);
        r->d_wide[k] = to_device(r->wide[k], ll);
    }
    r->quotient = cli_alloc(ll, "the quotients");
    CUDA_CHECK(cudaMalloc((void **)&r->d_quotient, ll));
    r->fin = cli_alloc(4 * (size_t)n * sizeof(float), "the floats");
    r->fout = cli_alloc((size_t)n * sizeof(float), "the floats");
    unsigned long long x = 0x5EEDF1ULL;
    for (size_t i = 0; i < 4 * (size_t)n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        r->fin[i] = (float)(x >> 40) / (float)(1 << 24) - 0.5f;
    }
    r->d_fin = (float *)to_device(r->fin, 4 * (size_t)n * sizeof(float)); /* cudaMalloc: 256-byte aligned */
    CUDA_CHECK(cudaMalloc((void **)&r->d_fout, (size_t)n * sizeof(float)));
}

static void launch_talk(run *r)
{
    const ch09_stage *s = r->s;
    if (s->flags == TALK_DIVIDE_NARROW || s->flags == TALK_DIVIDE_WIDE) {
        long long *const *op = s->flags == TALK_DIVIDE_WIDE ? r->d_wide : r->d_narrow;
        s->talk(op[0], op[1], r->d_quotient, r->talk_n);
    } else {
        s->talk(r->d_fin, NULL, r->d_fout, r->talk_n);
    }
}

/* Every element against the same arithmetic on the CPU, exactly (the
 * division is exact, the float sums are added in the same order, unfused). */
static int check_talk(run *r, char *note, size_t len)
{
    const ch09_stage *s = r->s;
    long bad = 0;
    CUDA_CHECK(cudaDeviceSynchronize());
    if (s->flags == TALK_DIVIDE_NARROW || s->flags == TALK_DIVIDE_WIDE) {
        long long *const *op = s->flags == TALK_DIVIDE_WIDE ? r->wide : r->narrow;
        CUDA_CHECK(cudaMemcpy(r->quotient, r->d_quotient, (size_t)r->talk_n * sizeof(long long),
                              cudaMemcpyDeviceToHost));
        for (int i = 0; i < r->talk_n; i++) {
            long long sum = 0;
            for (int k = 0; k < TALK_DIVISIONS; k++)
                sum += (op[0][i] + k) / op[1][i];
            bad += r->quotient[i] != sum;
        }
    } else {
        CUDA_CHECK(cudaMemcpy(r->fout, r->d_fout, (size_t)r->talk_n * sizeof(float), cudaMemcpyDeviceToHost));
        for (int i = 0; i < r->talk_n; i++) {
            const float *p = r->fin + 4 * (size_t)i;
            float want = s->flags == TALK_QUADS ? ((p[0] + p[1]) + p[2]) + p[3] : TALK_SCALE * r->fin[i];
            bad += memcmp(&want, &r->fout[i], sizeof want) != 0;
        }
    }
    snprintf(note, len, "%ld of %d elements wrong", bad, r->talk_n);
    return bad == 0;
}

static void prepare_render(run *r)
{
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

static void prepare_reduce(run *r)
{
    int *in = cli_alloc((size_t)r->n * sizeof(int), "the input");
    r->exact = reduce_fill(in, (size_t)r->n);
    CUDA_CHECK(cudaMalloc((void **)&r->d_in, (size_t)r->n * sizeof(int)));
    CUDA_CHECK(cudaMemcpy(r->d_in, in, (size_t)r->n * sizeof(int), cudaMemcpyHostToDevice));
    free(in);
    CUDA_CHECK(cudaMalloc((void **)&r->d_sum, sizeof(long long)));
    r->ctx.scratch_bytes = reduce_scratch_bytes((size_t)r->n);
    CUDA_CHECK(cudaMalloc(&r->ctx.scratch, r->ctx.scratch_bytes));
}

static void prepare_nbody(run *r)
{
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

/* Every part's data; a part not prepared has only NULLs to free. */
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
    free_reference(&r->ref);
    for (int k = 0; k < 2; k++) {
        CUDA_CHECK(cudaFree(r->d_narrow[k]));
        CUDA_CHECK(cudaFree(r->d_wide[k]));
        free(r->narrow[k]);
        free(r->wide[k]);
    }
    CUDA_CHECK(cudaFree(r->d_quotient));
    CUDA_CHECK(cudaFree(r->d_fin));
    CUDA_CHECK(cudaFree(r->d_fout));
    free(r->quotient);
    free(r->fin);
    free(r->fout);
}

/* ---------------------------------------------------------------- the stage */
static void poison(void *context)
{
    run *r = context;
    if (r->s->part == PART_CH05) {
        CUDA_CHECK(cudaMemset(r->d_bad, 0, sizeof(int)));
        CUDA_CHECK(cudaMemset(r->d_rgb, 0xEE, image_bytes(&r->host)));
    } else if (r->s->part == PART_CH06) {
        CUDA_CHECK(cudaMemset(r->d_sum, 0xA5, sizeof(long long)));
    } else if (r->s->part == PART_CH07) {
        CUDA_CHECK(cudaMemset(r->d_a, 0xFF, (size_t)r->bodies * sizeof(vec3))); /* NaN */
    } else {
        CUDA_CHECK(cudaMemset(r->d_quotient, 0xA5, (size_t)r->talk_n * sizeof(long long)));
        CUDA_CHECK(cudaMemset(r->d_fout, 0xFF, (size_t)r->talk_n * sizeof(float)));
    }
}

static void launch(void *context)
{
    run *r = context;
    const ch09_stage *s = r->s;
    if (s->part == PART_CH05)
        s->render(s->flags, 1, r->d_rgb, r->d_bad, r->width, r->height, r->spp, BLOCK, BLOCK, NULL);
    else if (s->part == PART_CH06)
        s->reduce(r->d_in, (size_t)r->n, r->d_sum, &r->ctx);
    else if (s->part == PART_CH07)
        s->forces(r->d_b, r->d_a, r->bodies, 0);
    else
        launch_talk(r);
    CUDA_CHECK_LAUNCH();
}

static int check(void *context, char *note, size_t len)
{
    run *r = context;
    return r->s->part == PART_CH05   ? check_render(r, note, len)
           : r->s->part == PART_CH06 ? check_reduce(r, note, len)
           : r->s->part == PART_CH07 ? check_nbody(r, note, len)
                                     : check_talk(r, note, len);
}

/* ---------------------------------------------------------------- the program */
static void validate(program_run *p)
{
    if (p->opt.n > (1LL << 31) - 1)
        cli_usage_error(p->spec, "--n %lld: at most 2^31 - 1 values (ch06's stages index with int)", p->opt.n);
}

/* Which builds this program holds, said after the input is checked and before
 * the device is required (without one, the line is all a reader gets). */
static const char *open_device(program_run *p)
{
    if (!p->opt.quiet || CH09_HAVE_CLANG == 0)
        fprintf(stderr, "ch09: %zu stages, built by nvcc%s\n", STAGE_COUNT,
                CH09_HAVE_CLANG ? " and by clang (" CH09_CLANG ")" : " only (" CH09_NO_CLANG_WHY ")");
    return program_cuda_open(p);
}

static const program_device device = {program_cuda_count, open_device};

/* The sizes the command line asks for: ch07's bodies and the talk's elements capped. */
static void setup(program_run *p)
{
    ch.n = p->opt.n;
    ch.bodies = p->opt.n < MAX_BODIES ? (int)p->opt.n : MAX_BODIES;
    ch.talk_n = p->opt.n < MAX_TALK ? (int)p->opt.n : MAX_TALK;
    ch.width = (int)p->opt.width, ch.height = (int)p->opt.height, ch.spp = (int)p->opt.spp;
    ch.repeat = (int)p->opt.repeat;
}

/* A part is a table: each has its own workload. */
static int part_of(const program_run *p, size_t i)
{
    (void)p;
    return stages[i].part;
}

static void workload(program_run *p, int part, char *buf, size_t size)
{
    (void)p;
    if (part == PART_CH05)
        snprintf(buf, size, "ch05 %dx%dx%dspp", ch.width, ch.height, ch.spp);
    else if (part == PART_CH06)
        snprintf(buf, size, "ch06 n=%lld", ch.n);
    else if (part == PART_CH07)
        snprintf(buf, size, "ch07 n=%d", ch.bodies);
    else
        snprintf(buf, size, "talk n=%d", ch.talk_n);
}

/* The part's data, host and device, before its first stage. */
static void begin(program_run *p)
{
    if (p->table == PART_CH05)
        prepare_render(&ch);
    else if (p->table == PART_CH06)
        prepare_reduce(&ch);
    else if (p->table == PART_CH07)
        prepare_nbody(&ch);
    else
        prepare_talk(&ch);
}

/* Measures the stage and adds its row, at the rate its own chapter reports:
 * Msamples/s, GB/s read, GFLOP/s (20 flops an interaction), Gelements/s. */
static int measure(program_run *p, size_t i)
{
    const ch09_stage *s = ch.s = &stages[i];
    double work = s->part == PART_CH05   ? (double)ch.width * ch.height * ch.spp
                  : s->part == PART_CH06 ? (double)ch.n * sizeof(int)
                  : s->part == PART_CH07 ? 20.0 * ch.bodies * (double)ch.bodies
                                         : ch.talk_n;
    const char *unit = s->part == PART_CH05   ? "Msamples/s"
                       : s->part == PART_CH06 ? "GB/s"
                       : s->part == PART_CH07 ? "GFLOP/s"
                                              : "Gelements/s";
    program_measure(p, &(measure_plan){.name = s->info.name, .reset = poison, .run = launch, .check = check,
                                       .timer = cuda_time_ms, .context = &ch, .repeat = ch.repeat},
                    work, s->part == PART_CH05 ? 1e6 : 1e9, unit, REPORT_ON_GPU, p->device, NULL);
    return 0;
}

static void teardown(program_run *p)
{
    (void)p;
    release(&ch);
}

const program chapter_program = {
    .spec = &spec,
    .defaults = {.width = 512, .height = 512, .spp = 64, .n = 1LL << 28, .repeat = 10},
    .gpu = PROGRAM_GPU_ONLY,
    .device = &device,
    .tables = PART_COUNT,
    .table_of = part_of,
    .validate = validate,
    .setup = setup,
    .workload = workload,
    .begin = begin,
    .stage = measure,
    .teardown = teardown,
};
