/* run.c - see run.h. */
#include "run.h"
#include "gen.h"
#include "render.h"

#include "../../common/cpu_ceiling.h"
#include "../../common/measure.h"
#include "../../common/timer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_PSNR_DB 30.0
#define BLOCK 16

/* The stage's whole source (malloc'ed) and the operations in its step. */
char *source_of(const stage *s, int *ops)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (!f) {
        fprintf(stderr, "ch10: out of memory (a kernel's source)\n");
        exit(EXIT_CHECK_FAIL);
    }
    *ops = gen_source(s->kind == HAND || s->kind == HAND_DOUBLE, s->kind == HAND_DOUBLE, s->rules, f);
    if (fclose(f) != 0) {
        fprintf(stderr, "ch10: out of memory (a kernel's source)\n");
        exit(EXIT_CHECK_FAIL);
    }
    return text;
}

static int device_arch(int device)
{
    int major = 0, minor = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
    return major * 10 + minor;
}

compiled run_load_stage(run *r, const stage *s, int device, int *ops)
{
    char *source = source_of(s, ops);
    compiled c;
    static char err[1 << 16];
    if (kernel_compile(source, s->info.name, stage_math(r, s), device_arch(device), 0, &c, err, sizeof err) != 0) {
        fprintf(stderr, "ch10: %s\n", err);
        exit(EXIT_CHECK_FAIL);
    }
    free(source);
    CUDA_CHECK(cudaLibraryLoadData(&r->library, c.image, NULL, NULL, 0, NULL, NULL, 0));
    CUDA_CHECK(cudaLibraryGetKernel(&r->kernel, r->library, "render"));
    return c;
}

void run_unload_stage(run *r)
{
    CUDA_CHECK(cudaLibraryUnload(r->library));
}

void poison(void *context)
{
    run *r = context;
    CUDA_CHECK(cudaMemset(r->d_bad, 0, sizeof(int)));
    CUDA_CHECK(cudaMemset(r->d_rgb, 0xEE, image_bytes(&r->img)));
}

void launch(void *p)
{
    run *r = p;
    dim3 block = {BLOCK, BLOCK, 1}, grid = {(unsigned)(r->width + BLOCK - 1) / BLOCK, (unsigned)(r->height + BLOCK - 1) / BLOCK, 1};
    void *args[] = {&r->d_rgb, &r->d_bad, &r->width, &r->height};
    CUDA_CHECK(cudaLaunchKernel((const void *)r->kernel, grid, block, args, 0, 0));
}

int check(void *context, char *note, size_t len)
{
    run *r = context;
    int bad = 0;
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(r->img.rgb, r->d_rgb, image_bytes(&r->img), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&bad, r->d_bad, sizeof bad, cudaMemcpyDeviceToHost));
    return check_image(r, bad, note, len);
}

int check_image(run *r, long bad, char *note, size_t len)
{
    image_diff d;
    image_compare(&r->img, &r->ref, &d);
    snprintf(note, len, "vs CPU %.1f dB%s", d.psnr, bad ? ", NaN rays" : "");
    r->psnr = d.psnr;
    return bad == 0 && d.psnr >= MIN_PSNR_DB;
}

/* ---------------------------------------------------------------- a stage's rows */
void run_begin(run *r, int gpu)
{
    cli_alloc_image(&r->ref, r->width, r->height);
    cli_alloc_image(&r->img, r->width, r->height);
    cli_alloc_image(&r->unsimplified, r->width, r->height);
    if (gpu) {
        CUDA_CHECK(cudaMalloc((void **)&r->d_rgb, image_bytes(&r->img)));
        CUDA_CHECK(cudaMalloc((void **)&r->d_bad, sizeof(int)));
    }
}

void run_end(run *r)
{
    if (r->d_rgb) { /* the GPU's side was set up */
        CUDA_CHECK(cudaFree(r->d_rgb));
        CUDA_CHECK(cudaFree(r->d_bad));
    }
    image_free(&r->ref);
    image_free(&r->img);
    image_free(&r->unsimplified);
}

/* The reference, stages[0], rendered into r->ref on r->threads, whether it
 * was asked for or not: every other stage is checked against it. Returns 1
 * if no ray went NaN. */
static int run_reference(run *r)
{
    char label[64];
    snprintf(label, sizeof label, "%s x%d", stages[0].info.name, r->threads);
    double t0 = now_seconds();
    r->ref_bad = cpu_render(&r->ref, r->threads, label, r->quiet);
    r->ref_ms = (now_seconds() - t0) * 1e3;
    return r->ref_bad == 0;
}

