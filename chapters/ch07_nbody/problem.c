/* problem.c - the bodies a stage works on, back to their start (on the host
 * and, for a GPU stage, on the GPU). Used by the steps (steps.c) and the
 * output stages' own check (output.c). */
#include "rows.h"

#include "../../common/cuda_util.h"

void reset_bodies(void *context)
{
    problem *p = context;
    nbody_init(p->b, p->v, p->n);
    if (p->s->info.where != STAGE_GPU)
        return;
    CUDA_CHECK(cudaMemcpy(p->g.d_b, p->b, (size_t)p->n * sizeof(body), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(p->g.d_v, p->v, (size_t)p->n * sizeof(vec3), cudaMemcpyHostToDevice));
}
