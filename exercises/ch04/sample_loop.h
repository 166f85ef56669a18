/* Exercise ch04: tinted mirrors, without a stack.
 *
 * Chapter 04 turned the card's recursive sample() into a loop: every mirror
 * bounce halved what came after it, so one number (0.5, 0.25, ...) carried
 * the attenuation. Here the mirrors are tinted: a sphere reflects each colour
 * channel by its own factor (mirror_tint below), so what comes after a bounce
 * is multiplied channel by channel. tinted_sample_recursive() is the reference:
 * correct, and recursive, so on the GPU it needs a stack in local memory.
 *
 * Your job: exercise_sample_loop() must compute exactly what the recursion
 * computes (the same terms, the same random numbers drawn in the same order)
 * with no recursion and no stack. As given it just calls the recursion, so it
 * is right on the CPU and fails the stack test.
 *
 * Graded (tests/test_ex_ch04.cu): on the CPU, 5000 random rays (half of them
 * aimed at the letters) against the recursion, within 1e-4 relative + 1e-3;
 * from the machine code, no GPU needed: ptxas -v on a kernel that calls
 * your function must report 0 bytes of stack frame and no spills; and on a
 * GPU (skipped without one) the same rays through that kernel (the host and
 * device code must be one: the device's is what the stack test reads).
 * Then: make grade EX=ch04   (stuck? make hint EX=ch04)
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

HD vec exercise_sample_loop(vec origin, vec dir, uint32_t *rng)
{
    return tinted_sample_recursive(origin, dir, rng); /* TODO: the same, as a loop */
}

#endif
