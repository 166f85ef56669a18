/* Exercise ch01: the card's vector functions.
 *
 * Fill in each body. chapters/ch01_baseline/card.c shows how the card uses
 * them (reflect is its `dir + normal * (normal . dir * -2)`). Then:
 *     make grade
 * The test (tests/test_ex_ch01.c) draws 10000 random vectors from a fixed
 * seed and wants add and scale exact (one float rounding, like a + b in C),
 * the others within a few units in the last place of float. */
#include "vec.h"

#include <math.h>

vec vec_add(vec a, vec b)
{
    (void)a;
    (void)b;
    vec r = {0, 0, 0}; /* TODO */
    return r;
}

vec vec_scale(vec a, float s)
{
    (void)a;
    (void)s;
    vec r = {0, 0, 0}; /* TODO */
    return r;
}

float vec_dot(vec a, vec b)
{
    (void)a;
    (void)b;
    return 0; /* TODO */
}

vec vec_cross(vec a, vec b)
{
    (void)a;
    (void)b;
    vec r = {0, 0, 0}; /* TODO */
    return r;
}

vec vec_normalize(vec a)
{
    (void)a;
    vec r = {0, 0, 0}; /* TODO: use sqrtf, not sqrt, to stay in float */
    return r;
}

vec vec_reflect(vec d, vec n)
{
    (void)d;
    (void)n;
    vec r = {0, 0, 0}; /* TODO */
    return r;
}
