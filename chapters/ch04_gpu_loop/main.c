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
#define BLOCK_X 16
#define BLOCK_Y 16

typedef struct {
    const char *name;
    const char *description;
    int recursive;
} stage;

static const stage stages[] = {
    {"recursive", "ch03's recursive sample() as a device function: a stack in local memory", 1},
    {"loop", "the same light transport as a loop carrying colour and attenuation: no stack", 0},
};
#define STAGE_COUNT (sizeof stages / sizeof stages[0])

static const cli_spec spec = {
    "ch04",
    "the card on the GPU: recursion, then a loop; registers, stack and occupancy",
    CLI_WIDTH | CLI_HEIGHT | CLI_SPP | CLI_REPEAT | CLI_DEVICE | CLI_STAGE | CLI_OUT | CLI_IMAGES | CLI_CSV | CLI_QUIET,
    stages,
    STAGE_COUNT,
    sizeof stages[0],
    "Checks: no NaN/Inf; 256 fixed-seed pixels against the CPU running the same code\n"
    "(>= 35 dB); at 512x512x64, the whole image against ch01's (>= 38 dB).\n"
    "Default output: ch04.ppm (the last stage's image). --repeat defaults to 5.",
};

/* PSNR of the GPU image against the CPU on CPU_CHECK_PIXELS fixed-seed pixels;
 * counts NaN/Inf pixels of the CPU render into *bad. */
static double cpu_spot_check(const image *img, int recursive, int spp, int *bad)
{
    unsigned long long x = 0xC4EC4;
    double sq = 0;
    int n = 0;
    for (int i = 0; i < CPU_CHECK_PIXELS; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        int col = (int)((x >> 33) % (unsigned long long)img->width);
        int row = (int)((x >> 13) % (unsigned long long)img->height);
        unsigned char cpu[3];
        *bad += !cpu_render_picture_pixel(recursive, col, row, img->width, img->height, spp, cpu);
        const unsigned char *gpu = img->rgb + 3 * ((size_t)row * img->width + col);
        for (int c = 0; c < 3; c++, n++)
            sq += (double)(cpu[c] - gpu[c]) * (cpu[c] - gpu[c]);
    }
    return sq == 0 ? INFINITY : 10 * log10(255.0 * 255.0 * n / sq);
}

typedef struct {
    image host, original;
    int have_original;
    unsigned char *d_rgb;
    int *d_bad;
} buffers;

/* Copies the image back and runs every check; 1 if all pass. */
static int check(buffers *b, const stage *s, int spp, char *note, size_t len)
{
    int bad = 0;
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(b->host.rgb, b->d_rgb, image_bytes(&b->host), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&bad, b->d_bad, sizeof bad, cudaMemcpyDeviceToHost));
    double cpu_db = cpu_spot_check(&b->host, s->recursive, spp, &bad);
    int ok = bad == 0 && cpu_db >= CPU_PSNR_DB;
    size_t used = (size_t)snprintf(note, len, "vs CPU %.1f dB", cpu_db);
    if (b->have_original) {
        image_diff d;
        image_compare(&b->host, &b->original, &d);
        ok &= d.psnr >= ORIGINAL_PSNR_DB;
        used += (size_t)snprintf(note + used, len - used, ", vs ch01 %.1f dB", d.psnr);
    }
    if (bad)
        snprintf(note + used, len - used, ", %d NaN/Inf pixels", bad);
    return ok;
}

