/* kernel_info.cu - see kernel_info.h. */
#include "kernel_info.h"

#include "../cuda_util.h"

void gpu_describe_kernel(const void *kernel, int threads_per_block, kernel_info *out)
{
    cudaFuncAttributes a;
    int device, max_threads, blocks;
    CUDA_CHECK(cudaFuncGetAttributes(&a, kernel));
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerMultiProcessor, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads_per_block, 0));
    out->registers = a.numRegs;
    out->local_bytes = (int)a.localSizeBytes;
    out->blocks_per_sm = blocks;
    out->occupancy = (double)blocks * threads_per_block / max_threads;
}
