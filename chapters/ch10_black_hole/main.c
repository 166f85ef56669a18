/* ch10 - kernels written at run time: a Schwarzschild black hole whose
 * geodesic step is built as an expression tree from the metric, simplified by
 * named rules, printed as CUDA C, and compiled by NVRTC while the program runs.
 *
 *   make ch10 && ./ch10                        # 1024x1024, every stage
 *   ./ch10 --print-source gpu-generated-simplified > k.cu
 *
 * Stages: the reference on the CPU (double, the step by hand, bh.h); the same
 * kernel with the hand-written step, compiled by NVRTC; the step from the
 * tree with no rules, with the IEEE-exact rules, with all rules; and with
 * --use_fast_math. Every GPU stage is compiled by NVRTC with the same options
 * (IEEE arithmetic, no FMA contraction, unless fast math), so they differ by
 * their source alone. NVRTC's time is reported apart from the kernels'.
 *
 * Checks, before timing and after: no NaN ray; each image against the CPU's
 * (double) reference, PSNR >= MIN_PSNR_DB. Float and double disagree only
 * about rays that graze the photon sphere, where rounding decides between
 * falling in and escaping: such a pixel changes from sky to black, at most
 * 255 per channel, so if a share q of the pixels does, PSNR >= 10 log10(1/q);
 * 30 dB allows 1 pixel in 1000 to change its fate. And the strictly
 * simplified kernel's image must be identical, byte for byte, to the
 * unsimplified one's: its rules are exact.
 *
 * Without a CUDA device the sources are still generated and the CPU stage
 * runs; the exit status is then 3.
 */
#include "expr.h"
#include "gen.h"
#include "kernels.h"
#include "render.h"

#include "../../common/cli.h"
#include "../../common/cuda_util.h"
#include "../../common/image.h"
#include "../../common/report.h"
#include "../../common/timer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MIN_PSNR_DB 30.0
#define BLOCK 16

enum { ON_CPU, HAND, GENERATED };

typedef struct {
    const char *name;
    const char *description;
    int kind;
    unsigned rules;
    int fast_math;
} stage;

static const stage stages[] = {
    {"cpu-threads", "the reference: double precision, the step by hand, POSIX threads", ON_CPU, 0, 0},
    {"gpu-hand-written", "the step written by hand, compiled by NVRTC (IEEE, no FMA contraction)", HAND, 0, 0},
    {"gpu-generated", "the step from the tree, no rules: what differentiation leaves", GENERATED, EX_NONE, 0},
    {"gpu-generated-simplified", "the tree with the IEEE-exact rules: the same image, bit for bit", GENERATED,
     EX_STRICT, 0},
    {"gpu-generated-relaxed", "the tree with every rule, x * 0 -> 0 too: exact only for finite values", GENERATED,
     EX_RELAXED, 0},
    {"gpu-hand-written-fast-math", "gpu-hand-written with --use_fast_math", HAND, 0, 1},
    {"gpu-generated-fast-math", "gpu-generated with --use_fast_math", GENERATED, EX_NONE, 1},
    {"gpu-generated-relaxed-fast-math", "gpu-generated-relaxed with --use_fast_math", GENERATED, EX_RELAXED, 1},
};
#define STAGE_COUNT (sizeof stages / sizeof stages[0])

static const cli_spec spec = {
    .program = "ch10",
    .summary = "a black hole whose kernels are generated, simplified and compiled at run time (NVRTC)",
    .accepts = CLI_WIDTH | CLI_HEIGHT | CLI_THREADS | CLI_REPEAT | CLI_DEVICE | CLI_STAGE | CLI_OUT | CLI_IMAGES |
               CLI_CSV | CLI_QUIET | CLI_PRINT_SOURCE,
    CLI_STAGE_TABLE(stages),
    .notes = "Defaults: 1024x1024, --repeat 5, --threads all CPUs. The observer is static at r = 20 (r_s = 1)\n"
             "looking at the hole, 60 degrees of view. Checks: each image's PSNR against the CPU's at least\n"
             "30 dB; the strictly simplified kernel's image identical to the unsimplified one's (main.c\n"
             "says why).\n"
             "--print-source STAGE prints a GPU stage's kernel exactly as NVRTC compiles it, after a\n"
             "comment line with the NVRTC options it is compiled with.\n"
             "Default output: ch10.ppm (the last stage's image, written only if every check passed).\n"
             "Without a CUDA device the CPU stage runs and the exit status is 3.",
};

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
    *ops = gen_source(s->kind == HAND, s->rules, f);
    if (fclose(f) != 0) {
        fprintf(stderr, "ch10: out of memory (a kernel's source)\n");
        exit(EXIT_CHECK_FAIL);
    }
    return text;
}

typedef struct {
    int width, height, repeat;
    image ref, img, simplified_ref;
    int have_unsimplified;
    unsigned char *d_rgb;
    int *d_bad;
    cudaKernel_t kernel;
} run;

