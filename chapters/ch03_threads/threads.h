/* threads.h - ch03's stages: workers, generator placement, one run of a stage.
 * problem.c times and checks; tests/test_ch03.c drives the same functions. */
#ifndef CH03_THREADS_H
#define CH03_THREADS_H

#include "../../common/image.h"
#include "../../common/stage.h"

#include <stdatomic.h>
#include <stdint.h>

#define MAX_THREADS 1024

typedef enum { RNG_LIBC, RNG_PACKED, RNG_LOCAL } rng_kind;

typedef struct job job;
typedef void *worker_fn(void *arg);

/* A stage: a worker (how rows are handed out) and where its generator lives.
 * The table is stages.h. */
typedef struct {
    stage_info info;
    worker_fn *run;
    rng_kind rng;
} stage;

/* The two schedules: equal blocks of rows, or the next free row. */
worker_fn rows_in_blocks, rows_on_demand;

struct job {
    image *img;
    int spp, threads;
    rng_kind rng;
    uint32_t packed_states[MAX_THREADS]; /* rng-packed: adjacent on purpose */
    atomic_int next_row;                 /* rng-local-dynamic's row counter */
    atomic_int rows_done;                /* for the progress line */
    double busy[MAX_THREADS];            /* seconds each thread worked */
    double finish[MAX_THREADS];          /* when each thread finished */
};

/* Renders j->img with stage s on `threads` threads (1..MAX_THREADS); the main
 * thread shows progress meanwhile. Returns seconds from the start to the end
 * of the last thread; fills j->busy. */
double run_stage(const stage *s, job *j, int threads, int quiet);

#endif
