/* card.h - ch04's loop, made fast one change at a time (ch05).
 *
 * What changed from chapters/ch04_gpu_loop/card.h (`make diff A=ch04 B=ch05`):
 * the functions that differ between stages take the stage's changes as a
 * template parameter F, a set of these bits (render.h), each stage adding one:
 *   FLOAT_ONLY    no double left: float literals (.01f), powf, no (double)
 *                 pow(float, int). The GPU runs FP64 at a fraction of its
 *                 FP32 rate, and a double literal silently promotes the whole
 *                 expression;
 *   INTRINSICS    the GPU's fast approximate functions: __powf (exp2(y*log2 x)
 *                 on the special-function unit), __fdividef, rsqrtf. __powf of
 *                 a negative base is NaN, and Kensler's specular base can be
 *                 negative (light behind the reflection), so pow(x, 99) for
 *                 x < 0 is computed as -__powf(-x, 99): 99 is odd;
 *   POW_SQUARING  x^99 = x^64 * x^32 * x^2 * x by repeated squaring, 9
 *                 multiplies and no special function; x^4 likewise;
 *   SPHERE_LIST   visit the 49 spheres from a list instead of scanning the
 *                 19x9 bitmap for set bits: the same spheres in the same
 *                 order (so the same results), without 171 bit tests and
 *                 branches per ray; the list is unrolled into immediates;
 *   SPHERE_ALGEBRA  expand the sphere test: with p = o - c, p.d = o.d - c.d and
 *                 p.p = o.o - 2 o.c + c.c. o.d and o.o are computed once per
 *                 ray, and c = (k, 0, j + 4) has a zero y, so a sphere costs
 *                 a handful of FMAs instead of 16 flops. Same algorithm, other
 *                 rounding: pixels may move by the PSNR checks' margins;
 *   BOUNDING_BOX  test the 49 spheres only when the ray meets the box around
 *                 them. The box is exact and only skips rays that miss it, so
 *                 the pixels stay the same: less work, same picture;
 *   LETTER_BOXES  one box per letter of the sphere list instead: a ray that
 *                 meets the big box usually meets one or two letters, and only
 *                 their spheres are tested; same order, so the same hits.
 * On the CPU (CI's tests, the program's spot checks) the intrinsics fall back
 * to their precise forms: __powf and friends exist only on the GPU.
 * recursion is gone: the loop from ch04 is the only sampler.
 */
#ifndef CH05_CARD_H
#define CH05_CARD_H

#include "render.h" /* the bits, and the sets the stages use */

#include <math.h>
#include <stdint.h>

#define HD __host__ __device__ inline

typedef struct {
    float x, y, z;
} vec;

HD vec vec_make(float x, float y, float z)
{
    vec v = {x, y, z};
    return v;
}

HD vec vec_add(vec a, vec b)
{
    return vec_make(a.x + b.x, a.y + b.y, a.z + b.z);
}

HD vec vec_scale(vec a, float s)
{
    return vec_make(a.x * s, a.y * s, a.z * s);
}

