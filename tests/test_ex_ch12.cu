/* test_ex_ch12.cu - exercise ch12: a conflict-free layout for a tile of
 * 64-byte rows (tile_layout.cuh's tile_slot).
 *
 * 1. On the CPU (nvcc-built host code), so in CI too, from the answer's table
 *    of tile_slot(row, chunk) for the 64 x 4 chunks:
 *    a. every chunk has a slot in 0..255 and no two share one (the tile is
 *       256 slots of 16 bytes, no padding: a layout that needs more memory,
 *       or overwrites a chunk, fails);
 *    b. every 8-lane phase of an ldmatrix read (rows 8q .. 8q + 7 at one
 *       chunk c, every q and c) touches 8 different bank groups, slot % 8;
 *    c. every 8-lane phase of the copy's stores (the chunks 8p .. 8p + 7 in
 *       row order: two whole rows) touches 8 different bank groups.
 *    Each lane's bank is computed here; a message names the phase, the
 *    lanes that collide, their slots and the ways of the conflict. The
 *    table is recorded once, and all three read that one record.
 * 2. On a GPU (tests/ex_ch12_kernel.cu): tile_slot as the device computes it
 *    passes the same three checks; and the small GEMM through the answer's tiles
 *    gives C exactly, at 64 x 64 x 32, 128 x 192 x 96 and 192 x 128 x 256,
 *    inputs small integers in [-3, 3] (seed 1212): every product and sum is
 *    an integer below 2^24, exact in FP32 in any order. A layout that is not
 *    a permutation, or one the device computes with a conflict, is wrong
 *    here. Without a GPU these are counted as skipped.
 * For grading (harness.h, "the probe and the judge"), the probe calls the
 * answer and hands its table, the device's table and C to the judge through
 * harness_answer; the judge makes every input and every wanted value itself.
 */
#include "harness.h"

#include "ex_ch12_kernel.cu"

#include <stdint.h>

/* ------------------------------------------------------------ the checks
 * Each takes one table, slots[row * 4 + chunk], and fails the test with the
 * first fault it finds; `where` begins the message ("" or "on the GPU, "). A
 * table is recorded once and all three checks read that one record: an answer
 * that gave each check another table (a counter, a look at which test runs)
 * would otherwise pass each with a table that fails the others. */
typedef int layout[EX_SLOTS];

/* Slot s's bank group: its 16 bytes are banks 4 (s % 8) .. 4 (s % 8) + 3. */
static int bank_group(int slot)
{
    return slot % 8;
}

/* One phase: 8 lanes, the (row, chunk) each accesses. 0 when its 8 slots lie
 * in 8 bank groups; otherwise the ways of its worst conflict (how many of its
 * lanes share one group), with the lanes that share it in words. */
static int phase_conflict(const layout slots, const int rows[8], const int chunks[8], char *why, size_t size)
{
    int count[8] = {0};
    for (int l = 0; l < 8; l++)
        count[bank_group(slots[rows[l] * EX_CHUNKS + chunks[l]])]++;
    int worst = 0;
    for (int g = 1; g < 8; g++)
        worst = count[g] > count[worst] ? g : worst;
    if (count[worst] == 1)
        return 0;
    size_t at = (size_t)snprintf(why, size, "banks %d-%d are hit by", 4 * worst, 4 * worst + 3);
    for (int l = 0; l < 8 && at < size; l++) {
        int slot = slots[rows[l] * EX_CHUNKS + chunks[l]];
        if (bank_group(slot) == worst)
            at += (size_t)snprintf(why + at, size - at, " (row %d, chunk %d: slot %d)", rows[l], chunks[l], slot);
    }
    return count[worst];
}

static void each_chunk_has_a_slot_of_its_own(const layout slots, const char *where)
{
    int owner[EX_SLOTS];
    for (int s = 0; s < EX_SLOTS; s++)
        owner[s] = -1;
    for (int r = 0; r < EX_ROWS; r++)
        for (int c = 0; c < EX_CHUNKS; c++) {
            int s = slots[r * EX_CHUNKS + c];
            ck_assert_msg(s >= 0 && s < EX_SLOTS,
                          "%stile_slot(%d, %d) = %d: outside the tile's 256 slots (0..255). The tile is 64 rows of 64 "
                          "bytes, no padding: a layout must fit the same 4 KiB%s",
                          where, r, c, s,
                          s - 4 * r >= EX_CHUNKS ? " (it lies past its row's four slots: an XOR by more than 3 "
                                                   "can give chunk 4 or more)"
                                                 : "");
            int other = owner[s], home = s / EX_CHUNKS; /* the row whose four slots s is one of */
            if (other >= 0) {
                int out = other / EX_CHUNKS != home ? other : r * EX_CHUNKS + c; /* the chunk not at home */
                if (out / EX_CHUNKS != home)
                    ck_abort_msg("%stile_slot(%d, %d) = tile_slot(%d, %d) = %d: two chunks in one slot. Slot %d is "
                                 "one of row %d's (%d..%d): chunk %d of row %d was sent out of its row (an XOR by "
                                 "more than 3 can give chunk 4 or more); keep what you XOR the chunk with in 0..3",
                                 where, other / EX_CHUNKS, other % EX_CHUNKS, r, c, s, s, home, 4 * home,
                                 4 * home + 3, out % EX_CHUNKS, out / EX_CHUNKS);
                ck_abort_msg("%stile_slot(%d, %d) = tile_slot(%d, %d) = %d: two chunks of one row in one slot, so "
                             "one overwrites the other (a row's four chunks must go to its four slots, one each)",
                             where, other / EX_CHUNKS, other % EX_CHUNKS, r, c, s);
            }
            owner[s] = r * EX_CHUNKS + c;
        }
}

