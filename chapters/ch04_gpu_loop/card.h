/* card.h - ch03's card as __host__ __device__ code (ch04), in the C subset of
 * CUDA C++: the GPU kernels and the CPU reference render both include it, so
 * CI (no GPU) tests on the CPU the very code the GPU runs.
 *
 * What changed from chapters/ch03_threads/card.c (`make diff A=ch03 B=ch04`):
 *   - every function is HD (host and device) and inline;
 *   - the sphere bitmap is a switch, so the GPU keeps it in the instruction
 *     stream instead of loading it from memory;
 *   - sample() comes twice: sample_recursive(), ch03's recursion, and
 *     sample_loop(), the same light transport as a loop that carries the
 *     colour gathered so far and the attenuation (each mirror bounce halves
 *     what follows), so the GPU needs no stack;
 *   - no libc rand(): the per-pixel seeded LCG of ch03 only.
 * The arithmetic, doubles included (.01, .2, pow), is ch03's: ch05 removes them.
 */
#ifndef CH04_CARD_H
#define CH04_CARD_H

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

HD int trace(vec origin, vec dir, float *distance, vec *normal)
{
    int hit = HIT_NOTHING;
    *distance = 1e9;
    float floor_t = -origin.z / dir.z;
    if (.01 < floor_t) {
        *distance = floor_t;
        *normal = vec_make(0, 0, 1);
        hit = HIT_FLOOR;
    }
    for (int k = 19; k--;)
        for (int j = 9; j--;) {
            if (!(sphere_row(j) & 1 << k))
                continue;
            vec p = vec_add(origin, vec_make(-k, 0, -j - 4));
            float b = vec_dot(p, dir);
            float c = vec_dot(p, p) - 1;
            float discriminant = b * b - c;
            if (discriminant > 0) {
                float t = -b - sqrtf(discriminant);
                if (t < *distance && t > .01) {
                    *distance = t;
                    *normal = vec_normalize(vec_add(p, vec_scale(dir, t)));
                    hit = HIT_SPHERE;
                }
            }
        }
    return hit;
}

HD vec sky(vec dir)
{
    return vec_scale(vec_make(.7, .6, 1), pow(1 - dir.z, 4));
}

/* What a ray that hit something at hit_point sees there, apart from the
 * reflection: the floor's lit checkerboard (*is_floor = 1), or a sphere's
 * specular highlight. Draws the light's jitter from rng. */
HD vec shade(vec dir, int hit, vec hit_point, vec normal, uint32_t *rng, vec *reflected, int *is_floor)
{
    float t;
    float light_y = 9 + random_unit(rng);
    float light_x = 9 + random_unit(rng);
    vec to_light = vec_normalize(vec_add(vec_make(light_x, light_y, 16), vec_scale(hit_point, -1)));
    *reflected = vec_add(dir, vec_scale(normal, vec_dot(normal, dir) * -2));
    float lambert = vec_dot(to_light, normal);
    if (lambert < 0 || trace(hit_point, to_light, &t, &normal))
        lambert = 0;
    *is_floor = hit == HIT_FLOOR;
    if (*is_floor) {
        vec h = vec_scale(hit_point, .2);
        int odd_tile = (int)(ceilf(h.x) + ceilf(h.y)) & 1;
        vec tile = odd_tile ? vec_make(3, 1, 1) : vec_make(3, 3, 3);
        return vec_scale(tile, lambert * .2 + .1);
    }
    float specular = pow(vec_dot(to_light, *reflected) * (lambert > 0), 99);
    return vec_make(specular, specular, specular);
}

/* ch03's sample(): recursive. On the GPU every level of the recursion needs
 * a stack frame in local memory, and nvcc cannot know how deep it goes. */
HD vec sample_recursive(vec origin, vec dir, uint32_t *rng)
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
    return vec_add(local, vec_scale(sample_recursive(hit_point, reflected, rng), .5));
}

/* The same sum as a loop: colour = local_0 + .5 (local_1 + .5 (local_2 + ...))
 * = local_0 + .5 local_1 + .25 local_2 + ..., gathered front to back. The
 * additions happen in another order, so results agree to rounding, not bits. */
HD vec sample_loop(vec origin, vec dir, uint32_t *rng)
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

/* One pixel's colour, before it is cut to 8 bits. x, y are the camera's
 * coordinates (they count against the picture's columns and rows). */
HD vec render_pixel(const camera *cam, int x, int y, int samples, int recursive)
{
    uint32_t rng = pixel_seed(x, y, cam->width);
    vec colour = vec_make(13, 13, 13);
    for (int s = samples; s--;) {
        float lens_up = random_unit(&rng);
        float lens_right = random_unit(&rng);
        vec offset = vec_add(vec_scale(vec_scale(cam->right, lens_right - .5), cam->lens),
                             vec_scale(vec_scale(cam->up, lens_up - .5), cam->lens));
        float jitter_y = random_unit(&rng);
        float jitter_x = random_unit(&rng);
        vec target = vec_scale(vec_add(vec_add(vec_scale(cam->right, jitter_x + x), vec_scale(cam->up, y + jitter_y)),
                                       cam->corner),
                               16);
        vec dir = vec_normalize(vec_add(vec_scale(offset, -1), target));
        vec origin = vec_add(vec_make(17, 16, 8), offset);
        vec c = recursive ? sample_recursive(origin, dir, &rng) : sample_loop(origin, dir, &rng);
        colour = vec_add(vec_scale(c, 3.5), colour);
    }
    return colour;
}

/* Picture pixel (col, row), row 0 at the top, as 8-bit RGB (wrapping like the
 * original's %c). Returns 0 if the colour was NaN or infinite. */
HD int render_picture_pixel(const camera *cam, int col, int row, int samples, int recursive, unsigned char *out)
{
    vec c = render_pixel(cam, cam->width - 1 - col, cam->height - 1 - row, samples, recursive);
    out[0] = (unsigned char)(int)c.x;
    out[1] = (unsigned char)(int)c.y;
    out[2] = (unsigned char)(int)c.z;
    return isfinite(c.x) && isfinite(c.y) && isfinite(c.z);
}

#endif
