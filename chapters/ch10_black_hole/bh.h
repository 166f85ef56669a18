/* bh.h - ch10's black hole: everything about a pixel except the geodesic
 * step, written once for the CPU (C, double), the hand-written kernel and the
 * generated kernels (float; the program pastes this file's text into every
 * generated source, so a printed kernel compiles on its own).
 *
 * Units r_s = 1: the Schwarzschild metric, f = 1 - 1/r,
 *   ds^2 = -f dt^2 + dr^2 / f + r^2 dOmega^2.
 * A light ray stays in the plane through the hole, the observer and its first
 * direction, so it is integrated in that plane (r, phi) with momenta p_t = -E,
 * p_r, p_phi = L: the Hamiltonian H = (-E^2 / f + f p_r^2 + L^2 / r^2) / 2 is
 * zero along a light ray, E and L are constant, and
 *   dr/dl = dH/dp_r, dphi/dl = dH/dL, dp_r/dl = -dH/dr.
 * The observer is static at r0 = BH_R0 on the -z axis, looking at the hole
 * (+z), with a pinhole camera of BH_FOV_DEG degrees vertically. A ray that
 * falls below r = BH_HORIZON_STOP is black; one that climbs past BH_ESCAPE
 * moving outwards takes the sky's colour in the direction it leaves by.
 *
 * Before including: `real` (float or double), R(x) (a literal as real), and
 * BH_FN (function qualifiers). BH_STEP(r, phi, pr, E, L, h), the RK4 step,
 * is called by trace_ray: define it before including to use your own, else
 * it is step_by_hand below. With BH_STEP_ONLY defined, only the step and the
 * step length are defined, in arithmetic alone: `real` may then be a vector
 * of several rays (cpu_simd.c: R(x) broadcasts x to every lane).
 */
#define BH_R0 20
#define BH_FOV_DEG 60
#define BH_HORIZON_STOP R(1.01)
#define BH_ESCAPE R(60.0)
#define BH_MAX_STEPS 4000
#define BH_STEP_SCALE R(0.05)

/* The step by hand: the three derivatives written out from H. */
BH_FN void step_by_hand(real *r, real *phi, real *pr, real E, real L, real h)
{
    real k[4][3], y[3] = {*r, *phi, *pr}, s[3];
    for (int i = 0; i < 4; i++) {
        real a = i == 0 ? R(0.0) : i == 3 ? h : R(0.5) * h;
        for (int j = 0; j < 3; j++)
            s[j] = i == 0 ? y[j] : y[j] + a * k[i - 1][j];
        real rr = s[0], f = R(1.0) - R(1.0) / rr;
        k[i][0] = f * s[2];
        k[i][1] = L / (rr * rr);
        k[i][2] = L * L / (rr * rr * rr) - (E * E / (f * f) + s[2] * s[2]) / (R(2.0) * rr * rr);
    }
    *r = y[0] + h / R(6.0) * (k[0][0] + R(2.0) * k[1][0] + R(2.0) * k[2][0] + k[3][0]);
    *phi = y[1] + h / R(6.0) * (k[0][1] + R(2.0) * k[1][1] + R(2.0) * k[2][1] + k[3][1]);
    *pr = y[2] + h / R(6.0) * (k[0][2] + R(2.0) * k[1][2] + R(2.0) * k[2][2] + k[3][2]);
}

/* The step length in the affine parameter: a twentieth of the distance to
 * the horizon, so a step moves the ray by about 5% of where it is. */
BH_FN real step_length(real r) { return BH_STEP_SCALE * (r - R(1.0)); }

#ifndef BH_STEP_ONLY
#ifndef BH_STEP
#define BH_STEP step_by_hand
#endif

/* The sky in direction (x, y, z), unit: a chequerboard of two colours, 48
 * squares around and 24 from pole to pole, over a gradient; never black. */
BH_FN void sky(real x, real y, real z, real *rgb)
{
    real lon = atan2(x, z), lat = asin(y < R(-1.0) ? R(-1.0) : y > R(1.0) ? R(1.0) : y);
    int u = (int)floor(lon * R(24.0) / R(3.14159265358979)), v = (int)floor(lat * R(24.0) / R(3.14159265358979));
    real t = R(0.5) + R(0.5) * y;
    if ((u + v) & 1) {
        rgb[0] = R(0.85) - R(0.2) * t, rgb[1] = R(0.7), rgb[2] = R(0.35) + R(0.3) * t;
    } else {
        rgb[0] = R(0.15), rgb[1] = R(0.25) + R(0.1) * t, rgb[2] = R(0.55) + R(0.2) * t;
    }
}

/* The ray of pixel (col, row), row 0 at the top, in a width x height image:
 * its constants E, L, its first p_r, and the unit vectors of its plane (tx,
 * ty: the direction across, in the image's x-y plane). Returns 0 for the
 * pixel at the centre, whose ray goes straight into the hole. */
BH_FN int camera_ray(int col, int row, int width, int height, real *E, real *L, real *pr, real *tx, real *ty)
{
    real scale = tan(R(BH_FOV_DEG) * R(3.14159265358979) / R(360.0)) / (R(0.5) * (real)height);
    real x = ((real)col + R(0.5) - R(0.5) * (real)width) * scale, y = (R(0.5) * (real)height - (real)row - R(0.5)) * scale;
    real norm = sqrt(x * x + y * y + R(1.0)), across = sqrt(x * x + y * y);
    real cos_a = R(1.0) / norm, sin_a = across / norm, f0 = R(1.0) - R(1.0) / R(BH_R0);
    *E = sqrt(f0);
    *L = R(BH_R0) * sin_a;
    *pr = -cos_a / sqrt(f0);
    if (across == R(0.0))
        return 0;
    *tx = x / across;
    *ty = y / across;
    return 1;
}

/* The colour of a ray that escaped at (r, phi) moving out with p_r: the sky
 * in the direction it leaves by. */
BH_FN void escaped_colour(real r, real phi, real pr, real L, real tx, real ty, real *rgb)
{
    /* the direction it leaves by, in the local frame: radial and across */
    real f = R(1.0) - R(1.0) / r, vr = sqrt(f) * pr, vphi = L / r;
    real c = cos(phi), s = sin(phi);
    /* in the plane: radial (c, s), across (-s, c), in the basis (-z, t) */
    real a = vr * c - vphi * s, b = vr * s + vphi * c, len = sqrt(a * a + b * b);
    sky(b / len * tx, b / len * ty, -a / len, rgb);
}

/* Integrates one pixel's ray; writes its colour (0..1) and returns the number
 * of steps taken (negative if it fell in or never left). */
BH_FN int trace_ray(int col, int row, int width, int height, real *rgb)
{
    real E, L, pr, tx = 0, ty = 0, r = R(BH_R0), phi = R(0.0);
    rgb[0] = rgb[1] = rgb[2] = R(0.0);
    if (!camera_ray(col, row, width, height, &E, &L, &pr, &tx, &ty))
        return -1;
    for (int n = 1; n <= BH_MAX_STEPS; n++) {
        BH_STEP(&r, &phi, &pr, E, L, step_length(r));
        if (!(r > BH_HORIZON_STOP)) /* also stops on NaN */
            return r == r ? -n : 0;
        if (r > BH_ESCAPE && pr > R(0.0)) {
            escaped_colour(r, phi, pr, L, tx, ty, rgb);
            return n;
        }
    }
    return -BH_MAX_STEPS;
}
#endif /* BH_STEP_ONLY */
