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

/* Large buffers on huge pages. The trainer streams feature maps of tens of MiB through every
 * layer; on 4 KiB pages each 4 KiB of them costs a TLB miss, and under a hypervisor's nested paging
 * that miss walks two page tables (measured on this project's VMs: fmnist-cnn's step 10-13 % faster,
 * its batch norms 30 %, on 2 MiB pages; docs/replay.md "Huge pages").
 * malloc_large returns size bytes (at least 1), 64-byte aligned; where size is at least
 * TTA_HUGE_PAGE_BYTES and tta_huge_pages_wanted() (read at each call, so that every caller follows it), the block is 2 MiB aligned, its length rounded up to whole 2 MiB pages,
 * and advised MADV_HUGEPAGE (the kernel's transparent huge pages, in its "madvise" or "always"
 * mode; an advice: where the kernel has none to give, the block stays on small pages). The caller
 * owns the block and frees it with free(). Exits on out of memory, as mallocCheck. */
#define TTA_HUGE_PAGE_BYTES ((size_t)2 << 20)
void *malloc_large(size_t size, const char *file, int line);
#define mallocLarge(size) malloc_large((size), __FILE__, __LINE__)
/* Whether the large buffers go on huge pages: yes unless the environment sets TTA_HUGE_PAGES=0
 * (for comparisons, or a host where the kernel's compaction for them stalls). */
int tta_huge_pages_wanted(void);

/* Grow *cap (doubling, at least min_cap) so that it holds need elements of elem bytes;
 * returns the (possibly moved) array. */
void *grow_array(void *p, size_t *cap, size_t need, size_t elem, const char *file, int line);
#define growArray(p, capp, need) ((p) = grow_array((p), (capp), (need), sizeof(*(p)), __FILE__, __LINE__))

#endif
