/* host_record - what the host is, beside every CPU result: its CPU model,
 * which vector instruction sets it has (from /proc/cpuinfo's flags), and a
 * STREAM-style triad's memory bandwidth on 1 thread and on every core.
 *
 *   build/host_record            (make host-record; make bench runs it too)
 *
 * Triad: a[i] = b[i] + s * c[i] over three arrays of doubles, each far larger
 * than any last-level cache (up to 1 GiB each; less when the machine has less
 * memory available, which the output says). Bytes counted per element: 24
 * (b and c read, a written), as STREAM counts them; a write-allocating cache
 * also reads a, so the wire moves up to 32: the rate is a lower bound on what
 * the memory delivered. Best of 5 passes after a first that touches every
 * page; each thread owns a contiguous block (first touch places its pages).
 */
#define _GNU_SOURCE
#include "../common/report.h"
#include "../common/timer.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PASSES 5
#define MAX_THREADS 512

static const char *isa_flags[] = {"sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512_bf16",
                                  "amx_tile", NULL};

typedef struct {
    double *a, *b, *c;
    size_t begin, end;
    int touch;
    pthread_barrier_t *start;
} part;

static void *triad(void *arg)
{
    part *p = arg;
    pthread_barrier_wait(p->start);
    for (size_t i = p->begin; i < p->end; i++) {
        if (p->touch) {
            p->b[i] = 1.0, p->c[i] = 2.0;
        }
        p->a[i] = p->b[i] + 3.0 * p->c[i];
    }
    return NULL;
}

/* One pass over n elements on `threads` threads; seconds. */
static double pass(double *a, double *b, double *c, size_t n, int threads, int touch)
{
    pthread_t tid[MAX_THREADS];
    part parts[MAX_THREADS];
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)threads + 1);
    for (int t = 0; t < threads; t++) {
        parts[t] = (part){a, b, c, n * t / threads, n * (t + 1) / threads, touch, &start};
        if (pthread_create(&tid[t], NULL, triad, &parts[t]) != 0) {
            fprintf(stderr, "host_record: cannot start thread %d\n", t);
            exit(1);
        }
    }
    pthread_barrier_wait(&start);
    double t0 = now_seconds();
    for (int t = 0; t < threads; t++)
        pthread_join(tid[t], NULL);
    double s = now_seconds() - t0;
    pthread_barrier_destroy(&start);
    return s;
}

static double best_gbs(size_t n, int threads)
{
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c), best = 0;
    if (!a || !b || !c) {
        fprintf(stderr, "host_record: out of memory (3 x %zu doubles)\n", n);
        exit(1);
    }
    pass(a, b, c, n, threads, 1); /* first touch: pages placed by the threads that use them */
    for (int r = 0; r < PASSES; r++) {
        double gbs = 24.0 * (double)n / pass(a, b, c, n, threads, 0) * 1e-9;
        best = gbs > best ? gbs : best;
    }
    if (a[n / 2] != 7.0) { /* 1 + 3 * 2: the work was done */
        fprintf(stderr, "host_record: triad result %g, not 7\n", a[n / 2]);
        exit(1);
    }
    free(a), free(b), free(c);
    return best;
}

int main(void)
{
    char flags[8192] = "", line[8192];
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "flags", 5) == 0) {
            snprintf(flags, sizeof flags, " %s", strchr(line, ':') ? strchr(line, ':') + 1 : "");
            break;
        }
    if (f)
        fclose(f);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = cores < 1 ? 1 : cores > MAX_THREADS ? MAX_THREADS : (int)cores;
    size_t n = (size_t)1 << 27; /* 1 GiB per array */
    unsigned long long avail = host_available_bytes();
    while (avail && n > ((size_t)1 << 20) && 3 * n * sizeof(double) > avail / 2)
        n /= 2;
    printf("cpu: %s\nlogical cpus online: %d\nisa:", host_cpu_name(), threads);
    for (int i = 0; isa_flags[i]; i++) {
        char word[64];
        snprintf(word, sizeof word, " %s ", isa_flags[i]);
        size_t len = strlen(flags);
        if (len && flags[len - 1] == '\n')
            flags[len - 1] = ' ';
        printf(" %s%s", isa_flags[i], strstr(flags, word) ? "" : " (no)");
    }
    printf("\ntriad a = b + s*c, 3 arrays of %zu MiB, 24 B per element, best of %d:\n", n * sizeof(double) >> 20, PASSES);
    printf("  1 thread:   %.1f GB/s\n", best_gbs(n, 1));
    printf("  %d threads: %.1f GB/s\n", threads, best_gbs(n, threads));
    if (fflush(stdout) != 0 || ferror(stdout)) { /* make host-record keeps the record only on success */
        fprintf(stderr, "host_record: the record could not be written\n");
        return 1;
    }
    return 0;
}
