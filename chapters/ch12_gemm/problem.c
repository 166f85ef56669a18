/* problem.c - ch12, matrix multiply, C = A x B: from a triple loop on the
 * CPU to Hopper's tensor cores, against OpenBLAS and cuBLAS. The problem
 * (problem.h: the inputs, the FP64 reference, the check) and its program
 * (common/program.h: the CPU stages in one table, at --cpu-size, the GPU
 * stages in another).
 *
 *   make ch12 && ./ch12                         # 4096^3 on the GPU, 1024^3 on the CPU
 *   ./ch12 --m 4097 --n 33 --k 31 --stage gpu-warptile
 *
 * The lesson is data reuse: a multiply-add needs two operands, and a stage
 * climbs by keeping them close (registers, shared memory, L1/L2) so that
 * each byte brought from memory feeds more flops. Every stage computes the
 * same product of the same fixed-seed inputs and is checked against an FP64
 * reference on the CPU, element by element, within a bound stated per
 * precision (below). Each is measured as every chapter's are
 * (common/measure.h): output poisoned, a checked warm-up, timed runs (CUDA
 * events on the GPU), a checked run after, median and spread. The rate is
 * 2 m n k flops over the median time; rows compare only within one
 * precision (FP32, TF32, bf16 in with FP32 sums: the work= tags), with the
 * library of that precision measured in the same table. Each row's note
 * gives its error, its share of the FMA ceiling measured in this run (FP32
 * rows; the tensor cores have no ceiling of the course's own yet), and its
 * share of its precision's library. The CPU stages run at --cpu-size (the
 * naive loop would take minutes at 4096). Without a CUDA device the CPU
 * stages run and the exit status is 3.
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
#include "stages.h"

#include "../../common/cli.h"
#include "../../common/cpu_ceiling.h"
#include "../../common/gpu/ceiling.h"
#include "../../common/measure.h"
#include "../../common/program_cuda.h"
#include "../../common/report.h"
#include "../../common/team.h"

#include <cublas_v2.h>
#include <immintrin.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIZE_MAX_SIDE 16384 /* the FP64 reference grows as m n k: 16384^3 takes minutes on 16 cores */

static long m_opt = 4096, k_opt = 4096, cpu_size = 1024;
static const char *ceiling = "yes";
static const cli_option options[] = {
    {"m", "M", "rows of A and C (default 4096)", .min = 1, .max = SIZE_MAX_SIDE, .number = &m_opt},
    {"k", "K", "columns of A, rows of B (default 4096)", .min = 1, .max = SIZE_MAX_SIDE, .number = &k_opt},
    {"cpu-size", "S", "the CPU stages' m, n and k are at most S (default 1024)", .min = 1, .max = SIZE_MAX_SIDE,
     .number = &cpu_size},
    {"ceiling", "yes|no", "measure the FMA ceilings, the host's and the GPU's (default yes; no: no % of them)",
     .text = &ceiling, .choices = cli_yes_no, .choice_count = 2},
};

static const cli_spec spec = {
    .program = "ch12",
    .summary = "matrix multiply: CPU loops to packed micro-kernels, CUDA cores to tensor cores, against "
               "OpenBLAS and cuBLAS",
    .accepts = CLI_N | CLI_THREADS | CLI_REPEAT | CLI_DEVICE | CLI_STAGE | CLI_CSV | CLI_QUIET,
    CLI_STAGE_TABLE(stages),
    CLI_OPTION_TABLE(options),
    .notes = "C = A x B, row-major, A m x k, B k x n: --m, --n, --k (default 4096 each, at most 16384).\n"
             "The CPU stages run at min(m, S) x min(n, S) x min(k, S), S = --cpu-size (default 1024).\n"
             "--repeat: timed runs per stage (default 20 on the GPU, 5 on the CPU). Rates are GFLOP/s\n"
             "of 2 m n k flops. Without a CUDA device the CPU stages run and the exit status is 3.",
};

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

/* ---- The program: the CPU stages' table, then the GPU stages' ---- */

enum { CPU_TABLE, GPU_TABLE };

/* The GPU's copies of the inputs, its output and the poisoned image of it. */
typedef struct {
    float *a, *b, *c, *poison;
    uint16_t *a16, *b16;
} device_buffers;

