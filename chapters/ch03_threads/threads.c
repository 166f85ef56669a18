/* threads.c - see threads.h; the stage table is stages.h. */
#define _GNU_SOURCE
#include "threads.h"
#include "card.h"

#include "../../common/cli.h"
#include "../../common/report.h"
#include "../../common/timer.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct {
    job *job;
    int index;
} worker_arg;

/* Where this thread's generator state lives: nowhere (libc), in the shared
 * array, or in the caller's local variable. */
static uint32_t *generator_for(job *j, int index, uint32_t *local)
{
    switch (j->rng) {
    case RNG_LIBC: return NULL;
    case RNG_PACKED: return &j->packed_states[index];
    default: return local;
    }
}

/* Static schedule: thread t renders rows [t*h/T, (t+1)*h/T). */
void *rows_in_blocks(void *p)
{
    worker_arg *a = p;
    job *j = a->job;
    double t0 = now_seconds();
    uint32_t local = 0;
    uint32_t *rng = generator_for(j, a->index, &local);
    int h = j->img->height;
    int begin = (int)((long)a->index * h / j->threads), end = (int)((long)(a->index + 1) * h / j->threads);
    for (int row = begin; row < end; row++) {
        card_render_rows(j->img, j->spp, row, row + 1, rng);
        atomic_fetch_add(&j->rows_done, 1);
    }
    j->finish[a->index] = now_seconds();
    j->busy[a->index] = j->finish[a->index] - t0;
    return NULL;
}

/* Dynamic schedule: the next free row, until there are none. */
void *rows_on_demand(void *p)
{
    worker_arg *a = p;
    job *j = a->job;
    double t0 = now_seconds();
    uint32_t local = 0;
    uint32_t *rng = generator_for(j, a->index, &local);
    int row;
    while ((row = atomic_fetch_add(&j->next_row, 1)) < j->img->height) {
        card_render_rows(j->img, j->spp, row, row + 1, rng);
        atomic_fetch_add(&j->rows_done, 1);
    }
    j->finish[a->index] = now_seconds();
    j->busy[a->index] = j->finish[a->index] - t0;
    return NULL;
}

double run_stage(const stage *s, job *j, int threads, int quiet)
{
    pthread_t tid[MAX_THREADS];
    worker_arg args[MAX_THREADS];
    j->threads = threads;
    j->rng = s->rng;
    atomic_store(&j->next_row, 0);
    atomic_store(&j->rows_done, 0);
    progress bar;
    char label[64];
    snprintf(label, sizeof label, "%s x%d", s->info.name, threads);
    progress_begin(&bar, label, j->img->height, quiet);
    double t0 = now_seconds();
    for (int t = 0; t < threads; t++) {
        args[t] = (worker_arg){j, t};
        if (pthread_create(&tid[t], NULL, s->run, &args[t]) != 0) {
            fprintf(stderr, "ch03: cannot start thread %d of %d\n", t + 1, threads);
            exit(EXIT_CHECK_FAIL);
        }
    }
    while (atomic_load(&j->rows_done) < j->img->height) { /* the main thread only reports progress */
        struct timespec nap = {0, 20 * 1000 * 1000};
        nanosleep(&nap, NULL);
        progress_update(&bar, atomic_load(&j->rows_done));
    }
    double last = t0; /* the render ends when its last thread does, not when we wake up */
    for (int t = 0; t < threads; t++) {
        pthread_join(tid[t], NULL);
        last = fmax(last, j->finish[t]);
    }
    double seconds = last - t0;
    progress_end(&bar);
    return seconds;
}

