/* ch08 - a smallpt-style path tracer: CPU threads, then the GPU, measured in
 * samples per second and in quality per second.
 *
 *   make ch08 && ./ch08                      # every stage, 1024x768 at 64 spp
 *   ./ch08 --stage gpu-light-sampling --spp 256
 *
 * The scene is read from --scene (default data/scenes/cornell.txt, smallpt's
 * nine spheres); a bad file stops the program before any work (exit 2).
 * Each stage renders twice, with seeds S and S+1 (--seed S, default 1),
 * measured as every chapter's are (common/measure.h); the checks, and the
 * noise test against a converged reference, are run.c's (its header says why).
 *
 * Rates: Msamples/s, one camera path per sample (a pixel at --spp has spp).
 * With a reference, each stage also has a row in the unit "MSE" (the first
 * render's, per 8-bit channel): `make bench` sweeps spp to chart MSE against
 * time, and the time to MSE < 52 (the report's bar). Without a CUDA device
 * the CPU stages run and the exit status is 3.
 */
#include "run.h"
#include "stages.h"

#include "../../common/cli.h"
#include "../../common/cpu_ceiling.h"
#include "../../common/cuda_util.h"
#include "../../common/image.h"
#include "../../common/report.h"

#include <stdio.h>
#include <string.h>

static const char *scene_path; /* NULL: the default scene (run.c) */
static long first_seed = 1;
static const char *noise_test = "yes"; /* no: make ch08-reference, which renders the reference itself */
static const char *linear_out, *linear_reference; /* PFM files of linear radiance (make bench's quality ladder) */
static const cli_option options[] = {
    {"scene", "FILE", "the scene file (format: its own comments, and the chapter's --help)", .text = &scene_path},
    {"seed", "S", "the first of the seeds of the random streams (default 1; a second render uses S+1)", .min = 1,
     .max = 4294967294LL, .number = &first_seed},
    {"noise-test", "yes|no", "compare with the converged reference where one exists (default yes)",
     .text = &noise_test, .choices = cli_yes_no, .choice_count = 2},
    {"linear-out", "FILE", "also write the last GPU stage's unclamped mean radiance as PFM (after its checks)",
     .text = &linear_out},
    {"linear-reference", "FILE", "a PFM from --linear-out: each GPU stage's relative MSE against it, as a row",
     .text = &linear_reference},
};

static const cli_spec spec = {
    .program = "ch08",
    .summary = "a smallpt-style path tracer: CPU threads, then the GPU; samples per second and quality per second",
    .accepts = CLI_WIDTH | CLI_HEIGHT | CLI_SPP | CLI_THREADS | CLI_REPEAT | CLI_DEVICE | CLI_STAGE | CLI_OUT |
               CLI_IMAGES | CLI_CSV | CLI_QUIET,
    CLI_STAGE_TABLE(stages),
    CLI_OPTION_TABLE(options),
    .notes = "Defaults: 1024x768, --spp 64 (a multiple of 4: spp/4 samples in each of 2x2 subpixels), --repeat 5\n"
             "(GPU stages; the CPU stage renders twice), --threads all CPUs, --seed 1,\n"
             "--scene data/scenes/cornell.txt (one 'sphere R cx cy cz er eg eb r g b material' per line).\n"
             "Checks: no NaN; GPU pixels against the same code on the CPU; with the default scene at\n"
             "1024x768 or 128x96 and spp >= 64, the noise test against a converged reference\n"
             "(how and why: chapters/ch08_path_tracer/run.c).\n"
             "Default output: ch08.ppm (the last stage's image, written only if every check passed).\n"
             "Without a CUDA device the CPU stage runs and the exit status is 3.",
};

int main(int argc, char **argv)
{
    cli_options opt = {.width = 1024, .height = 768, .spp = 64, .repeat = 5, .threads = cli_online_cpus()};
    cli_parse(&spec, &opt, argc, argv);
    if (opt.spp % 4 != 0)
        cli_usage_error(&spec, "--spp %ld: must be a multiple of 4 (spp/4 samples in each of 2x2 subpixels)", opt.spp);
    const char *out = opt.out ? opt.out : "ch08.ppm";
    cli_require_writable(&spec, "default output", out);
    if (linear_out)
        cli_require_output(&spec, "--linear-out", linear_out, &linear_kind);
    run r = {.width = (int)opt.width, .height = (int)opt.height, .spp = (int)opt.spp, .threads = (int)opt.threads,
             .quiet = opt.quiet, .seed = (unsigned int)first_seed};
    char err[2 * SCENE_ERROR_SIZE], why[256] = "";
    if (run_load_scene(&r, scene_path, err, sizeof err) != 0)
        cli_usage_error(&spec, "%s", err);
    if (linear_reference && /* read before any device work: a bad file's error is the first line */
        linear_read_pfm(linear_reference, &r.linear_reference, r.width, r.height, err, sizeof err) != 0)
        cli_usage_error(&spec, "--linear-reference: %s", err);
    int found = cuda_check_device_option(&spec, opt.device, why, sizeof why);
    cli_begin_work(&spec);
    cli_alloc_image(&r.a, r.width, r.height);
    cli_alloc_image(&r.b, r.width, r.height);
    if (strcmp(noise_test, "yes") == 0)
        run_load_reference(&r);
    cuda_device_info info;
    int gpu = cuda_open_device(&spec, found, opt.device, opt.quiet, &info) > 0;
    if (gpu)
        run_gpu_begin(&r, linear_out || linear_reference);
    char workload[96];
    snprintf(workload, sizeof workload, "%dx%dx%dspp", r.width, r.height, r.spp);
    report rep;
    report_init(&rep, spec.program, workload, opt.csv, opt.quiet);
    int rendered = 0;
    for (size_t i = 0; i < STAGE_COUNT; i++) {
        const stage *s = &stages[i];
        if (!cli_stage_selected(&opt, i) || (s->info.where == STAGE_GPU && !gpu))
            continue;
        run_measure(&rep, &r, s, (int)opt.repeat, info.name);
        rendered = 1;
        if (opt.images && image_write_stage(&r.a, opt.images, spec.program, s->info.name) != 0)
            return EXIT_CHECK_FAIL;
    }
    /* The host's FMA ceiling beside the CPU rows, on their threads: a reference
     * (a path's flops are not counted, so no stage claims a share of it). */
    if (cli_selected_where(&spec, &opt, STAGE_CPU))
        cpu_fma_ceiling_row(&rep, r.threads, 3);
    int skipped = gpu ? 0 : cli_selected_where(&spec, &opt, STAGE_GPU);
    cuda_say_skipped(spec.program, why, skipped, opt.quiet);
    int status = report_finish_image(&rep, 1, spec.program, rendered ? &r.a : NULL, out, opt.quiet);
    if (linear_out && gpu && status == EXIT_OK && run_write_linear(&r, linear_out) != 0)
        status = EXIT_CHECK_FAIL;
    report_print(&rep, stdout);
    run_end(&r);
    return status == EXIT_OK && skipped ? EXIT_NO_GPU : status;
}
