/* stages.h - ch01's one stage: the card as the original wrote it, in C. */
#ifndef CH01_STAGES_H
#define CH01_STAGES_H

#include "card.h"

#include "../../common/stage.h"

typedef struct {
    stage_info info;
    void (*run)(image *img, int spp, card_progress_fn progress, void *context);
} stage;

static const stage stages[] = {
    {{"baseline", "the card as plain C, card.c built -O0, libc rand() seeded 1", .where = STAGE_CPU}, card_render},
};
#define STAGE_COUNT (sizeof stages / sizeof stages[0])

#endif
