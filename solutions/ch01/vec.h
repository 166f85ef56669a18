/* vec.h - the vector functions Kensler's card needs (exercise ch01).
 * Do not change this file; write the bodies in vec.c. */
#ifndef EX_CH01_VEC_H
#define EX_CH01_VEC_H

typedef struct {
    float x, y, z;
} vec;

vec vec_add(vec a, vec b);       /* a + b, component by component */
vec vec_scale(vec a, float s);   /* a * s */
float vec_dot(vec a, vec b);     /* a.x*b.x + a.y*b.y + a.z*b.z */
vec vec_cross(vec a, vec b);     /* a x b (right-handed) */
vec vec_normalize(vec a);        /* a / |a|; a is never the zero vector */
vec vec_reflect(vec d, vec n);   /* d mirrored about the plane with unit normal n: d - 2 (d.n) n */

#endif
