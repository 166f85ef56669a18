/* path.h - smallpt's light transport, written once for the CPU (C, double)
 * and the GPU (CUDA, double and float).
 *
 * Before including it, define `real` (double or float) and R(x), which turns
 * a literal into `real`: R(0.5) is 0.5 in the double build and 0.5f in the
 * float one. That macro is the report's optimisation 2 made visible: one
 * unmarked literal (0.5 instead of 0.5f) silently turns a float expression
 * into FP64 arithmetic, which the H100 runs at half rate or worse.
 * render.cu includes this file twice, in namespaces f64 and f32; the CPU's
 * copies are cpu.c (double) and cpu_f32.c (float).
 *
 * The functions, from one ray to one pixel:
 *   radiance_recursive   smallpt's algorithm as written: recursion, and at a
 *                        glass surface within the first two bounces both the
 *                        reflected and the refracted ray (the recursion splits)
 *   radiance_loop        the same light transport as a loop carrying the light
 *                        gathered so far and the throughput: no stack, so a
 *                        glass surface always picks one branch (Russian
 *                        roulette on the Fresnel weight; the same expectation)
 *   radiance_light       the loop plus next-event estimation: at each diffuse
 *                        surface a shadow ray to a point sampled on a light
 *   render_pixel         smallpt's image formation: 2x2 subpixels, a tent
 *                        filter, each subpixel's mean radiance clamped to 1,
 *                        gamma 2.2, rounded to a byte
 */
#ifndef PT_FN
#ifdef __CUDACC__
#define PT_FN static inline __host__ __device__
#define PT_RECURSIVE static __host__ __device__
#else
/* C: type-generic sqrt, cos, fabs ..., so a float build calls sqrtf, cosf. */
#include <tgmath.h>
#define PT_FN static inline
#define PT_RECURSIVE static
#endif
/* Every stage stops a path after this many bounces; smallpt has no cap, but a
 * path this long has a chance below 1e-7 here (Russian roulette keeps at most
 * 0.999 of the paths per bounce after the fifth, and the walls reflect 0.75). */
#define PT_MAX_DEPTH 64
/* render_pixel's choice of radiance function (macros: this block is read once, outside any namespace). */
#define PT_RECURSIVE_SPLIT 0
#define PT_LOOP 1
#define PT_LIGHT_SAMPLING 2
#endif

typedef struct {
    real x, y, z;
} vec;

PT_FN vec v3(real x, real y, real z)
{
    vec v = {x, y, z};
    return v;
}
PT_FN vec add(vec a, vec b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }
PT_FN vec sub(vec a, vec b) { return v3(a.x - b.x, a.y - b.y, a.z - b.z); }
PT_FN vec scale(vec a, real s) { return v3(a.x * s, a.y * s, a.z * s); }
PT_FN vec mul(vec a, vec b) { return v3(a.x * b.x, a.y * b.y, a.z * b.z); }
PT_FN real dot(vec a, vec b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
PT_FN vec cross(vec a, vec b) { return v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x); }
PT_FN vec normalise(vec a) { return scale(a, R(1.0) / sqrt(dot(a, a))); }
PT_FN real max3(vec a) { return a.x > a.y && a.x > a.z ? a.x : a.y > a.z ? a.y : a.z; }

typedef struct {
    real radius, radius2;
    vec centre, emission, colour;
    int material;
} sphere;

typedef struct {
    int sphere, wall;             /* the light; the sphere inside which only the cap can be seen, or -1 */
    vec axis, tangent, bitangent; /* an orthonormal frame of the visible cap */
    real cos_min, area;
} light;

typedef struct {
    vec origin, direction, right, up; /* the camera: right and up scaled by the field of view */
    int width, height;
} camera;

typedef struct {
    int count, light_count;
    sphere spheres[SCENE_MAX_SPHERES];
    light lights[SCENE_MAX_LIGHTS];
    camera cam;
    real eps;    /* the smallest hit distance counted: self-hits below it are rounding error */
    real offset; /* a new ray starts this far off the surface, on the side it leaves by (float only) */
} world;

/* ---------------------------------------------------------------- random numbers
 * A counter hashed: every (pixel, sample, seed) starts its own stream, so a
 * pixel's image does not depend on which thread, or how many, computed it. */
typedef struct {
    unsigned int n;
} rng;

