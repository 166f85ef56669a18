/* WRONG ANSWER (ch06, shuffle-forgets-upper-half): shuffles from s[t] alone: the upper half, s[t + 32], is never added */
__device__ inline void exercise_last_warp(long long *s, unsigned t)
{
    long long v = s[t];
    for (int k = 16; k > 0; k /= 2) v += __shfl_down_sync(0xffffffffu, v, k);
    if (t == 0) s[0] = v;
}
