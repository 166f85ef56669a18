/* forces_gpu.cu - see forces_gpu.h. ch07's gpu-two-bodies kernel (its
 * gpu_bodies.cu; gpu_tiled.cu tells the stages that led to it) with its targets and sources apart and its
 * sum written or added: the interaction is the N-body core's
 * body_body_accel_fma (common/nbody/nbody_gpu.h), ch07's, instruction for
 * instruction. */
#include "forces_gpu.h"

#include "../../common/cuda_util.h"
#include "../../common/nbody/nbody_gpu.h"

/* B targets a thread; the sources split into Q slices (threadIdx.y): slice y
 * takes tiles y, y + Q, ..., and the Q partial sums of each target are added
 * at the end, in slice order, then written into a, or ADDed to it. */
template <int B, int Q, int BLOCK, bool ADD>
__global__ void __launch_bounds__(BLOCK * Q)
    block_forces_kernel(const body *targets, int nt, const body *sources, int ns, vec3 *a)
{
    __shared__ float4 tile[Q][BLOCK];
    __shared__ vec3 part[Q][B * BLOCK];
    int i0 = blockIdx.x * B * BLOCK + threadIdx.x, y = threadIdx.y;
    body bi[B];
    vec3 acc[B];
#pragma unroll
    for (int k = 0; k < B; k++) {
        int i = i0 + k * BLOCK;
        bi[k] = i < nt ? targets[i] : body{0, 0, 0, 0};
        acc[k] = vec3{0, 0, 0};
    }
    int tiles = (ns + BLOCK - 1) / BLOCK;
    for (int t0 = 0; t0 < tiles; t0 += Q) {
        int j = (t0 + y) * BLOCK + threadIdx.x;
        tile[y][threadIdx.x] = j < ns ? __ldg(reinterpret_cast<const float4 *>(sources) + j) : make_float4(0, 0, 0, 0);
        __syncthreads();
#pragma unroll 8
        for (int jj = 0; jj < BLOCK; jj++) {
            float4 bj = tile[y][jj];
#pragma unroll
            for (int k = 0; k < B; k++)
                body_body_accel_fma(&acc[k], bi[k], bj);
        }
        __syncthreads();
    }
#pragma unroll
    for (int k = 0; k < B; k++)
        part[y][k * BLOCK + threadIdx.x] = acc[k];
    __syncthreads();
    if (y == 0)
#pragma unroll
        for (int k = 0; k < B; k++) {
            vec3 sum = part[0][k * BLOCK + threadIdx.x];
            for (int q = 1; q < Q; q++) {
                vec3 p = part[q][k * BLOCK + threadIdx.x];
                sum.x += p.x;
                sum.y += p.y;
                sum.z += p.z;
            }
            int i = i0 + k * BLOCK;
            if (i < nt) {
                if (ADD) {
                    vec3 old = a[i];
                    sum = vec3{old.x + sum.x, old.y + sum.y, old.z + sum.z};
                }
                a[i] = sum;
            }
        }
}

extern "C" void gpu_two_bodies_block_on(const body *targets, int nt, const body *sources, int ns, vec3 *a, int add,
                                        cudaStream_t stream)
{
    const int B = 2, Q = 2, BLOCK = 256;
    dim3 grid((unsigned)((nt + B * BLOCK - 1) / (B * BLOCK))), block(BLOCK, Q);
    if (nt > 0 && add)
        block_forces_kernel<B, Q, BLOCK, true><<<grid, block, 0, stream>>>(targets, nt, sources, ns, a);
    else if (nt > 0)
        block_forces_kernel<B, Q, BLOCK, false><<<grid, block, 0, stream>>>(targets, nt, sources, ns, a);
    CUDA_CHECK_LAUNCH();
}
