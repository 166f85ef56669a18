/* test_gpu_ceiling.cu - common/gpu/ceiling.cu: the GPU's ceilings.
 *
 * The file is included whole, so its host logic (how long a repetition is,
 * which one counts) is tested on the CPU everywhere, against a stand-in GPU
 * whose pass times the test sets. With a device, each ceiling runs for real
 * and must give a finite, positive rate, from repetitions that each lasted at
 * least GPU_CEILING_MIN_MS, within what the device's clocks allow; without
 * one those tests are counted as skipped. Run with CK_FORK=no.
 */
#include "harness.h"

#include "../common/gpu/ceiling.cu"

#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------- the protocol, on a stand-in GPU */
typedef struct {
    double pass_ms[32];  /* one pass's time at each call (the last one repeats) */
    double rate[32];     /* the rate each call reports (the last one repeats) */
    int calls;
    double rep_ms[32];   /* what each call lasted */
} stand_in;

static gpu_ceiling stand_in_run(void *p, long long passes)
{
    stand_in *g = (stand_in *)p;
    int k = g->calls < 31 ? g->calls : 31;
    gpu_ceiling c = {};
    c.rep_ms = g->pass_ms[k] * (double)passes;
    c.rate = g->rate[k];
    if (g->calls < 32)
        g->rep_ms[g->calls] = c.rep_ms;
    g->calls++;
    return c;
}

static void fill(double *v, double x)
{
    for (int i = 0; i < 32; i++)
        v[i] = x;
}

START_TEST(passes_for_reaches_the_length_and_no_more)
{
    const double pass[] = {0.0007, 0.34, 1.0, 7.3, 49.9, 50.0, 51.0, 1000.0};
    for (size_t i = 0; i < sizeof pass / sizeof pass[0]; i++) {
        long long p = passes_for(pass[i], 1000000);
        double want = GPU_CEILING_MIN_MS * SIZE_MARGIN;
        ck_assert_msg(p >= 1 && (double)p * pass[i] >= want - 1e-9 && (p == 1 || (double)(p - 1) * pass[i] < want),
                      "a pass of %g ms: %lld passes", pass[i], p);
    }
    ck_assert_int_eq(passes_for(0.0, 777), 777);  /* no estimate: the cap */
    ck_assert_int_eq(passes_for(NAN, 777), 777);
    ck_assert_int_eq(passes_for(1e-9, 777), 777); /* capped */
}
END_TEST

/* The estimate 10x too slow: the warm-up's own time sizes the repetitions,
 * so they last GPU_CEILING_MIN_MS x SIZE_MARGIN, not ten times that. */
START_TEST(the_warm_up_corrects_the_estimate)
{
    stand_in g = {};
    fill(g.pass_ms, 1.0);
    fill(g.rate, 5.0);
    gpu_ceiling c = run_long(stand_in_run, &g, 10.0, 1000000, 0, 1);
    ck_assert_int_eq(g.calls, 1 + GPU_CEILING_REPEAT);
    ck_assert_int_eq(c.repeats, GPU_CEILING_REPEAT);
    ck_assert_msg(c.rep_ms >= GPU_CEILING_MIN_MS && c.rep_ms < 2 * GPU_CEILING_MIN_MS, "%g ms", c.rep_ms);
    ck_assert_int_eq(c.passes, (long long)ceil(GPU_CEILING_MIN_MS * SIZE_MARGIN / 1.0));
}
END_TEST

/* The GPU three times faster after the warm-up (its clocks rose): the
 * repetitions come out short, and all of them run again, longer. */
START_TEST(short_repetitions_run_again)
{
    stand_in g = {};
    fill(g.pass_ms, 0.3);
    g.pass_ms[0] = 1.0; /* the warm-up */
    fill(g.rate, 5.0);
    gpu_ceiling c = run_long(stand_in_run, &g, 1.0, 1000000, 0, 1);
    ck_assert_msg(c.rep_ms >= GPU_CEILING_MIN_MS, "the best repetition lasted %g ms", c.rep_ms);
    ck_assert_int_eq(g.calls, 1 + 2 * GPU_CEILING_REPEAT);
    for (int k = g.calls - GPU_CEILING_REPEAT; k < g.calls; k++)
        ck_assert_msg(g.rep_ms[k] >= GPU_CEILING_MIN_MS, "repetition %d lasted %g ms", k, g.rep_ms[k]);
}
END_TEST

