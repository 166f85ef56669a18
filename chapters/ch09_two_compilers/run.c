/* run.c - see run.h. */
#include "run.h"

#include "../../common/cli.h"
#include "../../common/cuda_util.h"
#include "../../common/image.h"
#include "../../common/measure.h"

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

void run_init(run *r, const cli_options *opt)
{
    memset(r, 0, sizeof *r);
    r->n = opt->n;
    r->bodies = opt->n < MAX_BODIES ? (int)opt->n : MAX_BODIES;
    r->talk_n = opt->n < MAX_TALK ? (int)opt->n : MAX_TALK;
    r->width = (int)opt->width, r->height = (int)opt->height, r->spp = (int)opt->spp, r->repeat = (int)opt->repeat;
}

void run_prepare(run *r, const int parts_wanted[PART_COUNT])
{
    if (parts_wanted[PART_TALK])
        prepare_talk(r);
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

void run_release(run *r)
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
void poison(void *context)
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

void launch(void *context)
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

int check(void *context, char *note, size_t len)
{
    run *r = context;
    return r->s->part == PART_CH05   ? check_render(r, note, len)
           : r->s->part == PART_CH06 ? check_reduce(r, note, len)
           : r->s->part == PART_CH07 ? check_nbody(r, note, len)
                                     : check_talk(r, note, len);
}

/* ---------------------------------------------------------------- the reports */
void run_reports_init(const run *r, report reports[PART_COUNT], const char *program, const cli_options *opt)
{
    char workload[PART_COUNT][96];
    snprintf(workload[PART_CH05], sizeof workload[0], "ch05 %dx%dx%dspp", r->width, r->height, r->spp);
    snprintf(workload[PART_CH06], sizeof workload[0], "ch06 n=%lld", r->n);
    snprintf(workload[PART_CH07], sizeof workload[0], "ch07 n=%d", r->bodies);
    snprintf(workload[PART_TALK], sizeof workload[0], "talk n=%d", r->talk_n);
    for (int p = 0; p < PART_COUNT; p++)
        report_init(&reports[p], program, workload[p], opt->csv, opt->quiet);
}

void run_stage(run *r, const ch09_stage *s, report *rep, const char *device)
{
    r->s = s;
    measure_result m;
    measure_stage(&(measure_plan){.name = s->info.name, .reset = poison, .run = launch, .check = check, .timer = cuda_time_ms,
                                  .context = r, .repeat = r->repeat}, &m);
    double value, ms = m.times.median;
    const char *unit;
    if (s->part == PART_CH05)
        value = (double)r->width * r->height * r->spp / (ms * 1e3), unit = "Msamples/s";
    else if (s->part == PART_CH06)
        value = (double)r->n * sizeof(int) / (ms * 1e6), unit = "GB/s";
    else if (s->part == PART_CH07)
        value = 20.0 * r->bodies * (double)r->bodies / (ms * 1e6), unit = "GFLOP/s";
    else
        value = r->talk_n / (ms * 1e6), unit = "Gelements/s";
    report_measured(rep, s->info.name, REPORT_ON_GPU, &m, value, unit, device);
}
