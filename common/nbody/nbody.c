/* nbody.c - the N-body core's host part (nbody.h): the initial state, the
 * host's leapfrog step, and the finiteness check. */
#include "nbody.h"

#include <math.h>
#include <stdint.h>

void nbody_init(body *b, vec3 *v, int n)
{
    uint64_t x = 0x7B0D7;
    for (int i = 0; i < n; i++) {
        float u[4];
        for (int k = 0; k < 4; k++) { /* xorshift64*, top 24 bits as a float in [0, 1) */
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            u[k] = (float)((x * 2685821657736338717ULL) >> 40) * 0x1.0p-24f;
        }
        b[i] = (body){2 * u[0] - 1, 2 * u[1] - 1, 2 * u[2] - 1, (0.5f + u[3]) / (float)n};
        v[i] = (vec3){0, 0, 0};
    }
}

void nbody_integrate_cpu(body *b, vec3 *v, const vec3 *a, int n, float dt)
{
    for (int i = 0; i < n; i++)
        integrate_body(&b[i], &v[i], a[i], dt);
}

int positions_finite(const body *b, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(b[i].x) || !isfinite(b[i].y) || !isfinite(b[i].z))
            return 0;
    return 1;
}
