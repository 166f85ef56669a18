/* reduce_cpu.c - ch06's CPU stages: one core, then all of them. */
#define _GNU_SOURCE
#include "reduce.h"

#include <pthread.h>

long long reduce_fill(int *in, size_t n)
{
    unsigned long long x = 0x5EED06;
    long long sum = 0;
    for (size_t i = 0; i < n; i++) {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        in[i] = (int)((x * 2685821657736338717ULL) >> 56) - 128;
        sum += in[i];
    }
    return sum;
}

static long long serial_sum(const int *in, size_t n)
{
    long long sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += in[i];
    return sum;
}

void reduce_cpu_serial(const int *in, size_t n, long long *sum, const reduce_ctx *ctx)
{
    (void)ctx;
    *sum = serial_sum(in, n);
}

typedef struct {
    const int *in;
    size_t begin, end;
    long long sum;
} chunk;

static void *sum_chunk(void *p)
{
    chunk *c = p;
    c->sum = serial_sum(c->in + c->begin, c->end - c->begin);
    return NULL;
}

/* Each thread sums one contiguous chunk; the host's memory bandwidth, not its
 * adders, is the limit once a few cores are busy. */
void reduce_cpu_threads(const int *in, size_t n, long long *result, const reduce_ctx *ctx)
{
    int threads = ctx->threads;
    enum { MAX = 256 };
    pthread_t tid[MAX];
    chunk c[MAX];
    int started[MAX];
    threads = threads < 1 ? 1 : threads > MAX ? MAX : threads;
    for (int t = 0; t < threads; t++) {
        c[t] = (chunk){in, n * (size_t)t / (size_t)threads, n * (size_t)(t + 1) / (size_t)threads, 0};
        started[t] = pthread_create(&tid[t], NULL, sum_chunk, &c[t]) == 0;
        if (!started[t])
            sum_chunk(&c[t]); /* could not start a thread: do its share here */
    }
    long long sum = 0;
    for (int t = 0; t < threads; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        sum += c[t].sum;
    }
    *result = sum;
}
