/* stages.h - ch09's stages: each kernel once per compiler, side by side
 * ("<kernel>-nvcc", then "<kernel>-clang" when there is a clang half). A row:
 * name, what it runs, where, the kernel make profile measures (each build's
 * kernels live in a namespace of their own, ch09_<part>_<compiler>:
 * chapter.mk); then which chapter's part it is and that build's function. */
#ifndef CH09_STAGES_H
#define CH09_STAGES_H

/* The three chapters whose kernels ch09 compiles twice, their headers as
 * they are, and ch09's own small kernels from the clang talk. */
#include "../ch05_intrinsics/render.h"
#include "../ch06_reduction/reduce.h"
#include "../ch07_nbody/nbody.h"
#include "talk.h"

#include "../../common/stage.h"

#ifndef CH09_HAVE_CLANG
#define CH09_HAVE_CLANG 0
#endif

enum { PART_CH05, PART_CH06, PART_CH07, PART_TALK, PART_COUNT };
/* A talk stage's kind (its flags): the division on operands within 32 bits or
 * beyond, the four-float sums, the scaling. */
enum { TALK_DIVIDE_NARROW = 1, TALK_DIVIDE_WIDE, TALK_QUADS, TALK_SCALING };

/* A stage. Its type is not called `stage`, as other chapters' are: ch07's
 * nbody.h (above) already gives that name to ch07's. */
typedef struct {
    stage_info info;
    int part;
    render_fn *render; /* ch05: the build's render, and the stage's set of changes */
    int flags;
    reduce_fn *reduce; /* ch06 */
    forces_fn *forces; /* ch07 */
    talk_fn *talk;     /* the talk's kernels (talk.h); flags: TALK_* */
} ch09_stage;

/* The renamed functions of each compiler's objects (chapter.mk). */
render_fn gpu_render_nvcc, gpu_render_fast_nvcc;
reduce_fn reduce_sequential_nvcc, reduce_vector_shuffle_nvcc;
forces_fn gpu_naive_forces_nvcc, gpu_tiled_forces_nvcc, gpu_tiled_ftz_forces_nvcc;
talk_fn talk_divide_nvcc, talk_sum_quads_scalar_nvcc, talk_sum_quads_nvcc, talk_scale_plain_nvcc,
    talk_scale_restrict_nvcc;
#if CH09_HAVE_CLANG
render_fn gpu_render_clang, gpu_render_fast_clang;
reduce_fn reduce_sequential_clang, reduce_vector_shuffle_clang;
forces_fn gpu_naive_forces_clang, gpu_tiled_forces_clang, gpu_tiled_ftz_forces_clang;
talk_fn talk_divide_clang, talk_sum_quads_scalar_clang, talk_sum_quads_clang, talk_scale_plain_clang,
    talk_scale_restrict_clang;
#endif

