/* ex_ch05_kernel.cu - a kernel that calls exercise ch05's ex_shade, one input
 * (five floats) a thread. The test compiles it alone for nvcc -ptx (no FP64),
 * and includes it to run it (the values on a GPU): the PTX graded and the
 * code run are the same kernel. */
#include "shade.h"

__global__ void shade_kernel(float *out, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = ex_shade(in[5 * i], in[5 * i + 1], in[5 * i + 2], in[5 * i + 3], in[5 * i + 4]);
}
