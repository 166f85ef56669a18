/* parts.h - the three chapters whose kernels ch09 compiles twice, their
 * headers as they are, and ch09's own small kernels from the clang talk. Each chapter calls its stage type `stage`: renamed
 * here, where three chapters meet. */
#ifndef CH09_PARTS_H
#define CH09_PARTS_H

#include "../ch05_intrinsics/render.h"
#define stage ch06_stage
#include "../ch06_reduction/reduce.h"
#undef stage
#define stage ch07_stage
#include "../ch07_nbody/nbody.h"
#undef stage
#include "talk.h"

#endif
