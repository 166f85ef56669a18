/* ch09 - one source, two GPU compilers: the kernels of ch05, ch06 and ch07,
 * each compiled by nvcc and by clang, linked into one program.
 *
 *   make ch09 && ./ch09                 # every kernel, both compilers
 *   ./ch09 --stage ch07-naive-clang
 *
 * The Makefile compiles ch05's render.cu and render_fast.cu (fast math), ch06's
 * reduce_gpu.cu and ch07's gpu.cu once with each compiler, keeps each
 * object's C functions and renames them <function>_<compiler> (objcopy), so
 * stage "<kernel>-nvcc" and stage "<kernel>-clang" run the same source.
 * Without a clang that compiles CUDA for the GPU (the Makefile tries
 * clang++-22, then clang++) only the nvcc half is built, and it says why.
 *
 * Each stage is measured as every chapter's are (common/measure.h) and
 * checked as in its own chapter (run.c), before and after timing:
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
#include "run.h"
#include "stages.h"

#include "../../common/cli.h"
#include "../../common/cuda_util.h"
#include "../../common/report.h"

#include <stdio.h>
#include <stdlib.h>

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
             "Each stage is checked as in its own chapter (chapters/ch09_two_compilers/main.c).\n"
             "Without a CUDA device: the builds this program holds, then exit status 3.",
};

int main(int argc, char **argv)
{
    cli_options opt = {.width = 512, .height = 512, .spp = 64, .n = 1LL << 28, .repeat = 10};
    cli_parse(&spec, &opt, argc, argv);
    if (opt.n > (1LL << 31) - 1)
        cli_usage_error(&spec, "--n %lld: at most 2^31 - 1 values (ch06's stages index with int)", opt.n);
    cuda_check_device_option(&spec, opt.device, NULL, 0); /* before the builds' line: an error comes first */
    cli_begin_work(&spec);
    if (!opt.quiet || CH09_HAVE_CLANG == 0)
        fprintf(stderr, "ch09: %zu stages, built by nvcc%s\n", STAGE_COUNT,
                CH09_HAVE_CLANG ? " and by clang (" CH09_CLANG ")" : " only (" CH09_NO_CLANG_WHY ")");
    cuda_require_device(&spec, (int)opt.device);
    cuda_device_info info;
    cuda_describe_device((int)opt.device, &info);
    if (!opt.quiet)
        cuda_print_device(stderr, (int)opt.device, &info);
    run r;
    run_init(&r, &opt);
    int wanted[PART_COUNT] = {0};
    for (size_t i = 0; i < STAGE_COUNT; i++)
        if (cli_stage_selected(&opt, i))
            wanted[stages[i].part] = 1;
    run_prepare(&r, wanted);

    static report reports[PART_COUNT]; /* one per part: each has its own workload */
    run_reports_init(&r, reports, spec.program, &opt);
    for (size_t i = 0; i < STAGE_COUNT; i++)
        if (cli_stage_selected(&opt, i))
            run_stage(&r, &stages[i], &reports[stages[i].part], info.name);
    int all_ok = 1;
    for (int p = 0; p < PART_COUNT; p++)
        if (wanted[p]) {
            report_print(&reports[p], stdout);
            all_ok &= report_all_ok(&reports[p]);
        }
    run_release(&r);
    if (!all_ok)
        fprintf(stderr, "ch09: a check failed\n");
    return all_ok ? EXIT_OK : EXIT_CHECK_FAIL;
}
