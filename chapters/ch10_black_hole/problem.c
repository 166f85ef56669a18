/* ch10 - kernels written at run time: a Schwarzschild black hole whose
 * geodesic step is built as an expression tree from the metric, simplified by
 * named rules, printed as CUDA C, and compiled by NVRTC while the program runs.
 *
 *   make ch10 && ./ch10                        # 1024x1024, every stage
 *   ./ch10 --print-source gpu-generated-simplified > k.cu
 *
 * The stages (stages.h): the reference on the CPU (double, the step by hand,
 * bh.h), in float, in vectors; then on the GPU the hand-written step and the
 * step from the tree with no rules, the IEEE-exact rules, all rules, and fast
 * math. Every GPU stage is compiled by NVRTC with the same options (IEEE
 * arithmetic, no FMA contraction, unless fast math), so they differ by their
 * source alone; NVRTC's time is reported apart from the kernels' (below).
 *
 * Checks, before timing and after: no NaN ray; each image against the CPU's
 * (double) reference, PSNR >= MIN_PSNR_DB. Float and double disagree only
 * about rays that graze the photon sphere, where rounding decides between
 * falling in and escaping: such a pixel changes from sky to black, at most
 * 255 per channel, so if a share q of the pixels does, PSNR >= 10 log10(1/q);
 * 30 dB allows 1 pixel in 1000 to change its fate. And the strictly
 * simplified kernel's image must be identical, byte for byte, to the
 * unsimplified one's: its rules are exact. The relaxed rules are not, for
 * every input; that they leave this picture alone (the source text's claim)
 * is tests/test_ch10.c's relaxed_rules_keep_the_picture, on the CPU.
 *
 * Without a CUDA device the sources are still generated and the CPU stages
 * run; the exit status is then 3.
 */
#include "gen.h"
#include "kernels.h"
#include "render.h"
#include "stages.h"

#include "../../common/cli.h"
#include "../../common/cpu_ceiling.h"
#include "../../common/cuda_util.h"
#include "../../common/image.h"
#include "../../common/measure.h"
#include "../../common/program_cuda.h"
#include "../../common/report.h"
#include "../../common/timer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_PSNR_DB 30.0
#define BLOCK 16

static const char *print_source = NULL, *math = NULL;
static const cli_option options[] = {
    {"print-source", "STAGE", "print the stage's kernel source, exactly as compiled, and exit",
     .text = &print_source, .text_kind = CLI_NAMES_STAGE},
    {"math", "M", "compile every GPU stage with arithmetic M: strict, fma, approx, fma-approx or fast "
                  "(default: each stage's own)", .text = &math, .choices = math_names, .choice_count = MATH_COUNT},
};

static const cli_spec spec = {
    .program = "ch10",
    .summary = "a black hole whose kernels are generated, simplified and compiled at run time (NVRTC)",
    .accepts = CLI_WIDTH | CLI_HEIGHT | CLI_THREADS | CLI_REPEAT | CLI_DEVICE | CLI_STAGE | CLI_OUT | CLI_IMAGES |
               CLI_CSV | CLI_QUIET,
    CLI_STAGE_TABLE(stages),
    CLI_OPTION_TABLE(options),
    .notes = "Defaults: 1024x1024, --repeat 5, --threads all CPUs. The observer is static at r = 20 (r_s = 1)\n"
             "looking at the hole, 60 degrees of view. Checks: each image's PSNR against the CPU's at least\n"
             "30 dB; the strictly simplified kernel's image identical to the unsimplified one's (problem.c\n"
             "says why).\n"
             "--print-source STAGE prints a GPU stage's kernel exactly as NVRTC compiles it, after a\n"
             "comment line with the NVRTC options it is compiled with.\n"
             "Default output: ch10.ppm (the last stage's image, written only if every check passed).\n"
             "Without a CUDA device the CPU stages run and the exit status is 3.",
};

/* The program's state: the images, the GPU's side, the stage's kernel. */
typedef struct {
    int width, height;
    image ref, img;
    unsigned char *d_rgb;
    int *d_bad;
    cudaKernel_t kernel;
    cudaLibrary_t library;
    double psnr; /* the last checked image's PSNR against the CPU's, dB */
    int math; /* --math: every GPU stage's arithmetic (kernels.h's MATH_*), or -1: each stage's own */
    /* how stages are measured: the options */
    int device, repeat, threads, quiet;
    /* the unsimplified strict kernel's image, which the strictly simplified one must equal */
    image unsimplified;
    int have_unsimplified;
    double ref_ms; /* the reference's render: its time, and its rays gone NaN */
    long ref_bad;
    const image *picture; /* the stage's picture: ref or img */
    const image *last;    /* the picture of the last stage that ran */
    int skipped;          /* the stage just asked for did not run (no vectors): no picture of its own */
} run;