static const ch09_stage stages[] = {
    {{"ch05-loop-nvcc", "ch05 loop: ch04's port, FP64 in it, by nvcc", .where = STAGE_GPU,
      .kernel = "ch09_ch05_nvcc::render_kernel<(int)0>"}, PART_CH05, .render = gpu_render_nvcc, .flags = SET_LOOP},
#if CH09_HAVE_CLANG
    {{"ch05-loop-clang", "ch05 loop: ch04's port, FP64 in it, by clang", .where = STAGE_GPU,
      .kernel = "ch09_ch05_clang::render_kernel<(int)0>"}, PART_CH05, .render = gpu_render_clang, .flags = SET_LOOP},
#endif
    {{"ch05-sphere-list-nvcc",
      "ch05 sphere-list: float, intrinsics, pow by squaring, a sphere list, by nvcc", .where = STAGE_GPU,
      .kernel = "ch09_ch05_nvcc::render_kernel<(int)23>"},
      PART_CH05, .render = gpu_render_nvcc, .flags = SET_SPHERE_LIST},
#if CH09_HAVE_CLANG
    {{"ch05-sphere-list-clang",
      "ch05 sphere-list: float, intrinsics, pow by squaring, a sphere list, by clang", .where = STAGE_GPU,
      .kernel = "ch09_ch05_clang::render_kernel<(int)23>"},
      PART_CH05, .render = gpu_render_clang, .flags = SET_SPHERE_LIST},
#endif
    {{"ch05-fast-math-nvcc",
      "ch05 fast-math: sphere-list with fast math (each compiler's flags for it), by nvcc", .where = STAGE_GPU,
      .kernel = "ch09_ch05fast_nvcc::render_kernel<(int)23>"},
      PART_CH05, .render = gpu_render_fast_nvcc, .flags = SET_SPHERE_LIST},
#if CH09_HAVE_CLANG
    {{"ch05-fast-math-clang",
      "ch05 fast-math: sphere-list with fast math (each compiler's flags for it), by clang", .where = STAGE_GPU,
      .kernel = "ch09_ch05fast_clang::render_kernel<(int)23>"},
      PART_CH05, .render = gpu_render_fast_clang, .flags = SET_SPHERE_LIST},
#endif
    {{"ch05-bounding-box-nvcc",
      "ch05 bounding-box: fast-math, spheres only inside their box, by nvcc", .where = STAGE_GPU,
      .kernel = "ch09_ch05fast_nvcc::render_kernel<(int)31>", .tags = "work=less"},
      PART_CH05, .render = gpu_render_fast_nvcc, .flags = SET_BOUNDING_BOX},
#if CH09_HAVE_CLANG
    {{"ch05-bounding-box-clang",
      "ch05 bounding-box: fast-math, spheres only inside their box, by clang", .where = STAGE_GPU,
      .kernel = "ch09_ch05fast_clang::render_kernel<(int)31>", .tags = "work=less"},
      PART_CH05, .render = gpu_render_fast_clang, .flags = SET_BOUNDING_BOX},
#endif
    {{"ch06-sequential-nvcc", "ch06 sequential: a tree in shared memory, by nvcc", .where = STAGE_GPU,
      .kernel = "ch09_ch06_nvcc::sequential_kernel"}, PART_CH06, .reduce = reduce_sequential_nvcc},
#if CH09_HAVE_CLANG
    {{"ch06-sequential-clang", "ch06 sequential: a tree in shared memory, by clang", .where = STAGE_GPU,
      .kernel = "ch09_ch06_clang::sequential_kernel"}, PART_CH06, .reduce = reduce_sequential_clang},
#endif
    {{"ch06-vector-shuffle-nvcc", "ch06 vector-shuffle: int4 loads, warp shuffles, by nvcc", .where = STAGE_GPU,
      .kernel = "ch09_ch06_nvcc::vector_shuffle_kernel"}, PART_CH06, .reduce = reduce_vector_shuffle_nvcc},
#if CH09_HAVE_CLANG
    {{"ch06-vector-shuffle-clang", "ch06 vector-shuffle: int4 loads, warp shuffles, by clang", .where = STAGE_GPU,
      .kernel = "ch09_ch06_clang::vector_shuffle_kernel"}, PART_CH06, .reduce = reduce_vector_shuffle_clang},
#endif
    {{"ch07-naive-nvcc", "ch07 naive: every body from global memory, by nvcc", .where = STAGE_GPU,
      .kernel = "ch09_ch07_nvcc::naive_kernel"}, PART_CH07, .forces = gpu_naive_forces_nvcc},
#if CH09_HAVE_CLANG
    {{"ch07-naive-clang", "ch07 naive: every body from global memory, by clang", .where = STAGE_GPU,
      .kernel = "ch09_ch07_clang::naive_kernel"}, PART_CH07, .forces = gpu_naive_forces_clang},
#endif
    {{"ch07-tiled-nvcc", "ch07 tiled: bodies through shared memory, by nvcc", .where = STAGE_GPU,
      .kernel = "ch09_ch07_nvcc::tiled_kernel"}, PART_CH07, .forces = gpu_tiled_forces_nvcc},
#if CH09_HAVE_CLANG
    {{"ch07-tiled-clang", "ch07 tiled: bodies through shared memory, by clang", .where = STAGE_GPU,
      .kernel = "ch09_ch07_clang::tiled_kernel"}, PART_CH07, .forces = gpu_tiled_forces_clang},
#endif
    {{"ch07-tiled-ftz-nvcc", "ch07 tiled-ftz: float4, rsqrt, unrolled, flush to zero, by nvcc", .where = STAGE_GPU,
      .kernel = "ch09_ch07_nvcc::tiled_float4_kernel<(int)7>"}, PART_CH07, .forces = gpu_tiled_ftz_forces_nvcc},
#if CH09_HAVE_CLANG
    {{"ch07-tiled-ftz-clang", "ch07 tiled-ftz: float4, rsqrt, unrolled, flush to zero, by clang", .where = STAGE_GPU,
      .kernel = "ch09_ch07_clang::tiled_float4_kernel<(int)7>"}, PART_CH07, .forces = gpu_tiled_ftz_forces_clang},
#endif
    {{"talk-divide-narrow-nvcc",
      "32 64-bit divisions an element, operands within 32 bits: the run-time check takes div.u32, by nvcc",
      .where = STAGE_GPU,
      .kernel = "ch09_talk_nvcc::divide_kernel"},
     PART_TALK, .talk = talk_divide_nvcc, .flags = TALK_DIVIDE_NARROW},
#if CH09_HAVE_CLANG
    {{"talk-divide-narrow-clang",
      "32 64-bit divisions an element, operands within 32 bits: the run-time check takes div.u32, by clang",
      .where = STAGE_GPU,
      .kernel = "ch09_talk_clang::divide_kernel"},
     PART_TALK, .talk = talk_divide_clang, .flags = TALK_DIVIDE_NARROW},
#endif
    {{"talk-divide-wide-nvcc",
      "the same division, operands beyond 32 bits: the 64-bit routine, by nvcc", .where = STAGE_GPU,
      .kernel = "ch09_talk_nvcc::divide_kernel"},
     PART_TALK, .talk = talk_divide_nvcc, .flags = TALK_DIVIDE_WIDE},
#if CH09_HAVE_CLANG
    {{"talk-divide-wide-clang",
      "the same division, operands beyond 32 bits: the 64-bit routine, by clang", .where = STAGE_GPU,
      .kernel = "ch09_talk_clang::divide_kernel"},
     PART_TALK, .talk = talk_divide_clang, .flags = TALK_DIVIDE_WIDE},
#endif
    {{"talk-quads-scalar-nvcc",
      "four adjacent floats summed, alignment unknown: four 32-bit loads, by nvcc", .where = STAGE_GPU,
      .kernel = "ch09_talk_nvcc::sum_quads_kernel<(int)0>"},
     PART_TALK, .talk = talk_sum_quads_scalar_nvcc, .flags = TALK_QUADS},
#if CH09_HAVE_CLANG
    {{"talk-quads-scalar-clang",
      "four adjacent floats summed, alignment unknown: four 32-bit loads, by clang", .where = STAGE_GPU,
      .kernel = "ch09_talk_clang::sum_quads_kernel<(int)0>"},
     PART_TALK, .talk = talk_sum_quads_scalar_clang, .flags = TALK_QUADS},
#endif
    {{"talk-quads-vector-nvcc",
      "the same, 16-byte alignment promised: one ld.global.v4 (load-store vectorizer), by nvcc", .where = STAGE_GPU,
      .kernel = "ch09_talk_nvcc::sum_quads_kernel<(int)1>"},
     PART_TALK, .talk = talk_sum_quads_nvcc, .flags = TALK_QUADS},
#if CH09_HAVE_CLANG
    {{"talk-quads-vector-clang",
      "the same, 16-byte alignment promised: one ld.global.v4 (load-store vectorizer), by clang", .where = STAGE_GPU,
      .kernel = "ch09_talk_clang::sum_quads_kernel<(int)1>"},
     PART_TALK, .talk = talk_sum_quads_clang, .flags = TALK_QUADS},
#endif
    {{"talk-scale-plain-nvcc",
      "out = 3 in, pointers that may alias: ld.global, by nvcc", .where = STAGE_GPU,
      .kernel = "ch09_talk_nvcc::scale_plain_kernel"},
     PART_TALK, .talk = talk_scale_plain_nvcc, .flags = TALK_SCALING},
#if CH09_HAVE_CLANG
    {{"talk-scale-plain-clang",
      "out = 3 in, pointers that may alias: ld.global, by clang", .where = STAGE_GPU,
      .kernel = "ch09_talk_clang::scale_plain_kernel"},
     PART_TALK, .talk = talk_scale_plain_clang, .flags = TALK_SCALING},
#endif
    {{"talk-scale-restrict-nvcc",
      "the same, const __restrict__: ld.global.nc, the read-only path, by nvcc", .where = STAGE_GPU,
      .kernel = "ch09_talk_nvcc::scale_restrict_kernel"},
     PART_TALK, .talk = talk_scale_restrict_nvcc, .flags = TALK_SCALING},
#if CH09_HAVE_CLANG
    {{"talk-scale-restrict-clang",
      "the same, const __restrict__: ld.global.nc, the read-only path, by clang", .where = STAGE_GPU,
      .kernel = "ch09_talk_clang::scale_restrict_kernel"},
     PART_TALK, .talk = talk_scale_restrict_clang, .flags = TALK_SCALING},
#endif
};
#define STAGE_COUNT (sizeof stages / sizeof stages[0])

#endif
