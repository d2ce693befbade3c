#include "ingest/arena.h"

#include <stdlib.h>
#include <string.h>

#include "common/check.h"

struct tta_arena_block {
    tta_arena_block *next;
    size_t used, cap;
    _Alignas(8) unsigned char data[];
};

void *tta_arena_alloc(tta_arena *a, size_t n) {
    n = (n + 7) & ~(size_t)7;
    tta_arena_block *b = a->head;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > 65536 ? n : 65536;
        b = mallocCheck(sizeof(tta_arena_block) + cap);
        b->used = 0;
        b->cap = cap;
        b->next = a->head;
        a->head = b;
    }
    void *p = b->data + b->used;
    b->used += n;
    return p;
}

char *tta_arena_strndup(tta_arena *a, const char *s, size_t n) {
    char *p = tta_arena_alloc(a, n + 1);
    if (n) memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *tta_arena_strdup(tta_arena *a, const char *s) { return tta_arena_strndup(a, s, strlen(s)); }

void tta_arena_free(tta_arena *a) {
    tta_arena_block *b = a->head;
    while (b) {
        tta_arena_block *n = b->next;
        free(b);
        b = n;
    }
    a->head = NULL;
}
