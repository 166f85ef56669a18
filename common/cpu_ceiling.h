/* cpu_ceiling.h - the host's own limits, measured in the same run as the CPU
 * stages they bound, as the GPU chapters measure the GPU's: a plain read
 * stream (memory-bound work: ch06) and independent FMA chains in registers
 * (compute-bound work), each at the widest vector ISA this CPU has (chosen at
 * run time: AVX-512, else AVX2 + FMA, else plain C), on `threads` threads.
 * Each timed repetition lasts at least CPU_CEILING_MIN_MS, so the rate is a
 * steady one; the best of `repeat` repetitions is the ceiling. With AVX-512
 * or AVX2 the read stream is tried with plain loads and with a software
 * prefetch, the faster kept: a plain kernel may do either. The work is
 * dealt in pieces on demand, so every thread is busy to the end. */
#ifndef COMMON_CPU_CEILING_H
#define COMMON_CPU_CEILING_H

#include "report.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CPU_CEILING_MIN_MS 50.0

typedef struct {
    double rate;     /* GB/s read, or GFLOP/s (an FMA is 2 flops a lane) */
    double ms;       /* the best repetition's time */
    const char *isa; /* "avx512", "avx2" or "scalar": what the kernel ran with */
    int threads;
    double work;     /* what the best repetition's threads counted as done: bytes read, or flops */
    double expected; /* what that repetition had to do: passes x bytes, or iterations x chains x lanes x 2 */
    double one_pass; /* read only: GB/s of the same kernel timed as a CPU stage is, one pass over the
                      * buffer, the median of CPU_STAGE_REPEAT (start-up, tail and the host's noise included) */
    const char *loads; /* read only: "with" or "without" a software prefetch, whichever was faster; NULL for
                        * plain C, which tries no prefetch */
} cpu_ceiling;

/* Runs a CPU stage is timed over by default (the median is its time). */
#define CPU_STAGE_REPEAT 5

/* Reads the `bytes` of buf, whole passes over it repeated within a repetition
 * until it lasts CPU_CEILING_MIN_MS; the threads take 1 MiB pieces as they
 * are free, not one fixed share each (on a virtual machine's cores equal
 * shares end when the slowest thread ends: ch06's cpu-threads-pieces row shows the cost). */
cpu_ceiling cpu_read_ceiling(const void *buf, size_t bytes, int threads, int repeat);

/* fp32 FMA chains, enough of them per thread to keep both FMA pipes busy. */
cpu_ceiling cpu_fma_ceiling(int threads, int repeat);

/* cpu_fma_ceiling on `threads` threads, added to rep as the row
 * ceiling-cpu-fma: a reference (check n/a) in GFLOP/s, its time the best
 * run's, its note the ISA, the lanes and the host's logical CPUs. For the
 * chapters whose CPU stages count no flops (ch03, ch08, ch10): the host's
 * limit stands beside them, with no share claimed. */
cpu_ceiling cpu_fma_ceiling_row(report *rep, int threads, int repeat);

/* For a memory-bound chapter's CPU stages (ch06): cpu_read_ceiling over
 * their own input, on their threads, said on stderr unless quiet ("program:
 * measured the host's read stream: ..."), before the stages run, since each
 * stage's row gives its share of it; and afterwards that ceiling as the row
 * ceiling-cpu-read: a reference (check n/a) in GB/s. */
cpu_ceiling cpu_read_ceiling_said(const char *program, const void *buf, size_t bytes, int threads, int repeat,
                                  int quiet);
void cpu_read_ceiling_row(report *rep, const cpu_ceiling *c, int repeat);

/* One pass over buf of the kernel that set c (its ISA, with or without the
 * prefetch, on its threads), untimed; returns the bytes its threads counted,
 * and (folded: NULL or where to put it) what they read XORed together, 0 for
 * a buffer of zeros and not 0 for one with a single byte set, wherever it is
 * (so a kernel that skips bytes can be caught). A ruler that a stage's timed
 * runs take turns with (measure_plan's ruler), so a drift of the host's read
 * rate within the run falls on both alike. c must come from cpu_read_ceiling
 * (a zeroed one, no ceiling measured, reads nothing and returns 0); one call at
 * a time (its job is static, as the ceiling's is). */
size_t cpu_read_ceiling_pass(const cpu_ceiling *c, const void *buf, size_t bytes, uint64_t *folded);

/* fp32 FMA chains of the kernel that set c (its ISA, on its threads), `flops`
 * of them (to the nearest iteration: 2 x lanes x 12 flops), untimed; returns
 * the flops its threads counted (0 for a zeroed c, no ceiling measured, or
 * flops <= 0: nothing run). The ruler a
 * compute-bound stage's timed runs take turns with (measure_plan's ruler):
 * the same flops as the stage counts, so a drift of the host's clock within
 * the run falls on both alike. One call at a time (its job is static). */
double cpu_fma_ceiling_pass(const cpu_ceiling *c, double flops);

/* The flops of one iteration of c's kernel (2 x lanes x 12): what a pass
 * rounds `flops` to a multiple of (0 for a zeroed c). */
double cpu_fma_iteration_flops(const cpu_ceiling *c);

/* The widest of those ISAs this CPU has, or a narrower one the environment
 * asks for (CPU_ISA=avx2 or CPU_ISA=scalar: to compare, and to test every path). */
const char *cpu_widest_isa(void);

#ifdef __cplusplus
}
#endif

#endif
