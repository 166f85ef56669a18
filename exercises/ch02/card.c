/* Exercise ch02: make gcc -O1 inline the card's vector helpers, without
 * changing one bit of the picture.
 *
 * This is ch01's card.c, untouched. Build it with gcc -O1 -S and look at
 * trace(): it still calls vec_add, vec_scale, vec_normalize ... 49 sphere tests
 * a ray, each several calls. gcc -O1 inlines a function only when it is small
 * AND marked for it, or called once; -O2 adds -finline-small-functions, which
 * is why the gap between -O1 and -O2 in chapter 02 is so large. The original
 * C++ program does not pay this at -O1: member functions defined in a class
 * are implicitly inline.
 *
 * Your job: with the smallest change (one keyword per helper), make gcc -O1
 * inline them. Nothing else may change: the same operations in the same order,
 * so the image stays byte-identical to ch01's.
 *
 * Graded (tests/test_ex_ch02.c, no GPU): gcc -O1 -S of this file has no call to
 * a vec_* function inside trace() or sample(); this file built at -O0 and
 * at -O1 renders 64x48 at 4 spp byte for byte as ch01's card.c at -O0; and
 * nothing but the keyword is added (no pragma, attribute, macro or flag).
 * Then: make grade EX=ch02   (make hint EX=ch02 if you are stuck)
 */
#include "card.h"

#include <math.h>
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

/* A uniform number in [0, 1] from libc rand(), as the original draws it. */
static float random_unit(void)
{
    return (float)rand() / (float)RAND_MAX; /* RAND_MAX rounds to 2^31 as a float */
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
static vec sample(vec origin, vec dir)
{
    float t;
    vec normal;
    enum hit hit = trace(origin, dir, &t, &normal);
    if (hit == HIT_NOTHING) /* sky: brighter towards the horizon */
        return vec_scale(vec_make(.7, .6, 1), pow(1 - dir.z, 4));

    vec hit_point = vec_add(origin, vec_scale(dir, t));
    float light_y = 9 + random_unit(); /* drawn before x: see the top of the file */
    float light_x = 9 + random_unit();
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
    return vec_add(vec_make(specular, specular, specular), vec_scale(sample(hit_point, reflected), .5));
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
static vec render_pixel(const camera *cam, int x, int y, int samples)
{
    vec colour = vec_make(13, 13, 13);
    for (int s = samples; s--;) {
        float lens_up = random_unit(); /* right-to-left, as g++ evaluated them */
        float lens_right = random_unit();
        vec offset = vec_add(vec_scale(vec_scale(cam->right, lens_right - .5), cam->lens),
                             vec_scale(vec_scale(cam->up, lens_up - .5), cam->lens));
        float jitter_y = random_unit();
        float jitter_x = random_unit();
        vec target = vec_scale(vec_add(vec_add(vec_scale(cam->right, jitter_x + x), vec_scale(cam->up, y + jitter_y)),
                                       cam->corner),
                               16);
        vec dir = vec_normalize(vec_add(vec_scale(offset, -1), target));
        colour = vec_add(vec_scale(sample(vec_add(vec_make(17, 16, 8), offset), dir), 3.5), colour);
    }
    return colour;
}

void card_render(image *img, int samples_per_pixel, card_progress_fn progress, void *context)
{
    camera cam = make_camera(img->width, img->height);
    unsigned char *out = img->rgb;
    srand(1);
    /* The original walks y and x downwards and writes pixels as it goes, so
     * the first byte of the file is pixel (width-1, height-1). */
    for (int y = img->height; y--;) {
        for (int x = img->width; x--;) {
            vec c = render_pixel(&cam, x, y, samples_per_pixel);
            /* No clamping: the original printed (int)c with %c, which keeps the
             * low 8 bits, so over-bright pixels wrap. */
            *out++ = (unsigned char)(int)c.x;
            *out++ = (unsigned char)(int)c.y;
            *out++ = (unsigned char)(int)c.z;
        }
        if (progress)
            progress(context, img->height - y, img->height);
    }
}
