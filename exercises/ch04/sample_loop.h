/* Exercise ch04: turn the recursion into a loop.
 *
 * chapters/ch04_gpu_loop/card.h has sample_recursive(): when a ray hits a
 * sphere it returns the local highlight plus half of what the reflected ray
 * sees, found by calling itself. On the GPU each level of that recursion needs
 * a stack frame. Write the same computation as a loop: keep the colour
 * gathered so far and the attenuation (1, then 0.5, 0.25, ...), and replace
 * the recursive call by moving origin and dir to the reflected ray.
 * Use trace(), shade() and sky() from card.h; draw random numbers only
 * through them, in the same order as the recursion does.
 *
 * Then: make grade   (the test runs on the CPU: the code is __host__ __device__)
 */
#ifndef EX_CH04_SAMPLE_LOOP_H
#define EX_CH04_SAMPLE_LOOP_H

#include "card.h"

HD vec exercise_sample_loop(vec origin, vec dir, uint32_t *rng)
{
    /* TODO: the loop. This stub only handles rays that hit nothing. */
    float t;
    vec normal;
    (void)rng;
    if (trace(origin, dir, &t, &normal) == HIT_NOTHING)
        return sky(dir);
    return vec_make(0, 0, 0);
}

#endif
