/* forces.h - the forces a rank computes: on its nt own bodies (targets) from
 * one block of ns bodies (sources), written into a (add = 0) or added to it
 * (add = 1), so a rank can sum the pulls of the other ranks' blocks one at a
 * time. The CPU's is ch07's own loop, which takes its targets and sources
 * apart; the GPU's (forces_gpu.h) is ch07's fastest kernel with them apart,
 * which ch07's stages do not need, so it is written in ch11, where the
 * lesson is the blocks. */
#ifndef CH11_FORCES_H
#define CH11_FORCES_H

#include "../../common/nbody/nbody.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ch07's cpu.c (build/ch07/cpu.o in ch11; the ring exercise's driver
 * compiles the file itself): ch07's cpu-simd loop (AVX2 + FMA, 8 targets in
 * the lanes; scalar where the CPU lacks AVX2). */
void cpu_simd_block_forces(const body *targets, int nt, const body *sources, int ns, vec3 *a, int add);

#ifdef __cplusplus
}
#endif

#endif
