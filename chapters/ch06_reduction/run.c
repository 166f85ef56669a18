/* run.c - see run.h. */
#include "run.h"

#include "../../common/measure.h"

#include <stdio.h>

int gpu_check(gpu_state *g, const cli_spec *spec, size_t n, long device)
{
    if (cuda_check_device_option(spec, device, g->why, sizeof g->why) == 0)
        return 0;
    CUDA_CHECK(cudaSetDevice((int)device));
    cuda_describe_device((int)device, &g->info);
    g->ctx.scratch_bytes = reduce_stage_scratch_bytes(n);
    size_t need = n * sizeof(int) + g->ctx.scratch_bytes + 2 * REDUCE_CEILING_BYTES + (64 << 20), free_b, total_b;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (need > free_b)
        cli_usage_error(spec, "--n %zu needs %.2f GiB of device memory; %s has %.2f GiB free", n,
                        need / 1073741824.0, g->info.name, free_b / 1073741824.0);
    return 1;
}

int gpu_setup(gpu_state *g, const cli_spec *spec, const cli_options *opt, const int *in, size_t n, int found)
{
    if (!cuda_open_device(spec, found, opt->device, opt->quiet, &g->info)) {
        cuda_say_skipped(spec->program, g->why, cli_selected_where(spec, opt, STAGE_GPU), opt->quiet);
        return 0;
    }
    CUDA_CHECK(cudaMalloc((void **)&g->d_in, n ? n * sizeof(int) : sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&g->d_sum, sizeof(long long)));
    CUDA_CHECK(cudaMalloc(&g->ctx.scratch, g->ctx.scratch_bytes ? g->ctx.scratch_bytes : 1));
    CUDA_CHECK(cudaMemcpy(g->d_in, in, n * sizeof(int), cudaMemcpyHostToDevice));
    if (g->ceilings) /* over buffers of REDUCE_CEILING_BYTES: reduce.h says why */
        g->ceil = gpu_memory_ceilings_measure(spec->program, g->d_in, n * sizeof(int), REDUCE_CEILING_BYTES,
                                              g->info.peak_bw_gbs, opt->quiet);
    return 1;
}

static void poison_sum(void *context)
{
    run *r = context;
    r->got = 0x5A5A5A5A;
    if (r->info->where == STAGE_GPU)
        CUDA_CHECK(cudaMemset(r->g->d_sum, 0xA5, sizeof(long long)));
}

static void run_stage(void *context)
{
    run *r = context;
    if (r->info->where == STAGE_GPU)
        r->stage_run(r->g->d_in, r->n, r->g->d_sum, &r->g->ctx);
    else
        r->stage_run(r->in, r->n, &r->got, &r->cpu);
}

static int check_sum(void *context, char *note, size_t size)
{
    run *r = context;
    if (r->info->where == STAGE_GPU) {
        CUDA_CHECK(cudaDeviceSynchronize()); /* errors inside the kernel surface here */
        CUDA_CHECK(cudaMemcpy(&r->got, r->g->d_sum, sizeof r->got, cudaMemcpyDeviceToHost));
    }
    if (r->got != r->expected)
        snprintf(note, size, "wrong sum: %lld, not %lld", r->got, r->expected);
    return r->got == r->expected;
}

/* The host's read ceiling's kernel, one pass over the same input: the ruler
 * a CPU stage's runs take turns with; returns the bytes its threads counted. */
static double read_ceiling_pass(void *context)
{
    run *r = context;
    return (double)cpu_read_ceiling_pass(r->host, r->in, r->n * sizeof(int), NULL);
}

void run_measure(report *rep, run *r, int repeat)
{
    int gpu = r->info->where == STAGE_GPU, ruled = !gpu && r->host->rate > 0;
    measure_result m;
    measure_stage(&(measure_plan){.name = r->info->name, .reset = poison_sum, .run = run_stage, .check = check_sum, .context = r,
                                  .timer = gpu ? cuda_time_ms : NULL, .repeat = repeat ? repeat : gpu ? 20 : CPU_STAGE_REPEAT,
                                  .ruler = ruled ? read_ceiling_pass : NULL,
                                  .ruler_work = ruled ? (double)(r->n * sizeof(int)) : 0}, &m);
    double gbs = r->n * sizeof(int) / (m.times.median * 1e-3) * 1e-9;
    report_row *row = report_measured(rep, r->info->name, gpu ? REPORT_ON_GPU : r->cpu.threads, &m, gbs, "GB/s",
                                      gpu ? r->g->info.name : host_cpu_name());
    if (gpu && r->g->ceilings)
        gpu_memory_ceilings_note(row, gbs, &r->g->ceil);
    if (ruled)
        report_note(row, "%s%.1f%% of the host's read ceiling (%.1f%% of its kernel timed as a stage; %.1f%% "
                    "(%.1f-%.1f) of its kernel's passes taken in turn with this stage's)", row->note[0] ? "; " : "",
                    100 * gbs / r->host->rate, 100 * gbs / r->host->one_pass, 100 * m.share.median,
                    100 * m.share.lo, 100 * m.share.hi);
}