static void launch(void *p)
{
    run *r = p;
    dim3 block = {BLOCK, BLOCK, 1}, grid = {(unsigned)(r->width + BLOCK - 1) / BLOCK, (unsigned)(r->height + BLOCK - 1) / BLOCK, 1};
    void *args[] = {&r->d_rgb, &r->d_bad, &r->width, &r->height};
    CUDA_CHECK(cudaLaunchKernel((const void *)r->kernel, grid, block, args, 0, 0));
}

/* Renders once and checks; 1 if no NaN and within MIN_PSNR_DB of the reference. */
static int render_checked(run *r, double *psnr)
{
    int bad = 0;
    CUDA_CHECK(cudaMemset(r->d_bad, 0, sizeof(int)));
    CUDA_CHECK(cudaMemset(r->d_rgb, 0xEE, image_bytes(&r->img)));
    launch(r);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(r->img.rgb, r->d_rgb, image_bytes(&r->img), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&bad, r->d_bad, sizeof bad, cudaMemcpyDeviceToHost));
    image_diff d;
    image_compare(&r->img, &r->ref, &d);
    *psnr = d.psnr;
    return bad == 0 && d.psnr >= MIN_PSNR_DB;
}

static int device_arch(int device)
{
    int major = 0, minor = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
    return major * 10 + minor;
}

/* One GPU stage: generate, compile, load, check, time, check again. */
static void run_gpu(run *r, const stage *s, int arch, report *rep, const char *device, int *ok_out)
{
    int ops;
    char *source = source_of(s, &ops);
    compiled c;
    static char err[1 << 16];
    if (kernel_compile(source, s->name, s->fast_math, arch, 0, &c, err, sizeof err) != 0) {
        fprintf(stderr, "ch10: %s\n", err);
        exit(EXIT_CHECK_FAIL);
    }
    cudaLibrary_t lib;
    CUDA_CHECK(cudaLibraryLoadData(&lib, c.image, NULL, NULL, 0, NULL, NULL, 0));
    CUDA_CHECK(cudaLibraryGetKernel(&r->kernel, lib, "render"));
    double psnr_a, psnr_b;
    int ok = render_checked(r, &psnr_a);
    double times[REPEAT_MAX];
    for (int i = 0; i < r->repeat; i++)
        times[i] = cuda_median_ms(launch, r, 1);
    run_times t = summarize_runs(times, r->repeat);
    ok &= render_checked(r, &psnr_b);
    char note[300];
    int used = snprintf(note, sizeof note, "vs CPU %.1f/%.1f dB; %s%d-op step; NVRTC %.0f ms", psnr_a, psnr_b,
                        s->kind == HAND ? "hand-written, " : "", ops, c.ms);
    if (s->kind == GENERATED && s->rules == EX_NONE && !s->fast_math) {
        memcpy(r->simplified_ref.rgb, r->img.rgb, image_bytes(&r->img));
        r->have_unsimplified = 1;
    }
    if (s->kind == GENERATED && s->rules == EX_STRICT && !s->fast_math && r->have_unsimplified) {
        int same = memcmp(r->simplified_ref.rgb, r->img.rgb, image_bytes(&r->img)) == 0;
        ok &= same;
        snprintf(note + used, sizeof note - (size_t)used, "; %s gpu-generated's", same ? "identical to" : "DIFFERENT from");
    }
    double rays = (double)r->width * r->height;
    report_add(rep, (report_entry){.stage = s->name, .threads = REPORT_ON_GPU, .ms = t.median,
                                   .value = rays / (t.median * 1e3), .unit = "Mrays/s", .ok = ok, .device = device,
                                   .note = note, .runs = t.runs, .lo_ms = t.lo, .hi_ms = t.hi});
    report_add(rep, (report_entry){.stage = s->name, .threads = REPORT_ON_GPU, .ms = c.ms, .value = c.size / 1024.0,
                                   .unit = "kB cubin", .ok = REPORT_NO_CHECK, .device = device,
                                   .note = "NVRTC compile time (the time column) and the cubin's size"});
    CUDA_CHECK(cudaLibraryUnload(lib));
    free(source);
    *ok_out &= ok;
}

