// ex_ch06_warp_cpu.cpp - exercise ch06's last warp run on the CPU, lane by
// lane, so a warp step that depends on luck fails anywhere, without a GPU.
// test_ex_ch06 builds it with g++ against the student's last_warp.cuh.
//
// The 32 lanes are coroutines (ucontext) on one thread. A lane runs until it
// reaches a synchronisation point (__syncwarp, or a __shfl_*_sync: deposit,
// then read, each a point) and there hands over to the next lane; no lane
// passes a point until all have reached it. Between points lanes run one after
// another, in ascending lane order, then (a second run) in descending order:
// the two extremes a GPU may also pick. A step that reads a value another lane
// writes with no point between them gets the wrong one in one of the two
// orders; a step that forgets s[t + 32] is wrong in both. Member masks are
// checked too: a lane that calls with a mask leaving itself out, or reads a
// lane the mask leaves out, is undefined behaviour on a GPU whatever the sum.
//
// A shuffle moves the bytes of the type it is called with, as the GPU's does:
// __shfl_down_sync(mask, (int)v, k) moves 32 bits, so a 64-bit partial sum
// shuffled as an int loses its upper half here too. Its source lane is the
// PTX shfl.sync rule, width included (lanes outside the segment, or past the
// warp, get their own value back).
//
// Input (stdin): sets of 64 numbers, the s[0..63] the last warp starts from.
// Output, one line per set: "got A D", s[0] after the lanes ran in ascending
// (A) and in descending (D) order; then "calls" and the warp functions the
// code called (down up xor idx syncwarp); then "members ok", or "members: "
// and the first lane that broke its mask.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#define __device__
#define __forceinline__ inline
#define __noinline__
static const int warpSize = 32;

static ucontext_t scheduler, lanes[32];
static int current, done[32];
static unsigned char slots[32][16]; // the bytes each lane offers at a shuffle
static char mask_error[200];        // the first lane that broke its member mask
enum { CALL_DOWN = 1, CALL_UP = 2, CALL_XOR = 4, CALL_IDX = 8, CALL_SYNCWARP = 16 };
static unsigned calls;

// Notes the first lane that calls `what` with a mask leaving itself out, or
// reads a source lane that the mask leaves out.
static void check_mask(const char *what, unsigned mask, int source)
{
    if (mask_error[0])
        return;
    if (!(mask >> current & 1))
        snprintf(mask_error, sizeof mask_error, "lane %d calls %s with member mask 0x%08x, which leaves lane %d out",
                 current, what, mask, current);
    else if (source >= 0 && source < 32 && !(mask >> source & 1))
        snprintf(mask_error, sizeof mask_error, "lane %d reads lane %d in %s, outside the member mask 0x%08x",
                 current, source, what, mask);
}

static void sync_point(void)
{
    swapcontext(&lanes[current], &scheduler);
}

static inline void __syncwarp(unsigned mask = 0xffffffffu)
{
    calls |= CALL_SYNCWARP;
    check_mask("__syncwarp", mask, -1);
    sync_point();
}

static inline unsigned __activemask(void)
{
    return 0xffffffffu;
}

// The lane a shuffle reads, by PTX's shfl.sync rule: segmask picks the
// segment (width lanes) the calling lane is in; a source past the segment's
// end (or below its start, shuffling up) is the lane itself.
enum shuffle_mode { UP, DOWN, BFLY, IDX };
static int source_lane(shuffle_mode mode, int b, int width)
{
    int lane = current, segmask = (32 - width) & 31;
    int min_lane = lane & segmask, max_lane = min_lane | (mode == UP ? 0 : 31 & ~segmask), j;
    int ok;
    switch (mode) {
    case UP:
        j = lane - b, ok = j >= max_lane;
        break;
    case DOWN:
        j = lane + b, ok = j <= max_lane;
        break;
    case BFLY:
        j = lane ^ b, ok = j <= max_lane;
        break;
    default:
        j = min_lane | (b & 31 & ~segmask), ok = j <= max_lane;
        break;
    }
    return ok ? j : lane;
}

// A shuffle: every lane deposits its value's bytes, then every lane reads
// the source lane's (sizeof(T) of them: the width of the type shuffled).
template <typename T> static T shuffle_from(const char *what, unsigned mask, T v, int source)
{
    static_assert(sizeof(T) <= sizeof slots[0], "a shuffle of at most 16 bytes");
    check_mask(what, mask, source);
    int me = current;
    memcpy(slots[me], &v, sizeof v);
    sync_point();
    T got;
    memcpy(&got, slots[source], sizeof got);
    sync_point();
    return got;
}
template <typename T> static T __shfl_down_sync(unsigned mask, T v, unsigned d, int width = 32)
{
    calls |= CALL_DOWN;
    return shuffle_from("__shfl_down_sync", mask, v, source_lane(DOWN, (int)d, width));
}
template <typename T> static T __shfl_up_sync(unsigned mask, T v, unsigned d, int width = 32)
{
    calls |= CALL_UP;
    return shuffle_from("__shfl_up_sync", mask, v, source_lane(UP, (int)d, width));
}
template <typename T> static T __shfl_xor_sync(unsigned mask, T v, int m, int width = 32)
{
    calls |= CALL_XOR;
    return shuffle_from("__shfl_xor_sync", mask, v, source_lane(BFLY, m, width));
}
template <typename T> static T __shfl_sync(unsigned mask, T v, int src, int width = 32)
{
    calls |= CALL_IDX;
    return shuffle_from("__shfl_sync", mask, v, source_lane(IDX, src, width));
}

#include "last_warp.cuh"

static long long s[64];

static void lane_main(int t)
{
    exercise_last_warp(s, (unsigned)t);
    done[t] = 1;
}

// Runs the warp on s with lanes taking turns in `order`; returns s[0].
static long long run_warp(const int *order)
{
    static char stacks[32][64 * 1024];
    for (int t = 0; t < 32; t++) {
        done[t] = 0;
        getcontext(&lanes[t]);
        lanes[t].uc_stack.ss_sp = stacks[t];
        lanes[t].uc_stack.ss_size = sizeof stacks[t];
        lanes[t].uc_link = &scheduler;
        makecontext(&lanes[t], (void (*)(void))lane_main, 1, t);
    }
    for (int round = 0; round < 10000; round++) {
        int running = 0;
        for (int k = 0; k < 32; k++) {
            current = order[k];
            if (!done[current]) {
                swapcontext(&scheduler, &lanes[current]);
                running = 1;
            }
        }
        if (!running)
            return s[0];
    }
    fprintf(stderr, "the lanes never finished (10000 rounds)\n");
    exit(2);
}

int main(void)
{
    int orders[2][32];
    for (int t = 0; t < 32; t++)
        orders[0][t] = t, orders[1][t] = 31 - t;
    long long in[64];
    for (;;) {
        int got = 0;
        while (got < 64 && scanf("%lld", &in[got]) == 1)
            got++;
        if (got == 0)
            break;
        if (got < 64) {
            fprintf(stderr, "a set of %d numbers, not 64\n", got);
            return 2;
        }
        long long sum[2];
        for (int o = 0; o < 2; o++) {
            memcpy(s, in, sizeof s);
            sum[o] = run_warp(orders[o]);
        }
        printf("got %lld %lld\n", sum[0], sum[1]);
    }
    static const char *names[] = {"down", "up", "xor", "idx", "syncwarp"};
    printf("calls");
    for (int k = 0; k < 5; k++)
        if (calls >> k & 1)
            printf(" %s", names[k]);
    printf("\nmembers%s%s\n", mask_error[0] ? ": " : " ok", mask_error);
    return 0;
}
