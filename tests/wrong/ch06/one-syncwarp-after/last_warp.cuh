/* WRONG ANSWER (ch06, one-syncwarp-after): the racy volatile steps unchanged, one __syncwarp() after them: it orders nothing inside the steps */
__device__ inline void exercise_last_warp(long long *s, unsigned t)
{
    volatile long long *v = s;
    v[t] += v[t + 32]; v[t] += v[t + 16]; v[t] += v[t + 8]; v[t] += v[t + 4]; v[t] += v[t + 2]; v[t] += v[t + 1];
    __syncwarp();
}
