/* test_error.c: the tta_error convention (common/error.h). */
#include "common/error.h"
#include "tta_test.h"

#include <string.h>

TEST(convention)
{
    tta_error e;
    tta_error_clear(&e);
    CHECK(e.code == TTA_OK && e.text[0] == '\0');
    CHECK(tta_fail(&e, TTA_EINPUT, "%s:%d: %s", "a.txt", 7, "bad key") == TTA_EINPUT);
    CHECK(e.code == TTA_EINPUT && strcmp(e.text, "a.txt:7: bad key") == 0);
    CHECK(tta_error_context(&e, "run %d", 3) == TTA_EINPUT);
    CHECK(strcmp(e.text, "run 3: a.txt:7: bad key") == 0);
    CHECK(tta_fail(NULL, TTA_EIO, "dropped") == TTA_EIO);
    tta_error_clear(&e);
    CHECK(tta_error_context(&e, "ignored") == TTA_OK && e.text[0] == '\0');
    char long_text[3000];
    memset(long_text, 'x', sizeof long_text - 1);
    long_text[sizeof long_text - 1] = '\0';
    tta_fail(&e, TTA_EDB, "%s", long_text);
    CHECK(strlen(e.text) == TTA_ERROR_TEXT - 1);
    CHECK(strcmp(tta_status_name(TTA_ENOTFOUND), "not found") == 0);
    CHECK(strcmp(tta_status_name((tta_status)99), "unknown") == 0);
    CHECK(tta_exit_status(TTA_OK) == 0 && tta_exit_status(TTA_EUSAGE) == 2 && tta_exit_status(TTA_EDB) == 1);
}

int main(void)
{
    RUN(convention);
    return test_summary();
}
