/* Solution to exercise ch07, part 2: the tile loop at 14.27 PTX instructions
 * per interaction (nvcc 13, sm_90), from 17.08.
 *
 * What an interaction must cost: one shared load (the body as one float4),
 * 3 subtractions, 3 FMAs for d2 when the softening starts the chain
 * (fma(rx, rx, fma(ry, ry, fma(rz, rz, eps^2)))) instead of being added after
 * it (a multiply, two FMAs and an add), one rsqrt instead of a square root and
 * a division, 3 multiplies for s = m inv^3, 3 FMAs for the sum: 14. The rest
 * is the loop: unrolling 32 interactions a trip spreads its counter, compare
 * and branch over 32.
 */
#ifndef EX_CH07_TILE_LOOP_CUH
#define EX_CH07_TILE_LOOP_CUH

#define EX_TILE 256

__device__ inline void body_body(float3 *a, float4 bi, float4 bj)
{
    float rx = bj.x - bi.x, ry = bj.y - bi.y, rz = bj.z - bi.z;
    float inv = rsqrtf(fmaf(rx, rx, fmaf(ry, ry, fmaf(rz, rz, 1e-4f))));
    float s = bj.w * inv * inv * inv;
    a->x = fmaf(rx, s, a->x);
    a->y = fmaf(ry, s, a->y);
    a->z = fmaf(rz, s, a->z);
}

__global__ void exercise_tiled_kernel(const float4 *b, float3 *a, int n)
{
    __shared__ float4 tile[EX_TILE];
    int i = blockIdx.x * EX_TILE + threadIdx.x;
    float4 bi = i < n ? b[i] : make_float4(0, 0, 0, 0);
    float3 acc = make_float3(0, 0, 0);
    for (int t = 0; t * EX_TILE < n; t++) {
        int j = t * EX_TILE + threadIdx.x;
        tile[threadIdx.x] = j < n ? b[j] : make_float4(0, 0, 0, 0); /* zero mass: adds nothing */
        __syncthreads();
#pragma unroll 32
        for (int k = 0; k < EX_TILE; k++)
            body_body(&acc, bi, tile[k]);
        __syncthreads(); /* nobody may overwrite the tile while others read it */
    }
    if (i < n)
        a[i] = acc;
}

#endif
