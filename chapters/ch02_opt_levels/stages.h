/* stages.h - ch02's stages: ch01's card.c, one build per row. A row's
 * description is the build's command (compiler and flags): chapter.mk reads
 * the rows and compiles card.c once per row with exactly that command,
 * renaming its card_render to the row's function (objcopy). The clang rows
 * are built when clang is installed (CH02_CLANG). */
#ifndef CH02_STAGES_H
#define CH02_STAGES_H

#include "../ch01_baseline/card.h"

#include "../../common/stage.h"

typedef void render_fn(image *img, int spp, card_progress_fn progress, void *context);

typedef struct {
    stage_info info;
    render_fn *run;
} stage;

render_fn card_render_gcc_O0, card_render_gcc_O1, card_render_gcc_O2, card_render_gcc_O3, card_render_gcc_O3_native,
    card_render_gcc_O3_native_fastmath, card_render_gcc_O1_inline;
render_fn card_render_clang_O0, card_render_clang_O1, card_render_clang_O2, card_render_clang_O3,
    card_render_clang_O3_native, card_render_clang_O3_native_fastmath;

static const stage stages[] = {
    {{"gcc-O0", "gcc -O0", .where = STAGE_CPU}, card_render_gcc_O0},
    {{"gcc-O1", "gcc -O1", .where = STAGE_CPU}, card_render_gcc_O1},
    {{"gcc-O2", "gcc -O2", .where = STAGE_CPU}, card_render_gcc_O2},
    {{"gcc-O3", "gcc -O3", .where = STAGE_CPU}, card_render_gcc_O3},
    {{"gcc-O3-native", "gcc -O3 -march=native", .where = STAGE_CPU}, card_render_gcc_O3_native},
    {{"gcc-O3-native-fastmath", "gcc -O3 -march=native -ffast-math", .where = STAGE_CPU},
     card_render_gcc_O3_native_fastmath},
#ifdef CH02_CLANG
    {{"clang-O0", "clang -O0", .where = STAGE_CPU}, card_render_clang_O0},
    {{"clang-O1", "clang -O1", .where = STAGE_CPU}, card_render_clang_O1},
    {{"clang-O2", "clang -O2", .where = STAGE_CPU}, card_render_clang_O2},
    {{"clang-O3", "clang -O3", .where = STAGE_CPU}, card_render_clang_O3},
    {{"clang-O3-native", "clang -O3 -march=native", .where = STAGE_CPU}, card_render_clang_O3_native},
    {{"clang-O3-native-fastmath", "clang -O3 -march=native -ffast-math", .where = STAGE_CPU},
     card_render_clang_O3_native_fastmath},
#endif
    /* gcc -O1 plus the one -O2 pass that inlines small functions: the port's
     * -O1 gap is inlining (the original's C++ member functions are implicitly
     * inline, the port's static helpers are not). The exercise does the same
     * in the source. */
    {{"gcc-O1-inline", "gcc -O1 -finline-small-functions", .where = STAGE_CPU}, card_render_gcc_O1_inline},
};
#define STAGE_COUNT (sizeof stages / sizeof stages[0])

#endif