static run bh;

/* The arithmetic stage s is compiled with in this run. */
static int stage_math(const run *r, const stage *s)
{
    return r->math >= 0 ? r->math : s->math;
}

/* The stage's whole source (malloc'ed) and the operations in its step. */
static char *source_of(const stage *s, int *ops)
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

/* Compiles s for the device (NVRTC) and loads its kernel into r; exits with
 * NVRTC's message if it does not compile. Returns what NVRTC reported. */
static compiled load_stage(run *r, const stage *s, int *ops)
{
    char *source = source_of(s, ops);
    compiled c;
    static char err[1 << 16];
    if (kernel_compile(source, s->info.name, stage_math(r, s), device_arch(r->device), 0, &c, err, sizeof err) != 0) {
        fprintf(stderr, "ch10: %s\n", err);
        exit(EXIT_CHECK_FAIL);
    }
    free(source);
    CUDA_CHECK(cudaLibraryLoadData(&r->library, c.image, NULL, NULL, 0, NULL, NULL, 0));
    CUDA_CHECK(cudaLibraryGetKernel(&r->kernel, r->library, "render"));
    return c;
}

static void poison(void *context)
{
    run *r = context;
    CUDA_CHECK(cudaMemset(r->d_bad, 0, sizeof(int)));
    CUDA_CHECK(cudaMemset(r->d_rgb, 0xEE, image_bytes(&r->img)));
}

static void launch(void *p)
{
    run *r = p;
    dim3 block = {BLOCK, BLOCK, 1}, grid = {(unsigned)(r->width + BLOCK - 1) / BLOCK, (unsigned)(r->height + BLOCK - 1) / BLOCK, 1};
    void *args[] = {&r->d_rgb, &r->d_bad, &r->width, &r->height};
    CUDA_CHECK(cudaLaunchKernel((const void *)r->kernel, grid, block, args, 0, 0));
}

/* r->img's check, wherever it was rendered: no NaN ray (bad: how many went
 * NaN), PSNR >= MIN_PSNR_DB against r->ref; what it found in note. */
static int check_image(run *r, long bad, char *note, size_t len)
{
    image_diff d;
    image_compare(&r->img, &r->ref, &d);
    snprintf(note, len, "vs CPU %.1f dB%s", d.psnr, bad ? ", NaN rays" : "");
    r->psnr = d.psnr;
    return bad == 0 && d.psnr >= MIN_PSNR_DB;
}

/* A GPU stage's check: no NaN, within MIN_PSNR_DB of the CPU's image. */
static int check(void *context, char *note, size_t len)
{
    run *r = context;
    int bad = 0;
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(r->img.rgb, r->d_rgb, image_bytes(&r->img), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&bad, r->d_bad, sizeof bad, cudaMemcpyDeviceToHost));
    return check_image(r, bad, note, len);
}

/* ---------------------------------------------------------------- a stage's rows */
/* The reference, stages[0], rendered into r->ref on r->threads, whether it
 * was asked for or not: every other stage is checked against it. */
static void run_reference(run *r)
{
    char label[64];
    snprintf(label, sizeof label, "%s x%d", stages[0].info.name, r->threads);
    double t0 = now_seconds();
    r->ref_bad = cpu_render(&r->ref, r->threads, label, r->quiet);
    r->ref_ms = (now_seconds() - t0) * 1e3;
}

