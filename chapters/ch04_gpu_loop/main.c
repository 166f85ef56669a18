/* ch04 - the card on the GPU: the recursive port, then the loop.
 *
 *   make ch04 && ./ch04                 # both stages, 512x512 at 64 spp
 *   ./ch04 --stage loop --repeat 20
 *
 * One thread per pixel in 16x16 blocks. For each kernel the table's note gives
 * registers per thread, local memory (stack) bytes and theoretical occupancy,
 * read from the CUDA runtime. The build shows nvlink's warning that the
 * recursive kernel's stack size "cannot be statically determined": it is the
 * one warning this course allows, and the reason for the loop.
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

#include "../../common/cli.h"
#include "../../common/cuda_util.h"
#include "../../common/image.h"
#include "../../common/report.h"
#include "../../common/timer.h"

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

typedef struct {
    const char *name;
    const char *description;
    render_fn *run;
    int flags; /* the sampler (render.h) */
} stage;

static const stage stages[] = {
    {"recursive", "ch03's recursive sample() as a device function: a stack in local memory", gpu_render,
     SAMPLER_RECURSIVE},
    {"loop", "the same light transport as a loop carrying colour and attenuation: no stack", gpu_render, SAMPLER_LOOP},
};
#define STAGE_COUNT (sizeof stages / sizeof stages[0])

static const int shapes[][2] = {{16, 16}};

static const cli_spec spec = {
    .program = "ch04",
    .summary = "the card on the GPU: recursion, then a loop; registers, stack and occupancy",
    .accepts = CLI_WIDTH | CLI_HEIGHT | CLI_SPP | CLI_REPEAT | CLI_DEVICE | CLI_STAGE | CLI_OUT | CLI_IMAGES |
               CLI_CSV | CLI_QUIET,
    CLI_STAGE_TABLE(stages),
    .notes = "Checks: no NaN/Inf; 256 fixed-seed pixels against the CPU running the same code\n"
             "(>= 35 dB); at 512x512x64 the whole image against ch01's (>= 38 dB).\n"
             "Default output: ch04.ppm (the last stage's image, written only if every check\n"
             "passed). --repeat defaults to 5.",
};

typedef struct {
    image host, original;
    int have_original;
    unsigned char *d_rgb;
    int *d_bad;
    int width, height, spp;
} run;

static void render(const run *r, const stage *s, int bx, int by, kernel_info *info)
{
    s->run(s->flags, r->d_rgb, r->d_bad, r->width, r->height, r->spp, bx, by, info);
    CUDA_CHECK_LAUNCH();
}

/* PSNR of the GPU image against the CPU on fixed-seed pixels (seed 0xC4EC4). */
static double cpu_spot_check(run *r, int flags, int *bad)
{
    unsigned long long x = 0xC4EC4;
    double sq = 0;
    int n = 0;
    for (int i = 0; i < CPU_CHECK_PIXELS; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        int col = (int)((x >> 33) % (unsigned long long)r->width);
        int row = (int)((x >> 13) % (unsigned long long)r->height);
        unsigned char cpu[3];
        *bad += !cpu_render_picture_pixel(flags, col, row, r->width, r->height, r->spp, cpu);
        const unsigned char *gpu = r->host.rgb + 3 * ((size_t)row * r->width + col);
        for (int c = 0; c < 3; c++, n++)
            sq += (double)(cpu[c] - gpu[c]) * (cpu[c] - gpu[c]);
    }
    return sq == 0 ? INFINITY : 10 * log10(255.0 * 255.0 * n / sq);
}

/* Copies the image back and runs every check; 1 if all pass. */
static int check(run *r, const stage *s, char *note, size_t len)
{
    int bad = 0;
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(r->host.rgb, r->d_rgb, image_bytes(&r->host), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&bad, r->d_bad, sizeof bad, cudaMemcpyDeviceToHost));
    double cpu_db = cpu_spot_check(r, s->flags, &bad);
    int ok = bad == 0 && cpu_db >= CPU_PSNR_DB;
    size_t used = (size_t)snprintf(note, len, "vs CPU %.1f dB", cpu_db);
    if (r->have_original) {
        image_diff d;
        image_compare(&r->host, &r->original, &d);
        ok &= d.psnr >= ORIGINAL_PSNR_DB;
        used += (size_t)snprintf(note + used, len - used, ", vs ch01 %.1f dB", d.psnr);
    }
    if (bad)
        snprintf(note + used, len - used, ", %d NaN/Inf pixels", bad);
    return ok;
}

