/* stage.c - see stage.h. */
#include "stage.h"

#include <stdio.h>
#include <string.h>

static struct {
    const char *rows;
    size_t count, size;
} table; /* the stage table in use: the one cli_parse last read */

void stage_table_use(const void *rows, size_t count, size_t row_size)
{
    table.rows = rows;
    table.count = count;
    table.size = row_size;
}

const stage_info *stage_find(const char *name)
{
    for (size_t i = 0; name && i < table.count; i++) {
        /* The head is each row's first member, so a pointer to the row is one to it. */
        const stage_info *s = (const stage_info *)(const void *)(table.rows + i * table.size);
        if (strcmp(s->name, name) == 0)
            return s;
    }
    return NULL;
}

const char *stage_work(const char *name, char *buf, size_t size)
{
    const stage_info *s = stage_find(name);
    const char *tags = s ? s->tags : NULL, *at = tags;
    while (at && (at = strstr(at, "work=")) && at != tags && at[-1] != ' ')
        at += 5; /* "work=" inside another word: not the tag */
    size_t n = at ? strcspn(at + 5, " ") : 0;
    snprintf(buf, size, "%.*s", (int)n, at ? at + 5 : "");
    return buf;
}
