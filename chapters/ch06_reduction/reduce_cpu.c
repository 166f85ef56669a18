/* reduce_cpu.c - ch06's CPU stages: one core, then all of them, then all of
 * them with vector loads and adds. */
#define _GNU_SOURCE
#include "reduce.h"

#include "../../common/cpu_ceiling.h"
#include "../../common/team.h"

#include <immintrin.h>
#include <string.h>

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

/* Eight int32 widened to int64 per instruction, four sums in flight: enough
 * loads outstanding per core that a handful of cores fill the memory bus. */
__attribute__((target("avx512f"))) static long long sum_avx512(const int *in, size_t n)
{
    __m512i s0 = _mm512_setzero_si512(), s1 = s0, s2 = s0, s3 = s0;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        s0 = _mm512_add_epi64(s0, _mm512_cvtepi32_epi64(_mm256_loadu_si256((const __m256i *)(in + i))));
        s1 = _mm512_add_epi64(s1, _mm512_cvtepi32_epi64(_mm256_loadu_si256((const __m256i *)(in + i + 8))));
        s2 = _mm512_add_epi64(s2, _mm512_cvtepi32_epi64(_mm256_loadu_si256((const __m256i *)(in + i + 16))));
        s3 = _mm512_add_epi64(s3, _mm512_cvtepi32_epi64(_mm256_loadu_si256((const __m256i *)(in + i + 24))));
    }
    long long lanes[8], sum = serial_sum(in + i, n - i);
    _mm512_storeu_si512(lanes, _mm512_add_epi64(_mm512_add_epi64(s0, s1), _mm512_add_epi64(s2, s3)));
    for (int k = 0; k < 8; k++)
        sum += lanes[k];
    return sum;
}

/* The same with AVX2: four int32 widened per instruction. */
__attribute__((target("avx2"))) static long long sum_avx2(const int *in, size_t n)
{
    __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        s0 = _mm256_add_epi64(s0, _mm256_cvtepi32_epi64(_mm_loadu_si128((const __m128i *)(in + i))));
        s1 = _mm256_add_epi64(s1, _mm256_cvtepi32_epi64(_mm_loadu_si128((const __m128i *)(in + i + 4))));
        s2 = _mm256_add_epi64(s2, _mm256_cvtepi32_epi64(_mm_loadu_si128((const __m128i *)(in + i + 8))));
        s3 = _mm256_add_epi64(s3, _mm256_cvtepi32_epi64(_mm_loadu_si128((const __m128i *)(in + i + 12))));
    }
    long long lanes[4], sum = serial_sum(in + i, n - i);
    _mm256_storeu_si256((__m256i *)lanes, _mm256_add_epi64(_mm256_add_epi64(s0, s1), _mm256_add_epi64(s2, s3)));
    for (int k = 0; k < 4; k++)
        sum += lanes[k];
    return sum;
}

typedef struct {
    const int *in;
    size_t n;
    long long (*sum)(const int *, size_t);
    long long sums[TEAM_MAX]; /* each thread's, written once at its end */
} chunks;

/* Thread t of T sums the t-th of T contiguous chunks. */
static void sum_chunk(void *p, int t, int threads)
{
    chunks *c = p;
    size_t begin = c->n * (size_t)t / (size_t)threads, end = c->n * (size_t)(t + 1) / (size_t)threads;
    c->sums[t] = c->sum(c->in + begin, end - begin);
}

static long long sum_on_threads(const int *in, size_t n, int threads, long long (*sum)(const int *, size_t))
{
    static chunks c; /* static: 8 kB of sums */
    c.in = in;
    c.n = n;
    c.sum = sum;
    team_run(threads, sum_chunk, &c);
    long long total = 0;
    for (int t = 0; t < threads; t++)
        total += c.sums[t];
    return total;
}

/* Each thread sums one contiguous chunk; the host's memory bandwidth, not its
 * adders, is the limit once a few cores are busy. */
void reduce_cpu_threads(const int *in, size_t n, long long *result, const reduce_ctx *ctx)
{
    *result = sum_on_threads(in, n, ctx->threads, serial_sum);
}

void reduce_cpu_threads_simd(const int *in, size_t n, long long *result, const reduce_ctx *ctx)
{
    const char *isa = cpu_widest_isa();
    *result = sum_on_threads(in, n, ctx->threads, strcmp(isa, "avx512") == 0 ? sum_avx512
                                                  : strcmp(isa, "avx2") == 0  ? sum_avx2
                                                                              : serial_sum);
}