PT_FN unsigned int hash32(unsigned int x)
{
    x ^= x >> 16;
    x *= 0x21f0aaadu;
    x ^= x >> 15;
    x *= 0x735a2d97u;
    x ^= x >> 15;
    return x;
}

PT_FN rng rng_for(unsigned int pixel, unsigned int sample, unsigned int seed)
{
    rng r;
    r.n = hash32(hash32(pixel ^ hash32(seed)) + sample);
    return r;
}

/* Uniform in [0, 1): 24 random bits, exact in float and double. */
PT_FN real uniform(rng *r)
{
    r->n += 0x9e3779b9u;
    return (real)(hash32(r->n) >> 8) * R(5.9604644775390625e-8);
}

/* ---------------------------------------------------------------- geometry
 * Distance along the ray to the sphere, or 0 for a miss. smallpt writes the
 * discriminant as b^2 - |op|^2 + r^2; here it is r^2 - |op - b d|^2 (r^2
 * less the squared distance from the centre to the ray), which cancels less
 * for the walls, spheres of radius 1e5. Float still knows a point on such a
 * wall only to about its spacing there, 1e5 * 2^-24 = 0.006: see make_world. */
PT_FN real intersect_sphere(const sphere *s, vec o, vec d, real eps)
{
    vec op = sub(s->centre, o);
    real b = dot(op, d);
    vec closest = sub(op, scale(d, b));
    real det = s->radius2 - dot(closest, closest);
    if (det < 0)
        return 0;
    det = sqrt(det);
    real t = b - det;
    if (t > eps)
        return t;
    t = b + det;
    return t > eps ? t : 0;
}

/* The nearest sphere the ray hits (its index, the distance in *t), or -1. */
PT_FN int intersect(const world *w, vec o, vec d, real *t)
{
    int id = -1;
    *t = R(1e20);
    for (int i = w->count - 1; i >= 0; i--) {
        real h = intersect_sphere(&w->spheres[i], o, d, w->eps);
        if (h != 0 && h < *t) {
            *t = h;
            id = i;
        }
    }
    return id;
}

/* A direction about the normal nl with probability cos(theta) / pi. */
PT_FN vec cosine_direction(vec nl, rng *r)
{
    real r1 = R(6.283185307179586) * uniform(r), r2 = uniform(r), r2s = sqrt(r2);
    vec u = normalise(cross(fabs(nl.x) > R(0.1) ? v3(0, 1, 0) : v3(1, 0, 0), nl));
    vec v = cross(nl, u);
    return normalise(add(add(scale(u, cos(r1) * r2s), scale(v, sin(r1) * r2s)), scale(nl, sqrt(R(1.0) - r2))));
}

PT_FN vec reflect(vec d, vec n) { return sub(d, scale(n, R(2.0) * dot(n, d))); }

/* What a glass surface does: the refracted direction and Fresnel's weights
 * (Schlick's approximation), or 0 for total internal reflection. */
typedef struct {
    vec refracted;
    real re, tr; /* reflected and transmitted fractions, re + tr = 1 */
} fresnel;

PT_FN int refract(vec d, vec n, vec nl, fresnel *f)
{
    int into = dot(n, nl) > 0; /* entering the glass */
    real nc = R(1.0), nt = R(1.5), nnt = into ? nc / nt : nt / nc, ddn = dot(d, nl);
    real cos2t = R(1.0) - nnt * nnt * (R(1.0) - ddn * ddn);
    if (cos2t < 0)
        return 0;
    f->refracted = normalise(sub(scale(d, nnt), scale(n, (into ? R(1.0) : R(-1.0)) * (ddn * nnt + sqrt(cos2t)))));
    real a = nt - nc, b = nt + nc, r0 = a * a / (b * b), c = R(1.0) - (into ? -ddn : dot(f->refracted, n));
    f->re = r0 + (R(1.0) - r0) * c * c * c * c * c;
    f->tr = R(1.0) - f->re;
    return 1;
}

/* ---------------------------------------------------------------- radiance
 * smallpt as written: recursion; Russian roulette after the fifth bounce on
 * the surface's largest colour component; glass splits into both rays for
 * the first two bounces and picks one (with probability 1/4 + re/2) later. */
