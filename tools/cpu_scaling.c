/* cpu_scaling - how well this machine's cores scale on their own: the
 * parallel efficiency of work that shares nothing, for ch03 and ch07 to be
 * measured against.
 *
 *   build/cpu_scaling [--threads 1,2,4,8,16] [--repeat 3]     (make cpu-scaling)
 *
 * Each of T threads does the same fixed amount of work on its own registers:
 * no memory traffic, no shared data, no locks, one barrier at the start. So T
 * threads should take as long as one, and efficiency = time(1) / time(T). What
 * is left is the machine: a clock that drops as more cores are busy, virtual
 * CPUs that are two hardware threads of one physical core, or another
 * tenant's work on the same host.
 *
 * Two kinds of work, because the two kinds share a core differently:
 *   fma    8 independent AVX2 multiply-add chains: throughput-bound, like
 *          ch07's cpu-simd (two hardware threads of one core share its
 *          FMA units, so each gets about half);
 *   chain  one dependent scalar multiply-add chain: latency-bound, like much
 *          of ch03's ray tracer (two hardware threads of one core can both
 *          run at nearly full speed, each filling the other's gaps).
 * Median of --repeat runs per point.
 */
#define _GNU_SOURCE
#include "../common/cli.h"
#include "../common/timer.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#define MAX_THREADS 256
#define MAX_POINTS 32
#define FMA_ITERATIONS 100000000L
#define CHAIN_ITERATIONS 150000000L

typedef struct {
    int kind, cpu; /* cpu: the CPU to run on, or -1 for wherever the kernel puts it */
    pthread_barrier_t *start;
    double result; /* kept, so the compiler cannot drop the loop */
} worker;

enum { KIND_FMA, KIND_CHAIN };
static const char *kind_names[] = {"fma", "chain"};

#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) static double fma_loop(void)
{
    __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
    __m256 x[8];
    for (int k = 0; k < 8; k++)
        x[k] = _mm256_set1_ps((float)k);
    for (long i = 0; i < FMA_ITERATIONS; i++)
        for (int k = 0; k < 8; k++)
            x[k] = _mm256_fmadd_ps(x[k], a, b);
    float sum = 0, lanes[8];
    for (int k = 0; k < 8; k++) {
        _mm256_storeu_ps(lanes, x[k]);
        sum += lanes[0];
    }
    return sum;
}
static int have_fma(void)
{
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#else
static double fma_loop(void)
{
    return 0;
}
static int have_fma(void)
{
    return 0;
}
#endif

static double chain_loop(void)
{
    volatile double seed = 0.5; /* not known at compile time */
    double x = seed;
    for (long i = 0; i < CHAIN_ITERATIONS; i++)
        x = x * 0.9999999 + 1e-9;
    return x;
}

static void *work(void *p)
{
    worker *w = p;
    if (w->cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(w->cpu, &set);
        if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0) {
            fprintf(stderr, "cpu_scaling: %s:%d: cannot pin a thread to CPU %d\n", __FILE__, __LINE__, w->cpu);
            exit(1);
        }
    }
    pthread_barrier_wait(w->start);
    w->result = w->kind == KIND_FMA ? fma_loop() : chain_loop();
    return NULL;
}

/* Wall time of `threads` threads each doing one loop of `kind`; thread t on
 * CPU cpus[t] when cpus is not NULL. */
static double run_once(int kind, int threads, const int *cpus)
{
    pthread_t tid[MAX_THREADS];
    worker w[MAX_THREADS];
    pthread_barrier_t start;
    if (pthread_barrier_init(&start, NULL, (unsigned)threads + 1) != 0) {
        fprintf(stderr, "cpu_scaling: %s:%d: pthread_barrier_init failed\n", __FILE__, __LINE__);
        exit(1);
    }
    for (int t = 0; t < threads; t++) {
        w[t] = (worker){kind, cpus ? cpus[t] : -1, &start, 0};
        if (pthread_create(&tid[t], NULL, work, &w[t]) != 0) {
            fprintf(stderr, "cpu_scaling: %s:%d: cannot start thread %d\n", __FILE__, __LINE__, t);
            exit(1);
        }
    }
    pthread_barrier_wait(&start);
    double t0 = now_seconds();
    for (int t = 0; t < threads; t++)
        pthread_join(tid[t], NULL);
    double seconds = now_seconds() - t0;
    pthread_barrier_destroy(&start);
    for (int t = 0; t < threads; t++)
        if (w[t].result != w[t].result) { /* NaN: the loop went wrong */
            fprintf(stderr, "cpu_scaling: %s:%d: thread %d computed NaN\n", __FILE__, __LINE__, t);
            exit(1);
        }
    return seconds;
}

