/* fuzz_package.c: libFuzzer target for the package checks' readers (check/sysdesc.c, check/seeds.c). The
 * first byte picks the ruleset; the rest is read as a system description (systems/<system>.json, as the
 * package checker's json.load and required-field checks read it) and as a result log whose seeds the seed
 * checker reads. Invariants beyond not crashing: a system description's verdict is pass (with no key) or
 * fail (with a key and a message); the seed reader returns 0, -1 or -2, a reason with each refusal, and a
 * seed is decimal digits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "check/package.h"

static void fail(const char *what) {
    fprintf(stderr, "fuzz invariant broken: %s\n", what);
    abort();
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    static const char *const rulesets[] = {"1.0.0", "2.1.0", "3.1.0", "4.1.0", "5.1.0", "6.1.0", "0.7.0", "9.9.0"};
    if (size < 1) return 0;
    const char *text = (const char *)data + 1;
    size_t n = size - 1;
    tta_package_finding f;
    tta_check_system_desc_text(rulesets[data[0] % 8], "org", "systems/x.json", text, n, &f);
    if (f.verdict != TTA_PACKAGE_PASS && f.verdict != TTA_PACKAGE_FAIL) fail("a system description is pass or fail");
    if (!f.key || !f.message || !f.message[0]) fail("a finding without key or message");
    if ((f.verdict == TTA_PACKAGE_PASS) != (f.key[0] == '\0')) fail("a failure has a key, a pass none");
    tta_package_finding_free(&f);
    cc_arena a = {0};
    cc_seed *seeds;
    size_t ns;
    char why[200];
    int rc = cc_seeds_read(&a, text, n, &seeds, &ns, why, sizeof why);
    if (rc != 0 && rc != -1 && rc != -2) fail("seed reader status");
    if (rc != 0 && !why[0]) fail("a refusal without a reason");
    for (size_t i = 0; rc == 0 && i < ns; i++) {
        const char *s = seeds[i].seed + (seeds[i].seed[0] == '-');
        if (!*s || strspn(s, "0123456789") != strlen(s)) fail("a seed that is not decimal");
    }
    cc_arena_free(&a);
    return 0;
}
