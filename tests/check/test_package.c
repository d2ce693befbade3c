/* test_package.c: the package checks' readers: the seed reader against the seed checker's reading (Python's
 * int() of a seed, (file, lineno) equal as Python compares them, a line that does not parse fails the whole log,
 * an unhashable file stops the checker), the embedded package rules (schemas/package_rules.json), and one system
 * description's verdicts. */
#include <string.h>

#include "check/check.h"
#include "check/expr.h"
#include "check/package.h"
#include "tta_test.h"

#define LINE(key, value, meta) ":::MLLOG {\"time_ms\": 1, \"key\": \"" key "\", \"value\": " value ", \"metadata\": " meta "}\n"

/* Reads text's seeds; returns the status, the seeds in *s / *n. */
static int seeds(cc_arena *a, const char *text, cc_seed **s, size_t *n, char *why) {
    return cc_seeds_read(a, text, strlen(text), s, n, why, 200);
}

TEST(seed_values_as_python_int) {
    cc_arena a = {0};
    cc_seed *s;
    size_t n;
    char why[200];
    const char *text = "noise before\n"
                       "[0] " LINE("seed", "12", "{\"file\": \"t.py\", \"lineno\": 3}")
                       LINE("seed", "12.7", "{\"file\": \"t.py\", \"lineno\": 3.0}")
                       "x :::MLLOG y " LINE("seed", "\" 1_000 \"", "{\"file\": \"t.py\", \"lineno\": true}")
                       LINE("seed", "-0.5", "{\"file\": \"u.py\", \"lineno\": 1}")
                       LINE("seed", "\"+0042\"", "{\"file\": \"u.py\", \"lineno\": \"1\"}")
                       LINE("other", "[1, 2]", "{}");
    CHECK(seeds(&a, text, &s, &n, why) == 0);
    CHECK(n == 5);
    if (n == 5) {
        CHECK_STR(s[0].seed, "12");
        CHECK_STR(s[1].seed, "12"); /* int(12.7) */
        CHECK_STR(s[2].seed, "1000");
        CHECK_STR(s[3].seed, "0"); /* int(-0.5) */
        CHECK_STR(s[4].seed, "42");
        CHECK_STR(s[0].where, s[1].where);  /* lineno 3 == 3.0 */
        CHECK(strcmp(s[0].where, s[3].where) != 0);
        CHECK(strcmp(s[3].where, s[4].where) != 0); /* 1 != "1" */
        CHECK(s[1].line == 3);
    }
    cc_arena_free(&a);
}

TEST(seed_refusals) {
    cc_arena a = {0};
    cc_seed *s;
    size_t n;
    char why[200];
    /* a seed int() refuses, a seed without metadata.file, a missing value */
    CHECK(seeds(&a, LINE("seed", "\"1.5\"", "{\"file\": \"t.py\", \"lineno\": 3}"), &s, &n, why) == -1);
    CHECK(strstr(why, "int() refuses") != NULL);
    CHECK(seeds(&a, LINE("seed", "null", "{\"file\": \"t.py\", \"lineno\": 3}"), &s, &n, why) == -1);
    CHECK(seeds(&a, LINE("seed", "NaN", "{\"file\": \"t.py\", \"lineno\": 3}"), &s, &n, why) == -1);
    CHECK(seeds(&a, LINE("seed", "1", "{\"lineno\": 3}"), &s, &n, why) == -1);
    CHECK(strstr(why, "metadata.file") != NULL);
    /* any line that does not parse fails the whole log, even after good seeds; its line is named */
    CHECK(seeds(&a, LINE("seed", "1", "{\"file\": \"t.py\", \"lineno\": 3}") ":::MLLOG {not json\n", &s, &n, why) == -1);
    CHECK(strstr(why, "line 2") != NULL);
    CHECK(seeds(&a, ":::MLLOG {\"time_ms\": \"soon\", \"key\": \"x\", \"value\": 1, \"metadata\": {}}\n", &s, &n, why) == -1);
    /* a list as the file: the checker cannot hash it and stops (-2), unless the reading fails first */
    CHECK(seeds(&a, LINE("seed", "1", "{\"file\": [1], \"lineno\": 3}"), &s, &n, why) == -2);
    CHECK(seeds(&a, LINE("seed", "1", "{\"file\": [1], \"lineno\": 3}") LINE("seed", "\"x\"", "{\"file\": \"a\", \"lineno\": 1}"),
                &s, &n, why) == -1);
    /* CR and CRLF end lines too (universal newlines) */
    CHECK(seeds(&a, ":::MLLOG {\"time_ms\": 1, \"key\": \"seed\", \"value\": 5, \"metadata\": {\"file\": \"f\", \"lineno\": 1}}\r"
                    ":::MLLOG {\"time_ms\": 1, \"key\": \"seed\", \"value\": 6, \"metadata\": {\"file\": \"f\", \"lineno\": 2}}\r\n",
                &s, &n, why) == 0);
    CHECK(n == 2 && s[1].line == 2);
    CHECK(seeds(&a, "no token here\n", &s, &n, why) == 0 && n == 0);
    cc_arena_free(&a);
}

