/* Exercise ch06: the last warp of a tree reduction, without the race.
 *
 * A block has folded its values down to s[0..63] in shared memory, with a
 * __syncthreads() after each step. Now only 32 threads are left: one warp.
 * The classic code below (ch06's warp-unrolled-volatile stage) drops the
 * barriers, "because a warp runs in lockstep", and marks s volatile so every
 * read goes to memory. Since Volta the threads of a warp are scheduled
 * independently: nothing orders lane t's read of s[t + 16] after lane t + 16's
 * write of it. It is a data race; compute-sanitizer --tool racecheck reports
 * it, and it may give a wrong sum on a future compiler or GPU.
 *
 * Your job: make it correct. After exercise_last_warp(s, t) has run in the
 * threads t = 0..31 of a warp, s[0] must hold s[0] + ... + s[63]. Either put
 * the missing synchronisation back, the cheap warp-level kind, or let the
 * lanes exchange their values in registers instead of through s.
 *
 * Graded (tests/test_ex_ch06.cu): from the PTX, no GPU needed, the warp step
 * must synchronise its lanes (bar.warp.sync, or shfl.sync which synchronises
 * as it exchanges), each such instruction with the full member mask,
 * 0xffffffff, since all 32 lanes take part (a lane outside the mask is read
 * undefined, even when the sum comes out right); on the CPU, the lanes run
 * one by one, with partial sums past +-2^31 (a 32-bit shuffle loses them); and
 * on a GPU, exact int64 sums at n = 0, 1, 31, 33, 1023, 1025, 2^20 +- 1, with
 * values past +-2^31 too (skipped without one). Then: make grade EX=ch06
 * (stuck? make hint EX=ch06)
 */
#ifndef EX_CH06_LAST_WARP_CUH
#define EX_CH06_LAST_WARP_CUH

__device__ inline void exercise_last_warp(long long *s, unsigned t)
{
    volatile long long *v = s; /* TODO: race-free */
    v[t] += v[t + 32];
    v[t] += v[t + 16];
    v[t] += v[t + 8];
    v[t] += v[t + 4];
    v[t] += v[t + 2];
    v[t] += v[t + 1];
}

#endif