/* The reference's row, from its one render. */
static void reference_row(report *rep, run *r)
{
    double ms = r->ref_ms;
    report_add(rep, (report_entry){.stage = stages[0].info.name, .threads = r->threads, .ms = ms,
                                   .value = (double)r->width * r->height / (ms * 1e3), .unit = "Mrays/s",
                                   .ok = r->ref_bad == 0, .device = host_cpu_name(),
                                   .note = r->ref_bad ? "NaN rays" : "the reference (one run)"});
    r->picture = &r->ref;
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

/* The image-identity check of the strict tree kernels (the top of this file
 * says why): the unsimplified one's image kept, the strictly simplified one's
 * compared, its row failed if it differs. */
static void keep_or_compare(run *r, const stage *s, report_row *row)
{
    if (s->kind != GENERATED || stage_math(r, s) != MATH_STRICT || (s->rules != EX_NONE && s->rules != EX_STRICT))
        return; /* the relaxed rules are not exact for every input: no identity to ask of them */
    if (s->rules == EX_NONE) {
        memcpy(r->unsimplified.rgb, r->img.rgb, image_bytes(&r->img));
        r->have_unsimplified = 1;
        return;
    }
    int same = memcmp(r->unsimplified.rgb, r->img.rgb, image_bytes(&r->img)) == 0;
    row->ok &= same;
    report_note(row, "; %s %s's", same ? "identical to" : "DIFFERENT from", unsimplified_of()->info.name);
}

/* One GPU stage: generated, compiled, loaded, measured; three rows (the
 * kernel's, its PSNR, NVRTC's). A strictly simplified stage asked for alone
 * has the unsimplified one run first, for its image. */
static void run_gpu(program_run *p, run *r, const stage *s)
{
    if (s->kind == GENERATED && s->rules == EX_STRICT && stage_math(r, s) == MATH_STRICT && !r->have_unsimplified)
        run_gpu(p, r, unsimplified_of());
    int ops;
    compiled c = load_stage(r, s, &ops);
    measure_result m;
    double rays = (double)r->width * r->height;
    const char *name = p->device;
    report_row *row = program_measure(p, &(measure_plan){.name = s->info.name, .reset = poison, .run = launch,
                                                          .check = check, .timer = cuda_time_ms, .context = r,
                                                          .repeat = r->repeat},
                                      rays, 1e6, "Mrays/s", REPORT_ON_GPU, name, &m);
    CUDA_CHECK(cudaLibraryUnload(r->library));
    int hand = s->kind == HAND || s->kind == HAND_DOUBLE;
    report_note(row, "; %s%d-op step; NVRTC %.0f ms", hand ? "hand-written, " : "", ops, c.ms);
    if (stage_math(r, s) != MATH_STRICT)
        report_note(row, "; math %s", math_names[stage_math(r, s)]);
    if (s->kind == HAND_DOUBLE)
        report_note(row, "; in double, %s %s'", same_as_reference(r), stages[0].info.name);
    keep_or_compare(r, s, row);
    report_add(p->rep, (report_entry){.stage = s->info.name, .threads = REPORT_ON_GPU, .ms = m.times.median,
                                      .value = r->psnr, .unit = "dB vs CPU", .ok = REPORT_NO_CHECK, .device = name,
                                      .note = "the image's PSNR against the CPU's double-precision reference"});
    report_add(p->rep, (report_entry){.stage = s->info.name, .threads = REPORT_ON_GPU, .ms = c.ms,
                                      .value = c.size / 1024.0, .unit = "kB cubin", .ok = REPORT_NO_CHECK,
                                      .device = name,
                                      .note = "NVRTC compile time (the time column) and the cubin's size"});
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

/* Returns 0 where the CPU has no vectors for the stage (it says so), 1 where it ran. */
static int run_cpu(program_run *p, run *r, const stage *s)
{
    cpu_job j = {.r = r, .s = s};
    int lanes = 1;
    const char *isa = "scalar";
    if (s->kind == ON_CPU_SIMD || s->kind == ON_CPU_SIMD_FLOAT) {
        j.trace_row = cpu_simd_row(s->kind == ON_CPU_SIMD, &lanes, &isa);
        if (!j.trace_row) {
            fprintf(stderr, "ch10: %s needs AVX2 and FMA or AVX-512, which this CPU lacks: skipped\n", s->info.name);
            return 0;
        }
    }
    double rays = (double)r->width * r->height;
    report_row *row = program_measure(p, &(measure_plan){.name = s->info.name, .reset = cpu_poison,
                                                          .run = cpu_stage_render, .check = cpu_stage_check,
                                                          .context = &j, .repeat = r->repeat},
                                      rays, 1e6, "Mrays/s", r->threads, NULL, NULL);
    if (j.trace_row)
        report_note(row, "; %s, %d rays a vector", strcmp(isa, "avx512") == 0 ? "AVX-512" : "AVX2 (no AVX-512)", lanes);
    if (s->kind == ON_CPU_SIMD) /* the reference's arithmetic, lane by lane: its bytes */
        report_note(row, "; %s %s'", same_as_reference(r), stages[0].info.name);
    return 1;
}

/* ---------------------------------------------------------------- the program */
/* --print-source: a GPU stage's source, exactly as compiled with math (-1:
 * its own), after a comment line with the NVRTC options. */
static void print_stage_source(const stage *s, int math)
{
    int ops;
    char *text = source_of(s, &ops), options[160];
    kernel_options_text(math >= 0 ? math : s->math, 0, 0, options, sizeof options);
    printf("/* NVRTC options: %s */\n", options); /* the -fast-math twins differ only here */
    fputs(text, stdout);
    free(text);
}

/* --math read; --print-source is a mode of its own: its input checked, the
 * source printed, exit 0 (a failed write to stdout is caught at exit: cli_parse). */
static void validate(program_run *p)
{
    bh.math = cli_choice_index(math_names, MATH_COUNT, math);
    if (!print_source)
        return;
    const stage *s = &stages[cli_stage_index(p->spec, print_source)];
    if (s->info.where == STAGE_CPU)
        cli_usage_error(p->spec, "--print-source %s: a CPU stage is not generated (its code is bh.h)", s->info.name);
    cli_begin_work(p->spec); /* printing the source is this mode's work */
    print_stage_source(s, bh.math);
    exit(EXIT_OK);
}

/* The images (out of memory: exit 1), the GPU's side where a device is open,
 * and the reference, rendered whether asked for or not: every other stage is
 * checked against it. */
static void setup(program_run *p)
{
    run *r = &bh;
    r->width = (int)p->opt.width, r->height = (int)p->opt.height, r->device = (int)p->opt.device;
    r->repeat = (int)p->opt.repeat, r->threads = (int)p->opt.threads, r->quiet = p->opt.quiet;
    cli_alloc_image(&r->ref, r->width, r->height);
    cli_alloc_image(&r->img, r->width, r->height);
    cli_alloc_image(&r->unsimplified, r->width, r->height);
    if (p->gpu) {
        CUDA_CHECK(cudaMalloc((void **)&r->d_rgb, image_bytes(&r->img)));
        CUDA_CHECK(cudaMalloc((void **)&r->d_bad, sizeof(int)));
    }
    run_reference(r);
}

static void workload(program_run *p, int table, char *buf, size_t size)
{
    (void)p, (void)table;
    snprintf(buf, size, "%dx%d%s%s", bh.width, bh.height, math ? " math=" : "", math ? math : "");
}

/* A reference gone wrong fails the run even where it was not asked for: its row says so. */
static void begin(program_run *p)
{
    if (bh.ref_bad && !cli_stage_selected(&p->opt, 0))
        reference_row(p->rep, &bh);
}

/* Measures stage i and adds its rows (the reference: the render of setup,
 * one run); its image is then bh.picture, unless the CPU has no vectors for
 * it (it is skipped, and says so). */
static int measure(program_run *p, size_t i)
{
    const stage *s = &stages[i];
    bh.picture = &bh.img;
    bh.skipped = 0;
    if (s->kind == ON_CPU)
        reference_row(p->rep, &bh);
    else if (s->info.where == STAGE_GPU)
        run_gpu(p, &bh, s);
    else
        bh.skipped = !run_cpu(p, &bh, s);
    if (!bh.skipped)
        bh.last = bh.picture;
    return 0;
}

/* The picture: for --images the stage's (none for a skipped one), at the end the last stage's that ran. */
static const image *picture(program_run *p)
{
    (void)p;
    return bh.skipped ? NULL : bh.last;
}

/* The host's FMA ceiling beside the CPU rows (the rays count no flops: no
 * share of it is claimed), kept short: ch10's CPU stages take seconds. */
static void ceiling(program_run *p)
{
    bh.skipped = 0;
    if (p->want_cpu)
        cpu_fma_ceiling_row(p->rep, bh.threads, 3);
}

static void teardown(program_run *p)
{
    (void)p;
    if (bh.d_rgb) { /* the GPU's side was set up */
        CUDA_CHECK(cudaFree(bh.d_rgb));
        CUDA_CHECK(cudaFree(bh.d_bad));
    }
    image_free(&bh.ref);
    image_free(&bh.img);
    image_free(&bh.unsimplified);
}

const program chapter_program = {
    .spec = &spec,
    .defaults = {.width = 1024, .height = 1024, .repeat = 5, .threads = PROGRAM_ALL_CORES},
    .gpu = PROGRAM_GPU_IF_ANY,
    .device = PROGRAM_CUDA,
    .picture = "ch10.ppm",
    .validate = validate,
    .setup = setup,
    .workload = workload,
    .begin = begin,
    .stage = measure,
    .end = ceiling,
    .image = picture,
    .teardown = teardown,
};
