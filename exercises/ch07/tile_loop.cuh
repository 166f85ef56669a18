/* Exercise ch07, part 2: the tile loop, down to the instructions.
 *
 * exercise_tiled_kernel below is chapter 07's gpu-tiled: correct, and it pays
 * for more instructions per body-body interaction than it needs. An
 * interaction must load the body from shared memory, form r = p_j - p_i
 * (3 subtractions), d2 = r.r + eps^2, 1/sqrt(d2), s = m_j / d^3, and add r s
 * to the sum (3 multiply-adds): count what each of those must cost, look at
 * what nvcc makes of the loop, and close the gap.
 *
 * Your job: at most 14.6 PTX instructions per interaction (the PTX
 * instructions one thread runs for a tile, over the EX_TILE interactions a
 * tile is), still correct: every body's acceleration within 1e-4 of double
 * precision. Keep the kernel's name, arguments and launch shape (EX_TILE
 * threads a block, one body per thread).
 *
 * Graded (tests/test_ex_ch07gpu.cu): the count from nvcc -ptx, and from the
 * same PTX that a thread interacts with all n bodies when n is no multiple of
 * EX_TILE, no GPU needed; correctness on a GPU at n = 1, 255, 257, 1000, 4097
 * (skipped without one).
 * Then: make grade EX=ch07gpu   (stuck? make hint EX=ch07gpu)
 */
#ifndef EX_CH07_TILE_LOOP_CUH
#define EX_CH07_TILE_LOOP_CUH

#define EX_TILE 256

__device__ inline void body_body(float3 *a, float4 bi, float4 bj)
{
    float rx = bj.x - bi.x, ry = bj.y - bi.y, rz = bj.z - bi.z;
    float d2 = rx * rx + ry * ry + rz * rz + 1e-4f;
    float inv = 1.0f / sqrtf(d2);
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