/* The table being run: its problem, the ceilings its rows are held to, and
 * which stage each of its measured rows is (the yardsticks' notes). */
typedef struct {
    problem p;
    cpu_ceiling one, all; /* the CPU table's: one core, every core */
    gpu_ceiling fma;      /* the GPU table's */
    device_buffers d;
    cublasHandle_t cublas;
    size_t stage_of_row[STAGE_COUNT], rows;
} table_state;
static table_state table;

/* One stage's run as the measure loop sees it, on the table's problem. */
typedef struct {
    const stage *s;
    int threads;
    gemm_gpu_args gpu;     /* a GPU stage's arguments (device pointers) */
    double worst, vs_fp32; /* the last check's errors */
} stage_run;

static size_t c_bytes(void)
{
    return (size_t)table.p.s.m * table.p.s.ldc * sizeof(float);
}

/* C poisoned: on the host, or on the GPU copied from the poisoned image. */
static void poison_output(void *context)
{
    stage_run *r = context;
    if (r->s->gpu)
        CUDA_CHECK(cudaMemcpy(r->gpu.c, table.d.poison, c_bytes(), cudaMemcpyDeviceToDevice));
    else
        problem_poison(table.p.c, &table.p.s);
}

static void run_stage(void *context)
{
    stage_run *r = context;
    if (r->s->gpu)
        r->s->gpu(&r->gpu);
    else
        r->s->cpu(&table.p.s, table.p.a, table.p.b, table.p.c, r->threads);
}

static int check_output(void *context, char *note, size_t size)
{
    stage_run *r = context;
    if (r->s->gpu) {
        CUDA_CHECK(cudaDeviceSynchronize()); /* a fault inside the kernel surfaces here */
        CUDA_CHECK(cudaMemcpy(table.p.c, r->gpu.c, c_bytes(), cudaMemcpyDeviceToHost));
    }
    return problem_check(&table.p, r->s->input, r->s->tensor_cores, note, size, &r->worst, &r->vs_fp32);
}

static double flops(const gemm_shape *s)
{
    return 2.0 * s->m * s->n * s->k;
}

/* The stage measured, its row added with its error noted. measure_stage and
 * report_measured, not program_measure: tests/test_ch12.cu links this file
 * without common/program.c (the suite has a main() of its own). */
static report_row *measure_row(program_run *r, stage_run *run)
{
    const stage *s = run->s;
    int repeat = r->opt.repeat ? (int)r->opt.repeat : s->gpu ? 20 : CPU_STAGE_REPEAT;
    measure_result m;
    measure_stage(&(measure_plan){.name = s->info.name, .reset = poison_output, .run = run_stage,
                                  .check = check_output, .context = run, .timer = s->gpu ? cuda_time_ms : NULL,
                                  .repeat = repeat}, &m);
    double gflops = flops(&table.p.s) / (m.times.median * 1e-3) * 1e-9;
    report_row *row = report_measured(r->rep, s->info.name, s->gpu ? REPORT_ON_GPU : run->threads, &m, gflops,
                                      "GFLOP/s", s->gpu ? program_gpu.name : host_cpu_name());
    if (m.ok == REPORT_OK) {
        report_note(row, "%serror %.2g of sum|a||b| (bound %.2g)", row->note[0] ? "; " : "", run->worst,
                    problem_bound(table.p.s.k, s->input, s->tensor_cores));
        if (s->input == INPUT_BF16)
            report_note(row, ", %.2g against the FP32 inputs' product", run->vs_fp32);
    }
    return row;
}

/* Each row's share of its precision's library, measured in the same table. */
static void note_yardsticks(report *rep)
{
    for (int y = 0; y < rep->count; y++) {
        const stage *ys = &stages[table.stage_of_row[y]];
        if (!ys->yardstick || rep->rows[y].ok != REPORT_OK)
            continue;
        for (int i = 0; i < rep->count; i++) {
            const stage *s = &stages[table.stage_of_row[i]];
            if (i != y && s->input == ys->input && rep->rows[i].ok == REPORT_OK)
                report_note(&rep->rows[i], "; %.1f%% of %s", 100 * rep->rows[i].value / rep->rows[y].value,
                            ys->info.name);
        }
    }
}

/* A ceiling's row (check n/a): its rate, and the time the table's work
 * would take at it. */