/* The best of the timed repetitions counts, never the warm-up: the highest
 * rate, or for a latency the lowest. */
START_TEST(the_best_timed_repetition_counts)
{
    const double rates[] = {999, 3, 7, 5, 1, 4}; /* the warm-up first */
    stand_in g = {};
    fill(g.pass_ms, 1.0);
    for (int i = 0; i < 32; i++)
        g.rate[i] = rates[i < 6 ? i : 5];
    ck_assert(run_long(stand_in_run, &g, 1.0, 1000000, 0, 1).rate == 7);
    g.calls = 0;
    g.rate[0] = 0.5;
    ck_assert(run_long(stand_in_run, &g, 1.0, 1000000, 1, 1).rate == 1);
    g.calls = 0; /* no warm-up asked: the first call is timed */
    ck_assert(run_long(stand_in_run, &g, 1.0, 1000000, 1, 0).rate == 0.5);
    ck_assert_int_eq(g.calls, GPU_CEILING_REPEAT);
}
END_TEST

/* ---------------------------------------------------------------- on a GPU */
static void check_common(const gpu_ceiling *c, const char *what)
{
    ck_assert_msg(isfinite(c->rate) && c->rate > 0, "%s: rate %g", what, c->rate);
    ck_assert_msg(c->rep_ms >= GPU_CEILING_MIN_MS, "%s: a repetition of %g ms, under %g", what, c->rep_ms,
                  GPU_CEILING_MIN_MS);
    ck_assert_msg(c->repeats == GPU_CEILING_REPEAT && c->passes >= 1, "%s: %d repetitions of %lld passes", what,
                  c->repeats, c->passes);
    ck_assert_msg(c->max_clock_mhz > 100 && c->max_clock_mhz < 10000, "%s: max clock %d MHz", what, c->max_clock_mhz);
    printf("%s: %.1f, %lld passes, best repetition %.1f ms; %s\n", what, c->rate, c->passes, c->rep_ms, c->config);
}

/* The rate cannot pass what the clocks allow: 2 flops x FP32 lanes x SMs at
 * the clock the kernel ran at, itself at most the driver's maximum. */
START_TEST(fma_ceiling_holds)
{
    cuda_device_info info;
    cuda_describe_device(current_device(), &info);
    gpu_ceiling c = gpu_fma_ceiling();
    check_common(&c, "fma GFLOP/s");
    double sheet = 2.0 * info.sms * cuda_fp32_lanes_per_sm(info.major, info.minor) * c.ran_mhz * 1e-3;
    ck_assert_msg(c.ran_mhz > 100 && c.ran_mhz <= 1.02 * c.max_clock_mhz, "ran at %d MHz, max %d", c.ran_mhz,
                  c.max_clock_mhz);
    ck_assert_msg(c.rate <= 1.02 * sheet && fabs(c.other - sheet) < 1e-6 * sheet, "%.0f GFLOP/s, the sheet's %.0f",
                  c.rate, sheet);
}
END_TEST

START_TEST(read_and_copy_ceilings_hold)
{
    cuda_device_info info;
    cuda_describe_device(current_device(), &info);
    size_t bytes = (size_t)256 << 20;
    void *a, *b;
    CUDA_CHECK(cudaMalloc(&a, bytes));
    CUDA_CHECK(cudaMalloc(&b, bytes));
    CUDA_CHECK(cudaMemset(a, 1, bytes));
    gpu_ceiling read = gpu_read_ceiling(a, bytes), copy = gpu_copy_ceiling(b, a, bytes);
    CUDA_CHECK(cudaFree(a));
    CUDA_CHECK(cudaFree(b));
    check_common(&read, "read GB/s");
    check_common(&copy, "copy GB/s");
    ck_assert_msg(strstr(read.config, "int4 loads in flight") != NULL, "read: %s", read.config);
    ck_assert_msg(read.rate < 1.1 * info.peak_bw_gbs && copy.rate < 1.1 * info.peak_bw_gbs,
                  "read %.0f, copy %.0f GB/s: past the memory's %.0f", read.rate, copy.rate, info.peak_bw_gbs);
}
END_TEST