/* The reference's row, from its one render. */
static int reference_row(report *rep, run *r)
{
    double ms = r->ref_ms;
    report_add(rep, (report_entry){.stage = stages[0].info.name, .threads = r->threads, .ms = ms,
                                   .value = (double)r->width * r->height / (ms * 1e3), .unit = "Mrays/s",
                                   .ok = r->ref_bad == 0, .device = host_cpu_name(),
                                   .note = r->ref_bad ? "NaN rays" : "the reference (one run)"});
    r->picture = &r->ref;
    return r->ref_bad == 0;
}

/* Whether the last image is the reference's, byte for byte: a stage doing
 * its arithmetic in double, operation by operation, should be (only the math
 * library's last bits may differ, between the CPU's and the GPU's). */
static const char *same_as_reference(const run *r)
{
    return memcmp(r->img.rgb, r->ref.rgb, image_bytes(&r->img)) == 0 ? "identical to" : "NOT identical to";
}

/* The stage whose image a strictly simplified one must equal: the tree with
 * no rules, in strict arithmetic. */
static const stage *unsimplified_of(void)
{
    for (size_t i = 0; i < STAGE_COUNT; i++)
        if (stages[i].kind == GENERATED && stages[i].rules == EX_NONE && stages[i].math == MATH_STRICT)
            return &stages[i];
    return NULL;
}

/* The image-identity check of the strict tree kernels (main.c says why): the
 * unsimplified one's image kept, the strictly simplified one's compared. */
static int keep_or_compare(run *r, const stage *s, report_row *row)
{
    if (s->kind != GENERATED || stage_math(r, s) != MATH_STRICT || (s->rules != EX_NONE && s->rules != EX_STRICT))
        return 1; /* the relaxed rules are not exact for every input: no identity to ask of them */
    if (s->rules == EX_NONE) {
        memcpy(r->unsimplified.rgb, r->img.rgb, image_bytes(&r->img));
        r->have_unsimplified = 1;
        return 1;
    }
    int same = memcmp(r->unsimplified.rgb, r->img.rgb, image_bytes(&r->img)) == 0;
    row->ok &= same;
    report_note(row, "; %s %s's", same ? "identical to" : "DIFFERENT from", unsimplified_of()->info.name);
    return same;
}

/* One GPU stage: generated, compiled, loaded, measured; three rows (the
 * kernel's, its PSNR, NVRTC's). A strictly simplified stage asked for alone
 * has the unsimplified one run first, for its image. */
static int run_gpu(report *rep, run *r, const stage *s)
{
    int ok = 1;
    if (s->kind == GENERATED && s->rules == EX_STRICT && stage_math(r, s) == MATH_STRICT && !r->have_unsimplified)
        ok = run_gpu(rep, r, unsimplified_of());
    int ops;
    compiled c = run_load_stage(r, s, r->device, &ops);
    measure_result m;
    measure_stage(&(measure_plan){.name = s->info.name, .reset = poison, .run = launch, .check = check, .timer = cuda_time_ms,
                                  .context = r, .repeat = r->repeat}, &m);
    run_unload_stage(r);
    double rays = (double)r->width * r->height;
    const char *name = r->gpu_name;
    report_row *row = report_measured(rep, s->info.name, REPORT_ON_GPU, &m, rays / (m.times.median * 1e3), "Mrays/s",
                                      name);
    int hand = s->kind == HAND || s->kind == HAND_DOUBLE;
    report_note(row, "; %s%d-op step; NVRTC %.0f ms", hand ? "hand-written, " : "", ops, c.ms);
    if (stage_math(r, s) != MATH_STRICT)
        report_note(row, "; math %s", math_names[stage_math(r, s)]);
    if (s->kind == HAND_DOUBLE)
        report_note(row, "; in double, %s %s'", same_as_reference(r), stages[0].info.name);
    ok &= keep_or_compare(r, s, row) && m.ok == REPORT_OK;
    report_add(rep, (report_entry){.stage = s->info.name, .threads = REPORT_ON_GPU, .ms = m.times.median,
                                   .value = r->psnr, .unit = "dB vs CPU", .ok = REPORT_NO_CHECK, .device = name,
                                   .note = "the image's PSNR against the CPU's double-precision reference"});
    report_add(rep, (report_entry){.stage = s->info.name, .threads = REPORT_ON_GPU, .ms = c.ms,
                                   .value = c.size / 1024.0, .unit = "kB cubin", .ok = REPORT_NO_CHECK, .device = name,
                                   .note = "NVRTC compile time (the time column) and the cubin's size"});
    return ok;
}

