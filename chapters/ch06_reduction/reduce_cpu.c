/* reduce_cpu.c - ch06's CPU stages: one core, then all of them, then all of
 * them with vector loads and adds, then the work dealt in pieces on demand,
 * then fewer instructions per byte, then a software prefetch. */
#define _GNU_SOURCE
#include "reduce.h"

#include "../../common/cpu_ceiling.h"
#include "../../common/team.h"

#include <immintrin.h>
#include <stdatomic.h>
#include <stdint.h>
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

/* The biased kernels' end: the 64-bit lanes' total and the high ints' total
 * give the ints' total, less the bias of the `count` ints they added. */
__attribute__((target("avx512f"))) static long long unbias_avx512(__m512i lanes, __m512i high, size_t count)
{
    unsigned long long l[8], h[8], total = 0; /* < 2^32 per int x 2^32 ints: no wrap */
    _mm512_storeu_si512(l, lanes);
    _mm512_storeu_si512(h, high);
    for (int k = 0; k < 8; k++)
        total += h[k] + (l[k] - (h[k] << 32)); /* high ints + low ints, each biased */
    return (long long)(total - (unsigned long long)count * 0x80000000ULL);
}

__attribute__((target("avx2"))) static long long unbias_avx2(__m256i lanes, __m256i high, size_t count)
{
    unsigned long long l[4], h[4], total = 0;
    _mm256_storeu_si256((__m256i *)l, lanes);
    _mm256_storeu_si256((__m256i *)h, high);
    for (int k = 0; k < 4; k++)
        total += h[k] + (l[k] - (h[k] << 32));
    return (long long)(total - (unsigned long long)count * 0x80000000ULL);
}

/* Sixteen int32 per 64-byte load, exact for any int32: each int biased to
 * unsigned (its sign bit flipped: x + 2^31), the 16 read as eight 64-bit lanes
 * (high int x 2^32 + low int) and added, and the high ints added apart; the
 * low ints' total is the difference, and the bias comes off at the end. One
 * load and four adds, xors and shifts per 64 bytes, where widening took two
 * loads, two conversions and two adds. */
__attribute__((target("avx512f"))) static long long sum_avx512_biased(const int *in, size_t n)
{
    const __m512i sign = _mm512_set1_epi32(INT32_MIN);
    __m512i lanes0 = _mm512_setzero_si512(), lanes1 = lanes0, high0 = lanes0, high1 = lanes0;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m512i a = _mm512_xor_si512(_mm512_loadu_si512(in + i), sign);
        __m512i b = _mm512_xor_si512(_mm512_loadu_si512(in + i + 16), sign);
        lanes0 = _mm512_add_epi64(lanes0, a), high0 = _mm512_add_epi64(high0, _mm512_srli_epi64(a, 32));
        lanes1 = _mm512_add_epi64(lanes1, b), high1 = _mm512_add_epi64(high1, _mm512_srli_epi64(b, 32));
    }
    return unbias_avx512(_mm512_add_epi64(lanes0, lanes1), _mm512_add_epi64(high0, high1), i) +
           serial_sum(in + i, n - i);
}

/* The same with AVX2: eight int32 per 32-byte load. */
__attribute__((target("avx2"))) static long long sum_avx2_biased(const int *in, size_t n)
{
    const __m256i sign = _mm256_set1_epi32(INT32_MIN);
    __m256i lanes0 = _mm256_setzero_si256(), lanes1 = lanes0, high0 = lanes0, high1 = lanes0;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256i a = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(in + i)), sign);
        __m256i b = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(in + i + 8)), sign);
        lanes0 = _mm256_add_epi64(lanes0, a), high0 = _mm256_add_epi64(high0, _mm256_srli_epi64(a, 32));
        lanes1 = _mm256_add_epi64(lanes1, b), high1 = _mm256_add_epi64(high1, _mm256_srli_epi64(b, 32));
    }
    return unbias_avx2(_mm256_add_epi64(lanes0, lanes1), _mm256_add_epi64(high0, high1), i) +
           serial_sum(in + i, n - i);
}

/* The biased sum with a software prefetch of every cache line 8 KiB (two
 * pages) before its loads, into L2 (_MM_HINT_T1): a 4 KiB page is where the
 * hardware's stream prefetchers stop, so without it the first lines of every
 * page arrive only when the loads ask for them, and a loop of five
 * instructions a line has fewer of those loads in flight than the read
 * ceiling's loop of two. The last 8 KiB go without (sum_avx512_biased's
 * loop): no address past the input is ever formed. */
#define PREFETCH_INTS 2048 /* 8 KiB */

