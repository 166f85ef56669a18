/* cuda_util.h - checked CUDA calls, device description, event timing.
 *
 * Header-only (static inline) so any .cu file can include it and CI, which has
 * nvcc but no GPU, compiles it (tests/test_cuda_util.cu does).
 *
 *   CUDA_CHECK(cudaMalloc(&p, bytes));   // on error: "file:line: CUDA error ..." and exit 1
 *   kernel<<<grid, block>>>(...);
 *   CUDA_CHECK_LAUNCH();                 // launch errors (bad config) show here
 *
 * cuda_check_device_option() refuses --device K out of range (exit 2) while
 * the input is checked, before cli_begin_work; cuda_require_device(), after
 * it, is the one "no CUDA device" path: one line, exit EXIT_NO_GPU (3).
 */
#ifndef COMMON_CUDA_UTIL_H
#define COMMON_CUDA_UTIL_H

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "timer.h"

#define CUDA_CHECK(call)                                                                                         \
    do {                                                                                                         \
        cudaError_t cuda_check_err_ = (call);                                                                    \
        if (cuda_check_err_ != cudaSuccess) {                                                                    \
            fprintf(stderr, "%s:%d: CUDA error %s: %s\n  in: %s\n", __FILE__, __LINE__,                          \
                    cudaGetErrorName(cuda_check_err_), cudaGetErrorString(cuda_check_err_), #call);              \
            exit(EXIT_CHECK_FAIL);                                                                               \
        }                                                                                                        \
    } while (0)

/* After a launch: configuration errors are reported by cudaGetLastError();
 * errors inside the kernel show at the next synchronising call. */
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())

/* Number of usable devices, or 0 with the runtime's reason in why. */
static inline int cuda_device_count(char *why, size_t whylen)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        /* Without a GPU the runtime blames the driver's version; say what is true. */
        if (access("/dev/nvidiactl", F_OK) != 0)
            snprintf(why, whylen, "no NVIDIA GPU or driver on this machine");
        else
            snprintf(why, whylen, "%s", cudaGetErrorString(err));
        cudaGetLastError(); /* clear the sticky-free error so later calls start clean */
        return 0;
    }
    if (count == 0)
        snprintf(why, whylen, "the driver reports no devices");
    return count;
}

/* Before cli_begin_work: the number of CUDA devices (0, the reason in why,
 * where there is none; why may be NULL with whylen 0), and --device K refused as bad input (exit 2, the
 * usage) where the machine has devices but not K. It prints nothing else, so
 * the error is the first line on a GPU machine too. */
static inline int cuda_check_device_option(const cli_spec *spec, long device, char *why, size_t whylen)
{
    int count = cuda_device_count(why, whylen);
    if (count > 0 && (device < 0 || device >= count))
        cli_usage_error(spec, "--device %ld is out of range: this machine has %d CUDA device%s (0..%d)", device, count,
                        count == 1 ? "" : "s", count - 1);
    return count;
}

/* After cli_begin_work: exits with EXIT_NO_GPU if there is no device;
 * otherwise selects it. A device out of range should have been refused by
 * cuda_check_device_option; here it is a late refusal (cli_begin_work). */
static inline void cuda_require_device(const cli_spec *spec, int device)
{
    cli_require_work_begun("a CUDA device was set up");
    char why[256] = "";
    int count = cuda_device_count(why, sizeof why);
    if (count == 0) {
        fprintf(stderr, "%s: no CUDA device found (%s); GPU stages need one, exit status %d\n", spec->program, why,
                EXIT_NO_GPU);
        exit(EXIT_NO_GPU);
    }
    cuda_check_device_option(spec, device, why, sizeof why);
    CUDA_CHECK(cudaSetDevice(device));
}

/* FP32 lanes per SM for the architectures nvcc 13 builds for (sm_75 and newer). */
static inline int cuda_fp32_lanes_per_sm(int major, int minor)
{
    if (major == 7)
        return 64;              /* Turing */
    if (major == 8 && minor == 0)
        return 64;              /* A100 */
    return 128;                 /* 8.6, 8.9, 9.0 (H100), 10.x, 12.x */
}

