/* steps.c - one stage's run as common/measure.h sees it: --steps steps, and
 * the check (the bodies back to their start: problem.c). */
#include "rows.h"

#include "../../common/cuda_util.h"
#include "../../common/nbody/nbody_gpu.h"

#include <stdio.h>

/* --steps steps from the initial state (GPU: launched, not waited for). */
void run_steps(void *context)
{
    problem *p = context;
    if (p->s->info.where == STAGE_ALL_GPUS) {
        multi_gpu_run(p->b, p->v, p->n, p->steps, DT, p->devices, p->a, p->s->multi); /* a: the first step's forces */
        return;
    }
    if (p->out) {
        output_steps(p->out, &p->g, DT);
        return;
    }
    for (int k = 0; k < p->steps; k++) {
        if (p->s->info.where == STAGE_CPU) {
            p->s->run(p->b, p->a, p->n, p->threads);
            nbody_integrate_cpu(p->b, p->v, p->a, p->n, DT);
        } else {
            p->s->run(p->g.d_b, p->g.d_a, p->n, 0);
            nbody_integrate_gpu(p->g.d_b, p->g.d_v, p->g.d_a, p->n, DT, 0);
        }
    }
}

/* The bodies moved stay finite, and the forces on the initial bodies (the
 * multi-gpu run's first step) are within the bound of the reference. */
int check_forces(void *context, char *note, size_t size)
{
    problem *p = context;
    if (p->s->info.where == STAGE_GPU)
        CUDA_CHECK(cudaMemcpy(p->b, p->g.d_b, (size_t)p->n * sizeof(body), cudaMemcpyDeviceToHost));
    int moved_ok = positions_finite(p->b, p->n), output_ok = 1;
    char output_note[160] = "";
    if (p->out)
        output_ok = output_check(p->out, p, output_note, sizeof output_note);
    if (p->s->info.where != STAGE_ALL_GPUS)
        reset_bodies(p);
    if (p->s->info.where == STAGE_CPU) {
        p->s->run(p->b, p->a, p->n, p->threads);
    } else if (p->s->info.where == STAGE_GPU) {
        CUDA_CHECK(cudaMemset(p->g.d_a, 0xFF, (size_t)p->n * sizeof(vec3))); /* poison: NaN */
        p->s->run(p->g.d_b, p->g.d_a, p->n, 0);
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaMemcpy(p->a, p->g.d_a, (size_t)p->n * sizeof(vec3), cudaMemcpyDeviceToHost));
    }
    double err = force_error(&p->ref, p->a);
    snprintf(note, size, "%serror %.2g (bound %.2g)%s", output_note, err, error_bound(p->n),
             moved_ok ? "" : ", positions not finite");
    return moved_ok && output_ok && err <= error_bound(p->n);
}
