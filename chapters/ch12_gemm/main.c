/* ch12 - matrix multiply, C = A x B: from a triple loop on the CPU to
 * Hopper's tensor cores, against OpenBLAS and cuBLAS.
 *
 *   make ch12 && ./ch12                         # 4096^3 on the GPU, 1024^3 on the CPU
 *   ./ch12 --m 4097 --n 33 --k 31 --stage gpu-warptile
 *
 * The lesson is data reuse: a multiply-add needs two operands, and a stage
 * climbs by keeping them close (registers, shared memory, L1/L2) so that
 * each byte brought from memory feeds more flops. Every stage computes the
 * same product of the same fixed-seed inputs and is checked against an FP64
 * reference on the CPU, element by element, within a bound stated per
 * precision (problem.c derives it). Each is measured as every chapter's
 * are (common/measure.h): output poisoned, a checked warm-up, timed runs
 * (CUDA events on the GPU), a checked run after, median and spread. The
 * rate is 2 m n k flops over the median time; rows compare only within one
 * precision (FP32, TF32, bf16 in with FP32 sums: the work= tags), with the
 * library of that precision measured in the same table. The CPU stages run
 * at --cpu-size (the naive loop would take minutes at 4096).
 * Without a CUDA device the CPU stages run and the exit status is 3.
 */
#include "rows.h"
#include "stages.h"

#include "../../common/cuda_util.h"
#include "../../common/report.h"

#include <stdio.h>
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

static int smaller(long a, long b)
{
    return (int)(a < b ? a : b);
}

/* Host memory for one table: the inputs, C, and the references (two of m x n doubles each). */
static double host_bytes(long m, long n, long k)
{
    return 4.0 * (m * gemm_ld((int)k) + k * gemm_ld((int)n) + m * gemm_ld((int)n)) * 1.5 + 4 * 8.0 * m * n;
}

int main(int argc, char **argv)
{
    cli_options opt = {.n = 4096, .repeat = 0, .threads = cli_online_cpus()};
    cli_parse(&spec, &opt, argc, argv);
    if (opt.n < 1 || opt.n > SIZE_MAX_SIDE)
        cli_usage_error(&spec, "--n %lld: want 1 to %d", opt.n, SIZE_MAX_SIDE);
    rows_plan plan = {.spec = &spec, .opt = &opt, .m = (int)m_opt, .n = (int)opt.n, .k = (int)k_opt,
                      .cpu_m = smaller(m_opt, cpu_size), .cpu_n = smaller(opt.n, cpu_size),
                      .cpu_k = smaller(k_opt, cpu_size), .ceilings = strcmp(ceiling, "yes") == 0};
    char needs[80];
    snprintf(needs, sizeof needs, "%ldx%lldx%ld", m_opt, opt.n, k_opt);
    cli_check_host_memory(&spec, (unsigned long long)host_bytes(m_opt, opt.n, k_opt), needs);
    int want_gpu = cli_selected_where(&spec, &opt, STAGE_GPU) > 0;
    int want_cpu = cli_selected_where(&spec, &opt, STAGE_CPU) > 0, all_ok = 1;
    char why[256]; /* --device K is checked before the CPU stages run: an error comes first */
    int devices = want_gpu ? cuda_check_device_option(&spec, opt.device, why, sizeof why) : 0;
    cli_begin_work(&spec);
    if (want_cpu)
        all_ok &= run_cpu_rows(&plan);
    if (!want_gpu)
        return all_ok ? EXIT_OK : EXIT_CHECK_FAIL;
    if (devices == 0) {
        cuda_say_skipped(spec.program, why, cli_selected_where(&spec, &opt, STAGE_GPU), opt.quiet);
        return all_ok ? EXIT_NO_GPU : EXIT_CHECK_FAIL;
    }
    cuda_require_device(&spec, (int)opt.device);
    all_ok &= run_gpu_rows(&plan);
    return all_ok ? EXIT_OK : EXIT_CHECK_FAIL;
}
