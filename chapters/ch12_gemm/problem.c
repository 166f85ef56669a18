/* problem.c - see problem.h.
 *
 * The bound. For an inner product of k terms computed in floating point with
 * unit roundoff u, in any order of additions (a loop, a tree, blocks, FMA or
 * not), |fl(x.y) - x.y| <= gamma_k sum |x_i||y_i|, gamma_k = k u / (1 - k u)
 * (Higham, Accuracy and Stability of Numerical Algorithms, 3.1). So an
 * element's error scaled by sum_k |a_ik||b_kj| is held to gamma_k:
 *   - FP32 on the CPU and the CUDA cores: u = 2^-24 (round to nearest);
 *   - the tensor cores: their products are exact, but their FP32 sums are not
 *     rounded to nearest (they truncate: Fasi et al., PeerJ CS 2021), so
 *     u = 2^-23 there;
 *   - bf16 inputs: a bf16 stage multiplies the bf16 values, so it is checked
 *     against the reference of those values (ref16), with the tensor cores'
 *     gamma_k alone: a stage that drops part of the sum fails as surely as
 *     an FP32 one would. What the rounding of the inputs costs, against the
 *     FP32 inputs' product, is measured (vs_fp32) and said, not bounded;
 *   - TF32 (the library's row): its rounding of the FP32 inputs is its own,
 *     so it is checked against ref32 with each input's relative error up to
 *     2^-10 added: (1 + 2^-10)^2 - 1 + gamma_k (1 + 2^-10)^2.
 * The bounds are worst cases: observed errors are smaller by about sqrt(k).
 */
#include "problem.h"

#include "../../common/cli.h"
#include "../../common/team.h"

#include <immintrin.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEED 0x5EED12ULL
#define PAD_POISON 0x7FC0DEADu /* a NaN the padding of C holds before a run, and must still hold after */
#define BODY_POISON 0xFFFFFFFFu /* a NaN every element holds before a run */

static uint64_t next_random(uint64_t *state) /* xorshift64* */
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 0x2545F4914F6CDD1DULL;
}

/* Uniform in [-1, 1), never 0: 24 random bits, odd, so the value is j/2^23 - 1 for an odd j. */
static float random_value(uint64_t *state)
{
    uint32_t bits = (uint32_t)(next_random(state) >> 40) | 1u;
    return (float)((double)bits / 8388608.0 - 1.0);
}

static float float_of_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t bits_of_float(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

uint16_t bf16_from_float(float x)
{
    uint32_t u = bits_of_float(x);
    if (isnan(x))
        return 0x7FC0;
    u += 0x7FFFu + ((u >> 16) & 1u); /* round to nearest, ties to even */
    return (uint16_t)(u >> 16);
}

float float_from_bf16(uint16_t h)
{
    return float_of_bits((uint32_t)h << 16);
}

static void fill(float *x, int rows, int cols, int ld, uint64_t *state)
{
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < ld; c++)
            x[(size_t)r * ld + c] = c < cols ? random_value(state) : NAN;
}

/* One reference: ref = a b and abs = |a| |b| in double, a and b given by
 * their FP32 values (a16/b16 NULL) or bf16 ones. Rows are dealt to the
 * threads in blocks; within one, B is read a block of k at a time, so each
 * block of B stays in cache across the block's rows. */
typedef void add_row_fn(double a, const double *b, const double *babs, double *ref, double *abs, int n);

/* ref += a b and abs += |a| |b| along a row: plain C (SSE2 at -O2), or with
 * AVX2 and FMA where the CPU has them, four times the rate. */
static void add_row(double a, const double *restrict b, const double *restrict babs, double *restrict ref,
                    double *restrict abs, int n)
{
    double aa = fabs(a);
    for (int j = 0; j < n; j++) {
        ref[j] += a * b[j];
        abs[j] += aa * babs[j];
    }
}

__attribute__((target("avx2,fma"))) static void add_row_avx2(double a, const double *restrict b,
                                                              const double *restrict babs, double *restrict ref,
                                                              double *restrict abs, int n)
{
    __m256d va = _mm256_set1_pd(a), vaa = _mm256_set1_pd(fabs(a));
    int j = 0;
    for (; j + 4 <= n; j += 4) {
        _mm256_storeu_pd(ref + j, _mm256_fmadd_pd(va, _mm256_loadu_pd(b + j), _mm256_loadu_pd(ref + j)));
        _mm256_storeu_pd(abs + j, _mm256_fmadd_pd(vaa, _mm256_loadu_pd(babs + j), _mm256_loadu_pd(abs + j)));
    }
    add_row(a, b + j, babs + j, ref + j, abs + j, n - j);
}

typedef struct {
    const problem *p;
    const float *a, *b;
    double *ref, *abs;
    add_row_fn *add_row;
} reference_job;

#define REF_ROWS 16
#define REF_DEPTH 128

static void reference_rows(const reference_job *job, int i0, int i1, double *brow, double *babs)
{
    const gemm_shape *s = &job->p->s;
    int n = s->n;
    for (int k0 = 0; k0 < s->k; k0 += REF_DEPTH)
        for (int k = k0; k < s->k && k < k0 + REF_DEPTH; k++) {
            for (int j = 0; j < n; j++) {
                brow[j] = job->b[(size_t)k * s->ldb + j];
                babs[j] = fabs(brow[j]);
            }
            for (int i = i0; i < i1; i++)
                job->add_row(job->a[(size_t)i * s->lda + k], brow, babs, job->ref + (size_t)i * n,
                             job->abs + (size_t)i * n, n);
        }
}

