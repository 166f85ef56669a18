/* team.c - see team.h. */
#define _GNU_SOURCE /* program_invocation_short_name: the error names the program */
#include "team.h"
#include "status.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    team_fn *work;
    void *context;
    int index, threads;
} member;

static void *member_main(void *p)
{
    member *m = p;
    m->work(m->context, m->index, m->threads);
    return NULL;
}

void team_run(int threads, team_fn *work, void *context)
{
    static member members[TEAM_MAX]; /* static: 1024 of them would crowd a thread's stack */
    static pthread_t tid[TEAM_MAX];
    if (threads < 1 || threads > TEAM_MAX) {
        fprintf(stderr, "%s: error: %d threads asked of a team of 1 to %d (%s:%d)\n",
                program_invocation_short_name, threads, TEAM_MAX, __FILE__, __LINE__);
        exit(EXIT_CHECK_FAIL);
    }
    int started = 0, rc = 0;
    for (; started < threads; started++) {
        members[started] = (member){work, context, started, threads};
        if ((rc = pthread_create(&tid[started], NULL, member_main, &members[started])) != 0)
            break;
    }
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    if (started < threads) {
        fprintf(stderr, "%s: error: cannot start thread %d of %d: %s (%s:%d)\n", program_invocation_short_name,
                started + 1, threads, strerror(rc), __FILE__, __LINE__);
        exit(EXIT_CHECK_FAIL);
    }
}

typedef struct {
    team_row_fn *row;
    void *context;
    int rows;
    atomic_int next; /* the next row nobody has taken */
    int done;        /* rows finished; under lock */
    pthread_mutex_t lock;
    pthread_cond_t all_done;
} row_queue;

static void take_rows(void *p, int index, int threads)
{
    (void)index, (void)threads;
    row_queue *q = p;
    int r;
    while ((r = atomic_fetch_add(&q->next, 1)) < q->rows) {
        q->row(q->context, r);
        pthread_mutex_lock(&q->lock);
        if (++q->done == q->rows)
            pthread_cond_signal(&q->all_done);
        pthread_mutex_unlock(&q->lock);
    }
}

/* The progress thread: waits for the end, waking every 20 ms to draw. */
static void *watch_rows(void *p)
{
    void **args = p;
    row_queue *q = args[0];
    progress *bar = args[1];
    pthread_mutex_lock(&q->lock);
    while (q->done < q->rows) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 20 * 1000 * 1000;
        if (until.tv_nsec >= 1000000000L)
            until.tv_sec++, until.tv_nsec -= 1000000000L;
        pthread_cond_timedwait(&q->all_done, &q->lock, &until);
        int done = q->done;
        pthread_mutex_unlock(&q->lock);
        progress_update(bar, done);
        pthread_mutex_lock(&q->lock);
    }
    pthread_mutex_unlock(&q->lock);
    return NULL;
}

void team_rows(int threads, int rows, team_row_fn *row, void *context, progress *bar)
{
    row_queue q = {.row = row, .context = context, .rows = rows};
    atomic_init(&q.next, 0);
    pthread_mutex_init(&q.lock, NULL);
    pthread_cond_init(&q.all_done, NULL);
    pthread_t watcher;
    void *args[2] = {&q, bar};
    int watching = pthread_create(&watcher, NULL, watch_rows, args) == 0; /* no watcher: no progress line, same work */
    team_run(threads, take_rows, &q);
    if (watching)
        pthread_join(watcher, NULL);
    pthread_cond_destroy(&q.all_done);
    pthread_mutex_destroy(&q.lock);
}
