/* test_check.c: the allocation wrappers of common/check.h that do more than check: mallocLarge's
 * alignment and huge-page rule, and the TTA_HUGE_PAGES switch. */
#include "common/check.h"
#include "tta_test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

TEST(small_blocks_are_cache_line_aligned) {
    size_t sizes[] = {0, 1, 63, 65, 4096, TTA_HUGE_PAGE_BYTES - 1};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        for (int huge = 0; huge < 2; huge++) {
            unsigned char *p = mallocLarge(sizes[i], huge);
            CHECK(((uintptr_t)p & 63) == 0);
            memset(p, 0xab, sizes[i] ? sizes[i] : 1); /* the whole block is writable */
            CHECK(p[sizes[i] ? sizes[i] - 1 : 0] == 0xab);
            free(p);
        }
    }
}

TEST(large_blocks_start_on_a_huge_page_when_asked) {
    size_t sizes[] = {TTA_HUGE_PAGE_BYTES, TTA_HUGE_PAGE_BYTES + 1, 3 * TTA_HUGE_PAGE_BYTES + 12345};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        unsigned char *p = mallocLarge(sizes[i], 1);
        CHECK(((uintptr_t)p & (TTA_HUGE_PAGE_BYTES - 1)) == 0);
        memset(p, 0x5a, sizes[i]);
        CHECK(p[0] == 0x5a && p[sizes[i] - 1] == 0x5a);
        free(p);
        unsigned char *q = mallocLarge(sizes[i], 0); /* not asked: an ordinary aligned block */
        CHECK(((uintptr_t)q & 63) == 0);
        memset(q, 1, sizes[i]);
        free(q);
    }
}

TEST(the_environment_switches_huge_pages_off) {
    const char *old = getenv("TTA_HUGE_PAGES");
    char *saved = old ? strdupCheck(old) : NULL;
    unsetenv("TTA_HUGE_PAGES");
    CHECK(tta_huge_pages_wanted() == 1);
    setenv("TTA_HUGE_PAGES", "0", 1);
    CHECK(tta_huge_pages_wanted() == 0);
    setenv("TTA_HUGE_PAGES", "1", 1);
    CHECK(tta_huge_pages_wanted() == 1);
    if (saved) setenv("TTA_HUGE_PAGES", saved, 1);
    else unsetenv("TTA_HUGE_PAGES");
    free(saved);
}

int main(void) {
    RUN(small_blocks_are_cache_line_aligned);
    RUN(large_blocks_start_on_a_huge_page_when_asked);
    RUN(the_environment_switches_huge_pages_off);
    return test_summary();
}
