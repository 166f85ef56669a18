/* WRONG ANSWER (ch01, reflect-sign): reflection with +2 (d.n) n: the ray goes into the surface instead of away */
/* Solution to exercise ch01: the card's vector functions. */
#include "vec.h"

#include <math.h>

vec vec_add(vec a, vec b)
{
    vec r = {a.x + b.x, a.y + b.y, a.z + b.z};
    return r;
}

vec vec_scale(vec a, float s)
{
    vec r = {a.x * s, a.y * s, a.z * s};
    return r;
}

float vec_dot(vec a, vec b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

vec vec_cross(vec a, vec b)
{
    vec r = {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
    return r;
}

vec vec_normalize(vec a)
{
    /* sqrtf keeps the arithmetic in float; sqrt would convert to double and back. */
    return vec_scale(a, 1.0f / sqrtf(vec_dot(a, a)));
}

vec vec_reflect(vec d, vec n)
{
    return vec_add(d, vec_scale(n, 2.0f * vec_dot(d, n)));
}