static void ldmatrix_reads_conflict_free(const layout slots, const char *where)
{
    for (int q = 0; q < EX_ROWS / 8; q++)
        for (int c = 0; c < EX_CHUNKS; c++) {
            int rows[8], chunks[8];
            for (int l = 0; l < 8; l++)
                rows[l] = 8 * q + l, chunks[l] = c;
            char why[600];
            int ways = phase_conflict(slots, rows, chunks, why, sizeof why);
            ck_assert_msg(ways == 0,
                          "%san ldmatrix phase (8 lanes give rows %d..%d, all at chunk %d): %s: a %d-way bank "
                          "conflict, %d passes where 1 would do. Want: the 8 slots in 8 different groups slot %% 8",
                          where, 8 * q, 8 * q + 7, c, why, ways, ways);
        }
}

static void stores_conflict_free(const layout slots, const char *where)
{
    for (int p = 0; p < EX_SLOTS / 8; p++) {
        int rows[8], chunks[8];
        for (int l = 0; l < 8; l++)
            rows[l] = (8 * p + l) / EX_CHUNKS, chunks[l] = (8 * p + l) % EX_CHUNKS;
        char why[600];
        int ways = phase_conflict(slots, rows, chunks, why, sizeof why);
        ck_assert_msg(ways == 0,
                      "%sa store phase of the copy (8 lanes store all of rows %d and %d, chunks 0..3 of each): %s: a "
                      "%d-way bank conflict. Want: the 8 slots in 8 different groups slot %% 8 (a layout that only "
                      "serves ldmatrix, a transposed one, makes the copy slow instead)",
                      where, rows[0], rows[7], why, ways);
    }
}

static void check_layout(const layout slots, const char *where)
{
    each_chunk_has_a_slot_of_its_own(slots, where);
    ldmatrix_reads_conflict_free(slots, where);
    stores_conflict_free(slots, where);
}

/* ------------------------------------------------------------ on the CPU */
START_TEST(host_layout_conflict_free)
{
    static layout host;
    if (HARNESS_CALLS_ANSWER)
        for (int i = 0; i < EX_SLOTS; i++)
            host[i] = tile_slot(i / EX_CHUNKS, i % EX_CHUNKS);
    harness_answer(host, sizeof host);
    check_layout(host, "");
}
END_TEST

/* ------------------------------------------------------------- on the GPU */
static const struct {
    int m, n, k;
} shapes[] = {{64, 64, 32}, {128, 192, 96}, {192, 128, 256}};
#define SHAPES (int)(sizeof shapes / sizeof shapes[0])
enum { MAX_M = 192, MAX_N = 192, MAX_K = 256, SEED = 1212 };

/* A small integer in [-3, 3] as bf16 (exact: the upper half of its float). */
static uint16_t small_bf16(test_rng *r, float *value)
{
    union {
        float f;
        uint32_t u;
    } v = {(float)((int)(test_rng_next(r) >> 40) % 7 - 3)};
    *value = v.f;
    return (uint16_t)(v.u >> 16);
}

static uint16_t a16[MAX_M * MAX_K], bt16[MAX_N * MAX_K];
static float a32[MAX_M * MAX_K], bt32[MAX_N * MAX_K], got_c[MAX_M * MAX_N];
static layout device_table;

static void make_inputs(int m, int n, int k)
{
    test_rng r = {SEED + (unsigned long long)(m * 1000 + n) * 1000 + (unsigned long long)k};
    for (int i = 0; i < m * k; i++)
        a16[i] = small_bf16(&r, &a32[i]);
    for (int i = 0; i < n * k; i++)
        bt16[i] = small_bf16(&r, &bt32[i]);
}

static char gpu_failed[160];
#define GPU_STEP(call) HARNESS_GPU_STEP(err, gpu_failed, call)

/* The device's table and C through the answer's tiles; *bad: a slot was
 * outside the tile. Every CUDA call checked; the first error is returned. */
