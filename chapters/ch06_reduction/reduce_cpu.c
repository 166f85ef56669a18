/* reduce_cpu.c - ch06's CPU stages: one core, then all of them. */
#define _GNU_SOURCE
#include "reduce.h"

#include "../../common/team.h"

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
    size_t n;
    long long sums[TEAM_MAX]; /* each thread's, written once at its end */
} chunks;

/* Thread t of T sums the t-th of T contiguous chunks. */
static void sum_chunk(void *p, int t, int threads)
{
    chunks *c = p;
    size_t begin = c->n * (size_t)t / (size_t)threads, end = c->n * (size_t)(t + 1) / (size_t)threads;
    c->sums[t] = serial_sum(c->in + begin, end - begin);
}

/* Each thread sums one contiguous chunk; the host's memory bandwidth, not its
 * adders, is the limit once a few cores are busy. */
void reduce_cpu_threads(const int *in, size_t n, long long *result, const reduce_ctx *ctx)
{
    static chunks c; /* static: 8 kB of sums */
    c.in = in;
    c.n = n;
    team_run(ctx->threads, sum_chunk, &c);
    long long sum = 0;
    for (int t = 0; t < ctx->threads; t++)
        sum += c.sums[t];
    *result = sum;
}
