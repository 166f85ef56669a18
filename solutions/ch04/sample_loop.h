/* Solution to exercise ch04: the recursion as a loop. */
#ifndef EX_CH04_SAMPLE_LOOP_H
#define EX_CH04_SAMPLE_LOOP_H

#include "card.h"

HD vec exercise_sample_loop(vec origin, vec dir, uint32_t *rng)
{
    vec colour = vec_make(0, 0, 0);
    float attenuation = 1;
    for (;;) {
        float t;
        vec normal, reflected;
        int hit = trace(origin, dir, &t, &normal), is_floor;
        if (hit == HIT_NOTHING)
            return vec_add(colour, vec_scale(sky(dir), attenuation));
        vec hit_point = vec_add(origin, vec_scale(dir, t));
        vec local = shade(dir, hit, hit_point, normal, rng, &reflected, &is_floor);
        colour = vec_add(colour, vec_scale(local, attenuation));
        if (is_floor)
            return colour;
        attenuation *= .5f; /* each mirror keeps half */
        origin = hit_point;
        dir = reflected;
    }
}

#endif
