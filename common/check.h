/* check.h: checked wrappers for allocation and file I/O (llm.c style).
 *
 * Running out of memory is not a recoverable condition for tta: these wrappers print
 * the caller's file and line and exit(1) rather than let a NULL travel on.
 * Everything else (bad input, I/O errors on user files) is an error value that callers check.
 */
#ifndef TTA_COMMON_CHECK_H
#define TTA_COMMON_CHECK_H

#include <stddef.h>
#include <stdio.h>

void *malloc_check(size_t size, const char *file, int line);
void *calloc_check(size_t n, size_t size, const char *file, int line);
void *realloc_check(void *p, size_t size, const char *file, int line);
char *strdup_check(const char *s, const char *file, int line);
char *strndup_check(const char *s, size_t n, const char *file, int line);

#define mallocCheck(size) malloc_check((size), __FILE__, __LINE__)
#define callocCheck(n, size) calloc_check((n), (size), __FILE__, __LINE__)
#define reallocCheck(p, size) realloc_check((p), (size), __FILE__, __LINE__)
#define strdupCheck(s) strdup_check((s), __FILE__, __LINE__)
#define strndupCheck(s, n) strndup_check((s), (n), __FILE__, __LINE__)

/* Grow *cap (doubling, at least min_cap) so that it holds need elements of elem bytes;
 * returns the (possibly moved) array. */
void *grow_array(void *p, size_t *cap, size_t need, size_t elem, const char *file, int line);
#define growArray(p, capp, need) ((p) = grow_array((p), (capp), (need), sizeof(*(p)), __FILE__, __LINE__))

#endif