/* The measured CPU stages (cpu-threads-float, cpu-threads-simd,
 * cpu-threads-simd-float): cpu_float.c's pixels or cpu_simd.c's rows on the
 * reference's threads, measured as every stage is and checked as a GPU stage
 * is (against the double reference). */
typedef struct {
    run *r;
    const stage *s;
    cpu_row_fn *trace_row; /* NULL: cpu_float.c's pixels */
    long bad;
} cpu_job;

static void cpu_poison(void *p)
{
    cpu_job *j = p;
    memset(j->r->img.rgb, 0xEE, image_bytes(&j->r->img));
}

static void cpu_stage_render(void *p)
{
    cpu_job *j = p;
    run *r = j->r;
    j->bad = j->trace_row ? cpu_render_rows(j->trace_row, &r->img, r->threads, j->s->info.name, r->quiet)
                          : cpu_render_with(cpu_trace_float, &r->img, r->threads, j->s->info.name, r->quiet);
}

static int cpu_stage_check(void *p, char *note, size_t len)
{
    cpu_job *j = p;
    return check_image(j->r, j->bad, note, len);
}

static int run_cpu(report *rep, run *r, const stage *s)
{
    cpu_job j = {.r = r, .s = s};
    int lanes = 1;
    const char *isa = "scalar";
    if (s->kind == ON_CPU_SIMD || s->kind == ON_CPU_SIMD_FLOAT) {
        j.trace_row = cpu_simd_row(s->kind == ON_CPU_SIMD, &lanes, &isa);
        if (!j.trace_row) {
            fprintf(stderr, "ch10: %s needs AVX2 and FMA or AVX-512, which this CPU lacks: skipped\n", s->info.name);
            return -1;
        }
    }
    measure_result m;
    measure_stage(&(measure_plan){.name = s->info.name, .reset = cpu_poison, .run = cpu_stage_render, .check = cpu_stage_check,
                                  .context = &j, .repeat = r->repeat}, &m);
    double rays = (double)r->width * r->height;
    report_row *row = report_measured(rep, s->info.name, r->threads, &m, rays / (m.times.median * 1e3), "Mrays/s",
                                      host_cpu_name());
    if (j.trace_row)
        report_note(row, "; %s, %d rays a vector", strcmp(isa, "avx512") == 0 ? "AVX-512" : "AVX2 (no AVX-512)", lanes);
    if (s->kind == ON_CPU_SIMD) /* the reference's arithmetic, lane by lane: its bytes */
        report_note(row, "; %s %s'", same_as_reference(r), stages[0].info.name);
    return m.ok == REPORT_OK;
}

/* Measures stage s and adds its rows (the reference: the render of
 * run_reference, one run); 1 if its checks passed, 0 if not, -1 if it was
 * skipped (a CPU without AVX2 has no vectorised stage, and says so). Its
 * image is then r->picture. */
static int run_stage(report *rep, run *r, const stage *s)
{
    if (s->kind == ON_CPU) /* the reference: rendered once, first (run_reference) */
        return reference_row(rep, r);
    r->picture = &r->img;
    return s->info.where == STAGE_CPU ? run_cpu(rep, r, s) : run_gpu(rep, r, s);
}

int run_stages(report *rep, run *r, const cli_spec *spec, const cli_options *opt, int gpu, const image **last)
{
    int all_ok = run_reference(r); /* asked for or not: every other stage is checked against it */
    for (size_t i = 0; i < STAGE_COUNT; i++) {
        if (!cli_stage_selected(opt, i) || (stages[i].info.where == STAGE_GPU && !gpu))
            continue;
        int ok = run_stage(rep, r, &stages[i]);
        if (ok < 0)
            continue; /* nothing rendered: no picture to keep */
        all_ok &= ok;
        *last = r->picture;
        if (opt->images && image_write_stage(*last, opt->images, spec->program, stages[i].info.name) != 0)
            return -1;
    }
    /* The host's FMA ceiling beside the CPU rows (the rays count no flops: no
     * share of it is claimed), kept short: ch10's CPU stages take seconds. */
    if (cli_selected_where(spec, opt, STAGE_CPU))
        cpu_fma_ceiling_row(rep, r->threads, 3);
    return all_ok;
}

void run_print_source(const stage *s, int math)
{
    int ops;
    char *text = source_of(s, &ops), options[160];
    kernel_options_text(math >= 0 ? math : s->math, 0, 0, options, sizeof options);
    printf("/* NVRTC options: %s */\n", options); /* the -fast-math twins differ only here */
    fputs(text, stdout);
    free(text);
}
