/* ex_ch07_kernel.cu - exercise ch07's tile loop alone, for nvcc -ptx (the test
 * compiles it and counts the instructions of the loop). */
#include "tile_loop.cuh"
