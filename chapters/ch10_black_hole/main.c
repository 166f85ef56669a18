/* ch10 - kernels written at run time: a Schwarzschild black hole whose
 * geodesic step is built as an expression tree from the metric, simplified by
 * named rules, printed as CUDA C, and compiled by NVRTC while the program runs.
 *
 *   make ch10 && ./ch10                        # 1024x1024, every stage
 *   ./ch10 --print-source gpu-generated-simplified > k.cu
 *
 * Stages: the reference on the CPU (double, the step by hand, bh.h); the same
 * in float on the CPU (cpu_float.c: the GPU stages' precision, so a GPU stage
 * has a CPU stage of its own kind to be compared with); both with a ray in
 * each lane of a vector (cpu_simd.c: AVX-512 where the CPU has it, else AVX2);
 * the same kernel with the hand-written step, compiled by NVRTC, in float and
 * in double (the reference's work on the GPU); the step from the
 * tree with no rules, with the IEEE-exact rules, with all rules; and with
 * --use_fast_math. Every GPU stage is compiled by NVRTC with the same options
 * (IEEE arithmetic, no FMA contraction, unless fast math), so they differ by
 * their source alone. NVRTC's time is reported apart from the kernels'.
 *
 * Each GPU stage is measured as every chapter's are (common/measure.h; run.c).
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
 * Beside the CPU stages, the host's FMA ceiling measured in the same run (a
 * reference row, common/cpu_ceiling.h): the rays count no flops, so no share
 * of it is claimed.
 *
 * Without a CUDA device the sources are still generated and the CPU stages
 * run; the exit status is then 3.
 */
#include "gen.h"
#include "kernels.h"
#include "render.h"
#include "run.h"
#include "stages.h"

#include "../../common/cli.h"
#include "../../common/cpu_ceiling.h"
#include "../../common/cuda_util.h"
#include "../../common/image.h"
#include "../../common/measure.h"
#include "../../common/report.h"
#include "../../common/timer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *print_source = NULL, *math = NULL;
static const cli_option options[] = {
    {"print-source", "STAGE", "print the stage's kernel source, exactly as compiled, and exit",
     .text = &print_source, .text_kind = CLI_NAMES_STAGE},
    {"math", "M", "compile every GPU stage with arithmetic M: strict, fma, approx, fma-approx or fast "
                  "(default: each stage's own)", .text = &math},
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
             "30 dB; the strictly simplified kernel's image identical to the unsimplified one's (main.c\n"
             "says why).\n"
             "--print-source STAGE prints a GPU stage's kernel exactly as NVRTC compiles it, after a\n"
             "comment line with the NVRTC options it is compiled with.\n"
             "Default output: ch10.ppm (the last stage's image, written only if every check passed).\n"
             "Without a CUDA device the CPU stages run and the exit status is 3.",
};

/* Whether the last image is the reference's, byte for byte: a stage doing
 * its arithmetic in double, operation by operation, should be (only the math
 * library's last bits may differ, between the CPU's and the GPU's). */
static const char *same_as_reference(const run *r)
{
    return memcmp(r->img.rgb, r->ref.rgb, image_bytes(&r->img)) == 0 ? "identical to" : "NOT identical to";
}

/* One GPU stage: generated, compiled, loaded, measured; two rows (the
 * kernel's, NVRTC's). The unsimplified image is kept in *unsimplified (NULL:
 * not rendered) for the strictly simplified stage to equal. */
