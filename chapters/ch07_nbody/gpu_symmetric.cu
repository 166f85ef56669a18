/* gpu_symmetric.cu - ch07's symmetric GPU stages: each pair of bodies once
 * (f_ji = -f_ij), the reaction added through atomics, then the atomics
 * spread over addresses and the work over blocks. */
#include "gpu_interaction.h"

#include "../../common/cuda_util.h"

/* ---- gpu-atomic-symmetric (STAGGERED = BALANCED = false): f_ji = -f_ij, so
 * compute each pair once. Block b takes bodies of tile b against tiles b, b+1,
 * ...; a thread keeps its own body's sum in registers and subtracts the
 * reaction from the other body through shared-memory float atomics, flushed
 * to global memory with one atomic per body and tile. The 32 lanes of a warp
 * visit the tile in the same order, so all 32 add to the same rx_sum[k] at
 * once and those atomics are retried one lane at a time; and block 0 has all
 * the tiles to do, so the launch lasts as long as the unsymmetric one.
 * ---- gpu-symmetric-staggered (STAGGERED): + lane t visits body (k + t) mod
 * TILE at step k: at every step the block's threads add to TILE different
 * addresses, and no atomic waits for another.
 * ---- gpu-symmetric-balanced (+ BALANCED): + equal work per block: block b
 * does the next T/2 tiles round the ring (b, b+1, ... mod T), so every pair of
 * tiles is done once and every block does about half of them. */
template <bool STAGGERED, bool BALANCED>
__global__ void symmetric_kernel(const body *b, vec3 *a, int n)
{
    __shared__ float4 tile[TILE];
    __shared__ float rx_sum[TILE], ry_sum[TILE], rz_sum[TILE];
    int tiles = (n + TILE - 1) / TILE, I = blockIdx.x;
    int i = I * TILE + threadIdx.x;
    body bi = i < n ? b[i] : body{0, 0, 0, 0};
    vec3 acc = {0, 0, 0};
    int steps = BALANCED ? tiles / 2 + 1 : tiles - I;
    if (BALANCED && tiles % 2 == 0 && I >= tiles / 2)
        steps--; /* the opposite tile, tiles / 2 away, is done by the block opposite */
    if (BALANCED && tiles == 1)
        steps = 1;
    for (int step = 0; step < steps; step++) {
        int J = (I + step) % tiles, j0 = J * TILE, j = j0 + threadIdx.x;
        tile[threadIdx.x] = j < n ? __ldg(reinterpret_cast<const float4 *>(b) + j) : make_float4(0, 0, 0, 0);
        rx_sum[threadIdx.x] = ry_sum[threadIdx.x] = rz_sum[threadIdx.x] = 0;
        __syncthreads();
        for (int k = 0; k < TILE; k++) {
            int kk = STAGGERED ? (k + threadIdx.x) & (TILE - 1) : k;
            if (step == 0 && j0 + kk <= i) /* the block's own tile: each pair once, j > i */
                continue;
            float4 bj = tile[kk];
            float rx = bj.x - bi.x, ry = bj.y - bi.y, rz = bj.z - bi.z;
            float inv = rsqrtf(rx * rx + ry * ry + rz * rz + SOFTENING2);
            float inv3 = inv * inv * inv, si = bj.w * inv3, sj = bi.m * inv3;
            acc.x += rx * si;
            acc.y += ry * si;
            acc.z += rz * si;
            atomicAdd(&rx_sum[kk], -rx * sj);
            atomicAdd(&ry_sum[kk], -ry * sj);
            atomicAdd(&rz_sum[kk], -rz * sj);
        }
        __syncthreads();
        if (j < n) {
            atomicAdd(&a[j].x, rx_sum[threadIdx.x]);
            atomicAdd(&a[j].y, ry_sum[threadIdx.x]);
            atomicAdd(&a[j].z, rz_sum[threadIdx.x]);
        }
        __syncthreads();
    }
    if (i < n) {
        atomicAdd(&a[i].x, acc.x);
        atomicAdd(&a[i].y, acc.y);
        atomicAdd(&a[i].z, acc.z);
    }
}

template <bool STAGGERED, bool BALANCED>
static void launch_symmetric(const body *d_b, vec3 *d_a, int n)
{
    if (n == 0)
        return;
    CUDA_CHECK(cudaMemsetAsync(d_a, 0, (size_t)n * sizeof(vec3)));
    symmetric_kernel<STAGGERED, BALANCED><<<blocks(n), TILE>>>(d_b, d_a, n);
    CUDA_CHECK_LAUNCH();
}

extern "C" void gpu_atomic_symmetric_forces(const body *d_b, vec3 *d_a, int n, int)
{
    launch_symmetric<false, false>(d_b, d_a, n);
}

extern "C" void gpu_symmetric_staggered_forces(const body *d_b, vec3 *d_a, int n, int)
{
    launch_symmetric<true, false>(d_b, d_a, n);
}

extern "C" void gpu_symmetric_balanced_forces(const body *d_b, vec3 *d_a, int n, int)
{
    launch_symmetric<true, true>(d_b, d_a, n);
}