PT_RECURSIVE vec radiance_recursive(const world *w, vec o, vec d, int depth, rng *r)
{
    real t;
    int id = intersect(w, o, d, &t);
    if (id < 0)
        return v3(0, 0, 0);
    const sphere *s = &w->spheres[id];
    vec x = add(o, scale(d, t)), n = normalise(sub(x, s->centre)), nl = dot(n, d) < 0 ? n : scale(n, R(-1.0));
    vec out = add(x, scale(nl, w->offset)), in_side = sub(x, scale(nl, w->offset));
    vec f = s->colour;
    real p = max3(f);
    if (++depth > 5 || depth >= PT_MAX_DEPTH) {
        if (depth < PT_MAX_DEPTH && uniform(r) < p)
            f = scale(f, R(1.0) / p);
        else
            return s->emission;
    }
    if (s->material == MATERIAL_DIFFUSE)
        return add(s->emission, mul(f, radiance_recursive(w, out, cosine_direction(nl, r), depth, r)));
    vec reflected = reflect(d, n);
    fresnel fr;
    if (s->material == MATERIAL_MIRROR || !refract(d, n, nl, &fr))
        return add(s->emission, mul(f, radiance_recursive(w, out, reflected, depth, r)));
    vec in;
    if (depth > 2) {
        real pr = R(0.25) + R(0.5) * fr.re;
        in = uniform(r) < pr ? scale(radiance_recursive(w, out, reflected, depth, r), fr.re / pr)
                             : scale(radiance_recursive(w, in_side, fr.refracted, depth, r), fr.tr / (R(1.0) - pr));
    } else {
        vec a = radiance_recursive(w, out, reflected, depth, r);
        in = add(scale(a, fr.re), scale(radiance_recursive(w, in_side, fr.refracted, depth, r), fr.tr));
    }
    return add(s->emission, mul(f, in));
}

/* One bounce of a path: the state a loop carries instead of a stack. */
typedef struct {
    vec o, d;       /* the ray */
    vec gathered;   /* light gathered so far */
    vec throughput; /* what the rest of the path is multiplied by */
    int depth;
    int count_emission; /* 0 right after a diffuse bounce when lights are sampled directly */
} path;

PT_FN path path_start(vec o, vec d)
{
    path p;
    p.o = o;
    p.d = d;
    p.gathered = v3(0, 0, 0);
    p.throughput = v3(1, 1, 1);
    p.depth = 0;
    p.count_emission = 1;
    return p;
}

/* Light from a point sampled uniformly on light l's visible cap, arriving at
 * x (normal nl, a diffuse surface of colour f), if nothing is in the way:
 * Le f/pi cos(at x) cos(at the light) / dist^2, divided by the point's
 * density 1/area. */
PT_FN vec direct_light(const world *w, const light *l, vec x, vec nl, vec f, rng *r)
{
    const sphere *s = &w->spheres[l->sphere];
    real z = l->cos_min + (R(1.0) - l->cos_min) * uniform(r), phi = R(6.283185307179586) * uniform(r);
    real ring = sqrt(fmax(R(0.0), R(1.0) - z * z));
    vec u = add(scale(l->axis, z), add(scale(l->tangent, ring * cos(phi)), scale(l->bitangent, ring * sin(phi))));
    vec to = sub(add(s->centre, scale(u, s->radius)), x);
    real dist2 = dot(to, to);
    vec d = scale(to, R(1.0) / sqrt(dist2));
    real cos_x = dot(nl, d), cos_l = fabs(dot(u, d)); /* a sphere emits from both sides, as in smallpt */
    if (cos_x <= 0 || cos_l <= 0)
        return v3(0, 0, 0);
    real t; /* the point must be the first thing hit: not behind anything, nor behind the light's own near side */
    if (intersect(w, x, d, &t) != l->sphere || t < R(0.999) * sqrt(dist2))
        return v3(0, 0, 0);
    return scale(mul(s->emission, f), cos_x * cos_l * l->area / (R(3.141592653589793) * dist2));
}

/* 1 if x can see no more of each light than its cap: x lies inside each
 * light's wall. Outside it (a scene whose camera starts rays beyond a wall)
 * more of the light is in view than the cap, and the path gathers light by
 * its bounces alone. */
PT_FN int caps_suffice(const world *w, vec x)
{
    for (int i = 0; i < w->light_count; i++) {
        int wall = w->lights[i].wall;
        if (wall >= 0) {
            vec q = sub(x, w->spheres[wall].centre);
            if (dot(q, q) >= w->spheres[wall].radius2)
                return 0;
        }
    }
    return 1;
}