TEST(package_rules) {
    const cc_pkg_rules *r = cc_pkg_rules_builtin();
    CHECK(r->n_required == 33);
    CHECK(r->n_options == 4);
    CHECK(strstr(r->source, "7bbf792") != NULL);
    cc_pkg_ruleset rs;
    cc_pkg_ruleset_of(r, "0.7.0", &rs);
    CHECK(rs.known && !rs.system_desc && !rs.seeds_closed);
    cc_pkg_ruleset_of(r, "3.1.0", &rs);
    CHECK(rs.known && rs.system_desc && !rs.status_checked && rs.seeds_closed && rs.rcp_closed);
    cc_pkg_ruleset_of(r, "4.0.0", &rs);
    CHECK(rs.status_checked); /* the checker's test is major >= 4 */
    cc_pkg_ruleset_of(r, "9.9.0", &rs);
    CHECK(!rs.known);
}

TEST(system_description) {
    const cc_pkg_rules *r = cc_pkg_rules_builtin();
    char text[8192] = "{";
    for (size_t i = 0; i < r->n_required; i++) {
        if (!strcmp(r->required[i], "status")) continue;
        strcat(text, "\"");
        strcat(text, r->required[i]);
        strcat(text, "\": \"x\", ");
    }
    strcat(text, "\"status\": \"Preview\"}");
    tta_package_finding f;
    tta_check_system_desc_text("5.1.0", "org", "systems/x.json", text, strlen(text), &f);
    CHECK(f.verdict == TTA_PACKAGE_PASS);
    CHECK_STR(f.key, "");
    tta_package_finding_free(&f);
    char *st = strstr(text, "Preview");
    memcpy(st, "preview", 7);
    tta_check_system_desc_text("5.1.0", "org", "systems/x.json", text, strlen(text), &f);
    CHECK(f.verdict == TTA_PACKAGE_FAIL);
    CHECK_STR(f.key, "status");
    tta_package_finding_free(&f);
    tta_check_system_desc_text("3.1.0", "org", "systems/x.json", text, strlen(text), &f); /* 3.1.0 does not ask */
    CHECK(f.verdict == TTA_PACKAGE_PASS);
    tta_package_finding_free(&f);
    const char *few = "{\"submitter\": \"a\", \"division\": \"closed\"}";
    tta_check_system_desc_text("3.1.0", "org", "systems/x.json", few, strlen(few), &f);
    CHECK(f.verdict == TTA_PACKAGE_FAIL);
    CHECK(strncmp(f.key, "missing:accelerator_frequency,", 30) == 0);
    CHECK(strstr(f.message, "lacks 31") != NULL);
    tta_package_finding_free(&f);
    const char *bad = "{\n\"a\": 1\n\"b\": 2}";
    tta_check_system_desc_text("3.1.0", "org", "systems/x.json", bad, strlen(bad), &f);
    CHECK_STR(f.key, "json");
    CHECK(strstr(f.message, "line 3 column 1: Expecting ',' delimiter") != NULL);
    tta_package_finding_free(&f);
}

int main(void) {
    RUN(seed_values_as_python_int);
    RUN(seed_refusals);
    RUN(package_rules);
    RUN(system_description);
    return test_summary();
}
