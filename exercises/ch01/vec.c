/* Exercise ch01: the card's vector functions.
 *
 * Everything the card computes is built from these six. Fill in each body
 * from its definition in vec.h; for reflect, work it out: a ray with direction
 * d meets a mirror whose unit normal is n; the part of d along n, (d.n) n,
 * flips sign, the rest of d is kept. Stay in float: a double (a literal like
 * 2.0, or sqrt instead of sqrtf) changes the rounding, and the test compiles
 * vec.c at -O0 and fails on any double-precision instruction it finds.
 * Then: make grade EX=ch01   (stuck? make hint EX=ch01)
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