static cudaError_t run_on_gpu(int m, int n, int k, int *bad)
{
    cudaError_t err = cudaSuccess;
    uint16_t *d_a = NULL, *d_bt = NULL;
    float *d_c = NULL;
    int *d_table = NULL, *d_bad = NULL;
    GPU_STEP(cudaMalloc(&d_a, sizeof(uint16_t) * m * k));
    GPU_STEP(cudaMalloc(&d_bt, sizeof(uint16_t) * n * k));
    GPU_STEP(cudaMalloc(&d_c, sizeof(float) * m * n));
    GPU_STEP(cudaMalloc(&d_table, sizeof device_table));
    GPU_STEP(cudaMalloc(&d_bad, sizeof(int)));
    GPU_STEP(cudaMemcpy(d_a, a16, sizeof(uint16_t) * m * k, cudaMemcpyHostToDevice));
    GPU_STEP(cudaMemcpy(d_bt, bt16, sizeof(uint16_t) * n * k, cudaMemcpyHostToDevice));
    GPU_STEP(cudaMemset(d_c, 0xff, sizeof(float) * m * n)); /* NaN: an element not written shows */
    GPU_STEP(cudaMemset(d_bad, 0, sizeof(int)));
    if (err == cudaSuccess) {
        layout_table_kernel<<<1, EX_SLOTS>>>(d_table);
        layout_gemm_kernel<<<dim3(n / EX_ROWS, m / EX_ROWS), EX_THREADS>>>(m, n, k, d_a, d_bt, d_c, d_bad);
    }
    GPU_STEP(cudaGetLastError());
    GPU_STEP(cudaDeviceSynchronize());
    GPU_STEP(cudaMemcpy(got_c, d_c, sizeof(float) * m * n, cudaMemcpyDeviceToHost));
    GPU_STEP(cudaMemcpy(device_table, d_table, sizeof device_table, cudaMemcpyDeviceToHost));
    GPU_STEP(cudaMemcpy(bad, d_bad, sizeof(int), cudaMemcpyDeviceToHost));
    void *buffers[] = {d_a, d_bt, d_c, d_table, d_bad};
    for (int i = 0; i < 5; i++)
        GPU_STEP(cudaFree(buffers[i]));
    return err;
}

START_TEST(gpu_gemm_through_the_tile)
{
    int m = shapes[_i].m, n = shapes[_i].n, k = shapes[_i].k, bad = 0;
    make_inputs(m, n, k);
    cudaError_t err = cudaSuccess;
    memset(got_c, 0, sizeof got_c);
    memset(device_table, 0, sizeof device_table);
    if (HARNESS_CALLS_ANSWER)
        err = run_on_gpu(m, n, k, &bad);
    harness_answer(&err, sizeof err);
    harness_answer(gpu_failed, sizeof gpu_failed);
    harness_answer(&bad, sizeof bad);
    harness_answer(device_table, sizeof device_table);
    harness_answer(got_c, sizeof got_c);
    gpu_failed[sizeof gpu_failed - 1] = '\0';
    ck_assert_msg(err == cudaSuccess, "on the GPU, the GEMM through your tile (tests/ex_ch12_kernel.cu): %s failed: "
                  "%s (%s)", gpu_failed, cudaGetErrorName(err), cudaGetErrorString(err));
    check_layout(device_table, "on the GPU (tile_slot as the device computes it), ");
    ck_assert_msg(!bad, "on the GPU, a slot outside the tile's 256 (0..255)");
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double want = 0;
            for (int p = 0; p < k; p++)
                want += (double)a32[i * k + p] * bt32[j * k + p];
            float g = got_c[i * n + j];
            ck_assert_msg(g == (float)want,
                          "m=%d n=%d k=%d: C[%d][%d]: got %g, want %g exactly (integers below 2^24 in FP32): a chunk "
                          "read from another slot than it was stored in, or stored over another",
                          m, n, k, i, j, (double)g, want);
        }
}
END_TEST

/* The GEMM needs a device of compute capability 8.0 and the kernel built for
 * it (EX_MMA_CODE); 0 and why where not: its runs count as skipped. */
static int gpu_can_run_mma(char *why, size_t size)
{
    struct cudaDeviceProp p;
    struct cudaFuncAttributes a;
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&p, device) != cudaSuccess ||
        cudaFuncGetAttributes(&a, layout_gemm_kernel) != cudaSuccess) {
        cudaGetLastError();
        snprintf(why, size, "no code for this device");
        return 0;
    }
    if (p.major < 8 || a.binaryVersion < 80) {
        snprintf(why, size, "%.80s is compute capability %d.%d, the kernel built for sm_%d: mma.sync on bf16 needs 8.0",
                 p.name, p.major, p.minor, a.binaryVersion);
        return 0;
    }
    return 1;
}

int main(void)
{
    Suite *s = suite_create("exercise ch12");
    TCase *tc = tcase_create("tile layout");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, host_layout_conflict_free);
    char why[256];
    int skipped = 0;
    if (cuda_device_count(why, sizeof why) > 0 && !gpu_can_run_mma(why, sizeof why)) {
        printf("%s: %d GPU test runs skipped\n", why, (int)SHAPES);
        skipped = SHAPES;
    } else {
        skipped = harness_add_gpu_test(tc, gpu_gemm_through_the_tile, SHAPES);
    }
    suite_add_tcase(s, tc);
    return harness_run_gpu(s, "exercise-ch12", skipped);
}
