/* cpu_f32.c - path.h in float on the CPU: the float kernels' own functions,
 * so main.c can check GPU pixels against the same code, and the tests can run
 * every kernel without a GPU. (The GPU fuses multiply-adds; this does not.) */
#include "render.h"

typedef float real;
#define R(x) ((float)(x))
#include "path.h"

int cpu_kernel_pixel_f32(int kernel, const scene *sc, int col, int row, int width, int height, int spp,
                         unsigned int seed, unsigned char *out)
{
    static world w;
    static scene made_for; /* the world is made once per scene and size (see cpu.c) */
    if (scene_changed(&made_for, sc) || w.cam.width != width || w.cam.height != height)
        w = make_world(sc, width, height, EPS_F32, OFFSET_F32);
    switch (kernel) {
    case KERNEL_LOOP_F32: return render_pixel(&w, PT_LOOP, col, row, spp, seed, out);
    case KERNEL_REGENERATE_F32: return render_pixel_regenerating(&w, 0, col, row, spp, seed, out);
    default: return render_pixel_regenerating(&w, 1, col, row, spp, seed, out);
    }
}
