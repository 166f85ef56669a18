/* scene.c - ch08's scene file: a strict parser with file:line:column errors,
 * and the visible cap of each light. */
#include "scene.h"

#include "../../common/image.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *name;
    int line;
    char *err;
    size_t err_size;
} where;

static int fail(const where *w, int column, const char *fmt, ...)
{
    int n = snprintf(w->err, w->err_size, "%s:%d:%d: ", w->name, w->line, column);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < w->err_size)
        vsnprintf(w->err + n, w->err_size - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

/* One line split into tokens: start offsets and lengths (a comment ends it). */
typedef struct {
    int count;
    int start[16], length[16];
} tokens;

static int split(const char *line, int length, tokens *t, const where *w)
{
    t->count = 0;
    for (int i = 0; i < length;) {
        unsigned char c = (unsigned char)line[i];
        if (c == '#')
            break;
        if (c == ' ' || c == '\t' || c == '\r') {
            i++;
            continue;
        }
        if (c < 32 || c > 126)
            return fail(w, i + 1, "unexpected byte 0x%02x (the format is plain ASCII text)", c);
        if (t->count == 16)
            return fail(w, i + 1, "too many fields (a sphere line has 12)");
        t->start[t->count] = i;
        while (i < length && (unsigned char)line[i] > 32 && (unsigned char)line[i] < 127 && line[i] != '#')
            i++; /* a token ends at a space, a comment, or a byte the next round refuses */
        t->length[t->count] = i - t->start[t->count];
        t->count++;
    }
    return 0;
}

static const char *const field_names[] = {"radius", "centre x", "centre y", "centre z", "emission red",
                                          "emission green", "emission blue", "red", "green", "blue"};

static int parse_number(const char *line, const tokens *t, int k, const where *w, double *out)
{
    char text[64];
    int col = t->start[k] + 1;
    if (t->length[k] >= (int)sizeof text)
        return fail(w, col, "%s: '%.20s...' is too long for a number", field_names[k - 1], line + t->start[k]);
    memcpy(text, line + t->start[k], (size_t)t->length[k]);
    text[t->length[k]] = '\0';
    char *end;
    errno = 0;
    /* Decimal only, as the format says: strtod alone would also take hex
     * (0x1.08p4), inf and nan. */
    int decimal = strspn(text, "0123456789+-.eE") == strlen(text);
    double v = strtod(text, &end);
    if (!decimal || end == text || *end != '\0')
        return fail(w, col, "%s: '%s' is not a decimal number", field_names[k - 1], text);
    if (errno == ERANGE && isinf(v)) /* ERANGE also flags a tiny value rounded to a subnormal or 0: that is kept */
        return fail(w, col, "%s: '%s' is too large for a double", field_names[k - 1], text);
    *out = v;
    return 0;
}

static int parse_material(const char *word, int length)
{
    static const char *const names[] = {"diffuse", "mirror", "glass"};
    for (int m = 0; m < 3; m++)
        if ((int)strlen(names[m]) == length && strncmp(word, names[m], (size_t)length) == 0)
            return m;
    return -1;
}

static int parse_sphere(const char *line, const tokens *t, const where *w, scene_sphere *s)
{
    if (t->length[0] != 6 || strncmp(line + t->start[0], "sphere", 6) != 0)
        return fail(w, t->start[0] + 1, "expected 'sphere', found '%.*s'", t->length[0] > 40 ? 40 : t->length[0],
                    line + t->start[0]);
    if (t->count != 12)
        return fail(w, t->count > 12 ? t->start[12] + 1 : t->start[t->count - 1] + t->length[t->count - 1] + 1,
                    "a sphere has 11 fields after 'sphere' (radius, centre x y z, emission r g b, colour r g b, "
                    "material); found %d",
                    t->count - 1);
    double v[10];
    for (int k = 1; k <= 10; k++)
        if (parse_number(line, t, k, w, &v[k - 1]) != 0)
            return -1;
    if (!(v[0] > 0))
        return fail(w, t->start[1] + 1, "radius: %g must be greater than 0", v[0]);
    for (int k = 4; k < 7; k++)
        if (v[k] < 0)
            return fail(w, t->start[k + 1] + 1, "%s: %g must not be negative", field_names[k], v[k]);
    for (int k = 7; k < 10; k++)
        if (v[k] < 0 || v[k] > 1)
            return fail(w, t->start[k + 1] + 1, "%s: %g must lie in [0, 1] (a surface reflects at most all light)",
                        field_names[k], v[k]);
    int m = parse_material(line + t->start[11], t->length[11]);
    if (m < 0)
        return fail(w, t->start[11] + 1, "material: '%.*s' is not diffuse, mirror or glass",
                    t->length[11] > 40 ? 40 : t->length[11], line + t->start[11]);
    s->radius = v[0];
    for (int c = 0; c < 3; c++) {
        s->centre[c] = v[1 + c];
        s->emission[c] = v[4 + c];
        s->colour[c] = v[7 + c];
    }
    s->material = m;
    return 0;
}

int scene_parse(const char *text, size_t length, const char *name, scene *out, char *err, size_t err_size)
{
    where w = {name, 0, err, err_size};
    memset(out, 0, sizeof *out);
    size_t at = 0;
    while (at < length) {
        w.line++;
        size_t end = at;
        while (end < length && text[end] != '\n')
            end++;
        if (end - at > SCENE_LINE_MAX)
            return fail(&w, SCENE_LINE_MAX + 1, "line longer than %d characters", SCENE_LINE_MAX);
        const char *line = text + at;
        tokens t;
        if (split(line, (int)(end - at), &t, &w) != 0)
            return -1;
        at = end + 1;
        if (t.count == 0)
            continue;
        if (out->count == SCENE_MAX_SPHERES)
            return fail(&w, 1, "more than %d spheres", SCENE_MAX_SPHERES);
        if (parse_sphere(line, &t, &w, &out->spheres[out->count]) != 0)
            return -1;
        out->count++;
    }
    if (out->count == 0) {
        w.line = w.line ? w.line : 1;
        return fail(&w, 1, "no sphere in the scene");
    }
    int lights = 0;
    for (int i = 0; i < out->count; i++) {
        const double *e = out->spheres[i].emission;
        lights += e[0] > 0 || e[1] > 0 || e[2] > 0;
    }
    if (lights > SCENE_MAX_LIGHTS)
        return fail(&w, 1, "%d spheres emit light; at most %d may", lights, SCENE_MAX_LIGHTS);
    const double origin[3] = CAMERA_ORIGIN, dir[3] = CAMERA_DIRECTION;
    double len = sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]), eye[3];
    for (int c = 0; c < 3; c++)
        eye[c] = origin[c] + dir[c] / len * CAMERA_START;
    scene_find_lights(out, eye);
    return 0;
}