typedef struct {
    char name[256];
    int sms, major, minor;
    double clock_ghz;        /* boost clock the driver reports */
    double mem_gib;
    double peak_bw_gbs;      /* memory clock x bus width x 2 (DDR) */
    double fp32_peak_gflops; /* SMs x lanes x 2 flops (FMA) x clock */
    int fp32_per_fp64;       /* the driver's single-to-double rate ratio: 2 on H100/H200, 64 on most GeForces */
} cuda_device_info;

static inline void cuda_describe_device(int device, cuda_device_info *info)
{
    struct cudaDeviceProp p; /* "struct" so C can include this header too */
    int clock_khz = 0, mem_clock_khz = 0, ratio = 0;
    CUDA_CHECK(cudaGetDeviceProperties(&p, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&ratio, cudaDevAttrSingleToDoublePrecisionPerfRatio, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, device));
    snprintf(info->name, sizeof info->name, "%s", p.name);
    info->sms = p.multiProcessorCount;
    info->major = p.major;
    info->minor = p.minor;
    info->clock_ghz = clock_khz * 1e-6;
    info->mem_gib = (double)p.totalGlobalMem / (1024.0 * 1024.0 * 1024.0);
    info->peak_bw_gbs = 2.0 * mem_clock_khz * 1e3 * (p.memoryBusWidth / 8.0) * 1e-9;
    info->fp32_peak_gflops = (double)info->sms * cuda_fp32_lanes_per_sm(p.major, p.minor) * 2.0 * info->clock_ghz;
    info->fp32_per_fp64 = ratio;
}

static inline void cuda_print_device(FILE *f, int device, const cuda_device_info *info)
{
    cli_require_work_begun("the device line was printed"); /* a refusal after it would not be the first line */
    fprintf(f, "device %d: %s, sm_%d%d, %d SMs at %.2f GHz, %.1f GiB, peak %.0f GB/s, FP32 peak %.1f TFLOP/s, "
               "FP64 at 1/%d of the FP32 rate\n",
            device, info->name, info->major, info->minor, info->sms, info->clock_ghz, info->mem_gib,
            info->peak_bw_gbs, info->fp32_peak_gflops * 1e-3, info->fp32_per_fp64);
}

/* Event timer: times work on the GPU's own clock, between two points in a stream. */
typedef struct {
    cudaEvent_t start, stop;
} cuda_timer;

static inline void cuda_timer_create(cuda_timer *t)
{
    CUDA_CHECK(cudaEventCreate(&t->start));
    CUDA_CHECK(cudaEventCreate(&t->stop));
}

static inline void cuda_timer_start(cuda_timer *t)
{
    CUDA_CHECK(cudaEventRecord(t->start, 0));
}

/* Waits for the stop event and returns milliseconds since start. */
static inline float cuda_timer_stop(cuda_timer *t)
{
    float ms = 0;
    CUDA_CHECK(cudaEventRecord(t->stop, 0));
    CUDA_CHECK(cudaEventSynchronize(t->stop));
    CUDA_CHECK(cudaEventElapsedTime(&ms, t->start, t->stop));
    return ms;
}

static inline void cuda_timer_destroy(cuda_timer *t)
{
    CUDA_CHECK(cudaEventDestroy(t->start));
    CUDA_CHECK(cudaEventDestroy(t->stop));
}

/* Median kernel time, in ms, of `repeat` runs of launch(context), each timed
 * on its own between two events (1 <= repeat <= REPEAT_MAX). No warm-up: the
 * caller's checked run before it is the warm-up. */
typedef void cuda_launch_fn(void *context);

static inline double cuda_median_ms(cuda_launch_fn *launch, void *context, int repeat)
{
    double times[REPEAT_MAX];
    cuda_timer t;
    repeat = repeat < 1 ? 1 : repeat > REPEAT_MAX ? REPEAT_MAX : repeat;
    cuda_timer_create(&t);
    for (int r = 0; r < repeat; r++) {
        cuda_timer_start(&t);
        launch(context);
        times[r] = cuda_timer_stop(&t);
    }
    cuda_timer_destroy(&t);
    return median(times, repeat);
}

/* One run of launch(context) between two events, in ms: a measure_plan's
 * timer for GPU work (measure.h). */
static inline double cuda_time_ms(cuda_launch_fn *launch, void *context)
{
    return cuda_median_ms(launch, context, 1);
}

#endif
