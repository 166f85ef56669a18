/* WRONG ANSWER (ch03, shared-state): one generator state for all threads (a static): the picture depends on the schedule */
/* Solution to exercise ch03.
 *
 * 1. The LCG of chapter 03: state = 214013 * state + 2531011 (unsigned, so the
 *    wrap-around modulo 2^32 is defined), its top 16 bits over 65536.
 * 2. Per-row seeds through a 32-bit integer hash, so neighbouring rows start
 *    unrelated streams.
 * 3. Rows on demand: atomic_fetch_add hands each row to exactly one thread
 *    (the returned old value is this thread's row), and a thread that is held
 *    up simply takes fewer rows. The image does not depend on who renders a
 *    row: its generator is seeded from the row alone.
 */
#include "render.h"
#include "scene.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

float ex_random(uint32_t *state)
{
    *state = 214013u * *state + 2531011u;
    return (float)((*state >> 16) & 0xFFFF) / 65536.0f;
}

uint32_t ex_row_seed(int row)
{
    uint32_t h = (uint32_t)row + 0x9E3779B9u;
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    h *= 0x846CA68Bu;
    h ^= h >> 16;
    return h;
}

typedef struct {
    image *img;
    int spp, threads, index;
    atomic_int *next_row; /* shared by all threads */
} work;

void (*ex_row_started)(int thread, int row);

/* Renders row y (given: keep calling it). Its generator lives in a local
 * variable of the calling thread and is seeded from the row alone. */
static void render_row(const work *w, int y)
{
    image *img = w->img;
    if (ex_row_started)
        ex_row_started(w->index, y);
    static uint32_t state;
    state = ex_row_seed(y);
    for (int x = 0; x < img->width; x++) {
        float sum = 0;
        for (int s = 0; s < w->spp; s++) {
            float px = (float)x + ex_random(&state);
            float py = (float)y + ex_random(&state);
            sum += scene_value(px, py, img->width, img->height);
        }
        unsigned char v = (unsigned char)(sum / (float)w->spp + 0.5f);
        unsigned char *out = img->rgb + 3 * ((size_t)y * (size_t)img->width + (size_t)x);
        out[0] = out[1] = out[2] = v;
    }
}

/* The next free row, until there are none. */
static void *render_rows(void *p)
{
    work *w = p;
    int y;
    while ((y = atomic_fetch_add(w->next_row, 1)) < w->img->height)
        render_row(w, y);
    return NULL;
}

void ex_render(image *img, int spp, int threads)
{
    pthread_t tid[64];
    work w[64];
    atomic_int next_row = 0;
    threads = threads < 1 ? 1 : threads > 64 ? 64 : threads;
    for (int t = 0; t < threads; t++) {
        w[t] = (work){img, spp, threads, t, &next_row};
        if (pthread_create(&tid[t], NULL, render_rows, &w[t]) != 0) {
            fprintf(stderr, "ex_render: cannot start thread %d\n", t);
            exit(1);
        }
    }
    for (int t = 0; t < threads; t++)
        pthread_join(tid[t], NULL);
}
