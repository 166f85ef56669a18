/* ex_ch04_kernel.cu - a kernel that calls exercise ch04's loop: one ray a
 * thread, its random state read and written back. The test compiles it alone
 * for ptxas -v (the stack), and includes it to run it (the values on a GPU):
 * the machine code graded and the code run are the same kernel. */
#include "sample_loop.h"

__global__ void tinted_kernel(vec *out, uint32_t *rng, const vec *origins, const vec *dirs, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        uint32_t state = rng[i];
        out[i] = exercise_sample_loop(origins[i], dirs[i], &state);
        rng[i] = state;
    }
}