static void ceiling_row(report *rep, const char *name, int threads, double gflops, const char *device,
                        const char *note)
{
    report_add(rep, (report_entry){.stage = name, .threads = threads, .ms = flops(&table.p.s) / (gflops * 1e9) * 1e3,
                                   .value = gflops, .unit = "GFLOP/s", .ok = REPORT_NO_CHECK, .device = device,
                                   .note = note});
}

static int ceilings_wanted(void)
{
    return strcmp(ceiling, "yes") == 0;
}

static int smaller(long a, long b)
{
    return (int)(a < b ? a : b);
}

/* A table's m, n and k: the CPU's at most --cpu-size on each side. */
static gemm_shape table_shape(const program_run *r, int t)
{
    long cap = t == CPU_TABLE ? cpu_size : SIZE_MAX_SIDE;
    return (gemm_shape){.m = smaller(m_opt, cap), .n = smaller(r->opt.n, cap), .k = smaller(k_opt, cap)};
}

/* Host memory for one table: the inputs, C, and the references (two of m x n doubles each). */
static double host_bytes(long m, long n, long k)
{
    return 4.0 * (m * gemm_ld((int)k) + k * gemm_ld((int)n) + m * gemm_ld((int)n)) * 1.5 + 4 * 8.0 * m * n;
}

static void validate(program_run *r)
{
    if (r->opt.n < 1 || r->opt.n > SIZE_MAX_SIDE)
        cli_usage_error(&spec, "--n %lld: want 1 to %d", r->opt.n, SIZE_MAX_SIDE);
    char needs[80];
    snprintf(needs, sizeof needs, "%ldx%lldx%ld", m_opt, r->opt.n, k_opt);
    cli_check_host_memory(&spec, (unsigned long long)host_bytes(m_opt, r->opt.n, k_opt), needs);
}

static int table_of(const program_run *r, size_t i)
{
    (void)r;
    return stages[i].info.where == STAGE_CPU ? CPU_TABLE : GPU_TABLE;
}

static void workload(program_run *r, int t, char *buf, size_t size)
{
    gemm_shape s = table_shape(r, t);
    snprintf(buf, size, "m=%d n=%d k=%d", s.m, s.n, s.k);
}

static int supported(const stage *s, char *why, size_t size)
{
    return !s->supported || s->supported(why, size);
}

static int wants_bf16(const program_run *r)
{
    char why[256];
    for (size_t i = 0; i < STAGE_COUNT; i++)
        if (stages[i].input == INPUT_BF16 && table_of(r, i) == GPU_TABLE && cli_stage_selected(&r->opt, i) &&
            supported(&stages[i], why, sizeof why))
            return 1;
    return 0;
}

static void say_reference(const program_run *r, const char *what)
{
    const gemm_shape *s = &table.p.s;
    if (!r->opt.quiet)
        fprintf(stderr, "%s: the FP64 reference of %s, %dx%dx%d, on %d threads\n", spec.program, what, s->m, s->n,
                s->k, table.p.threads);
}

static void *device_copy(const void *host, size_t bytes)
{
    void *d;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    CUDA_CHECK(cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice));
    return d;
}

static void device_begin(device_buffers *d, problem *p, int want_bf16)
{
    size_t na = (size_t)p->s.m * p->s.lda, nb = (size_t)p->s.k * p->s.ldb, nc = (size_t)p->s.m * p->s.ldc;
    *d = (device_buffers){.a = device_copy(p->a, na * sizeof(float)), .b = device_copy(p->b, nb * sizeof(float))};
    problem_poison(p->c, &p->s);
    d->poison = device_copy(p->c, nc * sizeof(float));
    CUDA_CHECK(cudaMalloc((void **)&d->c, nc * sizeof(float)));
    if (want_bf16) {
        d->a16 = device_copy(p->a16, na * sizeof(uint16_t));
        d->b16 = device_copy(p->b16, nb * sizeof(uint16_t));
    }
}

static void device_end(device_buffers *d)
{
    void *all[] = {d->a, d->b, d->c, d->poison, d->a16, d->b16};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        CUDA_CHECK(cudaFree(all[i]));
}

/* A table's problem at its shape; the GPU's also on the device, with the
 * bf16 copies where a bf16 stage runs; and the ceilings, unless --ceiling no. */
