#include "common/check.h"

#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

static void die_oom(size_t size, const char *file, int line) {
    fprintf(stderr, "tta: out of memory allocating %zu bytes at %s:%d\n", size, file, line);
    exit(1);
}

void *malloc_check(size_t size, const char *file, int line) {
    void *p = malloc(size ? size : 1);
    if (!p) die_oom(size, file, line);
    return p;
}

void *calloc_check(size_t n, size_t size, const char *file, int line) {
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) die_oom(n * size, file, line);
    return p;
}

void *realloc_check(void *p, size_t size, const char *file, int line) {
    void *q = realloc(p, size ? size : 1);
    if (!q) die_oom(size, file, line);
    return q;
}

char *strdup_check(const char *s, const char *file, int line) {
    return strndup_check(s, strlen(s), file, line);
}

char *strndup_check(const char *s, size_t n, const char *file, int line) {
    char *p = malloc_check(n + 1, file, line);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

void *grow_array(void *p, size_t *cap, size_t need, size_t elem, const char *file, int line) {
    if (need <= *cap) return p;
    size_t c = *cap ? *cap : 16;
    while (c < need) c *= 2;
    p = realloc_check(p, c * elem, file, line);
    *cap = c;
    return p;
}

void *malloc_large(size_t size, const char *file, int line) {
    if (!size) size = 1;
    if (size < TTA_HUGE_PAGE_BYTES || !tta_huge_pages_wanted()) {
        void *p = aligned_alloc(64, (size + 63) & ~(size_t)63);
        if (!p) die_oom(size, file, line);
        return p;
    }
    size_t whole = (size + TTA_HUGE_PAGE_BYTES - 1) & ~(TTA_HUGE_PAGE_BYTES - 1);
    void *p = aligned_alloc(TTA_HUGE_PAGE_BYTES, whole);
    if (!p) die_oom(size, file, line);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    (void)madvise(p, whole, MADV_HUGEPAGE); /* an advice: EINVAL where the kernel has no THP */
#endif
    return p;
}

int tta_huge_pages_wanted(void) {
    const char *e = getenv("TTA_HUGE_PAGES");
    return !e || strcmp(e, "0") != 0;
}
