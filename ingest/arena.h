/* arena.h: a bump allocator for the many small strings of one parsed file.
 * Ownership: the arena owns every block it hands out; tta_arena_free releases them all. */
#ifndef TTA_INGEST_ARENA_H
#define TTA_INGEST_ARENA_H

#include <stddef.h>

typedef struct tta_arena_block tta_arena_block;
typedef struct {
    tta_arena_block *head;
} tta_arena;

void *tta_arena_alloc(tta_arena *a, size_t n);             /* 8-byte aligned, never NULL */
char *tta_arena_strndup(tta_arena *a, const char *s, size_t n); /* NUL-terminated copy */
char *tta_arena_strdup(tta_arena *a, const char *s);
void tta_arena_free(tta_arena *a);

#endif