static void begin(program_run *r)
{
    gemm_shape s = table_shape(r, r->table);
    table = (table_state){0};
    problem_init(&table.p, s.m, s.n, s.k, (int)r->opt.threads);
    if (r->table == CPU_TABLE) {
        if (ceilings_wanted()) {
            table.one = cpu_fma_ceiling(1, 5);
            table.all = cpu_fma_ceiling((int)r->opt.threads, 5);
        }
        return;
    }
    say_reference(r, "the FP32 inputs");
    int bf16 = wants_bf16(r);
    if (bf16) {
        say_reference(r, "their bf16 roundings");
        problem_want_bf16(&table.p);
    }
    device_begin(&table.d, &table.p, bf16);
    CUBLAS_CHECK(cublasCreate(&table.cublas));
    if (ceilings_wanted())
        table.fma = gpu_fma_ceiling();
}

/* The row's share of the FMA ceiling its stage runs against: the host's on
 * its threads, or the GPU's FP32 one (not the tensor cores'). */
static void note_ceiling(report_row *row, const stage *s)
{
    if (row->ok != REPORT_OK)
        return;
    if (s->info.where == STAGE_CPU) {
        const cpu_ceiling *c = s->info.all_cores ? &table.all : &table.one;
        if (c->rate > 0)
            report_note(row, "; %.1f%% of the host's FMA ceiling on %d thread%s", 100 * row->value / c->rate,
                        c->threads, c->threads > 1 ? "s" : "");
    } else if (table.fma.rate > 0 && !s->tensor_cores) {
        report_note(row, "; %.1f%% of the FP32 FMA ceiling", 100 * row->value / table.fma.rate);
    }
}

static int measure(program_run *r, size_t i)
{
    const stage *s = &stages[i];
    char why[256] = "";
    if (!supported(s, why, sizeof why)) {
        if (!r->opt.quiet)
            fprintf(stderr, "%s: %s skipped: %s\n", spec.program, s->info.name, why);
        return 0;
    }
    stage_run run = {.s = s, .threads = s->info.all_cores ? (int)r->opt.threads : 1,
                     .gpu = {.s = table.p.s, .a = table.d.a, .b = table.d.b, .a16 = table.d.a16, .b16 = table.d.b16,
                             .c = table.d.c, .cublas = table.cublas, .sms = program_gpu.sms}};
    report_row *row = measure_row(r, &run);
    if (s->note)
        report_note(row, "; %s", s->note());
    note_ceiling(row, s);
    table.stage_of_row[table.rows++] = i;
    return 0;
}

/* The yardsticks' notes, the ceilings' rows; the table's problem freed. */
static void end(program_run *r)
{
    note_yardsticks(r->rep);
    if (r->table == CPU_TABLE) {
        char note[160];
        snprintf(note, sizeof note, "measured: independent FMA chains (%s), no memory, best of 5 runs of at "
                 "least %.0f ms", table.one.isa ? table.one.isa : "-", CPU_CEILING_MIN_MS);
        if (table.one.rate > 0)
            ceiling_row(r->rep, "ceiling-cpu-fma", 1, table.one.rate, host_cpu_name(), note);
        if (table.all.rate > 0)
            ceiling_row(r->rep, "ceiling-cpu-fma", table.all.threads, table.all.rate, host_cpu_name(), note);
    } else {
        const gpu_ceiling *c = &table.fma;
        char note[256];
        snprintf(note, sizeof note, "measured: %s, no memory, best of %d runs of %.0f ms; ran at %d MHz on %d SMs",
                 c->config, c->repeats, c->rep_ms, c->ran_mhz, program_gpu.sms);
        if (c->rate > 0)
            ceiling_row(r->rep, "ceiling-fp32-peak", REPORT_ON_GPU, c->rate, program_gpu.name, note);
        CUBLAS_CHECK(cublasDestroy(table.cublas));
        device_end(&table.d);
    }
    problem_free(&table.p);
}

const program chapter_program = {
    .spec = &spec,
    .defaults = {.n = 4096, .repeat = 0, .threads = PROGRAM_ALL_CORES},
    .gpu = PROGRAM_GPU_IF_ANY,
    .device = PROGRAM_CUDA,
    .tables = 2,
    .table_of = table_of,
    .validate = validate,
    .workload = workload,
    .begin = begin,
    .stage = measure,
    .end = end,
};
