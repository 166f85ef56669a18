/* team.c - see team.h. */
#define _GNU_SOURCE /* program_invocation_short_name: the error names the program */
#include "team.h"
#include "status.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The team's threads start the first time a team of that size is asked for
 * and then wait between runs (as OpenMP's runtime keeps its own): a stage's
 * time is its work, not the starting of threads, which costs tens of
 * microseconds each, one after another. */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t go, done;
    pthread_t tid[TEAM_MAX];
    unsigned long born[TEAM_MAX]; /* the run count when each was started: it waits for the next */
    int size;                     /* threads started, waiting or working */
    unsigned long runs;           /* runs handed out so far */
    team_fn *work;                /* this run's: what, on what, by how many */
    void *context;
    int threads, running;         /* running: members of this run not yet finished */
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER, .go = PTHREAD_COND_INITIALIZER, .done = PTHREAD_COND_INITIALIZER};

static void *member_main(void *p)
{
    int index = (int)(intptr_t)p;
    pthread_mutex_lock(&pool.lock);
    unsigned long seen = pool.born[index];
    for (;;) {
        while (pool.runs == seen)
            pthread_cond_wait(&pool.go, &pool.lock);
        seen = pool.runs;
        if (index >= pool.threads)
            continue; /* a smaller team this time */
        team_fn *work = pool.work;
        void *context = pool.context;
        int threads = pool.threads;
        pthread_mutex_unlock(&pool.lock);
        work(context, index, threads);
        pthread_mutex_lock(&pool.lock);
        if (--pool.running == 0)
            pthread_cond_signal(&pool.done);
    }
    return NULL;
}

/* A forked child has none of its parent's threads (Check runs each test in
 * one): it starts its own. */
static void pool_after_fork_in_child(void)
{
    pthread_mutex_init(&pool.lock, NULL);
    pthread_cond_init(&pool.go, NULL);
    pthread_cond_init(&pool.done, NULL);
    pool.size = 0;
}

static void register_fork_handler(void)
{
    pthread_atfork(NULL, NULL, pool_after_fork_in_child);
}

void team_run(int threads, team_fn *work, void *context)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    if (threads < 1 || threads > TEAM_MAX) {
        fprintf(stderr, "%s: error: %d threads asked of a team of 1 to %d (%s:%d)\n",
                program_invocation_short_name, threads, TEAM_MAX, __FILE__, __LINE__);
        exit(EXIT_CHECK_FAIL);
    }
    if (threads == 1) { /* a team of one is the calling thread: no wake-up to time (a one-thread row's ruler) */
        work(context, 0, 1);
        return;
    }
    pthread_once(&once, register_fork_handler);
    pthread_mutex_lock(&pool.lock);
    while (pool.size < threads) {
        pool.born[pool.size] = pool.runs;
        int rc = pthread_create(&pool.tid[pool.size], NULL, member_main, (void *)(intptr_t)pool.size);
        if (rc != 0) {
            fprintf(stderr, "%s: error: cannot start thread %d of %d: %s (%s:%d)\n", program_invocation_short_name,
                    pool.size + 1, threads, strerror(rc), __FILE__, __LINE__);
            exit(EXIT_CHECK_FAIL);
        }
        pool.size++;
    }
    pool.work = work, pool.context = context, pool.threads = threads, pool.running = threads;
    pool.runs++;
    pthread_cond_broadcast(&pool.go);
    while (pool.running > 0)
        pthread_cond_wait(&pool.done, &pool.lock);
    pthread_mutex_unlock(&pool.lock);
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
