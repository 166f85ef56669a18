/* card.c - ch01's raytracer, made ready for threads (ch03).
 *
 * What changed from chapters/ch01_baseline/card.c (`make diff A=ch01 B=ch03`):
 *   - random numbers come from a generator whose state the caller owns
 *     (random_unit(state)), or from libc rand() when state is NULL, for the
 *     rand-shared stage that shows why rand() does not scale;
 *   - the generator is a 32-bit LCG, seeded per pixel from the pixel's index,
 *     so a pixel's colour does not depend on which thread renders it or when:
 *     the image is the same bytes at any thread count and schedule;
 *   - the render loop is split: card_render_rows() renders a range of rows,
 *     and the threads in threads.c decide who renders which rows.
 * The arithmetic of trace() and sample() is unchanged.
 */
#include "card.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct {
    float x, y, z;
} vec;

static vec vec_make(float x, float y, float z)
{
    vec v = {x, y, z};
    return v;
}

static vec vec_add(vec a, vec b)
{
    return vec_make(a.x + b.x, a.y + b.y, a.z + b.z);
}

static vec vec_scale(vec a, float s)
{
    return vec_make(a.x * s, a.y * s, a.z * s);
}

static float vec_dot(vec a, vec b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

static vec vec_cross(vec a, vec b)
{
    return vec_make(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

static vec vec_normalize(vec a)
{
    return vec_scale(a, 1 / sqrtf(vec_dot(a, a)));
}

/* A uniform number in [0, 1). With state NULL: libc rand(), which every
 * thread shares (glibc guards its state with one process-wide lock).
 * Otherwise the LCG below, whose state lives wherever the caller put it. */
static float random_unit(uint32_t *state)
{
    if (!state)
        return (float)rand() / (float)RAND_MAX;
    return card_lcg_next(state);
}

/* The spheres: bit k of row j set means a sphere at (k, 0, j + 4) in the
 * card's frame. Drawn as a 19x9 bitmap, these rows spell "aek". */
static const int sphere_rows[9] = {247570, 280596, 280600, 249748, 18578, 18577, 231184, 16, 16};

enum hit { HIT_NOTHING = 0, HIT_FLOOR = 1, HIT_SPHERE = 2 };

/* Finds the nearest thing the ray origin + t*dir meets. Returns what it hit;
 * sets *distance (t) and *normal when it hit something. */
static enum hit trace(vec origin, vec dir, float *distance, vec *normal)
{
    enum hit hit = HIT_NOTHING;
    *distance = 1e9;
    float floor_t = -origin.z / dir.z;
    if (.01 < floor_t) { /* compared in double, as in the original */
        *distance = floor_t;
        *normal = vec_make(0, 0, 1);
        hit = HIT_FLOOR;
    }
    for (int k = 19; k--;)
        for (int j = 9; j--;) {
            if (!(sphere_rows[j] & 1 << k))
                continue;
            /* Unit sphere at (k, 0, j + 4): solve |p + t dir|^2 = 1 with p = origin - centre. */
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

/* The colour a ray brings back: sky, a checkered floor, or a mirror sphere
 * that reflects another ray (recursively) and adds a specular highlight. */
static vec sample(vec origin, vec dir, uint32_t *rng)
{
    float t;
    vec normal;
    enum hit hit = trace(origin, dir, &t, &normal);
    if (hit == HIT_NOTHING) /* sky: brighter towards the horizon */
        return vec_scale(vec_make(.7, .6, 1), pow(1 - dir.z, 4));

    vec hit_point = vec_add(origin, vec_scale(dir, t));
    float light_y = 9 + random_unit(rng); /* drawn in ch01's order */
    float light_x = 9 + random_unit(rng);
    vec to_light = vec_normalize(vec_add(vec_make(light_x, light_y, 16), vec_scale(hit_point, -1)));
    vec reflected = vec_add(dir, vec_scale(normal, vec_dot(normal, dir) * -2));

    /* Lambert factor, zero when facing away or when the light is blocked. */
    float lambert = vec_dot(to_light, normal);
    if (lambert < 0 || trace(hit_point, to_light, &t, &normal))
        lambert = 0;
    float specular = pow(vec_dot(to_light, reflected) * (lambert > 0), 99);

    if (hit == HIT_FLOOR) {
        hit_point = vec_scale(hit_point, .2);
        int odd_tile = (int)(ceilf(hit_point.x) + ceilf(hit_point.y)) & 1;
        vec tile = odd_tile ? vec_make(3, 1, 1) : vec_make(3, 3, 3);
        return vec_scale(tile, lambert * .2 + .1);
    }
    return vec_add(vec_make(specular, specular, specular), vec_scale(sample(hit_point, reflected, rng), .5));
}

/* Camera. At 512x512 these are the original's numbers exactly; other sizes
 * keep the same view and blur and change only the pixel pitch. */
typedef struct {
    vec right, up, corner; /* pixel steps and the image's corner direction */
    float lens;            /* depth-of-field jitter */
} camera;

static camera make_camera(int width, int height)
{
    camera cam;
    vec forward = vec_normalize(vec_make(-6, -16, 0));
    float pixel = 0.002 * 512.0 / width; /* 0.002 at 512: the original's scale */
    cam.right = vec_scale(vec_normalize(vec_cross(vec_make(0, 0, 1), forward)), pixel);
    cam.up = vec_scale(vec_normalize(vec_cross(forward, cam.right)), pixel);
    /* (right*w/2 + up*h/2) * -1 rounds exactly as the original's (right+up)*-256,
     * because scaling by a power of two is exact. */
    cam.corner = vec_add(vec_scale(vec_add(vec_scale(cam.right, width / 2.0f), vec_scale(cam.up, height / 2.0f)), -1),
                         forward);
    cam.lens = 99.0f * width / 512;
    return cam;
}

/* One pixel: average of samples rays through a lens, plus the original's
 * constant 13 grey of ambient light. */
static vec render_pixel(const camera *cam, int x, int y, int samples, uint32_t *rng)
{
    vec colour = vec_make(13, 13, 13);
    for (int s = samples; s--;) {
        float lens_up = random_unit(rng);
        float lens_right = random_unit(rng);
        vec offset = vec_add(vec_scale(vec_scale(cam->right, lens_right - .5), cam->lens),
                             vec_scale(vec_scale(cam->up, lens_up - .5), cam->lens));
        float jitter_y = random_unit(rng);
        float jitter_x = random_unit(rng);
        vec target = vec_scale(vec_add(vec_add(vec_scale(cam->right, jitter_x + x), vec_scale(cam->up, y + jitter_y)),
                                       cam->corner),
                               16);
        vec dir = vec_normalize(vec_add(vec_scale(offset, -1), target));
        colour = vec_add(vec_scale(sample(vec_add(vec_make(17, 16, 8), offset), dir, rng), 3.5), colour);
    }
    return colour;
}

/* 1/65536 unless --rng-divisor says otherwise; set before any thread starts.
 * A multiply, as the compiler makes of a division by the constant 65536
 * (exact: a power of two), so the default costs what it cost before. */
static float rng_scale = 1.0f / 65536.0f;

void card_set_rng_divisor(float divisor)
{
    rng_scale = 1.0f / divisor;
}

float card_lcg_next(uint32_t *state)
{
    /* The article's constants (Microsoft's LCG). Unsigned, so the wrap-around
     * is defined; the article used int, whose overflow is undefined behaviour. */
    *state = 214013u * *state + 2531011u;
    /* The top 16 bits over 65536: [0, 65535/65536]. The article divided by
     * 66635.0f, a typo for 65536, so its numbers never reached 0.984
     * (--rng-divisor 66635 shows what that does to the picture). */
    return (float)((*state >> 16) & 0xFFFF) * rng_scale;
}

/* 0 unless card_set_seed_salt() says otherwise (the checker's second render). */
static uint32_t seed_salt;

void card_set_seed_salt(uint32_t salt)
{
    seed_salt = salt;
}

uint32_t card_pixel_seed(int x, int y, int width)
{
    /* Neighbouring seeds would start neighbouring LCG streams that stay
     * correlated, so mix the index first (a 32-bit integer hash). */
    uint32_t h = (uint32_t)y * (uint32_t)width + (uint32_t)x + 0x9E3779B9u + seed_salt;
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    h *= 0x846CA68Bu;
    h ^= h >> 16;
    return h;
}

void card_render_rows(image *img, int samples_per_pixel, int y_begin, int y_end, uint32_t *rng)
{
    camera cam = make_camera(img->width, img->height);
    /* Picture row 0 is the top. The camera's y and x count the other way,
     * which is why ch01 looped them downwards while writing forwards. */
    for (int row = y_begin; row < y_end; row++) {
        int y = img->height - 1 - row;
        unsigned char *out = img->rgb + (size_t)row * (size_t)img->width * 3;
        for (int col = 0; col < img->width; col++) {
            int x = img->width - 1 - col;
            if (rng)
                *rng = card_pixel_seed(x, y, img->width);
            vec c = render_pixel(&cam, x, y, samples_per_pixel, rng);
            *out++ = (unsigned char)(int)c.x;
            *out++ = (unsigned char)(int)c.y;
            *out++ = (unsigned char)(int)c.z;
        }
    }
}