/* Advances the path by one surface; returns 0 when the path has ended. With
 * light sampling (sample_lights), each diffuse surface adds the light of one
 * sampled point on one light, and light reached by the next bounce is then
 * not counted again. */
PT_FN int path_bounce(const world *w, path *p, int sample_lights, rng *r)
{
    real t;
    int id = intersect(w, p->o, p->d, &t);
    if (id < 0)
        return 0;
    const sphere *s = &w->spheres[id];
    vec x = add(p->o, scale(p->d, t)), n = normalise(sub(x, s->centre));
    vec nl = dot(n, p->d) < 0 ? n : scale(n, R(-1.0));
    if (p->count_emission)
        p->gathered = add(p->gathered, mul(p->throughput, s->emission));
    vec f = s->colour;
    real pmax = max3(f);
    if (++p->depth > 5 || p->depth >= PT_MAX_DEPTH) {
        if (p->depth < PT_MAX_DEPTH && uniform(r) < pmax)
            f = scale(f, R(1.0) / pmax);
        else
            return 0;
    }
    p->o = add(x, scale(nl, w->offset)); /* leaving by the side it came from, unless refracted below */
    p->count_emission = 1;
    if (s->material == MATERIAL_DIFFUSE) {
        if (sample_lights && w->light_count > 0 && caps_suffice(w, x)) {
            int k = w->light_count == 1 ? 0 : (int)(uniform(r) * (real)w->light_count) % w->light_count;
            vec direct = direct_light(w, &w->lights[k], p->o, nl, f, r);
            p->gathered = add(p->gathered, scale(mul(p->throughput, direct), (real)w->light_count));
            p->count_emission = 0;
        }
        p->throughput = mul(p->throughput, f);
        p->d = cosine_direction(nl, r);
        return 1;
    }
    vec reflected = reflect(p->d, n);
    fresnel fr;
    if (s->material == MATERIAL_MIRROR || !refract(p->d, n, nl, &fr)) {
        p->throughput = mul(p->throughput, f);
        p->d = reflected;
        return 1;
    }
    real pr = R(0.25) + R(0.5) * fr.re;
    if (uniform(r) < pr) {
        p->throughput = scale(mul(p->throughput, f), fr.re / pr);
        p->d = reflected;
    } else {
        p->throughput = scale(mul(p->throughput, f), fr.tr / (R(1.0) - pr));
        p->o = sub(x, scale(nl, w->offset));
        p->d = fr.refracted;
    }
    return 1;
}

PT_FN vec radiance_loop(const world *w, vec o, vec d, int sample_lights, rng *r)
{
    path p = path_start(o, d);
    while (path_bounce(w, &p, sample_lights, r))
        ;
    return p.gathered;
}

/* ---------------------------------------------------------------- pixels */
PT_FN real clamp01(real x) { return x < 0 ? R(0.0) : x > 1 ? R(1.0) : x; }

/* smallpt's tent filter: 2u in [0, 2) to an offset in [-1, 1) peaked at 0. */
PT_FN real tent(real u2)
{
    return u2 < 1 ? sqrt(u2) - R(1.0) : R(1.0) - sqrt(R(2.0) - u2);
}

/* The camera ray of subpixel (sx, sy) of picture pixel (col, row), row 0 at
 * the top: smallpt counts y from the bottom. The ray starts CAMERA_START
 * along the unit direction, inside the room. smallpt writes
 * Ray(cam.o + d*140, d.norm()), and norm() rescales d in place: g++ (the
 * build its header names) evaluates the second argument first, so its rays
 * start 140 along the unit direction; a compiler that goes left to right
 * (clang++) starts them 140 along the longer unscaled d, and the top rows'
 * rays then start above the ceiling, in view of the whole light (a white top
 * row). The original's picture is g++'s: `make smallpt-vs-port` shows both. */
