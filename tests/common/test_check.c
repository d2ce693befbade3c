/* test_check.c: the allocation wrappers of common/check.h that do more than check: mallocLarge's
 * alignment and huge-page rule, and the TTA_HUGE_PAGES switch it follows. */
#include "common/check.h"
#include "tta_test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Sets TTA_HUGE_PAGES to value (NULL: unset). */
static void set_switch(const char *value) {
    if (value) setenv("TTA_HUGE_PAGES", value, 1);
    else unsetenv("TTA_HUGE_PAGES");
}

TEST(small_blocks_are_cache_line_aligned) {
    size_t sizes[] = {0, 1, 63, 65, 4096, TTA_HUGE_PAGE_BYTES - 1};
    const char *switches[] = {"0", NULL};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        for (int huge = 0; huge < 2; huge++) {
            set_switch(switches[huge]);
            unsigned char *p = mallocLarge(sizes[i]);
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
        set_switch(NULL);
        unsigned char *p = mallocLarge(sizes[i]);
        CHECK(((uintptr_t)p & (TTA_HUGE_PAGE_BYTES - 1)) == 0);
        memset(p, 0x5a, sizes[i]);
        CHECK(p[0] == 0x5a && p[sizes[i] - 1] == 0x5a);
        free(p);
        set_switch("0"); /* not asked: an ordinary aligned block */
        unsigned char *q = mallocLarge(sizes[i]);
        CHECK(((uintptr_t)q & 63) == 0);
        memset(q, 1, sizes[i]);
        free(q);
    }
}

TEST(the_environment_switches_huge_pages_off) {
    set_switch(NULL);
    CHECK(tta_huge_pages_wanted() == 1);
    set_switch("0");
    CHECK(tta_huge_pages_wanted() == 0);
    set_switch("1");
    CHECK(tta_huge_pages_wanted() == 1);
}

int main(void) {
    RUN(small_blocks_are_cache_line_aligned);
    RUN(large_blocks_start_on_a_huge_page_when_asked);
    RUN(the_environment_switches_huge_pages_off);
    set_switch(NULL);
    return test_summary();
}
