/* stages.h - ch10's stages: name, what it changes, where it runs, the kernel
 * make profile measures (every generated kernel is called render); then how
 * its step is made (by hand, or from the tree with a set of rules), the
 * arithmetic NVRTC compiles it with (kernels.h's MATH_*; --math overrides
 * it, and `make bench` runs the strict stages under each other one: the
 * source text's table of math configurations). The tag
 * work=: the GPU stages compute in float (fast math apart), unlike the double
 * reference, so make book sets their time beside the float CPU stages', not
 * cpu-threads'; gpu-hand-written-double does the reference's work, untagged,
 * so the double CPU stages and it compare like for like. */
#ifndef CH10_STAGES_H
#define CH10_STAGES_H

#include "expr.h"
#include "kernels.h"

#include "../../common/stage.h"

/* how a stage's step is made: on the CPU (double, float; scalar or in
 * vectors), by hand on the GPU (in float; HAND_DOUBLE: in double), or from
 * the tree (float) */
enum { ON_CPU, ON_CPU_FLOAT, ON_CPU_SIMD, ON_CPU_SIMD_FLOAT, HAND, HAND_DOUBLE, GENERATED };

typedef struct {
    stage_info info;
    int kind;
    unsigned rules;
    int math;
} stage;

/* kernel=run-time: NVRTC compiles the kernel while the program runs, so no
 * binary holds it (tests/tools/kernel_names_exist.sh skips such rows). */
#define GPU .where = STAGE_GPU, .kernel = "render", .tags = "work=float kernel=run-time"
#define GPU_FAST .where = STAGE_GPU, .kernel = "render", .tags = "work=float-fast-math kernel=run-time"
#define ABLATION .bench = "--math fma;--math approx;--math fma-approx;--math fast"
static const stage stages[] = {
    {{"cpu-threads", "the reference: double precision, the step by hand, POSIX threads", .where = STAGE_CPU}, ON_CPU,
     0, 0},
    {{"cpu-threads-float", "cpu-threads in float, each operation rounded (no FMA contraction): the strict GPU "
      "stages' arithmetic", .where = STAGE_CPU, .tags = "work=float"}, ON_CPU_FLOAT, 0, 0},
    {{"cpu-threads-simd", "cpu-threads with a ray in each lane of a vector: 8 with AVX-512, 4 with AVX2 (the widest "
      "the CPU has, chosen at run time); the same operations, so the same bytes", .where = STAGE_CPU},
     ON_CPU_SIMD, 0, 0},
    {{"cpu-threads-simd-float", "cpu-threads-float with a ray in each lane of a vector: 16 with AVX-512, 8 with AVX2; "
      "the same bytes as cpu-threads-float", .where = STAGE_CPU, .tags = "work=float"},
     ON_CPU_SIMD_FLOAT, 0, 0},
    {{"gpu-hand-written", "the step written by hand, compiled by NVRTC (IEEE, no FMA contraction)", GPU, ABLATION},
     HAND, 0, MATH_STRICT},
    {{"gpu-hand-written-double", "gpu-hand-written in double, the reference's arithmetic: cpu-threads' work on the "
      "GPU", .where = STAGE_GPU, .kernel = "render", .tags = "kernel=run-time"}, HAND_DOUBLE, 0, MATH_STRICT},
    {{"gpu-generated", "the step from the tree, no rules: what differentiation leaves", GPU, ABLATION}, GENERATED,
     EX_NONE, MATH_STRICT},
    {{"gpu-generated-simplified", "the tree with the IEEE-exact rules: the same image, bit for bit", GPU}, GENERATED,
     EX_STRICT, MATH_STRICT},
    {{"gpu-generated-relaxed", "the tree with every rule, x * 0 -> 0 too: exact only for finite values", GPU,
      ABLATION}, GENERATED, EX_RELAXED, MATH_STRICT},
    {{"gpu-hand-written-fast-math", "gpu-hand-written with --use_fast_math", GPU_FAST}, HAND, 0, MATH_FAST},
    {{"gpu-generated-fast-math", "gpu-generated with --use_fast_math", GPU_FAST}, GENERATED, EX_NONE, MATH_FAST},
    {{"gpu-generated-relaxed-fast-math", "gpu-generated-relaxed with --use_fast_math", GPU_FAST}, GENERATED, EX_RELAXED,
     MATH_FAST},
};
#undef GPU
#undef GPU_FAST
#undef ABLATION
#define STAGE_COUNT (sizeof stages / sizeof stages[0])

#endif
