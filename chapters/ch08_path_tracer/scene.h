/* scene.h - ch08's scene: spheres read from a text file, and the part of each
 * light that the renderer samples directly (gpu-light-sampling).
 *
 * The format (data/scenes/cornell.txt is the default and an example): one
 * sphere per line,
 *
 *   sphere RADIUS  CX CY CZ  ER EG EB  R G B  MATERIAL
 *
 * radius (> 0), centre, emitted radiance (each >= 0), colour (each in [0, 1])
 * and one of diffuse, mirror, glass. Numbers are decimal (1e5 is fine),
 * finite, and whole tokens. '#' starts a comment that runs to the end of the
 * line; blank lines are allowed; tokens are separated by spaces or tabs. At
 * least 1 and at most SCENE_MAX_SPHERES spheres. Anything else is an error
 * that names the file, the line and the column.
 */
#ifndef CH08_SCENE_H
#define CH08_SCENE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SCENE_MAX_SPHERES 32
#define SCENE_MAX_LIGHTS 8
#define SCENE_MAX_BYTES (1 << 20)
#define SCENE_LINE_MAX 1024
#define SCENE_ERROR_SIZE 512

/* smallpt's camera, fixed: at CAMERA_ORIGIN looking along CAMERA_DIRECTION
 * (normalised), rays starting CAMERA_START units ahead (past the black front
 * wall, which is behind the camera), CAMERA_FOV the half-height of the view
 * at unit distance. */
#define CAMERA_ORIGIN {50.0, 52.0, 295.6}
#define CAMERA_DIRECTION {0.0, -0.042612, -1.0}
#define CAMERA_START 140.0
#define CAMERA_FOV 0.5135

enum { MATERIAL_DIFFUSE = 0, MATERIAL_MIRROR = 1, MATERIAL_GLASS = 2 };

typedef struct {
    double radius, centre[3], emission[3], colour[3];
    int material;
} scene_sphere;

/* The part of a light sphere that can be seen from inside the room: the cap
 * of points p with (p - centre) . axis >= cos_min * radius. smallpt's light is
 * a sphere of radius 600 whose bottom pokes 0.27 below the ceiling; only that
 * thin cap (about 18 units across) lights the room, so that is what is
 * sampled, not the whole sphere (path.h: a point outside the wall samples
 * no light). */
typedef struct {
    int sphere;
    int wall; /* the sphere whose inside sees only the cap (-1: none, the whole light is sampled) */
    double axis[3], cos_min;
} scene_light;

typedef struct {
    int count;
    scene_sphere spheres[SCENE_MAX_SPHERES];
    int light_count;
    scene_light lights[SCENE_MAX_LIGHTS];
} scene;

/* Parses text (length bytes; need not end in NUL) named `name` in messages.
 * Returns 0, or -1 with "name:line:column: what is wrong" in err. */
int scene_parse(const char *text, size_t length, const char *name, scene *out, char *err, size_t err_size);

/* Reads and parses the file at path: 0, or -1 with the reason in err. */
int scene_load(const char *path, scene *out, char *err, size_t err_size);

/* Finds each emitting sphere's visible cap (see scene_light) as seen from
 * `eye`: the smallest cap of the light that lies inside a sphere containing
 * the eye (the room's walls are such spheres; what lies outside them cannot
 * be seen from inside). A light no such sphere cuts gets its whole surface
 * (cos_min = -1). scene_parse calls it with the point where camera rays start. */
void scene_find_lights(scene *s, const double eye[3]);

/* 1 if two scenes hold the same spheres (the reference image applies). */
int scene_equal(const scene *a, const scene *b);

/* For a cache of something made from a scene: 1 if *sc differs from *last
 * (byte for byte; scene_parse zeroes every scene first), and then *last
 * becomes a copy of it. A static scene starts empty, which no scene is. */
int scene_changed(scene *last, const scene *sc);

#ifdef __cplusplus
}
#endif

#endif