int scene_load(const char *path, scene *out, char *err, size_t err_size)
{
    const char *why = NULL;
    FILE *f = open_regular_file(path, &why); /* a FIFO is refused, not waited on */
    if (!f) {
        snprintf(err, err_size, "%s: cannot open: %s", path, why);
        return -1;
    }
    char *text = malloc(SCENE_MAX_BYTES + 1);
    if (!text) {
        fclose(f);
        snprintf(err, err_size, "%s: out of memory", path);
        return -1;
    }
    size_t n = fread(text, 1, SCENE_MAX_BYTES + 1, f);
    int bad_read = ferror(f);
    fclose(f);
    int rc;
    if (bad_read)
        rc = -1, snprintf(err, err_size, "%s: cannot read (is it a folder?)", path);
    else if (n > SCENE_MAX_BYTES)
        rc = -1, snprintf(err, err_size, "%s: larger than %d bytes: not a scene file", path, SCENE_MAX_BYTES);
    else
        rc = scene_parse(text, n, path, out, err, err_size);
    free(text);
    return rc;
}

static double distance(const double a[3], const double b[3])
{
    double d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
    return sqrt(d0 * d0 + d1 * d1 + d2 * d2);
}

void scene_find_lights(scene *s, const double eye[3])
{
    s->light_count = 0;
    for (int i = 0; i < s->count && s->light_count < SCENE_MAX_LIGHTS; i++) {
        const scene_sphere *l = &s->spheres[i];
        if (!(l->emission[0] > 0 || l->emission[1] > 0 || l->emission[2] > 0))
            continue;
        scene_light *light = &s->lights[s->light_count++];
        *light = (scene_light){.sphere = i, .wall = -1, .axis = {0, 1, 0}, .cos_min = -1};
        for (int j = 0; j < s->count; j++) {
            const scene_sphere *wall = &s->spheres[j];
            double d = distance(wall->centre, l->centre);
            /* the wall must contain the eye and its surface must cut the light's */
            if (j == i || distance(wall->centre, eye) >= wall->radius || d <= fabs(wall->radius - l->radius) ||
                d >= wall->radius + l->radius)
                continue;
            /* the light's points inside the wall: (p - c) . axis >= h, axis towards the wall's centre */
            double h = (d * d + l->radius * l->radius - wall->radius * wall->radius) / (2 * d);
            double cos_min = h / l->radius;
            if (cos_min > light->cos_min) {
                light->cos_min = cos_min;
                light->wall = j;
                for (int c = 0; c < 3; c++)
                    light->axis[c] = (wall->centre[c] - l->centre[c]) / d;
            }
        }
    }
}

int scene_changed(scene *last, const scene *sc)
{
    if (memcmp(last, sc, sizeof *sc) == 0)
        return 0;
    *last = *sc;
    return 1;
}

int scene_equal(const scene *a, const scene *b)
{
    if (a->count != b->count)
        return 0;
    for (int i = 0; i < a->count; i++) {
        const scene_sphere *x = &a->spheres[i], *y = &b->spheres[i];
        if (x->radius != y->radius || x->material != y->material)
            return 0;
        for (int c = 0; c < 3; c++)
            if (x->centre[c] != y->centre[c] || x->emission[c] != y->emission[c] || x->colour[c] != y->colour[c])
                return 0;
    }
    return 1;
}
