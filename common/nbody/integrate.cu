/* integrate.cu - see nbody_gpu.h. */
#include "nbody_gpu.h"

#include "../cuda_util.h"

enum { INTEGRATE_BLOCK = 256 };

__global__ void integrate_kernel(body *b, vec3 *v, const vec3 *a, int n, float dt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        integrate_body(&b[i], &v[i], a[i], dt);
}

extern "C" void nbody_integrate_gpu(body *d_b, vec3 *d_v, const vec3 *d_a, int n, float dt, cudaStream_t stream)
{
    if (n == 0)
        return;
    unsigned blocks = (unsigned)((n + INTEGRATE_BLOCK - 1) / INTEGRATE_BLOCK);
    integrate_kernel<<<blocks, INTEGRATE_BLOCK, 0, stream>>>(d_b, d_v, d_a, n, dt);
    CUDA_CHECK_LAUNCH();
}