static int run_gpu(run *r, const stage *s, int device, int repeat, report *rep, const char *name, image *unsimplified)
{
    int ops;
    compiled c = run_load_stage(r, s, device, &ops);
    measure_result m;
    measure_stage(&(measure_plan){.reset = poison, .run = launch, .check = check, .timer = cuda_time_ms,
                                  .context = r, .repeat = repeat}, &m);
    run_unload_stage(r);
    double rays = (double)r->width * r->height;
    report_row *row = report_measured(rep, s->info.name, REPORT_ON_GPU, &m, rays / (m.times.median * 1e3), "Mrays/s",
                                      name);
    int hand = s->kind == HAND || s->kind == HAND_DOUBLE;
    report_note(row, "; %s%d-op step; NVRTC %.0f ms", hand ? "hand-written, " : "", ops, c.ms);
    if (stage_math(r, s) != MATH_STRICT)
        report_note(row, "; math %s", math_names[stage_math(r, s)]);
    if (s->kind == HAND_DOUBLE)
        report_note(row, "; in double, %s cpu-threads'", same_as_reference(r));
    if (s->kind == GENERATED && s->rules == EX_NONE && stage_math(r, s) == MATH_STRICT)
        memcpy(unsimplified->rgb, r->img.rgb, image_bytes(&r->img));
    if (s->kind == GENERATED && s->rules == EX_STRICT && stage_math(r, s) == MATH_STRICT) {
        int same = memcmp(unsimplified->rgb, r->img.rgb, image_bytes(&r->img)) == 0;
        row->ok &= same;
        m.ok &= same;
        report_note(row, "; %s gpu-generated's", same ? "identical to" : "DIFFERENT from");
    }
    report_add(rep, (report_entry){.stage = s->info.name, .threads = REPORT_ON_GPU, .ms = m.times.median,
                                   .value = r->psnr, .unit = "dB vs CPU", .ok = REPORT_NO_CHECK, .device = name,
                                   .note = "the image's PSNR against the CPU's double-precision reference"});
    report_add(rep, (report_entry){.stage = s->info.name, .threads = REPORT_ON_GPU, .ms = c.ms,
                                   .value = c.size / 1024.0, .unit = "kB cubin", .ok = REPORT_NO_CHECK, .device = name,
                                   .note = "NVRTC compile time (the time column) and the cubin's size"});
    return m.ok == REPORT_OK;
}

/* The measured CPU stages (cpu-threads-float, cpu-threads-simd,
 * cpu-threads-simd-float): cpu_float.c's pixels or cpu_simd.c's rows on the
 * reference's threads, measured as every stage is and checked as a GPU stage
 * is (against the double reference). */
typedef struct {
    run *r;
    const stage *s;
    cpu_row_fn *trace_row; /* NULL: cpu_float.c's pixels */
    int threads, quiet;
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
    j->bad = j->trace_row ? cpu_render_rows(j->trace_row, &j->r->img, j->threads, j->s->info.name, j->quiet)
                          : cpu_render_with(cpu_trace_float, &j->r->img, j->threads, j->s->info.name, j->quiet);
}

static int cpu_stage_check(void *p, char *note, size_t len)
{
    cpu_job *j = p;
    return check_image(j->r, j->bad, note, len);
}

/* Runs CPU stage s; returns 1 if its checks passed, 0 if not, -1 if it was
 * skipped (a CPU without AVX2 has no vectorised stage, and says so). */
static int run_cpu_stage(run *r, const stage *s, int threads, int repeat, int quiet, report *rep)
{
    cpu_job j = {.r = r, .s = s, .threads = threads, .quiet = quiet};
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
    measure_stage(&(measure_plan){.reset = cpu_poison, .run = cpu_stage_render, .check = cpu_stage_check,
                                  .context = &j, .repeat = repeat}, &m);
    double rays = (double)r->width * r->height;
    report_row *row = report_measured(rep, s->info.name, threads, &m, rays / (m.times.median * 1e3), "Mrays/s",
                                      host_cpu_name());
    if (j.trace_row)
        report_note(row, "; %s, %d rays a vector", strcmp(isa, "avx512") == 0 ? "AVX-512" : "AVX2 (no AVX-512)", lanes);
    if (s->kind == ON_CPU_SIMD) /* the reference's arithmetic, lane by lane: its bytes */
        report_note(row, "; %s cpu-threads'", same_as_reference(r));
    return m.ok == REPORT_OK;
}

/* --math's configuration, or -1 without it; a bad name stops the program. */
static int math_from_option(void)
{
    if (!math)
        return -1;
    for (int m = 0; m < MATH_COUNT; m++)
        if (strcmp(math, math_names[m]) == 0)
            return m;
    cli_usage_error(&spec, "--math '%s': strict, fma, approx, fma-approx or fast", math);
    return -1;
}