int main(int argc, char **argv)
{
    cli_options opt = {.width = 512, .height = 512, .spp = 64, .repeat = 5};
    cli_parse(&spec, &opt, argc, argv);
    const char *out = opt.out ? opt.out : "ch04.ppm";
    cuda_require_device("ch04", (int)opt.device);
    cuda_device_info info;
    cuda_describe_device((int)opt.device, &info);
    if (!opt.quiet)
        cuda_print_device(stderr, (int)opt.device, &info);

    buffers b = {0};
    char err[256];
    if (image_alloc(&b.host, (int)opt.width, (int)opt.height) != 0) {
        fprintf(stderr, "ch04: cannot allocate a %ldx%ld image\n", opt.width, opt.height);
        return EXIT_CHECK_FAIL;
    }
    b.have_original = opt.width == 512 && opt.height == 512 && opt.spp == 64 &&
                      image_read_ppm(&b.original, REFERENCE_IMAGE, err, sizeof err) == 0;
    CUDA_CHECK(cudaMalloc((void **)&b.d_rgb, image_bytes(&b.host)));
    CUDA_CHECK(cudaMalloc((void **)&b.d_bad, sizeof(int)));
    int stack = gpu_prepare_stack();

    char workload[96];
    snprintf(workload, sizeof workload, "%ldx%ldx%ldspp", opt.width, opt.height, opt.spp);
    report rep;
    report_init(&rep, "ch04", workload, opt.csv, opt.quiet);
    int images_failed = 0;
    cuda_timer timer;
    cuda_timer_create(&timer);
    for (size_t i = 0; i < STAGE_COUNT; i++) {
        const stage *s = &stages[i];
        if (opt.stage_index >= 0 && (size_t)opt.stage_index != i)
            continue;
        char note[128], after[128];
        CUDA_CHECK(cudaMemset(b.d_bad, 0, sizeof(int)));
        CUDA_CHECK(cudaMemset(b.d_rgb, 0xEE, image_bytes(&b.host))); /* poison */
        gpu_render(s->recursive, b.d_rgb, b.d_bad, (int)opt.width, (int)opt.height, (int)opt.spp, BLOCK_X, BLOCK_Y);
        int ok = check(&b, s, (int)opt.spp, note, sizeof note); /* warm-up, checked */
        double times[1000];
        for (int r = 0; r < opt.repeat; r++) {
            cuda_timer_start(&timer);
            gpu_render(s->recursive, b.d_rgb, b.d_bad, (int)opt.width, (int)opt.height, (int)opt.spp, BLOCK_X,
                       BLOCK_Y);
            times[r] = cuda_timer_stop(&timer);
        }
        ok &= check(&b, s, (int)opt.spp, after, sizeof after); /* and again after timing */
        double ms = median(times, (int)opt.repeat);
        kernel_info k;
        gpu_kernel_info(s->recursive, BLOCK_X, BLOCK_Y, &k);
        double msamples = (double)opt.width * opt.height * opt.spp / (ms * 1e3);
        report_row *row = report_add(&rep, s->name, 0, ms, msamples, "Msamples/s", ok, info.name);
        snprintf(row->note, sizeof row->note, "%d regs, %d B local%s, occupancy %.0f%%; %s", k.registers,
                 k.local_bytes, s->recursive ? " + stack" : "", 100 * k.occupancy, note);
        if (!opt.quiet)
            fprintf(stderr, "ch04: %s: %d registers/thread, %d B local frame%s, %d blocks of %dx%d per SM\n",
                    s->name, k.registers, k.local_bytes,
                    s->recursive ? " (recursion grows it at run time; stack limit set to" : "",
                    k.blocks_per_sm, BLOCK_X, BLOCK_Y);
        if (s->recursive && !opt.quiet)
            fprintf(stderr, "      %d B per thread)\n", stack);
        if (opt.images && image_write_stage(&b.host, opt.images, "ch04", s->name) != 0)
            images_failed = 1;
    }
    cuda_timer_destroy(&timer);

    int status = report_all_ok(&rep) && !images_failed ? EXIT_OK : EXIT_CHECK_FAIL;
    if (image_write(&b.host, out, err, sizeof err) != 0) {
        fprintf(stderr, "ch04: %s\n", err);
        status = EXIT_CHECK_FAIL;
    }
    report_print(&rep, stdout);
    CUDA_CHECK(cudaFree(b.d_rgb));
    CUDA_CHECK(cudaFree(b.d_bad));
    image_free(&b.host);
    image_free(&b.original);
    return status;
}
