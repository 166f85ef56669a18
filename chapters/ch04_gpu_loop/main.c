/* ch04 - the card on the GPU: the recursive port, then the loop.
 *
 *   make ch04 && ./ch04                 # both stages, 512x512 at 64 spp
 *   ./ch04 --stage loop --repeat 20
 *
 * One thread per pixel in 16x16 blocks. For each kernel the table's note gives
 * registers per thread, local memory (stack) bytes and theoretical occupancy,
 * read from the CUDA runtime.
 *
 * Checks, before timing and after: no NaN/Inf pixel; 256 pixels (positions
 * from a fixed seed, 0xC4EC4) rendered again on the CPU by the same
 * __host__ __device__ code must be within 35 dB PSNR of the GPU's (GPU and CPU
 * arithmetic differ: nvcc fuses multiply-adds, and the GPU's pow differs in
 * the last bits, which can move a reflection); at 512x512x64 the whole image
 * must be within 38 dB of ch01's (the original program's) image.
 *
 * Without a CUDA device: one line on stderr, exit status 3.
 */
#include "render.h"
#include "run.h"
#include "stages.h"

#include "../../common/cuda_util.h"
#include "../../common/raytracer.h" /* and cli.h, image.h */
#include "../../common/report.h"

#include <stdio.h>

/* Two ways to make a launch fail on purpose, to see what a user then sees:
 * --block 32x32 gives the recursive kernel more threads per block than its
 * registers allow on an SM ("too many resources requested for launch"), and
 * --stack-bytes 256 leaves its recursion less stack than one call needs. */
static const char *block = "16x16";
static long stack_bytes = STACK_BYTES;
static const cli_option options[] = {
    {"block", "WxH", "threads per block (default 16x16; at most 1024 in all)", .text = &block},
    {"stack-bytes", "B", "the recursive kernel's stack per thread, cudaLimitStackSize (default " STACK_TEXT ")",
     .min = 16, .max = 1 << 20, .number = &stack_bytes},
};

static const cli_spec spec = {
    .program = "ch04",
    .summary = "the card on the GPU: recursion, then a loop; registers, stack and occupancy",
    .accepts = CLI_WIDTH | CLI_HEIGHT | CLI_SPP | CLI_REPEAT | CLI_DEVICE | CLI_STAGE | CLI_OUT | CLI_IMAGES |
               CLI_CSV | CLI_QUIET,
    CLI_STAGE_TABLE(stages),
    CLI_OPTION_TABLE(options),
    .notes = "Checks: no NaN/Inf; 256 fixed-seed pixels against the CPU running the same code\n"
             "(>= 35 dB); at 512x512x64 the whole image against ch01's (>= 38 dB).\n"
             "Default output: ch04.ppm (the last stage's image, written only if every check\n"
             "passed). --repeat defaults to 5.",
};

int main(int argc, char **argv)
{
    cli_options opt = {.width = 512, .height = 512, .spp = 64, .repeat = 5};
    cli_parse(&spec, &opt, argc, argv);
    int bx = 0, by = 0;
    char tail;
    if (sscanf(block, "%dx%d%c", &bx, &by, &tail) != 2 || bx < 1 || by < 1 || bx * by > 1024)
        cli_usage_error(&spec, "--block '%s': WxH, at most 1024 threads in all", block);
    const char *out = opt.out ? opt.out : "ch04.ppm";
    cli_require_writable(&spec, "default output", out);
    cuda_check_device_option(&spec, opt.device, NULL, 0);
    cli_begin_work(&spec);
    cuda_require_device(&spec, (int)opt.device);
    cuda_device_info info;
    cuda_describe_device((int)opt.device, &info);
    if (!opt.quiet)
        cuda_print_device(stderr, (int)opt.device, &info);
    run r = {.width = (int)opt.width, .height = (int)opt.height, .spp = (int)opt.spp, .bx = bx, .by = by};
    raytracer_image_alloc(&r.host, spec.program, &opt);
    r.have_original = raytracer_read_original(&r.original, &opt);
    CUDA_CHECK(cudaMalloc((void **)&r.d_rgb, image_bytes(&r.host)));
    CUDA_CHECK(cudaMalloc((void **)&r.d_bad, sizeof(int)));
    int stack = gpu_prepare_stack((int)stack_bytes);
    char workload[96];
    report rep;
    report_init(&rep, spec.program, raytracer_workload(workload, sizeof workload, &opt), opt.csv, opt.quiet);
    for (size_t i = 0; i < STAGE_COUNT; i++) {
        const stage *s = &stages[i];
        if (!cli_stage_selected(&opt, i))
            continue;
        kernel_info k;
        r.fn = s->run, r.flags = s->flags, r.info = &k;
        measure_result m;
        measure_stage(&(measure_plan){.name = s->info.name, .reset = poison, .run = render, .check = check, .timer = cuda_time_ms,
                                      .context = &r, .repeat = (int)opt.repeat}, &m);
        if (opt.images && image_write_stage(&r.host, opt.images, spec.program, s->info.name) != 0)
            return EXIT_CHECK_FAIL;
        double samples = (double)r.width * r.height * r.spp;
        report_row *row = report_measured(&rep, s->info.name, REPORT_ON_GPU, &m, samples / (m.times.median * 1e3),
                                          "Msamples/s", info.name);
        /* the compiler's static frame per thread, not traffic: a recursion's stack grows at run time, and
         * what either moves through local memory is counted by the profiler (make profile) */
        report_note(row, "; %d regs, %d B static local frame%s, occupancy %.0f%%", k.registers, k.local_bytes,
                    s->flags == SAMPLER_RECURSIVE ? " + call stack at run time" : "", 100 * k.occupancy);
        if (!opt.quiet)
            fprintf(stderr, "%s: %s: %d registers/thread, %d B local frame%s, %d blocks of %dx%d per SM\n",
                    spec.program, s->info.name, k.registers, k.local_bytes,
                    s->flags == SAMPLER_RECURSIVE ? " (recursion grows it at run time up to the stack limit)" : "",
                    k.blocks_per_sm, r.bx, r.by);
    }
    if (!opt.quiet)
        fprintf(stderr, "%s: stack limit (cudaLimitStackSize) %d B per thread\n", spec.program, stack);

    int status = report_finish_image(&rep, 1, spec.program, &r.host, out, opt.quiet);
    report_print(&rep, stdout);
    CUDA_CHECK(cudaFree(r.d_rgb));
    CUDA_CHECK(cudaFree(r.d_bad));
    image_free(&r.host);
    image_free(&r.original);
    return status;
}
