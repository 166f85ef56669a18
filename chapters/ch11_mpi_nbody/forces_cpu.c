/* forces_cpu.c - ch11's CPU forces are ch07's cpu-simd loop itself
 * (cpu_simd_block_forces, in ch07's cpu.c), and ch11 links build/ch07/cpu.o.
 * This file is that code for the one build that links no ch07 object: the
 * ring exercise's driver, which tests/test_ex_ch11.c compiles with mpicc
 * alone (no CUDA headers, which is why ch07's cpu.c includes none). */
#include "../ch07_nbody/cpu.c"
