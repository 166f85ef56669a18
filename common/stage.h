/* stage.h - what every stage row starts with.
 *
 * Each chapter keeps its stages in one table, `stages[]` in its stages.h, of
 * its own struct whose first member is a stage_info: the row says everything
 * the shared code and the tools need to know about the stage, and the
 * chapter's members after it say how to run it.
 *
 *   static const stage stages[] = {
 *       {{"gpu-tiled", "bodies staged through shared memory", .where = STAGE_GPU, .kernel = "tiled_kernel"},
 *        gpu_tiled_forces},
 *   };
 *
 * `./chNN --list-stages` prints the heads, one line per stage, tab-separated:
 *   name  where(cpu|gpu|all-gpus)  kernel  bench  tags  description
 * with "-" for an empty field. make profile, make bench and the chapters' own
 * scripts read that list, so adding a row is all it takes for them to see a
 * new stage.
 */
#ifndef COMMON_STAGE_H
#define COMMON_STAGE_H

enum { STAGE_CPU, STAGE_GPU, STAGE_ALL_GPUS };

/* A field a row leaves out is zero. C says so; C++ (the CUDA tests include
 * the tables) says so too, but g++ -Wextra then warns of every field left
 * out, designated or not, unless it has a default of its own: STAGE_ZERO is
 * that default (the same zero), in C++ only. (The tag names the type for
 * linking, which clang wants of a C++ struct with defaults.) */
#ifdef __cplusplus
#define STAGE_ZERO = {}
#else
#define STAGE_ZERO
#endif

typedef struct stage_info {
    const char *name;              /* --stage NAME; the CSV's stage column */
    const char *description;       /* one line: what this stage changes */
    int where STAGE_ZERO;          /* STAGE_CPU, STAGE_GPU, or STAGE_ALL_GPUS (split over every GPU) */
    const char *kernel STAGE_ZERO; /* make profile: the kernel, as Nsight Compute names it, e.g.
                                      "tiled_float4_kernel<(int)3>" (a prefix or a part of the name is enough);
                                      NULL: nothing to profile */
    const char *bench STAGE_ZERO;  /* make bench: further runs of this stage beyond the standard one, each one set of
                                      arguments, ';' between sets ("--n 1024;--n 4096"); NULL: none */
    const char *tags STAGE_ZERO;   /* words, space-separated, the scripts select stages by ("ptx-mix=2"); NULL: none.
                                      One every tool reads: work=LABEL, a stage whose work is not the chapter's first
                                      stage's (another precision or estimator, or less work: "work=float",
                                      "work=less"). make book computes a speedup only between rows of one work (like
                                      with like); untagged rows do the first stage's work. */
    int all_cores STAGE_ZERO;      /* a CPU stage that runs on --threads threads (every core by default), not on one */
} stage_info;

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The stage table in use (cli_parse sets it from the program's cli_spec):
 * an array of count structs of row_size bytes, each starting with a
 * stage_info. The report reads the work tags through it. */
void stage_table_use(const void *rows, size_t count, size_t row_size);

/* The row of the table in use called name, or NULL (a ceiling's row is no stage). */
const stage_info *stage_find(const char *name);

/* The label of that row's work=LABEL tag, into buf: "" for an untagged stage
 * or a name that is not a stage. report_print compares rows by it. */
const char *stage_work(const char *name, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
