/* forces_cpu.c - see forces.h. ch07's cpu-simd loop (its cpu.c tells why
 * each line is there) with its targets and sources apart and its sum
 * written or added. */
#include "forces.h"

#include <immintrin.h>

/* Targets [i0, i1) pulled by the ns sources, one at a time. */
static void scalar_range(const body *t, const body *src, int ns, vec3 *a, int i0, int i1, int add)
{
    for (int i = i0; i < i1; i++) {
        vec3 acc = add ? a[i] : (vec3){0, 0, 0};
        for (int j = 0; j < ns; j++)
            body_body_accel(&acc, t[i], src[j]);
        a[i] = acc;
    }
}

/* Targets i0 .. i0+7 in the 8 lanes; every source j broadcast to all lanes;
 * _mm256_rsqrt_ps plus one Newton step. */
__attribute__((target("avx2,fma"))) static void simd_block(const body *t, const body *src, int ns, vec3 *a, int i0,
                                                           int add)
{
    float xs[8], ys[8], zs[8];
    for (int k = 0; k < 8; k++) {
        xs[k] = t[i0 + k].x;
        ys[k] = t[i0 + k].y;
        zs[k] = t[i0 + k].z;
    }
    __m256 xi = _mm256_loadu_ps(xs), yi = _mm256_loadu_ps(ys), zi = _mm256_loadu_ps(zs);
    __m256 ax = _mm256_setzero_ps(), ay = _mm256_setzero_ps(), az = _mm256_setzero_ps();
    const __m256 eps2 = _mm256_set1_ps(SOFTENING2), half = _mm256_set1_ps(0.5f), three_halves = _mm256_set1_ps(1.5f);
    for (int j = 0; j < ns; j++) {
        __m256 rx = _mm256_sub_ps(_mm256_set1_ps(src[j].x), xi);
        __m256 ry = _mm256_sub_ps(_mm256_set1_ps(src[j].y), yi);
        __m256 rz = _mm256_sub_ps(_mm256_set1_ps(src[j].z), zi);
        __m256 d2 = _mm256_fmadd_ps(rz, rz, _mm256_fmadd_ps(ry, ry, _mm256_fmadd_ps(rx, rx, eps2)));
        __m256 inv = _mm256_rsqrt_ps(d2);
        inv = _mm256_mul_ps(inv, _mm256_fnmadd_ps(_mm256_mul_ps(half, d2), _mm256_mul_ps(inv, inv), three_halves));
        __m256 s = _mm256_mul_ps(_mm256_set1_ps(src[j].m), _mm256_mul_ps(inv, _mm256_mul_ps(inv, inv)));
        ax = _mm256_fmadd_ps(rx, s, ax);
        ay = _mm256_fmadd_ps(ry, s, ay);
        az = _mm256_fmadd_ps(rz, s, az);
    }
    _mm256_storeu_ps(xs, ax);
    _mm256_storeu_ps(ys, ay);
    _mm256_storeu_ps(zs, az);
    for (int k = 0; k < 8; k++)
        a[i0 + k] = add ? (vec3){a[i0 + k].x + xs[k], a[i0 + k].y + ys[k], a[i0 + k].z + zs[k]}
                        : (vec3){xs[k], ys[k], zs[k]};
}

void cpu_simd_block_forces(const body *targets, int nt, const body *sources, int ns, vec3 *a, int add)
{
    __builtin_cpu_init();
    int i = 0;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        for (; i + 8 <= nt; i += 8)
            simd_block(targets, sources, ns, a, i, add);
    scalar_range(targets, sources, ns, a, i, nt, add);
}
