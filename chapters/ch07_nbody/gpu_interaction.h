/* gpu_interaction.h - what ch07's tiled kernels share: the tile's length,
 * one body as one 16-byte load, and the interaction read from a float4 whose
 * 1/sqrt and r.r + eps^2 the bits of V choose. gpu_tiled.cu's ladder adds
 * the bits one stage at a time; gpu_bodies.cu's kernels use them all. */
#ifndef CH07_GPU_INTERACTION_H
#define CH07_GPU_INTERACTION_H

#include "nbody.h"

#include "../../common/nbody/nbody_gpu.h" /* rsqrt_ftz */

#define TILE 256

static __device__ __forceinline__ body load_body(const body *b, int j)
{
    float4 v = __ldg(reinterpret_cast<const float4 *>(b) + j); /* one 16-byte load */
    return body{v.x, v.y, v.z, v.w};
}

/* rsqrt_ftz(x), 1/sqrt(x) by the flush-to-zero form of the special-function
 * instruction (rsqrt.approx.ftz.f32), is the N-body core's, which ch11's
 * kernel shares: common/nbody/nbody_gpu.h. */

/* The tiled stages after gpu-tiled differ by one change each, as bits of V:
 * the tile as float4 (all of them), then RSQRT, then UNROLL, then FTZ, then
 * SOFT_FMA. */
enum { RSQRT = 1, UNROLL = 2, FTZ = 4, SOFT_FMA = 8 };

/* 1/sqrt(d2): a square root and a division; with RSQRT the GPU's reciprocal
 * square root, one special-function instruction; with FTZ its flush-to-zero
 * form. */
template <int V>
static __device__ __forceinline__ float inverse_sqrt(float d2)
{
    if (V & FTZ)
        return rsqrt_ftz(d2);
    if (V & RSQRT)
        return rsqrtf(d2);
    return 1.0f / sqrtf(d2);
}

/* With SOFT_FMA, r.r + eps^2 is summed from eps^2 up, so every term is one
 * multiply-add (3 instructions); written r.r + eps^2, it is a multiply, two
 * multiply-adds and an add (4). */
template <int V>
static __device__ __forceinline__ float distance2(float rx, float ry, float rz)
{
    if (V & SOFT_FMA)
        return fmaf(rz, rz, fmaf(ry, ry, fmaf(rx, rx, SOFTENING2)));
    return rx * rx + ry * ry + rz * rz + SOFTENING2;
}

template <int V>
static __device__ __forceinline__ void body_body_accel_float4(vec3 *a, body bi, float4 bj)
{
    float rx = bj.x - bi.x, ry = bj.y - bi.y, rz = bj.z - bi.z;
    float d2 = distance2<V>(rx, ry, rz);
    float inv = inverse_sqrt<V>(d2);
    float s = bj.w * inv * inv * inv;
    a->x += rx * s;
    a->y += ry * s;
    a->z += rz * s;
}

/* Blocks of TILE threads for n bodies. */
static inline unsigned blocks(int n)
{
    return (unsigned)((n + TILE - 1) / TILE);
}

#endif