typedef struct {
    const run *r;
    const stage *s;
    int bx, by;
} launch;

static void launch_render(void *p)
{
    const launch *l = p;
    render(l->r, l->s, l->bx, l->by, NULL);
}

/* Median kernel time of `repeat` renders at one block shape, after a warm-up. */
static double time_shape(const run *r, const stage *s, int bx, int by, int repeat)
{
    launch l = {r, s, bx, by};
    launch_render(&l);
    return cuda_median_ms(launch_render, &l, repeat);
}

int main(int argc, char **argv)
{
    cli_options opt = {.width = 512, .height = 512, .spp = 64, .repeat = 5};
    cli_parse(&spec, &opt, argc, argv);
    const char *out = opt.out ? opt.out : "ch04.ppm";
    cli_require_writable(&spec, "default output", out);
    cuda_require_device(spec.program, (int)opt.device);
    cuda_device_info info;
    cuda_describe_device((int)opt.device, &info);
    if (!opt.quiet)
        cuda_print_device(stderr, (int)opt.device, &info);

    run r = {.width = (int)opt.width, .height = (int)opt.height, .spp = (int)opt.spp};
    char err[IMAGE_ERROR_SIZE];
    if (image_alloc(&r.host, r.width, r.height) != 0) {
        fprintf(stderr, "%s: out of memory (%dx%d image)\n", spec.program, r.width, r.height);
        return EXIT_CHECK_FAIL;
    }
    r.have_original = r.width == 512 && r.height == 512 && r.spp == 64 &&
                      image_read_ppm(&r.original, REFERENCE_IMAGE, err, sizeof err) == 0;
    CUDA_CHECK(cudaMalloc((void **)&r.d_rgb, image_bytes(&r.host)));
    CUDA_CHECK(cudaMalloc((void **)&r.d_bad, sizeof(int)));
    int stack = gpu_prepare_stack();

    char workload[96];
    snprintf(workload, sizeof workload, "%dx%dx%dspp", r.width, r.height, r.spp);
    report rep;
    report_init(&rep, spec.program, workload, opt.csv, opt.quiet);
    int best_shape = 0;
    for (size_t i = 0; i < STAGE_COUNT; i++) {
        const stage *s = &stages[i];
        if (opt.stage_index >= 0 && (size_t)opt.stage_index != i)
            continue;
        char note[128], after[128];
        kernel_info k;
        CUDA_CHECK(cudaMemset(r.d_bad, 0, sizeof(int)));
        CUDA_CHECK(cudaMemset(r.d_rgb, 0xEE, image_bytes(&r.host))); /* poison */
        render(&r, s, shapes[best_shape][0], shapes[best_shape][1], &k);
        int ok = check(&r, s, note, sizeof note); /* the warm-up, checked */
        double ms = time_shape(&r, s, shapes[best_shape][0], shapes[best_shape][1], (int)opt.repeat);
        render(&r, s, shapes[best_shape][0], shapes[best_shape][1], &k);
        ok &= check(&r, s, after, sizeof after); /* and again after timing */
        if (opt.images && image_write_stage(&r.host, opt.images, spec.program, s->name) != 0)
            return EXIT_CHECK_FAIL;
        double samples = (double)r.width * r.height * r.spp;
        report_row *row = report_add(&rep, (report_entry){.stage = s->name, .threads = REPORT_ON_GPU, .ms = ms,
                                                          .value = samples / (ms * 1e3), .unit = "Msamples/s",
                                                          .ok = ok, .device = info.name});
        snprintf(row->note, sizeof row->note, "%d regs, %d B local%s, occupancy %.0f%%; %s", k.registers,
                 k.local_bytes, s->flags == SAMPLER_RECURSIVE ? " + stack" : "", 100 * k.occupancy, note);
        if (!opt.quiet)
            fprintf(stderr, "%s: %s: %d registers/thread, %d B local frame%s, %d blocks of %dx%d per SM\n", spec.program, s->name,
                    k.registers, k.local_bytes,
                    s->flags == SAMPLER_RECURSIVE ? " (recursion grows it at run time up to the stack limit)" : "",
                    k.blocks_per_sm, shapes[best_shape][0], shapes[best_shape][1]);
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
