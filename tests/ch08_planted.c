/* ch08_planted.c - see ch08_planted.h. chapter.mk copies this file into
 * $(BUILD)/ch08/planted/, beside the planted path.h, so the #include "path.h"
 * below finds that copy (a quoted include looks in the file's own folder
 * first), in the test build and the sanitizer build alike. */
#include "ch08_planted.h"
#include "render.h"

typedef double real;
#define R(x) (x)
#include "path.h"

/* The world is made once per scene and size (cpu.c's world_for). */
static const world *planted_world(const scene *sc, int width, int height)
{
    static world w;
    static scene made_for;
    if (scene_changed(&made_for, sc) || w.cam.width != width || w.cam.height != height)
        w = make_world(sc, width, height, EPS_F64, OFFSET_F64);
    return &w;
}

int planted_kernel_pixel(int kernel, const scene *sc, int col, int row, int width, int height, int spp,
                         unsigned int seed, unsigned char *out)
{
    const world *w = planted_world(sc, width, height);
    if (kernel == KERNEL_REGENERATE_F64)
        return render_pixel_regenerating(w, 0, col, row, spp, seed, out, NULL);
    return render_pixel(w, kernel == KERNEL_RECURSIVE_F64 ? PT_RECURSIVE_SPLIT : PT_LOOP, col, row, spp, seed, out,
                        NULL);
}
