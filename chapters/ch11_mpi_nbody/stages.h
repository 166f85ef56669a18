/* stages.h - ch11's stages: one change each in how a step's positions reach
 * every rank. The forces are ch07's gpu-two-bodies kernel on every stage
 * (cpu-simd's loop on ranks without a GPU: forces.h). problem.c runs them;
 * tests/test_ch11.c runs every row at P = 1 .. 4. */
#ifndef CH11_STAGES_H
#define CH11_STAGES_H

#include "ranks.h"

/* make bench's further runs: strong scaling is the standard run at every P
 * (bench_extra.sh); these sizes give the chart its curve. */
#define N_SWEEP "--n 16384;--n 65536;--n 262144"

static const rank_stage stages[] = {
    {{"allgather", "every rank's positions to every rank with a blocking MPI_Allgatherv, through pageable host "
      "memory", .where = STAGE_ALL_GPUS, .bench = N_SWEEP}, EXCHANGE_ALLGATHER, HOST_PAGEABLE},
    {{"allgather-pinned", "+ the host buffers page-locked (cudaMallocHost): the GPU copies them without staging",
      .where = STAGE_ALL_GPUS, .bench = N_SWEEP}, EXCHANGE_ALLGATHER, HOST_PINNED},
    {{"ring-overlap", "+ a ring: each rank passes one block on (MPI_Isend/MPI_Irecv) while its GPU computes the "
      "forces of the block it holds", .where = STAGE_ALL_GPUS, .bench = N_SWEEP}, EXCHANGE_RING, HOST_PINNED},
    {{"device-buffers", "allgather with the GPU's own buffers handed to MPI: a CUDA-aware MPI only (skipped with "
      "one line otherwise)", .where = STAGE_ALL_GPUS}, EXCHANGE_ALLGATHER, DEVICE_BUFFERS},
};
#define STAGE_COUNT (sizeof stages / sizeof stages[0])

#endif