int main(int argc, char **argv)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    cli_options opt = {.width = 1024, .height = 1024, .repeat = 5, .threads = cpus > 0 ? cpus : 1};
    cli_parse(&spec, &opt, argc, argv);
    int math_choice = math_from_option();
    if (print_source) {
        const stage *s = &stages[cli_stage_index(&spec, print_source)];
        if (s->info.where == STAGE_CPU)
            cli_usage_error(&spec, "--print-source %s: a CPU stage is not generated (its code is bh.h)",
                            s->info.name);
        cli_begin_work(&spec); /* printing the source is this mode's work */
        int ops;
        char *text = source_of(s, &ops), options[160];
        kernel_options_text(math_choice >= 0 ? math_choice : s->math, 0, 0, options, sizeof options);
        printf("/* NVRTC options: %s */\n", options); /* the -fast-math twins differ only here */
        fputs(text, stdout);
        free(text);
        return EXIT_OK; /* a failed write to stdout is caught at exit (cli_parse) */
    }
    const char *out = opt.out ? opt.out : "ch10.ppm";
    cli_require_writable(&spec, "default output", out);
    char why[256] = "";
    int gpu = cuda_check_device_option(&spec, opt.device, why, sizeof why) > 0;
    cli_begin_work(&spec);
    if (opt.stage_index > 0 && stages[opt.stage_index].info.where != STAGE_CPU && !gpu) {
        /* only a GPU stage asked for: no CPU reference to render, nothing to write */
        fprintf(stderr, "ch10: no CUDA device found (%s): stage %s not run, %s not written (exit status %d)\n", why,
                stages[opt.stage_index].info.name, out, EXIT_NO_GPU);
        return EXIT_NO_GPU;
    }

    run r;
    memset(&r, 0, sizeof r);
    r.math = math_choice;
    r.width = (int)opt.width, r.height = (int)opt.height;
    image unsimplified;
    if (image_alloc(&r.ref, r.width, r.height) != 0 || image_alloc(&r.img, r.width, r.height) != 0 ||
        image_alloc(&unsimplified, r.width, r.height) != 0) {
        fprintf(stderr, "ch10: out of memory (%dx%d image)\n", r.width, r.height);
        return EXIT_CHECK_FAIL;
    }
    cuda_device_info info;
    memset(&info, 0, sizeof info);
    if (gpu) {
        cuda_require_device(&spec, (int)opt.device);
        cuda_describe_device((int)opt.device, &info);
        if (!opt.quiet)
            cuda_print_device(stderr, (int)opt.device, &info);
        CUDA_CHECK(cudaMalloc((void **)&r.d_rgb, image_bytes(&r.img)));
        CUDA_CHECK(cudaMalloc((void **)&r.d_bad, sizeof(int)));
    }
    char workload[96];
    snprintf(workload, sizeof workload, "%dx%d%s%s", r.width, r.height, math ? " math=" : "", math ? math : "");
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
        if (!cli_stage_selected(&opt, i))
            continue;
        int device = (int)opt.device, repeat = (int)opt.repeat;
        if (stages[i].info.where == STAGE_CPU) {
            int ok = run_cpu_stage(&r, &stages[i], (int)opt.threads, repeat, opt.quiet, &rep);
            if (ok < 0)
                continue; /* nothing rendered: no picture to keep */
            all_ok &= ok;
        } else if (!gpu) {
            skipped++;
            continue;
        } else {
            if (opt.stage_index > 0 && stages[i].rules == EX_STRICT && stage_math(&r, &stages[i]) == MATH_STRICT)
                all_ok &= run_gpu(&r, &stages[cli_stage_index(&spec, "gpu-generated")], device, repeat, &rep,
                                  info.name, &unsimplified);
            all_ok &= run_gpu(&r, &stages[i], device, repeat, &rep, info.name, &unsimplified);
        }
        last = &r.img;
        if (opt.images && image_write_stage(&r.img, opt.images, spec.program, stages[i].info.name) != 0)
            return EXIT_CHECK_FAIL;
    }
    /* The host's own limit beside the CPU rows (the rays count no flops: no
     * share of it is claimed), kept short: ch10's CPU stages take seconds. */
    if (opt.stage_index <= 0 || stages[opt.stage_index].info.where == STAGE_CPU)
        cpu_fma_ceiling_row(&rep, (int)opt.threads, 3);
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
    image_free(&unsimplified);
    return status == EXIT_OK && skipped ? EXIT_NO_GPU : status;
}
