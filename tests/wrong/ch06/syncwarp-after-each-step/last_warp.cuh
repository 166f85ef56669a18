/* WRONG ANSWER (ch06, syncwarp-after-each-step): v[t] += v[t + k]; __syncwarp(); at each step: the read of v[t + k] and that lane's own write still race */
__device__ inline void exercise_last_warp(long long *s, unsigned t)
{
    volatile long long *v = s;
    for (int k = 32; k > 0; k /= 2) { v[t] += v[t + k]; __syncwarp(); }
}
