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
 * source alone; NVRTC's time is reported apart from the kernels' (run.c).
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
#include "kernels.h"
#include "run.h"
#include "stages.h"

#include "../../common/cli.h"
#include "../../common/cuda_util.h"
#include "../../common/image.h"
#include "../../common/report.h"

#include <stdio.h>

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
             "30 dB; the strictly simplified kernel's image identical to the unsimplified one's (main.c\n"
             "says why).\n"
             "--print-source STAGE prints a GPU stage's kernel exactly as NVRTC compiles it, after a\n"
             "comment line with the NVRTC options it is compiled with.\n"
             "Default output: ch10.ppm (the last stage's image, written only if every check passed).\n"
             "Without a CUDA device the CPU stages run and the exit status is 3.",
};

int main(int argc, char **argv)
{
    cli_options opt = {.width = 1024, .height = 1024, .repeat = 5, .threads = cli_online_cpus()};
    cli_parse(&spec, &opt, argc, argv);
    int math_choice = cli_choice_index(math_names, MATH_COUNT, math);
    if (print_source) {
        const stage *s = &stages[cli_stage_index(&spec, print_source)];
        if (s->info.where == STAGE_CPU)
            cli_usage_error(&spec, "--print-source %s: a CPU stage is not generated (its code is bh.h)",
                            s->info.name);
        cli_begin_work(&spec); /* printing the source is this mode's work */
        run_print_source(s, math_choice);
        return EXIT_OK; /* a failed write to stdout is caught at exit (cli_parse) */
    }
    const char *out = opt.out ? opt.out : "ch10.ppm";
    cli_require_writable(&spec, "default output", out);
    char why[256] = "";
    int found = cuda_check_device_option(&spec, opt.device, why, sizeof why);
    cli_begin_work(&spec);
    int skipped = found > 0 ? 0 : cli_selected_where(&spec, &opt, STAGE_GPU);
    if (skipped && !cli_selected_where(&spec, &opt, STAGE_CPU)) {
        /* only a GPU stage asked for: no CPU reference to render, nothing to write */
        fprintf(stderr, "ch10: no CUDA device found (%s): stage %s not run, %s not written (exit status %d)\n", why,
                opt.stage, out, EXIT_NO_GPU);
        return EXIT_NO_GPU;
    }

    run r = {.width = (int)opt.width, .height = (int)opt.height, .math = math_choice, .device = (int)opt.device,
             .repeat = (int)opt.repeat, .threads = (int)opt.threads, .quiet = opt.quiet};
    cuda_device_info info;
    int gpu = cuda_open_device(&spec, found, opt.device, opt.quiet, &info) > 0;
    r.gpu_name = info.name;
    run_begin(&r, gpu);
    char workload[96];
    snprintf(workload, sizeof workload, "%dx%d%s%s", r.width, r.height, math ? " math=" : "", math ? math : "");
    report rep;
    report_init(&rep, spec.program, workload, opt.csv, opt.quiet);

    const image *last = NULL; /* the picture of the last stage asked for that ran */
    int all_ok = run_stages(&rep, &r, &spec, &opt, gpu, &last);
    if (all_ok < 0)
        return EXIT_CHECK_FAIL; /* a stage's image could not be written (image_write_stage said why) */
    cuda_say_skipped(spec.program, why, skipped, opt.quiet);
    int status = report_finish_image(&rep, all_ok, spec.program, last, out, opt.quiet);
    report_print(&rep, stdout);
    run_end(&r);
    return status == EXIT_OK && skipped ? EXIT_NO_GPU : status;
}
