/* cpu_ceiling.c - see cpu_ceiling.h. The kernels are the plainest code that
 * reaches the limit: wide loads XORed into four accumulators (no arithmetic
 * to wait on), and twelve independent FMA chains (a chain waits 4 cycles for
 * its FMA; two pipes need 8 in flight). Their results are kept (sink), so the
 * compiler cannot drop the work. The work is dealt in pieces on demand
 * (piece_queue), so no thread waits for a slower one. */
#include "cpu_ceiling.h"
#include "team.h"
#include "timer.h"

#include <immintrin.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* The same two with a software prefetch of every 64-byte line 8 KiB ahead,
 * into L2 (ch06's cpu-prefetch does it too): a plain kernel may prefetch, so
 * the ceiling tries both and keeps the faster. The last 8 KiB go without: no
 * address past the buffer is formed. Plain C has no prefetch variant. */
#define READ_PREFETCH_BYTES 8192

__attribute__((target("avx512f"))) static uint64_t read_avx512_prefetch(const char *p, size_t bytes)
{
    __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
    size_t i = 0;
    for (; i + READ_PREFETCH_BYTES + 256 <= bytes; i += 256) {
        for (size_t line = i + READ_PREFETCH_BYTES; line < i + READ_PREFETCH_BYTES + 256; line += 64)
            _mm_prefetch(p + line, _MM_HINT_T1);
        a0 = _mm512_xor_si512(a0, _mm512_loadu_si512(p + i));
        a1 = _mm512_xor_si512(a1, _mm512_loadu_si512(p + i + 64));
        a2 = _mm512_xor_si512(a2, _mm512_loadu_si512(p + i + 128));
        a3 = _mm512_xor_si512(a3, _mm512_loadu_si512(p + i + 192));
    }
    uint64_t lanes[8], x = read_avx512(p + i, bytes - i);
    _mm512_storeu_si512(lanes, _mm512_xor_si512(_mm512_xor_si512(a0, a1), _mm512_xor_si512(a2, a3)));
    for (int k = 0; k < 8; k++)
        x ^= lanes[k];
    return x;
}

__attribute__((target("avx2"))) static uint64_t read_avx2_prefetch(const char *p, size_t bytes)
{
    __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
    size_t i = 0;
    for (; i + READ_PREFETCH_BYTES + 128 <= bytes; i += 128) {
        _mm_prefetch(p + i + READ_PREFETCH_BYTES, _MM_HINT_T1);
        _mm_prefetch(p + i + READ_PREFETCH_BYTES + 64, _MM_HINT_T1);
        a0 = _mm256_xor_si256(a0, _mm256_loadu_si256((const __m256i *)(p + i)));
        a1 = _mm256_xor_si256(a1, _mm256_loadu_si256((const __m256i *)(p + i + 32)));
        a2 = _mm256_xor_si256(a2, _mm256_loadu_si256((const __m256i *)(p + i + 64)));
        a3 = _mm256_xor_si256(a3, _mm256_loadu_si256((const __m256i *)(p + i + 96)));
    }
    uint64_t lanes[4];
    _mm256_storeu_si256((__m256i *)lanes, _mm256_xor_si256(_mm256_xor_si256(a0, a1), _mm256_xor_si256(a2, a3)));
    return lanes[0] ^ lanes[1] ^ lanes[2] ^ lanes[3] ^ read_avx2(p + i, bytes - i);
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

/* Work handed out in pieces on demand: each thread takes the next piece
 * nobody has taken until none is left. On a shared host (a virtual machine's
 * cores are not all equally fast) equal shares end when the slowest thread
 * ends; pieces keep every thread busy to the end, and the ceiling is the best
 * a plain kernel reaches, not the pace of the slowest core. */
typedef struct {
    atomic_long next; /* the next piece nobody has taken */
    long count;       /* pieces in all */
} piece_queue;

static void pieces_reset(piece_queue *q, long count)
{
    atomic_store(&q->next, 0);
    q->count = count;
}

/* The next piece's index, or -1 when all are taken. */
static long piece_take(piece_queue *q)
{
    long k = atomic_fetch_add(&q->next, 1);
    return k < q->count ? k : -1;
}

#define READ_PIECE_BYTES ((size_t)1 << 20)

typedef struct {
    const char *buf;
    size_t bytes;
    long passes;
    uint64_t (*read)(const char *, size_t);
    piece_queue queue; /* passes x pieces of READ_PIECE_BYTES */
    uint64_t sink[TEAM_MAX];
    size_t done[TEAM_MAX]; /* bytes each thread read in the last run: the counted work */
} read_job;

/* At least one piece, an empty one for an empty buffer: a run of no pieces
 * would take no time however many passes it had, and never reach its length. */
static long read_pieces_per_pass(size_t bytes)
{
    return bytes == 0 ? 1 : (long)((bytes + READ_PIECE_BYTES - 1) / READ_PIECE_BYTES);
}

static void read_fill(void *p, int threads)
{
    (void)threads;
    read_job *j = p;
    pieces_reset(&j->queue, j->passes * read_pieces_per_pass(j->bytes));
}

static void read_share(void *p, int t, int threads)
{
    (void)threads;
    read_job *j = p;
    long per_pass = read_pieces_per_pass(j->bytes), k;
    if (t == 0 && j->queue.count == 0)
        return;
    uint64_t x = 0;
    size_t done = 0;
    while ((k = piece_take(&j->queue)) >= 0) {
        size_t begin = (size_t)(k % per_pass) * READ_PIECE_BYTES;
        size_t size = j->bytes - begin < READ_PIECE_BYTES ? j->bytes - begin : READ_PIECE_BYTES;
        x ^= j->read(j->buf + begin, size);
        done += size;
    }
    j->sink[t] = x;
    j->done[t] = done;
}

/* The best of `repeat` runs of run(job) on `threads` threads, in ms, after
 * scaling *count (passes or iterations) until even the best run lasts
 * CPU_CEILING_MIN_MS. fill(job, threads) lays out a run's pieces before it. */
static double best_ms(team_fn *run, void (*fill)(void *, int), void *job, long *count, int threads, int repeat)
{
    for (;;) {
        double best = 0;
        for (int r = 0; r < (repeat > 1 ? repeat : 1); r++) {
            fill(job, threads);
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

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One pass of j's kernel over its buffer, on `threads` threads: what a CPU stage's run is. */
static void read_pass(read_job *j, int threads)
{
    j->passes = 1;
    read_fill(j, threads);
    team_run(threads, read_share, j);
}

/* The read kernel timed as a stage is: one pass, the median of CPU_STAGE_REPEAT runs, in GB/s. */
static double read_one_pass(read_job *j, int threads)
{
    double ms[CPU_STAGE_REPEAT];
    if (j->bytes == 0)
        return 0;
    for (int r = 0; r < CPU_STAGE_REPEAT; r++) {
        double t0 = now_seconds();
        read_pass(j, threads);
        ms[r] = 1e3 * (now_seconds() - t0);
    }
    qsort(ms, CPU_STAGE_REPEAT, sizeof ms[0], by_value);
    return (double)j->bytes / (ms[CPU_STAGE_REPEAT / 2] * 1e6);
}

/* One read kernel's ceiling: the steady rate, then one pass timed as a stage. */
static cpu_ceiling read_with(uint64_t (*read)(const char *, size_t), const void *buf, size_t bytes, int threads,
                             int repeat)
{
    static read_job j; /* static: the sinks are 8 kB */
    j = (read_job){.buf = buf, .bytes = bytes, .passes = 1, .read = read};
    double ms = best_ms(read_share, read_fill, &j, &j.passes, threads, repeat);
    /* Every run of the last round read the same passes: the last one's count stands for the best's. */
    double done = 0;
    for (int t = 0; t < threads; t++)
        done += (double)j.done[t];
    cpu_ceiling c = {.rate = done / (ms * 1e6), .ms = ms, .threads = threads, .work = done,
                     .expected = (double)bytes * (double)j.passes};
    c.one_pass = read_one_pass(&j, threads);
    return c;
}

/* The read kernel for an ISA, with or without the prefetch. */
static uint64_t (*read_kernel(const char *isa, int prefetch))(const char *, size_t)
{
    if (strcmp(isa, "avx512") == 0)
        return prefetch ? read_avx512_prefetch : read_avx512;
    if (strcmp(isa, "avx2") == 0)
        return prefetch ? read_avx2_prefetch : read_avx2;
    return read_scalar;
}

cpu_ceiling cpu_read_ceiling(const void *buf, size_t bytes, int threads, int repeat)
{
    const char *isa = cpu_widest_isa();
    cpu_ceiling c = read_with(read_kernel(isa, 0), buf, bytes, threads, repeat);
    c.loads = NULL; /* plain C: no prefetch variant tried */
    if (strcmp(isa, "scalar") != 0) {
        cpu_ceiling p = read_with(read_kernel(isa, 1), buf, bytes, threads, repeat);
        c.loads = "without";
        p.loads = "with";
        c = p.rate > c.rate ? p : c;
    }
    c.isa = isa;
    return c;
}

size_t cpu_read_ceiling_pass(const cpu_ceiling *c, const void *buf, size_t bytes, uint64_t *folded)
{
    static read_job j;
    if (!c->isa || c->threads < 1) { /* no ceiling measured: no kernel to read with */
        if (folded)
            *folded = 0;
        return 0;
    }
    int prefetch = c->loads && strcmp(c->loads, "with") == 0;
    j = (read_job){.buf = buf, .bytes = bytes, .read = read_kernel(c->isa, prefetch)};
    read_pass(&j, c->threads);
    size_t done = 0;
    uint64_t x = 0;
    for (int t = 0; t < c->threads; t++)
        done += j.done[t], x ^= j.sink[t];
    if (folded)
        *folded = x;
    return done;
}

cpu_ceiling cpu_read_ceiling_said(const char *program, const void *buf, size_t bytes, int threads, int repeat,
                                  int quiet)
{
    cpu_ceiling c = cpu_read_ceiling(buf, bytes, threads, repeat);
    if (!quiet)
        fprintf(stderr, "%s: measured the host's read stream: %.1f GB/s on %d threads (%s loads%s%s%s); one pass, "
                "timed as a stage: %.1f GB/s\n", program, c.rate, c.threads, c.isa, c.loads ? ", faster " : "",
                c.loads ? c.loads : "", c.loads ? " a software prefetch" : "", c.one_pass);
    return c;
}

void cpu_read_ceiling_row(report *rep, const cpu_ceiling *c, int repeat)
{
    report_entry e = {.stage = "ceiling-cpu-read", .threads = c->threads, .ms = c->ms, .value = c->rate,
                      .unit = "GB/s", .ok = REPORT_NO_CHECK, .device = host_cpu_name()};
    char tried[96] = ", plain loads only (no prefetch variant in plain C)";
    if (c->loads)
        snprintf(tried, sizeof tried, ", with and without a software prefetch of every line 8 KiB ahead (faster %s)", c->loads);
    report_note(report_add(rep, e), "the host's plain read stream over the same input, %s loads, 1 MiB pieces "
                "taken as threads are free, the best of %d runs of at least %.0f ms%s; one pass timed as a stage "
                "(median of %d): %.1f GB/s", c->isa, repeat, CPU_CEILING_MIN_MS, tried, CPU_STAGE_REPEAT,
                c->one_pass);
}

/* ---------------------------------------------------------------- FMA */
/* Twelve chains, each its own variable: kept in an array, they would live in
 * memory and wait on stores instead of FMAs. */
#define CHAINS 12

__attribute__((target("avx512f"))) static float fma_avx512(long iterations)
{
    const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
    __m512 x0 = _mm512_set1_ps(0), x1 = _mm512_set1_ps(1), x2 = _mm512_set1_ps(2), x3 = _mm512_set1_ps(3);
    __m512 x4 = _mm512_set1_ps(4), x5 = _mm512_set1_ps(5), x6 = _mm512_set1_ps(6), x7 = _mm512_set1_ps(7);
    __m512 x8 = _mm512_set1_ps(8), x9 = _mm512_set1_ps(9), x10 = _mm512_set1_ps(10), x11 = _mm512_set1_ps(11);
    for (long i = 0; i < iterations; i++) {
        x0 = _mm512_fmadd_ps(x0, a, b), x1 = _mm512_fmadd_ps(x1, a, b), x2 = _mm512_fmadd_ps(x2, a, b);
        x3 = _mm512_fmadd_ps(x3, a, b), x4 = _mm512_fmadd_ps(x4, a, b), x5 = _mm512_fmadd_ps(x5, a, b);
        x6 = _mm512_fmadd_ps(x6, a, b), x7 = _mm512_fmadd_ps(x7, a, b), x8 = _mm512_fmadd_ps(x8, a, b);
        x9 = _mm512_fmadd_ps(x9, a, b), x10 = _mm512_fmadd_ps(x10, a, b), x11 = _mm512_fmadd_ps(x11, a, b);
    }
    __m512 sum = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(x0, x1), _mm512_add_ps(x2, x3)),
                               _mm512_add_ps(_mm512_add_ps(x4, x5), _mm512_add_ps(x6, x7)));
    sum = _mm512_add_ps(sum, _mm512_add_ps(_mm512_add_ps(x8, x9), _mm512_add_ps(x10, x11)));
    float lanes[16];
    _mm512_storeu_ps(lanes, sum);
    return lanes[0];
}

__attribute__((target("avx2,fma"))) static float fma_avx2(long iterations)
{
    const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
    __m256 x0 = _mm256_set1_ps(0), x1 = _mm256_set1_ps(1), x2 = _mm256_set1_ps(2), x3 = _mm256_set1_ps(3);
    __m256 x4 = _mm256_set1_ps(4), x5 = _mm256_set1_ps(5), x6 = _mm256_set1_ps(6), x7 = _mm256_set1_ps(7);
    __m256 x8 = _mm256_set1_ps(8), x9 = _mm256_set1_ps(9), x10 = _mm256_set1_ps(10), x11 = _mm256_set1_ps(11);
    for (long i = 0; i < iterations; i++) {
        x0 = _mm256_fmadd_ps(x0, a, b), x1 = _mm256_fmadd_ps(x1, a, b), x2 = _mm256_fmadd_ps(x2, a, b);
        x3 = _mm256_fmadd_ps(x3, a, b), x4 = _mm256_fmadd_ps(x4, a, b), x5 = _mm256_fmadd_ps(x5, a, b);
        x6 = _mm256_fmadd_ps(x6, a, b), x7 = _mm256_fmadd_ps(x7, a, b), x8 = _mm256_fmadd_ps(x8, a, b);
        x9 = _mm256_fmadd_ps(x9, a, b), x10 = _mm256_fmadd_ps(x10, a, b), x11 = _mm256_fmadd_ps(x11, a, b);
    }
    __m256 sum = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(x0, x1), _mm256_add_ps(x2, x3)),
                               _mm256_add_ps(_mm256_add_ps(x4, x5), _mm256_add_ps(x6, x7)));
    sum = _mm256_add_ps(sum, _mm256_add_ps(_mm256_add_ps(x8, x9), _mm256_add_ps(x10, x11)));
    float lanes[8];
    _mm256_storeu_ps(lanes, sum);
    return lanes[0];
}

/* Plain C: twelve chains of a multiply and an add (2 flops each, as an FMA). */
static float fma_scalar(long iterations)
{
    float x0 = 0, x1 = 1, x2 = 2, x3 = 3, x4 = 4, x5 = 5, x6 = 6, x7 = 7, x8 = 8, x9 = 9, x10 = 10, x11 = 11;
    const float a = 0.999999f, b = 1e-7f;
    for (long i = 0; i < iterations; i++) {
        x0 = x0 * a + b, x1 = x1 * a + b, x2 = x2 * a + b, x3 = x3 * a + b, x4 = x4 * a + b, x5 = x5 * a + b;
        x6 = x6 * a + b, x7 = x7 * a + b, x8 = x8 * a + b, x9 = x9 * a + b, x10 = x10 * a + b, x11 = x11 * a + b;
    }
    return x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11;
}

#define FMA_PIECE_ITERATIONS 4096L /* ~50k FMAs a lane: tens of microseconds a piece */

typedef struct {
    long iterations; /* a thread's share, were the pieces dealt evenly */
    float (*chains)(long);
    piece_queue queue; /* iterations x threads in pieces of FMA_PIECE_ITERATIONS */
    long last_piece;   /* the last piece's iterations (a pass's remainder; the ceiling's: a whole piece) */
    float sink[TEAM_MAX];
    long done[TEAM_MAX]; /* iterations each thread ran in the last run: the counted work */
} fma_job;

static void fma_fill(void *p, int threads)
{
    fma_job *j = p;
    pieces_reset(&j->queue, (j->iterations * threads + FMA_PIECE_ITERATIONS - 1) / FMA_PIECE_ITERATIONS);
    j->last_piece = FMA_PIECE_ITERATIONS;
}

static void fma_share(void *p, int t, int threads)
{
    (void)threads;
    fma_job *j = p;
    float x = 0;
    long k, done = 0;
    while ((k = piece_take(&j->queue)) >= 0) {
        long iterations = k == j->queue.count - 1 ? j->last_piece : FMA_PIECE_ITERATIONS;
        x += j->chains(iterations), done += iterations;
    }
    j->sink[t] = x;
    j->done[t] = done;
}

static int fma_lanes(const char *isa)
{
    return strcmp(isa, "avx512") == 0 ? 16 : strcmp(isa, "avx2") == 0 ? 8 : 1;
}

static float (*fma_kernel(int lanes))(long)
{
    return lanes == 16 ? fma_avx512 : lanes == 8 ? fma_avx2 : fma_scalar;
}

double cpu_fma_iteration_flops(const cpu_ceiling *c)
{
    return c->isa ? 2.0 * fma_lanes(c->isa) * CHAINS : 0; /* an FMA: 2 flops a lane */
}

cpu_ceiling cpu_fma_ceiling(int threads, int repeat)
{
    static fma_job j;
    const char *isa = cpu_widest_isa();
    int lanes = fma_lanes(isa);
    j = (fma_job){.iterations = 1 << 16, .chains = fma_kernel(lanes)};
    double ms = best_ms(fma_share, fma_fill, &j, &j.iterations, threads, repeat);
    cpu_ceiling c = {.ms = ms, .isa = isa, .threads = threads};
    double per_iteration = cpu_fma_iteration_flops(&c);
    for (int t = 0; t < threads; t++)
        c.work += per_iteration * (double)j.done[t];
    c.rate = c.work / (ms * 1e6);
    c.expected = per_iteration * FMA_PIECE_ITERATIONS * (double)j.queue.count;
    return c;
}

double cpu_fma_ceiling_pass(const cpu_ceiling *c, double flops)
{
    static fma_job j;
    if (!c->isa || c->threads < 1 || !(flops > 0))
        return 0;
    double per_iteration = cpu_fma_iteration_flops(c), done = 0;
    long nearest = (long)(flops / per_iteration + 0.5), iterations = nearest > 0 ? nearest : 1;
    j = (fma_job){.chains = fma_kernel(fma_lanes(c->isa))};
    pieces_reset(&j.queue, (iterations + FMA_PIECE_ITERATIONS - 1) / FMA_PIECE_ITERATIONS);
    j.last_piece = iterations - (j.queue.count - 1) * FMA_PIECE_ITERATIONS;
    team_run(c->threads, fma_share, &j);
    for (int t = 0; t < c->threads; t++)
        done += per_iteration * (double)j.done[t];
    return done;
}

cpu_ceiling cpu_fma_ceiling_row(report *rep, int threads, int repeat)
{
    cpu_ceiling c = cpu_fma_ceiling(threads, repeat);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int lanes = fma_lanes(c.isa);
    char note[200];
    snprintf(note, sizeof note, "measured: %d independent FMA chains a thread at %s (%d fp32 lane%s), no memory, "
             "%d thread%s on %ld logical CPUs; best of %d runs of at least %.0f ms (the time column)", CHAINS, c.isa,
             lanes, lanes > 1 ? "s" : "", c.threads, c.threads > 1 ? "s" : "", cpus, repeat > 1 ? repeat : 1,
             CPU_CEILING_MIN_MS);
    report_add(rep, (report_entry){.stage = "ceiling-cpu-fma", .threads = c.threads, .ms = c.ms, .value = c.rate,
                                   .unit = "GFLOP/s", .ok = REPORT_NO_CHECK, .device = host_cpu_name(), .note = note});
    return c;
}
