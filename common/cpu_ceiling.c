/* cpu_ceiling.c - see cpu_ceiling.h. The kernels are the plainest code that
 * reaches the limit: wide loads XORed into four accumulators (no arithmetic
 * to wait on), and twelve independent FMA chains (a chain waits 4 cycles for
 * its FMA; two pipes need 8 in flight). Their results are kept (sink), so the
 * compiler cannot drop the work. */
#include "cpu_ceiling.h"
#include "team.h"
#include "timer.h"

#include <immintrin.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int has(const char *feature)
{
    __builtin_cpu_init();
    if (strcmp(feature, "avx512") == 0)
        return __builtin_cpu_supports("avx512f");
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

const char *cpu_widest_isa(void)
{
    const char *cap = getenv("CPU_ISA"); /* a narrower ISA asked for, to compare: avx2 or scalar */
    if (cap && strcmp(cap, "scalar") == 0)
        return "scalar";
    if (cap && strcmp(cap, "avx2") == 0)
        return has("avx2") ? "avx2" : "scalar";
    return has("avx512") ? "avx512" : has("avx2") ? "avx2" : "scalar";
}

/* ---------------------------------------------------------------- read */
__attribute__((target("avx512f"))) static uint64_t read_avx512(const char *p, size_t bytes)
{
    __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
    size_t i = 0;
    for (; i + 256 <= bytes; i += 256) {
        a0 = _mm512_xor_si512(a0, _mm512_loadu_si512(p + i));
        a1 = _mm512_xor_si512(a1, _mm512_loadu_si512(p + i + 64));
        a2 = _mm512_xor_si512(a2, _mm512_loadu_si512(p + i + 128));
        a3 = _mm512_xor_si512(a3, _mm512_loadu_si512(p + i + 192));
    }
    uint64_t lanes[8], x = 0;
    _mm512_storeu_si512(lanes, _mm512_xor_si512(_mm512_xor_si512(a0, a1), _mm512_xor_si512(a2, a3)));
    for (int k = 0; k < 8; k++)
        x ^= lanes[k];
    for (; i < bytes; i++)
        x ^= (unsigned char)p[i];
    return x;
}

__attribute__((target("avx2"))) static uint64_t read_avx2(const char *p, size_t bytes)
{
    __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
    size_t i = 0;
    for (; i + 128 <= bytes; i += 128) {
        a0 = _mm256_xor_si256(a0, _mm256_loadu_si256((const __m256i *)(p + i)));
        a1 = _mm256_xor_si256(a1, _mm256_loadu_si256((const __m256i *)(p + i + 32)));
        a2 = _mm256_xor_si256(a2, _mm256_loadu_si256((const __m256i *)(p + i + 64)));
        a3 = _mm256_xor_si256(a3, _mm256_loadu_si256((const __m256i *)(p + i + 96)));
    }
    uint64_t lanes[4], x = 0;
    _mm256_storeu_si256((__m256i *)lanes, _mm256_xor_si256(_mm256_xor_si256(a0, a1), _mm256_xor_si256(a2, a3)));
    for (int k = 0; k < 4; k++)
        x ^= lanes[k];
    for (; i < bytes; i++)
        x ^= (unsigned char)p[i];
    return x;
}

static uint64_t read_scalar(const char *p, size_t bytes)
{
    uint64_t a[4] = {0}, w;
    size_t i = 0;
    for (; i + 32 <= bytes; i += 32)
        for (int k = 0; k < 4; k++)
            memcpy(&w, p + i + 8 * k, 8), a[k] ^= w;
    for (; i < bytes; i++)
        a[0] ^= (unsigned char)p[i];
    return a[0] ^ a[1] ^ a[2] ^ a[3];
}

typedef struct {
    const char *buf;
    size_t bytes;
    long passes;
    uint64_t (*read)(const char *, size_t);
    uint64_t sink[TEAM_MAX];
} read_job;

static void read_share(void *p, int t, int threads)
{
    read_job *j = p;
    size_t begin = j->bytes * (size_t)t / (size_t)threads, end = j->bytes * (size_t)(t + 1) / (size_t)threads;
    uint64_t x = 0;
    for (long k = 0; k < j->passes; k++)
        x ^= j->read(j->buf + begin, end - begin);
    j->sink[t] = x;
}

/* The best of `repeat` runs of run(job) on `threads` threads, in ms, after
 * scaling *count (passes or iterations) until even the best run lasts
 * CPU_CEILING_MIN_MS. */
static double best_ms(team_fn *run, void *job, long *count, int threads, int repeat)
{
    for (;;) {
        double best = 0;
        for (int r = 0; r < (repeat > 1 ? repeat : 1); r++) {
            double t0 = now_seconds();
            team_run(threads, run, job);
            double ms = 1e3 * (now_seconds() - t0);
            best = r == 0 || ms < best ? ms : best;
        }
        if (best >= CPU_CEILING_MIN_MS)
            return best;
        double grow = best > 0 ? 1.2 * CPU_CEILING_MIN_MS / best : 16;
        *count = (long)((double)*count * (grow > 16 ? 16 : grow < 1.2 ? 1.2 : grow)) + 1;
    }
}

cpu_ceiling cpu_read_ceiling(const void *buf, size_t bytes, int threads, int repeat)
{
    static read_job j; /* static: the sinks are 8 kB */
    const char *isa = cpu_widest_isa();
    j = (read_job){.buf = buf, .bytes = bytes, .passes = 1};
    j.read = strcmp(isa, "avx512") == 0 ? read_avx512 : strcmp(isa, "avx2") == 0 ? read_avx2 : read_scalar;
    double ms = best_ms(read_share, &j, &j.passes, threads, repeat);
    return (cpu_ceiling){(double)bytes * (double)j.passes / (ms * 1e6), ms, isa, threads};
}

/* ---------------------------------------------------------------- FMA */
#define CHAINS 12

__attribute__((target("avx512f"))) static float fma_avx512(long iterations)
{
    __m512 x[CHAINS], a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
    for (int c = 0; c < CHAINS; c++)
        x[c] = _mm512_set1_ps((float)c);
    for (long i = 0; i < iterations; i++)
        for (int c = 0; c < CHAINS; c++)
            x[c] = _mm512_fmadd_ps(x[c], a, b);
    float out = 0, lanes[16];
    for (int c = 0; c < CHAINS; c++) {
        _mm512_storeu_ps(lanes, x[c]);
        out += lanes[c % 16];
    }
    return out;
}

__attribute__((target("avx2,fma"))) static float fma_avx2(long iterations)
{
    __m256 x[CHAINS], a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
    for (int c = 0; c < CHAINS; c++)
        x[c] = _mm256_set1_ps((float)c);
    for (long i = 0; i < iterations; i++)
        for (int c = 0; c < CHAINS; c++)
            x[c] = _mm256_fmadd_ps(x[c], a, b);
    float out = 0, lanes[8];
    for (int c = 0; c < CHAINS; c++) {
        _mm256_storeu_ps(lanes, x[c]);
        out += lanes[c % 8];
    }
    return out;
}

static float fma_scalar(long iterations)
{
    float x[CHAINS], out = 0;
    for (int c = 0; c < CHAINS; c++)
        x[c] = (float)c;
    for (long i = 0; i < iterations; i++)
        for (int c = 0; c < CHAINS; c++)
            x[c] = x[c] * 0.999999f + 1e-7f;
    for (int c = 0; c < CHAINS; c++)
        out += x[c];
    return out;
}

typedef struct {
    long iterations;
    float (*chains)(long);
    float sink[TEAM_MAX];
} fma_job;

static void fma_share(void *p, int t, int threads)
{
    (void)threads;
    fma_job *j = p;
    j->sink[t] = j->chains(j->iterations);
}

cpu_ceiling cpu_fma_ceiling(int threads, int repeat)
{
    static fma_job j;
    const char *isa = cpu_widest_isa();
    int lanes = strcmp(isa, "avx512") == 0 ? 16 : strcmp(isa, "avx2") == 0 ? 8 : 1;
    j = (fma_job){.iterations = 1 << 16};
    j.chains = lanes == 16 ? fma_avx512 : lanes == 8 ? fma_avx2 : fma_scalar;
    double ms = best_ms(fma_share, &j, &j.iterations, threads, repeat);
    double flops = 2.0 * lanes * CHAINS * (double)j.iterations * threads;
    return (cpu_ceiling){flops / (ms * 1e6), ms, isa, threads};
}
