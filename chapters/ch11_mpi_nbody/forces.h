/* forces.h - the forces a rank computes: on its nt own bodies (targets) from
 * one block of ns bodies (sources), written into a (add = 0) or added to it
 * (add = 1), so a rank can sum the pulls of the other ranks' blocks one at a
 * time. ch07's fastest kernels with their targets and sources apart: ch07's
 * stages need neither, so they are written here, where the lesson is the
 * blocks. */
#ifndef CH11_FORCES_H
#define CH11_FORCES_H

#include "../../common/nbody/nbody.h"

#ifdef __cplusplus
extern "C" {
#endif

/* forces_cpu.c: ch07's cpu-simd loop (AVX2 + FMA, 8 targets in the lanes;
 * scalar where the CPU lacks AVX2). */
void cpu_simd_block_forces(const body *targets, int nt, const body *sources, int ns, vec3 *a, int add);

#ifdef __cplusplus
}
#endif

#endif