static void reference_worker(void *context, int t, int threads)
{
    const reference_job *job = context;
    int m = job->p->s.m, n = job->p->s.n;
    double *brow = cli_alloc(2 * (size_t)n * sizeof(double), "a row of the reference's B");
    for (int i0 = t * REF_ROWS; i0 < m; i0 += threads * REF_ROWS)
        reference_rows(job, i0, i0 + REF_ROWS < m ? i0 + REF_ROWS : m, brow, brow + n);
    free(brow);
}

static void reference(const problem *p, const float *a, const float *b, double **ref, double **abs)
{
    size_t elements = (size_t)p->s.m * p->s.n;
    *ref = calloc(elements, sizeof(double));
    *abs = calloc(elements, sizeof(double));
    if (!*ref || !*abs) {
        fprintf(stderr, "%s:%d: cannot allocate the reference (%zu MiB)\n", __FILE__, __LINE__, elements >> 16);
        exit(1);
    }
    int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    reference_job job = {p, a, b, *ref, *abs, avx2 ? add_row_avx2 : add_row};
    int threads = p->threads < 1 ? 1 : p->threads > TEAM_MAX ? TEAM_MAX : p->threads;
    team_run(threads, reference_worker, &job);
}

void problem_init(problem *p, int m, int n, int k, int threads)
{
    *p = (problem){.s = {m, n, k, gemm_ld(k), gemm_ld(n), gemm_ld(n)}, .threads = threads};
    uint64_t state = SEED;
    p->a = cli_alloc((size_t)m * p->s.lda * sizeof(float), "A");
    p->b = cli_alloc((size_t)k * p->s.ldb * sizeof(float), "B");
    p->c = cli_alloc((size_t)m * p->s.ldc * sizeof(float), "C");
    fill(p->a, m, k, p->s.lda, &state);
    fill(p->b, k, n, p->s.ldb, &state);
    reference(p, p->a, p->b, &p->ref32, &p->abs32);
}

/* The bf16 copies, and the reference of their values, widened back to FP32
 * (exactly: bf16 is FP32's upper half). */
void problem_want_bf16(problem *p)
{
    if (p->a16)
        return;
    size_t na = (size_t)p->s.m * p->s.lda, nb = (size_t)p->s.k * p->s.ldb;
    p->a16 = cli_alloc(na * sizeof(uint16_t), "A in bf16");
    p->b16 = cli_alloc(nb * sizeof(uint16_t), "B in bf16");
    float *wide_a = cli_alloc(na * sizeof(float), "A's bf16 values"), *wide_b = cli_alloc(nb * sizeof(float), "B's");
    for (size_t i = 0; i < na; i++)
        wide_a[i] = float_from_bf16(p->a16[i] = bf16_from_float(p->a[i]));
    for (size_t i = 0; i < nb; i++)
        wide_b[i] = float_from_bf16(p->b16[i] = bf16_from_float(p->b[i]));
    reference(p, wide_a, wide_b, &p->ref16, &p->abs16);
    free(wide_a);
    free(wide_b);
}

void problem_free(problem *p)
{
    free(p->a), free(p->b), free(p->c), free(p->a16), free(p->b16);
    free(p->ref32), free(p->abs32), free(p->ref16), free(p->abs16);
    *p = (problem){0};
}

void problem_poison(float *c, const gemm_shape *s)
{
    for (int i = 0; i < s->m; i++)
        for (int j = 0; j < s->ldc; j++)
            c[(size_t)i * s->ldc + j] = float_of_bits(j < s->n ? BODY_POISON : PAD_POISON);
}

static double gamma_k(int k, double u)
{
    return k * u / (1 - k * u);
}

double problem_bound(int k, int input, int tensor_cores)
{
    double u = tensor_cores ? ldexp(1, -23) : ldexp(1, -24), g = gamma_k(k, u);
    if (input != INPUT_TF32)
        return g;
    double e = ldexp(1, -10), in = (1 + e) * (1 + e);
    return in - 1 + g * in;
}

/* The largest scaled error of c against ref over the whole output. */
static double worst_error(const problem *p, const double *ref, const double *abs)
{
    double worst = 0;
    for (int i = 0; i < p->s.m; i++)
        for (int j = 0; j < p->s.n; j++) {
            size_t e = (size_t)i * p->s.n + j;
            double err = fabs(p->c[(size_t)i * p->s.ldc + j] - ref[e]) / (abs[e] > 0 ? abs[e] : 1);
            worst = err > worst ? err : worst;
        }
    return worst;
}

/* The first element not finite, or of the padding changed; 1 if none. */
static int finite_and_padding_kept(const problem *p, char *note, size_t size)
{
    for (int i = 0; i < p->s.m; i++)
        for (int j = 0; j < p->s.ldc; j++) {
            float v = p->c[(size_t)i * p->s.ldc + j];
            if (j >= p->s.n && bits_of_float(v) != PAD_POISON) {
                snprintf(note, size, "C's padding written at row %d, column %d (n = %d)", i, j, p->s.n);
                return 0;
            }
            if (j < p->s.n && !isfinite(v)) {
                snprintf(note, size, "C[%d][%d] is %g: not written, or NaN from the padding or the sum", i, j, v);
                return 0;
            }
        }
    return 1;
}

int problem_check(const problem *p, int input, int tensor_cores, char *note, size_t size, double *worst,
                  double *vs_fp32)
{
    if (!finite_and_padding_kept(p, note, size))
        return 0;
    int bf16 = input == INPUT_BF16;
    double bound = problem_bound(p->s.k, input, tensor_cores);
    *worst = worst_error(p, bf16 ? p->ref16 : p->ref32, bf16 ? p->abs16 : p->abs32);
    *vs_fp32 = bf16 ? worst_error(p, p->ref32, p->abs32) : *worst;
    if (*worst > bound) {
        snprintf(note, size, "error %.3g of sum|a||b| exceeds the bound %.3g", *worst, bound);
        return 0;
    }
    return 1;
}
