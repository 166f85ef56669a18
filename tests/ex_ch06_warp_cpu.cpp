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
// Usage: ex_ch06_warp_cpu  ->  one line per order: "ascending got G want W",
// then "members ok" or "members: " and the first lane that broke its mask.
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

#define __device__
#define __forceinline__ inline
#define __noinline__
static const int warpSize = 32;

static ucontext_t scheduler, lanes[32];
static int current, done[32];
static long long slots[32]; // what each lane offers at a shuffle
static char mask_error[200];  // the first lane that broke its member mask

// Notes the first lane that calls `what` with a mask leaving itself out, or
// reads a source lane (0..31; -1 for none) that the mask leaves out.
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
    check_mask("__syncwarp", mask, -1);
    sync_point();
}

static inline unsigned __activemask(void)
{
    return 0xffffffffu;
}

// A shuffle: every lane deposits, then every lane reads (the source lane's
// deposit, or its own value when the source is outside the warp).
template <typename T> static T shuffle_from(const char *what, unsigned mask, T v, int source)
{
    check_mask(what, mask, source);
    int me = current;
    slots[me] = (long long)v;
    sync_point();
    T got = source >= 0 && source < 32 ? (T)slots[source] : v;
    sync_point();
    return got;
}
template <typename T> static T __shfl_down_sync(unsigned mask, T v, unsigned d, int = 32)
{
    return shuffle_from("__shfl_down_sync", mask, v, current + (int)d);
}
template <typename T> static T __shfl_up_sync(unsigned mask, T v, unsigned d, int = 32)
{
    return shuffle_from("__shfl_up_sync", mask, v, current - (int)d);
}
template <typename T> static T __shfl_xor_sync(unsigned mask, T v, int m, int = 32)
{
    return shuffle_from("__shfl_xor_sync", mask, v, current ^ m);
}
template <typename T> static T __shfl_sync(unsigned mask, T v, int src, int = 32)
{
    return shuffle_from("__shfl_sync", mask, v, src);
}

#include "last_warp.cuh"

static long long s[64];

static void lane_main(int t)
{
    exercise_last_warp(s, (unsigned)t);
    done[t] = 1;
}

// Runs the warp with lanes taking turns in `order`; returns s[0].
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
    int ascending[32], descending[32];
    for (int t = 0; t < 32; t++)
        ascending[t] = t, descending[t] = 31 - t;
    const int *orders[2] = {ascending, descending};
    const char *names[2] = {"ascending", "descending"};
    for (int o = 0; o < 2; o++) {
        long long want = 0;
        for (int i = 0; i < 64; i++) {
            s[i] = (long long)(i * 37 % 101) - 50 + (long long)i * 1000; // distinct, so a lost or doubled term shows
            want += s[i];
        }
        long long got = run_warp(orders[o]);
        printf("%s got %lld want %lld\n", names[o], got, want);
    }
    printf("members%s%s\n", mask_error[0] ? ": " : " ok", mask_error);
    return 0;
}
