/* Solution to exercise ch06: a warp's sum in registers. */
#ifndef EX_CH06_WARP_SUM_CUH
#define EX_CH06_WARP_SUM_CUH

__device__ inline long long exercise_warp_sum(long long v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffffu, v, offset); /* lane i adds lane i + offset */
    return v;
}

#endif
