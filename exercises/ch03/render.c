/* Exercise ch03: make this renderer scale, and make its output reproducible.
 *
 * As given, every thread draws from libc rand(). That has two problems, which
 * chapter 03 measures: glibc's rand() takes a process-wide lock, so threads
 * queue for it; and which numbers a row gets depends on how the threads
 * happen to interleave, so the image changes from run to run.
 *
 * Your job:
 *   1. ex_random: a 32-bit LCG on *state (state = 214013 * state + 2531011,
 *      unsigned), returning the top 16 bits over 65536.0f: in [0, 1).
 *   2. ex_row_seed: a different starting state for each row (mix the row
 *      number, e.g. with a multiply-xorshift hash, so neighbouring rows do not
 *      start neighbouring streams).
 *   3. render_rows already keeps the state in a local variable of its thread
 *      and reseeds it at each row: once 1 and 2 are done, the image is the
 *      same at any thread count.
 * Then: make grade
 */
#include "render.h"
#include "scene.h"

#include <pthread.h>
#include <stdlib.h>

float ex_random(uint32_t *state)
{
    (void)state;
    return (float)rand() / (float)RAND_MAX; /* TODO: the LCG on *state */
}

uint32_t ex_row_seed(int row)
{
    (void)row;
    return 1; /* TODO: a different stream per row */
}

typedef struct {
    image *img;
    int spp, threads, index;
} work;

/* Thread `index` of `threads` renders rows index, index + threads, ... */
static void *render_rows(void *p)
{
    work *w = p;
    image *img = w->img;
    for (int y = w->index; y < img->height; y += w->threads) {
        uint32_t state = ex_row_seed(y); /* this thread's own generator */
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
    return NULL;
}

void ex_render(image *img, int spp, int threads)
{
    pthread_t tid[64];
    work w[64];
    if (threads > 64)
        threads = 64;
    for (int t = 0; t < threads; t++) {
        w[t] = (work){img, spp, threads, t};
        pthread_create(&tid[t], NULL, render_rows, &w[t]);
    }
    for (int t = 0; t < threads; t++)
        pthread_join(tid[t], NULL);
}