/* The times the chain's bytes hold the L2, as the note gives them. */
static double l2_multiple(const gpu_ceiling *c)
{
    const char *at = strstr(c->config, " MiB, ");
    double times = -1;
    ck_assert_msg(at && sscanf(at, " MiB, %lfx the L2", &times) == 1, "%s", c->config);
    return times;
}

/* The chase measures a memory, not a loop: through 2 MiB, which L2 holds, a
 * load returns sooner than through 256 MiB, most of whose lines come from
 * DRAM (each chase checks that the GPU walked the host's chain), a chain at
 * least 4 times L2 whose lines are read again only after all the others, if
 * at all (the note agrees with the buffer and the device; the 2 MiB chase,
 * which goes round, says it does); under a read
 * stream, no sooner than alone, with the stream reading meanwhile and the
 * chasers on more than one SM. */
START_TEST(latency_sees_l2_dram_and_load)
{
    size_t bytes = (size_t)256 << 20;
    void *a, *b;
    int sms = device_attribute(cudaDevAttrMultiProcessorCount);
    CUDA_CHECK(cudaMalloc(&a, bytes));
    CUDA_CHECK(cudaMalloc(&b, bytes));
    CUDA_CHECK(cudaMemset(b, 1, bytes));
    gpu_ceiling l2 = gpu_latency_idle(a, (size_t)2 << 20), dram = gpu_latency_idle(a, bytes);
    gpu_ceiling loaded = gpu_latency_loaded(a, bytes, b, bytes);
    CUDA_CHECK(cudaFree(a));
    CUDA_CHECK(cudaFree(b));
    check_common(&l2, "L2 latency ns");
    check_common(&dram, "DRAM latency ns");
    check_common(&loaded, "loaded latency ns");
    ck_assert_msg(dram.rate < 1e6 && dram.rate > 1.3 * l2.rate, "2 MiB: %.0f ns a load, 256 MiB: %.0f ns", l2.rate,
                  dram.rate);
    double l2_bytes = device_attribute(cudaDevAttrL2CacheSize);
    ck_assert_msg(fabs(l2_multiple(&dram) - bytes / l2_bytes) < 0.06 && l2_multiple(&dram) >= 4, "%s (L2 %.0f bytes)",
                  dram.config, l2_bytes);
    ck_assert_msg(l2_multiple(&l2) < 1, "%s", l2.config);
    /* 2 MiB is 16384 lines, as many as the calibration's hops alone: that
     * chase goes round its cycle again, and its note must say so */
    ck_assert_msg(strstr(l2.config, "only after all the others") != NULL, "%s", l2.config);
    ck_assert_msg(strstr(dram.config, "none read twice") || strstr(dram.config, "only after all the others"), "%s",
                  dram.config);
    ck_assert_msg(loaded.rate >= dram.rate, "loaded %.0f ns, idle %.0f ns", loaded.rate, dram.rate);
    ck_assert_msg(isfinite(loaded.other) && loaded.other > 0, "the stream beside the chase: %g GB/s", loaded.other);
    ck_assert_msg(loaded.sms_used > 1 && loaded.sms_used <= sms, "chasers on %d SMs of %d", loaded.sms_used, sms);
    ck_assert_msg(strstr(loaded.config, "cap") == NULL, "%s", loaded.config);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gpu_ceiling");
    TCase *tc = tcase_create("all");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, passes_for_reaches_the_length_and_no_more);
    tcase_add_test(tc, the_warm_up_corrects_the_estimate);
    tcase_add_test(tc, short_repetitions_run_again);
    tcase_add_test(tc, the_best_timed_repetition_counts);
    int skipped = harness_add_gpu_test(tc, fma_ceiling_holds, 1);
    skipped += harness_add_gpu_test(tc, read_and_copy_ceilings_hold, 1);
    skipped += harness_add_gpu_test(tc, latency_sees_l2_dram_and_load, 1);
    suite_add_tcase(s, tc);
    return harness_run_gpu(s, "gpu_ceiling", skipped);
}
