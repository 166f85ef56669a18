/* cpu_f32.c - path.h in float on the CPU: the float kernels' own functions,
 * so problem.c can check GPU pixels against the same code, and the tests can run
 * every kernel without a GPU. (The GPU fuses multiply-adds; this does not.) */
#include "render.h"

typedef float real;
#define R(x) ((float)(x))
#include "path.h"

/* The world is made once per scene and size (see cpu.c). */
static const world *world_for(const scene *sc, int width, int height)
{
    static world w;
    static scene made_for;
    if (scene_changed(&made_for, sc) || w.cam.width != width || w.cam.height != height)
        w = make_world(sc, width, height, EPS_F32, OFFSET_F32);
    return &w;
}

int cpu_kernel_pixel_f32(int kernel, const scene *sc, int col, int row, int width, int height, int spp,
                         unsigned int seed, unsigned char *out)
{
    return render_pixel_regenerating(world_for(sc, width, height), kernel == KERNEL_LIGHT_F32, col, row, spp, seed,
                                     out, NULL);
}

void cpu_kernel_radiance_f32(int kernel, const scene *sc, int col, int row, int width, int height, int spp,
                             unsigned int seed, radiance_sums *acc)
{
    int method = kernel == KERNEL_LIGHT_F32 ? PT_LIGHT_SAMPLING : PT_LOOP;
    add_pixel_radiance(world_for(sc, width, height), method, col, row, spp, seed, acc->sum, acc->sum2);
    acc->samples += spp / 4 * 4;
}
