/* Solution to exercise ch07, part 2: the shared-memory tile loop. */
#ifndef EX_CH07_TILE_LOOP_CUH
#define EX_CH07_TILE_LOOP_CUH

#define EX_TILE 256

__device__ inline void body_body(float3 *a, float4 bi, float4 bj)
{
    float rx = bj.x - bi.x, ry = bj.y - bi.y, rz = bj.z - bi.z;
    float inv = rsqrtf(rx * rx + ry * ry + rz * rz + 1e-4f);
    float s = bj.w * inv * inv * inv;
    a->x += rx * s;
    a->y += ry * s;
    a->z += rz * s;
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
        for (int k = 0; k < EX_TILE; k++)
            body_body(&acc, bi, tile[k]);
        __syncthreads(); /* nobody may overwrite the tile while others read it */
    }
    if (i < n)
        a[i] = acc;
}

#endif