HD float vec_dot(vec a, vec b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

HD vec vec_cross(vec a, vec b)
{
    return vec_make(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

HD vec vec_normalize(vec a)
{
    return vec_scale(a, 1 / sqrtf(vec_dot(a, a)));
}

/* ch03's generator: 32-bit LCG, top 16 bits over 65536, in [0, 1). */
HD float random_unit(uint32_t *state)
{
    *state = 214013u * *state + 2531011u;
    return (float)((*state >> 16) & 0xFFFF) / 65536.0f;
}

HD uint32_t pixel_seed(int x, int y, int width)
{
    uint32_t h = (uint32_t)y * (uint32_t)width + (uint32_t)x + 0x9E3779B9u;
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    h *= 0x846CA68Bu;
    h ^= h >> 16;
    return h;
}

/* Row j of the sphere bitmap ("aek"). */
HD int sphere_row(int j)
{
    switch (j) {
    case 0: return 247570;
    case 1: return 280596;
    case 2: return 280600;
    case 3: return 249748;
    case 4: return 18578;
    case 5: return 18577;
    case 6: return 231184;
    default: return 16;
    }
}

enum hit { HIT_NOTHING = 0, HIT_FLOOR = 1, HIT_SPHERE = 2 };

/* 1/sqrt(x): rsqrtf with INTRINSICS on the GPU. */
template <int F>
HD float inverse_sqrt(float x)
{
#ifdef __CUDA_ARCH__
    if (F & INTRINSICS)
        return rsqrtf(x);
#endif
    return 1 / sqrtf(x);
}

template <int F>
HD vec normalize(vec a)
{
    return vec_scale(a, inverse_sqrt<F>(vec_dot(a, a)));
}

template <int F>
HD float divide(float a, float b)
{
#ifdef __CUDA_ARCH__
    if (F & INTRINSICS)
        return __fdividef(a, b);
#endif
    return a / b;
}

/* Does the ray enter the box [x0, x1] x [-1, 1] x [z0, z1]? Slab test; rays
 * parallel to a slab give +-inf, which the comparisons handle. */
HD int meets_box(vec o, vec d, float x0, float x1, float z0, float z1)
{
    float tx1 = (x0 - o.x) / d.x, tx2 = (x1 - o.x) / d.x;
    float ty1 = (-1.01f - o.y) / d.y, ty2 = (1.01f - o.y) / d.y;
    float tz1 = (z0 - o.z) / d.z, tz2 = (z1 - o.z) / d.z;
    float near = fmaxf(fmaxf(fminf(tx1, tx2), fminf(ty1, ty2)), fminf(tz1, tz2));
    float far = fminf(fminf(fmaxf(tx1, tx2), fmaxf(ty1, ty2)), fmaxf(tz1, tz2));
    return near <= far && far > 0;
}

/* The box [-1, 19] x [-1, 1] x [3, 13] around every sphere (centres
 * (k, 0, j + 4), radius 1), widened by 0.01 to stay conservative. */
HD int meets_sphere_box(vec o, vec d)
{
    return meets_box(o, d, -1.01f, 19.01f, 2.99f, 13.01f);
}

/* The near-hit threshold: a double in the original, a float from FLOAT_ONLY on. */
template <int F>
HD int beyond_epsilon(float t)
{
    if (F & FLOAT_ONLY)
        return t > .01f;
    return t > .01;
}

/* The set bits of the bitmap in scan order, as k * 16 + j (SPHERE_LIST).
 * Inlined with a constant s, each becomes an immediate. */
HD int sphere_code(int s)
{
    const short spheres[49] = {290, 289, 278, 275, 272, 262, 259, 256, 246, 243, 240, 229, 228,
                               227, 226, 225, 224, 181, 180, 179, 178, 177, 166, 163, 160, 150,
                               147, 144, 134, 131, 128, 117, 116, 115, 72,  71,  70,  69,  68,
                               67,  66,  65,  64,  50,  35,  33,  20,  16,  5};
    return spheres[s];
}

/* One letter of the list (LETTER_BOXES): list entries [first, last) and the
 * box [x0, x1] x [-1, 1] x [z0, z1] around its spheres, widened by 0.01. */
typedef struct {
    int first, last;
    float x0, x1, z0, z1;
} sphere_letter;

/* The three letters (k = 18..14, 11..7, 4..0; centres at z = j + 4).
 * constexpr, so a kernel's loop over a letter has compile-time bounds and
 * unrolls into immediates (with the bounds read at run time, the same loops
 * ran about nine times slower on the H100). */
__host__ __device__ constexpr sphere_letter letter_of_list(int l)
{
    const sphere_letter letters[3] = {{0, 17, 12.99f, 19.01f, 2.99f, 11.01f},
                                      {17, 34, 5.99f, 12.01f, 2.99f, 11.01f},
                                      {34, 49, -1.01f, 5.01f, 2.99f, 13.01f}};
    return letters[l];
}

/* Calls of trace() on the CPU (for the box's share of them),
 * of those the ones the bounding box let skip the spheres, and calls of
 * test_sphere; the GPU code does not count. Inline variables (C++17): one
 * counter for the whole program, though every file that includes this one
 * may instantiate the templates that count. */
inline unsigned long long host_trace_calls, host_box_skips, host_sphere_tests;

/* The unit sphere at (k, 0, j + 4): solve |p + t dir|^2 = 1, p = origin - centre;
 * if it is hit nearer than *distance, record it. Returns the hit kind so far. */
template <int F>
HD int test_sphere(vec origin, vec dir, int k, int j, float *distance, vec *normal, int hit)
{
#ifndef __CUDA_ARCH__
    host_sphere_tests++;
#endif
    vec p = vec_add(origin, vec_make(-k, 0, -j - 4));
    float b = vec_dot(p, dir);
    float c = vec_dot(p, p) - 1;
    float discriminant = b * b - c;
    if (discriminant > 0) {
        float t = -b - sqrtf(discriminant);
        if (t < *distance && beyond_epsilon<F>(t)) {
            *distance = t;
            *normal = normalize<F>(vec_add(p, vec_scale(dir, t)));
            return HIT_SPHERE;
        }
    }
    return hit;
}

/* test_sphere with the algebra expanded (SPHERE_ALGEBRA): od = o.d and
 * oo = o.o - 1 come from the caller, once per ray. */
template <int F>
HD int test_sphere_expanded(vec origin, vec dir, float od, float oo, int k, int j, float *distance, vec *normal,
                            int hit)
{
    float cx = (float)k, cz = (float)(j + 4);
    float b = od - (cx * dir.x + cz * dir.z);
    float c = oo - 2 * (cx * origin.x + cz * origin.z) + (cx * cx + cz * cz);
    float discriminant = b * b - c;
    if (discriminant > 0) {
        float t = -b - sqrtf(discriminant);
        if (t < *distance && beyond_epsilon<F>(t)) {
            *distance = t;
            vec p = vec_add(origin, vec_make(-cx, 0, -cz));
            *normal = normalize<F>(vec_add(p, vec_scale(dir, t)));
            return HIT_SPHERE;
        }
    }
    return hit;
}

/* Letter L's spheres, if the ray meets its box (LETTER_BOXES). */
template <int F, int L>
HD int test_letter(vec origin, vec dir, float *distance, vec *normal, int hit)
{
    constexpr sphere_letter letter = letter_of_list(L);
    if (meets_box(origin, dir, letter.x0, letter.x1, letter.z0, letter.z1))
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
        for (int s = letter.first; s < letter.last; s++)
            hit = test_sphere<F>(origin, dir, sphere_code(s) >> 4, sphere_code(s) & 15, distance, normal, hit);
    return hit;
}

template <int F>
HD int trace(vec origin, vec dir, float *distance, vec *normal)
{
#ifndef __CUDA_ARCH__
    host_trace_calls++;
#endif
    int hit = HIT_NOTHING;
    *distance = 1e9f;
    float floor_t = divide<F>(-origin.z, dir.z);
    if (beyond_epsilon<F>(floor_t)) {
        *distance = floor_t;
        *normal = vec_make(0, 0, 1);
        hit = HIT_FLOOR;
    }
    if ((F & BOUNDING_BOX) && !meets_sphere_box(origin, dir)) {
#ifndef __CUDA_ARCH__
        host_box_skips++;
#endif
        return hit;
    }
    if constexpr ((F & LETTER_BOXES) != 0) {
        /* The list cut into its three letters (k = 18..14, 11..7, 4..0), each
         * behind its own box: same spheres, same order, fewer tested. */
        hit = test_letter<F, 0>(origin, dir, distance, normal, hit);
        hit = test_letter<F, 1>(origin, dir, distance, normal, hit);
        hit = test_letter<F, 2>(origin, dir, distance, normal, hit);
    } else if constexpr ((F & SPHERE_LIST) != 0) {
        float od = vec_dot(origin, dir), oo = vec_dot(origin, origin) - 1; /* for SPHERE_ALGEBRA */
#ifdef __CUDA_ARCH__ /* g++, compiling the CPU side, does not know this pragma */
#pragma unroll
#endif
        for (int s = 0; s < 49; s++)
            hit = F & SPHERE_ALGEBRA
                      ? test_sphere_expanded<F>(origin, dir, od, oo, sphere_code(s) >> 4, sphere_code(s) & 15, distance,
                                                normal, hit)
                      : test_sphere<F>(origin, dir, sphere_code(s) >> 4, sphere_code(s) & 15, distance, normal, hit);
    } else {
        for (int k = 19; k--;)
            for (int j = 9; j--;)
                if (sphere_row(j) & 1 << k)
                    hit = test_sphere<F>(origin, dir, k, j, distance, normal, hit);
    }
    return hit;
}

/* x^n for the two powers the card uses, 4 and 99, per stage. */
template <int F, int N>
HD float power(float x)
{
    if (F & POW_SQUARING) {
        float x2 = x * x, x4 = x2 * x2;
        if (N == 4)
            return x4;
        float x8 = x4 * x4, x16 = x8 * x8, x32 = x16 * x16, x64 = x32 * x32;
        return x64 * x32 * x2 * x; /* 99 = 64 + 32 + 2 + 1 */
    }
#ifdef __CUDA_ARCH__
    if (F & INTRINSICS) /* __powf(negative, y) is NaN; N is 4 or 99, and 99 is odd */
        return x < 0 ? (N % 2 ? -1.0f : 1.0f) * __powf(-x, (float)N) : __powf(x, (float)N);
#endif
    if (F & FLOAT_ONLY)
        return powf(x, (float)N);
    return pow(x, N); /* C++: pow(float, int) computes in double */
}

template <int F>
HD vec sky(vec dir)
{
    return vec_scale(vec_make(.7f, .6f, 1), power<F, 4>(1 - dir.z));
}

/* The floor's brightness: lambert * .2 + .1, in double until FLOAT_ONLY. */
template <int F>
HD float floor_light(float lambert)
{
    if (F & FLOAT_ONLY)
        return lambert * .2f + .1f;
    return lambert * .2 + .1;
}

/* What a ray that hit something at hit_point sees there, apart from the
 * reflection: the floor's lit checkerboard (*is_floor = 1), or a sphere's
 * specular highlight. Draws the light's jitter from rng. */
template <int F>
HD vec shade(vec dir, int hit, vec hit_point, vec normal, uint32_t *rng, vec *reflected, int *is_floor)
{
    float t;
    float light_y = 9 + random_unit(rng);
    float light_x = 9 + random_unit(rng);
    vec to_light = normalize<F>(vec_add(vec_make(light_x, light_y, 16), vec_scale(hit_point, -1)));
    *reflected = vec_add(dir, vec_scale(normal, vec_dot(normal, dir) * -2));
    float lambert = vec_dot(to_light, normal);
    if (lambert < 0 || trace<F>(hit_point, to_light, &t, &normal))
        lambert = 0;
    *is_floor = hit == HIT_FLOOR;
    if (*is_floor) {
        vec h = vec_scale(hit_point, .2f);
        int odd_tile = (int)(ceilf(h.x) + ceilf(h.y)) & 1;
        vec tile = odd_tile ? vec_make(3, 1, 1) : vec_make(3, 3, 3);
        return vec_scale(tile, floor_light<F>(lambert));
    }
    float specular = power<F, 99>(vec_dot(to_light, *reflected) * (lambert > 0));
    return vec_make(specular, specular, specular);
}

/* The same sum as a loop: colour = local_0 + .5 (local_1 + .5 (local_2 + ...))
 * = local_0 + .5 local_1 + .25 local_2 + ..., gathered front to back. The
 * additions happen in another order, so results agree to rounding, not bits. */
template <int F>
HD vec sample_loop(vec origin, vec dir, uint32_t *rng)
{
    vec colour = vec_make(0, 0, 0);
    float attenuation = 1;
    for (;;) {
        float t;
        vec normal, reflected;
        int hit = trace<F>(origin, dir, &t, &normal), is_floor;
        if (hit == HIT_NOTHING)
            return vec_add(colour, vec_scale(sky<F>(dir), attenuation));
        vec hit_point = vec_add(origin, vec_scale(dir, t));
        vec local = shade<F>(dir, hit, hit_point, normal, rng, &reflected, &is_floor);
        colour = vec_add(colour, vec_scale(local, attenuation));
        if (is_floor)
            return colour;
        attenuation *= .5f;
        origin = hit_point;
        dir = reflected;
    }
}

typedef struct {
    vec right, up, corner;
    float lens;
    int width, height;
} camera;

static inline camera make_camera(int width, int height)
{
    camera cam;
    vec forward = vec_normalize(vec_make(-6, -16, 0));
    float pixel = 0.002 * 512.0 / width;
    cam.right = vec_scale(vec_normalize(vec_cross(vec_make(0, 0, 1), forward)), pixel);
    cam.up = vec_scale(vec_normalize(vec_cross(forward, cam.right)), pixel);
    cam.corner = vec_add(vec_scale(vec_add(vec_scale(cam.right, width / 2.0f), vec_scale(cam.up, height / 2.0f)), -1),
                         forward);
    cam.lens = 99.0f * width / 512;
    cam.width = width;
    cam.height = height;
    return cam;
}

/* The sum of `samples` samples of one pixel, times 3.5, drawn from the
 * generator seeded with `seed`. x, y are the camera's coordinates (they count
 * against the picture's columns and rows). */
template <int F>
HD vec pixel_samples(const camera *cam, int x, int y, int samples, uint32_t rng, vec colour)
{
    for (int s = samples; s--;) {
        float lens_up = random_unit(&rng);
        float lens_right = random_unit(&rng);
        /* lens - .5 was a double subtraction; for these k/65536 values it is exact in float too */
        vec offset = vec_add(vec_scale(vec_scale(cam->right, lens_right - .5f), cam->lens),
                             vec_scale(vec_scale(cam->up, lens_up - .5f), cam->lens));
        float jitter_y = random_unit(&rng);
        float jitter_x = random_unit(&rng);
        vec target = vec_scale(vec_add(vec_add(vec_scale(cam->right, jitter_x + x), vec_scale(cam->up, y + jitter_y)),
                                       cam->corner),
                               16);
        vec dir = normalize<F>(vec_add(vec_scale(offset, -1), target));
        vec origin = vec_add(vec_make(17, 16, 8), offset);
        colour = vec_add(vec_scale(sample_loop<F>(origin, dir, &rng), 3.5f), colour);
    }
    return colour;
}

/* One pixel's colour, before it is cut to 8 bits: 13 plus its samples. */
template <int F>
HD vec render_pixel(const camera *cam, int x, int y, int samples)
{
    return pixel_samples<F>(cam, x, y, samples, pixel_seed(x, y, cam->width), vec_make(13, 13, 13));
}

/* With `lanes` threads per pixel, lane l's share of the pixel's colour: its
 * samples (l, l + lanes, ...) from its own generator, seeded as pixel
 * (x, y + l * height) would be; lane 0 also carries the 13 every pixel starts
 * from, so with one lane this is render_pixel, bit for bit. */
template <int F>
HD vec lane_samples(const camera *cam, int x, int y, int samples, int lane, int lanes)
{
    int mine = samples / lanes + (lane < samples % lanes);
    uint32_t seed = pixel_seed(x, y + lane * cam->height, cam->width);
    float start = lane == 0 ? 13 : 0;
    return pixel_samples<F>(cam, x, y, mine, seed, vec_make(start, start, start));
}

/* The lanes' sums added as the GPU's butterfly adds them: in step `step`,
 * lane l adds lane l ^ step's running sum, so after log2(lanes) steps every
 * lane holds the same total (float addition commutes, so each pair's two
 * sums are the same bits). part[] is overwritten; lanes is a power of 2. */
HD vec add_lanes(vec *part, int lanes)
{
    for (int step = 1; step < lanes; step *= 2)
        for (int l = 0; l < lanes; l++)
            if (l < (l ^ step)) {
                vec sum = vec_add(part[l], part[l ^ step]);
                part[l] = part[l ^ step] = sum;
            }
    return part[0];
}

/* A colour as 8-bit RGB (wrapping like the original's %c). Returns 0 if it
 * was NaN or infinite. */
HD int store_colour(vec c, unsigned char *out)
{
    out[0] = (unsigned char)(int)c.x;
    out[1] = (unsigned char)(int)c.y;
    out[2] = (unsigned char)(int)c.z;
    return isfinite(c.x) && isfinite(c.y) && isfinite(c.z);
}

/* Picture pixel (col, row), row 0 at the top. */
template <int F>
HD int render_picture_pixel(const camera *cam, int col, int row, int samples, unsigned char *out)
{
    return store_colour(render_pixel<F>(cam, cam->width - 1 - col, cam->height - 1 - row, samples), out);
}

#endif