int main(int argc, char **argv)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    cli_options opt = {.width = 1024, .height = 1024, .repeat = 5, .threads = cpus > 0 ? cpus : 1};
    cli_parse(&spec, &opt, argc, argv);
    if (opt.print_source) {
        const stage *s = &stages[cli_stage_index(&spec, opt.print_source)];
        if (s->kind == ON_CPU)
            cli_usage_error(&spec, "--print-source %s: the CPU stage is not generated (its code is bh.h)", s->name);
        int ops;
        char *text = source_of(s, &ops), options[160];
        kernel_options_text(s->fast_math, 0, 0, options, sizeof options);
        printf("/* NVRTC options: %s */\n", options); /* the -fast-math twins differ only here */
        fputs(text, stdout);
        free(text);
        return EXIT_OK; /* a failed write to stdout is caught at exit (cli_parse) */
    }
    const char *out = opt.out ? opt.out : "ch10.ppm";
    cli_require_writable(&spec, "default output", out);
    char why[256] = "";
    int devices = cuda_device_count(why, sizeof why), gpu = devices > 0;
    if (gpu && opt.device >= devices)
        cli_usage_error(&spec, "--device %ld is out of range: this machine has %d CUDA device%s", opt.device, devices,
                        devices == 1 ? "" : "s");
    if (opt.stage_index > 0 && !gpu) { /* only a GPU stage asked for: no CPU reference to render, nothing to write */
        fprintf(stderr, "ch10: no CUDA device found (%s): stage %s not run, %s not written (exit status %d)\n", why,
                stages[opt.stage_index].name, out, EXIT_NO_GPU);
        return EXIT_NO_GPU;
    }

    run r;
    memset(&r, 0, sizeof r);
    r.width = (int)opt.width, r.height = (int)opt.height, r.repeat = (int)opt.repeat;
    if (image_alloc(&r.ref, r.width, r.height) != 0 || image_alloc(&r.img, r.width, r.height) != 0 ||
        image_alloc(&r.simplified_ref, r.width, r.height) != 0) {
        fprintf(stderr, "ch10: out of memory (%dx%d image)\n", r.width, r.height);
        return EXIT_CHECK_FAIL;
    }
    cuda_device_info info;
    memset(&info, 0, sizeof info);
    int arch = 0;
    if (gpu) {
        CUDA_CHECK(cudaSetDevice((int)opt.device));
        cuda_describe_device((int)opt.device, &info);
        if (!opt.quiet)
            cuda_print_device(stderr, (int)opt.device, &info);
        arch = device_arch((int)opt.device);
        CUDA_CHECK(cudaMalloc((void **)&r.d_rgb, image_bytes(&r.img)));
        CUDA_CHECK(cudaMalloc((void **)&r.d_bad, sizeof(int)));
    }
    char workload[96];
    snprintf(workload, sizeof workload, "%dx%d", r.width, r.height);
    report rep;
    report_init(&rep, spec.program, workload, opt.csv, opt.quiet);

    /* The reference first: every GPU stage is checked against it. */
    char label[64];
    snprintf(label, sizeof label, "cpu-threads x%ld", opt.threads);
    double t0 = now_seconds();
    long bad = cpu_render(&r.ref, (int)opt.threads, label, opt.quiet);
    double cpu_ms = (now_seconds() - t0) * 1e3;
    int all_ok = bad == 0, skipped = 0;
    const image *last = NULL; /* the picture of the last stage asked for that ran */
    if (opt.stage_index <= 0) {
        last = &r.ref;
        report_add(&rep, (report_entry){.stage = "cpu-threads", .threads = (int)opt.threads, .ms = cpu_ms,
                                        .value = (double)r.width * r.height / (cpu_ms * 1e3), .unit = "Mrays/s",
                                        .ok = bad == 0, .device = host_cpu_name(),
                                        .note = bad ? "NaN rays" : "the reference (one run)"});
        if (opt.images && image_write_stage(&r.ref, opt.images, spec.program, "cpu-threads") != 0)
            return EXIT_CHECK_FAIL;
    }
    for (size_t i = 1; i < STAGE_COUNT; i++) {
        if (opt.stage_index >= 0 && (size_t)opt.stage_index != i)
            continue;
        if (!gpu) {
            skipped++;
            continue;
        }
        if (opt.stage_index > 0 && stages[i].rules == EX_STRICT && !stages[i].fast_math)
            run_gpu(&r, &stages[2], arch, &rep, info.name, &all_ok); /* what it must equal */
        run_gpu(&r, &stages[i], arch, &rep, info.name, &all_ok);
        last = &r.img;
        if (opt.images && image_write_stage(&r.img, opt.images, spec.program, stages[i].name) != 0)
            return EXIT_CHECK_FAIL;
    }
    if (skipped && !opt.quiet)
        fprintf(stderr, "ch10: no CUDA device found (%s): %d GPU stage%s not run (exit status %d)\n", why, skipped,
                skipped == 1 ? "" : "s", EXIT_NO_GPU);
    int status = report_finish_image(&rep, all_ok, "ch10", last, out, opt.quiet);
    report_print(&rep, stdout);
    if (gpu) {
        CUDA_CHECK(cudaFree(r.d_rgb));
        CUDA_CHECK(cudaFree(r.d_bad));
    }
    image_free(&r.ref);
    image_free(&r.img);
    image_free(&r.simplified_ref);
    return status == EXIT_OK && skipped ? EXIT_NO_GPU : status;
}
