/* WRONG ANSWER (ch04, sky-untinted): the sky seen at the end of the bounces added without the tints gathered on the way */
/* Solution to exercise ch04: tinted mirrors, without a stack.
 *
 * The recursion computes local_0 + tint_0 (local_1 + tint_1 (local_2 + ...)),
 * channel by channel. Expanded: local_0 + tint_0 local_1 + tint_0 tint_1
 * local_2 + ..., so the loop carries the product of the tints met so far (a
 * vec, where chapter 04's card carried one number, 0.5^k) and adds each
 * bounce's local colour times it. Front to back: no call left, so no stack;
 * the additions happen in another order, so results agree to rounding.
 */
#ifndef EX_CH04_SAMPLE_LOOP_H
#define EX_CH04_SAMPLE_LOOP_H

#include "card.h"

/* The mirror's colour: gold for the spheres left of x = 9, steel blue for the others. */
HD vec mirror_tint(vec hit_point)
{
    return hit_point.x < 9 ? vec_make(0.9f, 0.7f, 0.3f) : vec_make(0.5f, 0.6f, 0.8f);
}

/* The reference (given; do not change): the card's light transport with
 * tinted mirrors. */
HD vec tinted_sample_recursive(vec origin, vec dir, uint32_t *rng)
{
    float t;
    vec normal, reflected;
    int hit = trace(origin, dir, &t, &normal), is_floor;
    if (hit == HIT_NOTHING)
        return sky(dir);
    vec hit_point = vec_add(origin, vec_scale(dir, t));
    vec local = shade(dir, hit, hit_point, normal, rng, &reflected, &is_floor);
    if (is_floor)
        return local;
    vec tint = mirror_tint(hit_point), after = tinted_sample_recursive(hit_point, reflected, rng);
    return vec_add(local, vec_make(tint.x * after.x, tint.y * after.y, tint.z * after.z));
}

/* a * b, channel by channel. */
HD vec channels(vec a, vec b)
{
    return vec_make(a.x * b.x, a.y * b.y, a.z * b.z);
}

HD vec exercise_sample_loop(vec origin, vec dir, uint32_t *rng)
{
    vec colour = vec_make(0, 0, 0), attenuation = vec_make(1, 1, 1);
    for (;;) {
        float t;
        vec normal, reflected;
        int hit = trace(origin, dir, &t, &normal), is_floor;
        if (hit == HIT_NOTHING)
            return vec_add(colour, sky(dir));
        vec hit_point = vec_add(origin, vec_scale(dir, t));
        vec local = shade(dir, hit, hit_point, normal, rng, &reflected, &is_floor);
        colour = vec_add(colour, channels(attenuation, local));
        if (is_floor)
            return colour;
        attenuation = channels(attenuation, mirror_tint(hit_point));
        origin = hit_point;
        dir = reflected;
    }
}

#endif