PT_FN void camera_ray(const camera *c, int col, int row, int sx, int sy, rng *r, vec *o, vec *d)
{
    real dx = tent(R(2.0) * uniform(r)), dy = tent(R(2.0) * uniform(r));
    int y = c->height - 1 - row;
    vec dir = add(add(scale(c->right, ((sx + R(0.5) + dx) / R(2.0) + (real)col) / (real)c->width - R(0.5)),
                      scale(c->up, ((sy + R(0.5) + dy) / R(2.0) + (real)y) / (real)c->height - R(0.5))),
                  c->direction);
    *d = normalise(dir);
    *o = add(c->origin, scale(*d, R(CAMERA_START)));
}

PT_FN int finite3(vec v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

PT_FN unsigned char to_byte(real x) { return (unsigned char)(int)(pow(clamp01(x), R(1.0) / R(2.2)) * R(255.0) + R(0.5)); }

/* Adds a subpixel's mean radiance, clamped, into the pixel (a quarter each). */
PT_FN vec add_subpixel(vec pixel, vec sum, int samples)
{
    real inv = R(1.0) / (real)samples;
    return add(pixel, scale(v3(clamp01(sum.x * inv), clamp01(sum.y * inv), clamp01(sum.z * inv)), R(0.25)));
}

PT_FN int store_pixel(vec pixel, int ok, unsigned char *out)
{
    out[0] = to_byte(pixel.x);
    out[1] = to_byte(pixel.y);
    out[2] = to_byte(pixel.z);
    return ok;
}

/* linear (if not NULL) gains a subpixel's share of the pixel's unclamped
 * mean radiance: sum / samples, samples the pixel's total. Added in memory as
 * each subpixel ends: no running total stays live across the radiance calls.
 * (A first version kept one in registers; built by nvcc 13.0, the recursive
 * kernel then rendered other pixels than the same code on the CPU, on the
 * H100, and its check caught it. Not understood further.) */
PT_FN void add_linear(float *linear, vec sum, int samples)
{
    if (!linear)
        return;
    real inv = R(1.0) / (real)samples;
    linear[0] += (float)(sum.x * inv);
    linear[1] += (float)(sum.y * inv);
    linear[2] += (float)(sum.z * inv);
}

PT_FN void clear_linear(float *linear)
{
    if (linear)
        linear[0] = linear[1] = linear[2] = 0;
}

/* Sample s of subpixel `sub` of a pixel: its camera ray and the radiance
 * along it (linear, unclamped), by the radiance function `method`. */
PT_FN vec sample_radiance(const world *w, int method, int col, int row, int sub, int s, int per_sub,
                          unsigned int seed)
{
    unsigned int pixel_id = (unsigned int)(row * w->cam.width + col);
    rng r = rng_for(pixel_id, (unsigned int)(sub * per_sub + s), seed);
    vec o, d;
    camera_ray(&w->cam, col, row, sub & 1, sub >> 1, &r, &o, &d);
    if (method == PT_RECURSIVE_SPLIT)
        return radiance_recursive(w, o, d, 0, &r);
    return radiance_loop(w, o, d, method == PT_LIGHT_SAMPLING, &r);
}

/* One picture pixel with spp samples (spp / 4 per subpixel), one radiance
 * function chosen by `method`; 0 if a sample was NaN or infinite. linear:
 * NULL, or where its unclamped mean goes (add_linear). */
PT_FN int render_pixel(const world *w, int method, int col, int row, int spp, unsigned int seed, unsigned char *out,
                       float *linear)
{
    int per_sub = spp / 4, ok = 1;
    vec pixel = v3(0, 0, 0);
    clear_linear(linear);
    for (int sub = 0; sub < 4; sub++) {
        vec sum = v3(0, 0, 0);
        for (int s = 0; s < per_sub; s++) {
            vec l = sample_radiance(w, method, col, row, sub, s, per_sub, seed);
            ok &= finite3(l);
            sum = add(sum, l);
        }
        pixel = add_subpixel(pixel, sum, per_sub);
        add_linear(linear, sum, 4 * per_sub);
    }
    return store_pixel(pixel, ok, out);
}

/* A pixel's spp samples as render_pixel draws them, added linearly (no
 * clamp, no gamma) to sum[c], their squares to sum2[c]: for the tests that
 * measure an estimator's bias. */
PT_FN void add_pixel_radiance(const world *w, int method, int col, int row, int spp, unsigned int seed, double *sum,
                              double *sum2)
{
    int per_sub = spp / 4;
    for (int sub = 0; sub < 4; sub++)
        for (int s = 0; s < per_sub; s++) {
            vec l = sample_radiance(w, method, col, row, sub, s, per_sub, seed);
            double c[3] = {l.x, l.y, l.z};
            for (int k = 0; k < 3; k++) {
                sum[k] += c[k];
                sum2[k] += c[k] * c[k];
            }
        }
}

/* The same pixel with the sample loop and the bounce loop made one (path
 * regeneration): a thread whose path has ended starts its next sample at once
 * instead of idling until the longest path of its warp has ended. The same
 * samples in the same order as render_pixel(PT_LOOP or PT_LIGHT_SAMPLING). */
PT_FN int render_pixel_regenerating(const world *w, int sample_lights, int col, int row, int spp, unsigned int seed,
                                    unsigned char *out, float *linear)
{
    int per_sub = spp / 4, samples = 4 * per_sub, ok = 1, s = 0;
    unsigned int pixel_id = (unsigned int)(row * w->cam.width + col);
    vec pixel = v3(0, 0, 0), sum = v3(0, 0, 0);
    path p;
    rng r;
    int alive = 0;
    clear_linear(linear);
    while (s < samples) {
        if (!alive) {
            vec o, d;
            r = rng_for(pixel_id, (unsigned int)s, seed);
            camera_ray(&w->cam, col, row, (s / per_sub) & 1, (s / per_sub) >> 1, &r, &o, &d);
            p = path_start(o, d);
        }
        alive = path_bounce(w, &p, sample_lights, &r);
        if (!alive) {
            ok &= finite3(p.gathered);
            sum = add(sum, p.gathered);
            if (++s % per_sub == 0) {
                pixel = add_subpixel(pixel, sum, per_sub);
                add_linear(linear, sum, samples);
                sum = v3(0, 0, 0);
            }
        }
    }
    return store_pixel(pixel, ok, out);
}

/* ---------------------------------------------------------------- the world from a scene */
PT_FN vec from3(const double *a) { return v3((real)a[0], (real)a[1], (real)a[2]); }

/* eps and offset: smallpt's 1e-4 and 0 in double. In float a hit on a wall
 * of radius 1e5 is only known to about 1e5 * 2^-24 = 0.006 (a few times that
 * after the arithmetic), so the hit point may lie just outside the room. A
 * diffuse ray from there heading back in crosses the wall a hundredth later:
 * counted as a hit (from outside, so its normal points out of the room), it
 * bounces out, and the next ray meets the light sphere above the ceiling. The
 * ceiling glowed 100 levels too bright that way. Float rays therefore start
 * `offset` off the surface, on the side they leave by. */
PT_FN world make_world(const scene *sc, int width, int height, real eps, real offset)
{
    world w;
    w.count = sc->count;
    w.eps = eps;
    w.offset = offset;
    for (int i = 0; i < sc->count; i++) {
        const scene_sphere *s = &sc->spheres[i];
        w.spheres[i].radius = (real)s->radius;
        w.spheres[i].radius2 = (real)(s->radius * s->radius);
        w.spheres[i].centre = from3(s->centre);
        w.spheres[i].emission = from3(s->emission);
        w.spheres[i].colour = from3(s->colour);
        w.spheres[i].material = s->material;
    }
    w.light_count = sc->light_count;
    for (int i = 0; i < sc->light_count; i++) {
        const scene_light *l = &sc->lights[i];
        light *o = &w.lights[i];
        o->sphere = l->sphere;
        o->wall = l->wall;
        o->axis = from3(l->axis);
        o->tangent = normalise(cross(fabs(o->axis.x) > R(0.1) ? v3(0, 1, 0) : v3(1, 0, 0), o->axis));
        o->bitangent = cross(o->axis, o->tangent);
        o->cos_min = (real)l->cos_min;
        double r = sc->spheres[l->sphere].radius;
        o->area = (real)(6.283185307179586 * r * r * (1 - l->cos_min));
    }
    const double origin[3] = CAMERA_ORIGIN, direction[3] = CAMERA_DIRECTION;
    w.cam.origin = from3(origin);
    w.cam.direction = normalise(from3(direction));
    w.cam.width = width;
    w.cam.height = height;
    w.cam.right = v3((real)(width * CAMERA_FOV / height), 0, 0);
    w.cam.up = scale(normalise(cross(w.cam.right, w.cam.direction)), (real)CAMERA_FOV);
    return w;
}