static run_times median_run(int kind, int threads, const int *cpus, int repeat)
{
    double t[15];
    for (int r = 0; r < repeat; r++)
        t[r] = run_once(kind, threads, cpus);
    return summarize_runs(t, repeat);
}

/* CPU 0 with each other CPU in turn, both running the fma loop: a CPU that
 * shares CPU 0's core (its other hardware thread) halves both. */
static void pairs(long cpus, int repeat)
{
    double alone = median_run(KIND_FMA, 1, (int[]){0}, repeat).median;
    printf("# pairs: the fma loop on CPU 0 and CPU k at once; efficiency = time(CPU 0 alone) / time(pair); median of %d\n",
           repeat);
    printf("%-6s %8s %12s %22s %11s\n", "pair", "cpu k", "time (s)", "spread (s)", "efficiency");
    for (int k = 1; k < cpus && k < MAX_THREADS; k++) {
        run_times s = median_run(KIND_FMA, 2, (int[]){0, k}, repeat);
        printf("%-6s %8d %12.3f %10.3f-%-11.3f %10.0f%%\n", "0+k", k, s.median, s.lo, s.hi, 100 * alone / s.median);
        fflush(stdout);
    }
}

static void usage(FILE *f)
{
    fprintf(f, "usage: cpu_scaling [--threads 1,2,4,...] [--repeat R] [--pairs]\n"
               "  the parallel efficiency of work that shares nothing: time(1 thread) / time(T threads),\n"
               "  for a throughput-bound loop (fma: AVX2 multiply-adds) and a latency-bound one (chain).\n"
               "  --threads: the thread counts (default 1, 2, 4 ... and the number of CPUs)\n"
               "  --repeat: runs per point, the median reported (default 3, at most 15)\n"
               "  --pairs: then CPU 0 and each other CPU k, the fma loop on both: which CPUs share a core\n");
}

static int parse_threads(const char *list, int *points)
{
    int n = 0;
    char *copy = strdup(list), *save = NULL;
    if (!copy)
        return -1;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        long long v;
        if (cli_parse_long(tok, 1, MAX_THREADS, &v) != NULL || n == MAX_POINTS) {
            free(copy);
            return -1;
        }
        points[n++] = (int)v;
    }
    free(copy);
    return n;
}

int main(int argc, char **argv)
{
    int points[MAX_POINTS], count = 0, repeat = 3, want_pairs = 0;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            count = parse_threads(argv[++i], points);
            if (count <= 0) {
                fprintf(stderr, "cpu_scaling: --threads wants numbers 1..%d separated by commas\n", MAX_THREADS);
                return 2;
            }
        } else if (!strcmp(argv[i], "--pairs")) {
            want_pairs = 1;
        } else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) {
            long long r;
            if (cli_parse_long(argv[++i], 1, 15, &r) != NULL) {
                fprintf(stderr, "cpu_scaling: --repeat wants 1..15\n");
                return 2;
            }
            repeat = (int)r;
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (count == 0) {
        for (int t = 1; t < cpus && count < MAX_POINTS - 1; t *= 2)
            points[count++] = t;
        points[count++] = cpus > MAX_THREADS ? MAX_THREADS : (int)(cpus > 0 ? cpus : 1);
    }
    printf("# cpu_scaling: %ld CPUs online; T threads each doing one thread's work, nothing shared; "
           "efficiency = time(%d) / time(T); median of %d\n", cpus, points[0], repeat);
    printf("%-6s %8s %12s %22s %11s\n", "kind", "threads", "time (s)", "spread (s)", "efficiency");
    for (int kind = KIND_FMA; kind <= KIND_CHAIN; kind++) {
        if (kind == KIND_FMA && !have_fma()) {
            printf("%-6s (this CPU has no AVX2 and FMA: not run)\n", kind_names[kind]);
            continue;
        }
        double base = 0; /* the first point's time: every point does the same work per thread */
        for (int p = 0; p < count; p++) {
            run_times s = median_run(kind, points[p], NULL, repeat);
            if (p == 0)
                base = s.median;
            printf("%-6s %8d %12.3f %10.3f-%-11.3f %10.0f%%\n", kind_names[kind], points[p], s.median, s.lo, s.hi,
                   100 * base / s.median);
            fflush(stdout);
        }
    }
    if (want_pairs && have_fma())
        pairs(cpus, repeat);
    return 0;
}
