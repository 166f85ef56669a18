/* ex_ch04_kernel.cu - a kernel that calls exercise ch04's loop, for ptxas -v
 * (the test compiles it; nothing runs it). */
#include "sample_loop.h"

__global__ void tinted_kernel(vec *out, const vec *origins, const vec *dirs, unsigned seed)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t rng = seed + i;
    out[i] = exercise_sample_loop(origins[i], dirs[i], &rng);
}
