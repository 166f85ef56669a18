/* parts.h - the three chapters whose kernels ch09 compiles twice, their
 * headers as they are, and ch09's own small kernels from the clang talk. */
#ifndef CH09_PARTS_H
#define CH09_PARTS_H

#include "../ch05_intrinsics/render.h"
#include "../ch06_reduction/reduce.h"
#include "../ch07_nbody/nbody.h"
#include "talk.h"

#endif
