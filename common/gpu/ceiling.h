/* ceiling.h - the GPU's own limits, measured in the same run as the stages
 * they bound: what a plain kernel of each kind reaches on this GPU, not what
 * its data sheet says. Every GPU chapter links them (libcommon_gpu.a).
 *
 *   read stream   a read-only kernel over a buffer larger than L2 (the best of
 *                 a search over loads in flight, block sizes and grids)
 *   copy          cudaMemcpy device to device (bytes read + written)
 *   latency       one thread chasing a random cycle of 128-byte lines, idle,
 *                 and under load: one chasing thread per SM while every other
 *                 warp of the GPU streams reads
 *   FMA           independent FMA chains in registers, no memory
 *
 * Each timed repetition lasts at least GPU_CEILING_MIN_MS (many passes over
 * the buffer, or a loop inside the kernel sized by a short calibration
 * launch), so the rate is a steady one and not a launch's ramp-up; after a
 * warm-up repetition, the best of GPU_CEILING_REPEAT repetitions counts. Each
 * result says how long a repetition ran and the SM clock: the driver's
 * maximum (cudaDevAttrClockRate) and, where the kernel can read it, the clock
 * it ran at (SM cycles over the GPU's nanosecond timer in the kernel itself).
 * Every CUDA call is checked (CUDA_CHECK: file:line, exit 1).
 *
 * The functions run on the current device and leave nothing allocated. */
#ifndef COMMON_GPU_CEILING_H
#define COMMON_GPU_CEILING_H

#include "../report.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GPU_CEILING_MIN_MS 50.0 /* each timed repetition at least this long */
#define GPU_CEILING_REPEAT 5    /* timed repetitions after the warm-up; the best counts */
#define GPU_ONE_LAUNCH_REPEAT 20 /* single launches timed for gpu_ceiling.one_launch, as ch06 times a stage */

typedef struct {
    double rate;       /* GB/s, GFLOP/s, or ns a load (latency: lower is better) */
    double rep_ms;     /* the best repetition's length (>= GPU_CEILING_MIN_MS unless capped) */
    long long passes;  /* passes over the buffer, launches, hops or loop trips in a repetition */
    int repeats;       /* timed repetitions */
    int max_clock_mhz; /* the SM clock the driver reports as its maximum */
    int ran_mhz;       /* the SM clock measured inside the kernel; 0 where not measured */
    double other;      /* latency under load: the GB/s the rest of the GPU read meanwhile;
                          FMA: the data sheet's GFLOP/s at ran_mhz (2 x FP32 lanes x SMs x clock) */
    int sms_used;      /* latency under load: distinct SMs the chasing threads ran on */
    double one_launch; /* read stream: the winner's GB/s timed as a stage is, one launch between two
                          events, the median of GPU_ONE_LAUNCH_REPEAT: its launch and tail included */
    char config[160];  /* what ran: the read search's winner, the chase's size */
} gpu_ceiling;

/* The read ceiling over the first `bytes` (a multiple of 16 is read) of d_buf,
 * which must hold int32 data in [-128, 127] (the check value of the kernels
 * relies on it) and should be larger than L2. */
gpu_ceiling gpu_read_ceiling(const void *d_buf, size_t bytes);

/* cudaMemcpy of `bytes` from d_src to d_dst, rate counting read + written. */
gpu_ceiling gpu_copy_ceiling(void *d_dst, const void *d_src, size_t bytes);

/* DRAM's load latency (ns, one load at a time) through `bytes` of d_scratch
 * (overwritten with the chain): the GPU's walk is checked against the chain
 * the host built. A buffer that L2 holds measures L2's latency instead. */
gpu_ceiling gpu_latency_idle(void *d_scratch, size_t bytes);

/* The same latency under load: one thread in each of the first SM-count
 * blocks chases its own part of the chain in d_scratch (overwritten), while
 * every other warp of a grid that fills the GPU streams reads over the first
 * `stream_bytes` of d_stream (int32 data in [-128, 127], larger than L2). The
 * rate is the mean time a load of the chase took; `other` the stream's GB/s. */
gpu_ceiling gpu_latency_loaded(void *d_scratch, size_t bytes, const void *d_stream, size_t stream_bytes);

/* The FP32 ceiling in GFLOP/s (an FMA is 2 flops a lane). */
gpu_ceiling gpu_fma_ceiling(void);

/* The memory ceilings of a memory-bound chapter (ch06), all four. */
typedef struct {
    gpu_ceiling read, copy; /* GB/s */
    gpu_ceiling idle, loaded; /* DRAM's load latency (a pointer chase), ns: alone, and beside a read stream */
} gpu_memory_ceilings;

/* Measures them over two scratch buffers of buf_bytes (made and freed here;
 * larger than L2): the copy between them; the read over the stages' own
 * input d_in when its in_bytes are at least buf_bytes (so launch and tail
 * costs weigh as in the stages), else over a buffer; both chases through the
 * first buffer, the loaded one beside a stream over what the read ceiling
 * read. Then one line on stderr unless quiet (peak_bw_gbs: the data sheet's,
 * from the clocks, said beside them). */
gpu_memory_ceilings gpu_memory_ceilings_measure(const char *program, const void *d_in, size_t in_bytes,
                                                size_t buf_bytes, double peak_bw_gbs, int quiet);

/* A stage's row note: its rate's share of the read and copy ceilings. */
void gpu_memory_ceilings_note(report_row *row, double gbs, const gpu_memory_ceilings *c);

/* The four as rows of their own (check n/a: references, not stages, drawn
 * by the book as lines): ceiling-read-stream, ceiling-copy, dram-latency and
 * dram-latency-loaded, their time column that of reading `bytes` (the stages'
 * input) at the ceiling's rate, their notes with Little's law per SM (sms). */
void gpu_memory_ceiling_rows(report *rep, const gpu_memory_ceilings *c, double bytes, const char *device, int sms);

#ifdef __cplusplus
}
#endif

#endif
