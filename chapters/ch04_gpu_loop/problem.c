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
#include "stages.h"

#include "../../common/gpu_picture.h"  /* and cuda_util.h, raytracer.h: the picture and its check */
#include "../../common/program_cuda.h" /* and program.h */
#include "../../common/report.h"

#include <stdio.h>

/* Two ways to make a launch fail on purpose, to see what a user then sees:
 * --block 32x32 gives the recursive kernel more threads per block than its
 * registers allow on an SM ("too many resources requested for launch"), and
 * --stack-bytes 128 (the book's example) leaves its recursion less stack than one call needs. */
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

/* One stage's run as measure_stage sees it: the image poisoned, rendered,
 * and checked against the CPU running the same code. */
typedef struct {
    gpu_picture pic;
    int width, height, spp, bx, by;
    render_fn *fn; /* the stage's render, and its flags */
    int flags;
    kernel_info *info; /* filled by the next run, then NULL */
    int stack;         /* the recursive kernel's stack limit, bytes per thread */
} run;

static run job;

static void poison(void *context)
{
    gpu_picture_poison(&((run *)context)->pic);
}

static void render(void *context)
{
    run *r = context;
    r->fn(r->flags, r->pic.d_rgb, r->pic.d_bad, r->width, r->height, r->spp, r->bx, r->by, r->info);
    CUDA_CHECK_LAUNCH();
    r->info = NULL;
}

/* The CPU's render of one pixel, by the same code as the stage's kernel. */
static int cpu_pixel(void *context, int col, int row, unsigned char rgb[3])
{
    const run *r = context;
    return cpu_render_picture_pixel(r->flags, col, row, r->width, r->height, r->spp, rgb);
}

static int check(void *context, char *note, size_t len)
{
    return gpu_picture_check(&((run *)context)->pic, cpu_pixel, context, note, len);
}

/* --block WxH, refused before any work. */
static void validate(program_run *p)
{
    char tail;
    if (sscanf(block, "%dx%d%c", &job.bx, &job.by, &tail) != 2 || job.bx < 1 || job.by < 1 || job.bx * job.by > 1024)
        cli_usage_error(p->spec, "--block '%s': WxH, at most 1024 threads in all", block);
}

static void setup(program_run *p)
{
    job.width = (int)p->opt.width, job.height = (int)p->opt.height, job.spp = (int)p->opt.spp;
    gpu_picture_begin(&job.pic, spec.program, &p->opt);
    job.stack = gpu_prepare_stack((int)stack_bytes);
}

/* The render, checked before timing and after, in Msamples/s; its note and
 * stderr line say what the kernel costs in registers, stack and occupancy. */
static int measure(program_run *p, size_t i)
{
    const stage *s = &stages[i];
    kernel_info k;
    job.fn = s->run, job.flags = s->flags, job.info = &k;
    double samples = (double)job.width * job.height * job.spp;
    report_row *row = program_measure(p, &(measure_plan){.name = s->info.name, .reset = poison, .run = render,
                                                         .check = check, .timer = cuda_time_ms, .context = &job,
                                                         .repeat = (int)p->opt.repeat},
                                      samples, 1e6, "Msamples/s", REPORT_ON_GPU, p->device, NULL);
    /* the compiler's static frame per thread, not traffic: a recursion's stack grows at run time, and
     * what either moves through local memory is counted by the profiler (make profile) */
    report_note(row, "; %d regs, %d B static local frame%s, occupancy %.0f%%", k.registers, k.local_bytes,
                s->flags == SAMPLER_RECURSIVE ? " + call stack at run time" : "", 100 * k.occupancy);
    if (!p->opt.quiet)
        fprintf(stderr, "%s: %s: %d registers/thread, %d B local frame%s, %d blocks of %dx%d per SM\n",
                spec.program, s->info.name, k.registers, k.local_bytes,
                s->flags == SAMPLER_RECURSIVE ? " (recursion grows it at run time up to the stack limit)" : "",
                k.blocks_per_sm, job.bx, job.by);
    return 0;
}

/* After the stages' lines: the stack limit the recursive one ran under. */
static void say_stack(program_run *p)
{
    if (!p->opt.quiet)
        fprintf(stderr, "%s: stack limit (cudaLimitStackSize) %d B per thread\n", spec.program, job.stack);
}

static void teardown(program_run *p)
{
    (void)p;
    gpu_picture_end(&job.pic);
}

const program chapter_program = {
    .spec = &spec,
    .defaults = {.width = 512, .height = 512, .spp = 64, .repeat = 5},
    .gpu = PROGRAM_GPU_ONLY,
    .device = PROGRAM_CUDA,
    .picture = "ch04.ppm",
    .validate = validate,
    .setup = setup,
    .workload = raytracer_program_workload,
    .stage = measure,
    .end = say_stack,
    .picture_image = &job.pic.host,
    .teardown = teardown,
};