__attribute__((target("avx512f"))) static long long sum_avx512_prefetch(const int *in, size_t n)
{
    const __m512i sign = _mm512_set1_epi32(INT32_MIN);
    __m512i lanes0 = _mm512_setzero_si512(), lanes1 = lanes0, high0 = lanes0, high1 = lanes0;
    size_t i = 0;
    for (; i + PREFETCH_INTS + 64 <= n; i += 64) {
        for (size_t line = i + PREFETCH_INTS; line < i + PREFETCH_INTS + 64; line += 16) /* 4 lines of 64 bytes */
            _mm_prefetch((const char *)(in + line), _MM_HINT_T1);
        for (size_t k = i; k < i + 64; k += 32) { /* two trips of sum_avx512_biased's loop */
            __m512i a = _mm512_xor_si512(_mm512_loadu_si512(in + k), sign);
            __m512i b = _mm512_xor_si512(_mm512_loadu_si512(in + k + 16), sign);
            lanes0 = _mm512_add_epi64(lanes0, a), high0 = _mm512_add_epi64(high0, _mm512_srli_epi64(a, 32));
            lanes1 = _mm512_add_epi64(lanes1, b), high1 = _mm512_add_epi64(high1, _mm512_srli_epi64(b, 32));
        }
    }
    return unbias_avx512(_mm512_add_epi64(lanes0, lanes1), _mm512_add_epi64(high0, high1), i) +
           sum_avx512_biased(in + i, n - i);
}

/* The same with AVX2: two lines a trip of 128 bytes. */
__attribute__((target("avx2"))) static long long sum_avx2_prefetch(const int *in, size_t n)
{
    const __m256i sign = _mm256_set1_epi32(INT32_MIN);
    __m256i lanes0 = _mm256_setzero_si256(), lanes1 = lanes0, high0 = lanes0, high1 = lanes0;
    size_t i = 0;
    for (; i + PREFETCH_INTS + 32 <= n; i += 32) {
        _mm_prefetch((const char *)(in + i + PREFETCH_INTS), _MM_HINT_T1);
        _mm_prefetch((const char *)(in + i + PREFETCH_INTS + 16), _MM_HINT_T1);
        for (size_t k = i; k < i + 32; k += 16) {
            __m256i a = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(in + k)), sign);
            __m256i b = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(in + k + 8)), sign);
            lanes0 = _mm256_add_epi64(lanes0, a), high0 = _mm256_add_epi64(high0, _mm256_srli_epi64(a, 32));
            lanes1 = _mm256_add_epi64(lanes1, b), high1 = _mm256_add_epi64(high1, _mm256_srli_epi64(b, 32));
        }
    }
    return unbias_avx2(_mm256_add_epi64(lanes0, lanes1), _mm256_add_epi64(high0, high1), i) +
           sum_avx2_biased(in + i, n - i);
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

/* Pieces on demand: every thread takes the next 1 MiB nobody has taken until
 * none is left, so a thread on a slower core takes fewer and no thread waits
 * idle for the last one (a virtual machine's cores are not equally fast). */
#define PIECE_INTS ((size_t)1 << 18)

typedef struct {
    const int *in;
    size_t n;
    long long (*sum)(const int *, size_t);
    atomic_size_t next;        /* the first int of the next piece nobody has taken */
    long long sums[TEAM_MAX]; /* each thread's, written once at its end */
} pieces;

static void sum_pieces(void *p, int t, int threads)
{
    (void)threads;
    pieces *c = p;
    long long sum = 0;
    size_t begin;
    while ((begin = atomic_fetch_add(&c->next, PIECE_INTS)) < c->n)
        sum += c->sum(c->in + begin, c->n - begin < PIECE_INTS ? c->n - begin : PIECE_INTS);
    c->sums[t] = sum;
}

static long long sum_in_pieces(const int *in, size_t n, int threads, long long (*sum)(const int *, size_t))
{
    static pieces c; /* static: 8 kB of sums */
    c.in = in, c.n = n, c.sum = sum;
    atomic_store(&c.next, 0);
    team_run(threads, sum_pieces, &c);
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

/* The widest vector sum this CPU has (CPU_ISA may ask for a narrower one). */
static long long (*widest(long long (*avx512)(const int *, size_t), long long (*avx2)(const int *, size_t)))(
    const int *, size_t)
{
    const char *isa = cpu_widest_isa();
    return strcmp(isa, "avx512") == 0 ? avx512 : strcmp(isa, "avx2") == 0 ? avx2 : serial_sum;
}

void reduce_cpu_threads_simd(const int *in, size_t n, long long *result, const reduce_ctx *ctx)
{
    *result = sum_on_threads(in, n, ctx->threads, widest(sum_avx512, sum_avx2));
}

void reduce_cpu_pieces(const int *in, size_t n, long long *result, const reduce_ctx *ctx)
{
    *result = sum_in_pieces(in, n, ctx->threads, widest(sum_avx512, sum_avx2));
}

void reduce_cpu_biased_lanes(const int *in, size_t n, long long *result, const reduce_ctx *ctx)
{
    *result = sum_in_pieces(in, n, ctx->threads, widest(sum_avx512_biased, sum_avx2_biased));
}

void reduce_cpu_prefetch(const int *in, size_t n, long long *result, const reduce_ctx *ctx)
{
    *result = sum_in_pieces(in, n, ctx->threads, widest(sum_avx512_prefetch, sum_avx2_prefetch));
}
