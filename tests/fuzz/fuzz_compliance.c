/* fuzz_compliance.c: libFuzzer target for check/ (tta check). An input holding ":::MLLOG" is a result log,
 * checked against a ruleset its size picks (today's rules, and as published when the size is odd); else the
 * first byte picks what the rest (from the third byte) is:
 * 0: a result log likewise;
 * 1: a rule's Python, parsed as an expression and as statements and run with a log line's state;
 * 2: a rules file (the form of schemas/compliance_rules.json), read and, when accepted, run on a small log.
 * Invariants beyond not crashing: a verdict is pass (no failure) or names its failures, each with a rule and
 * a message; a refusal of Python or of a rules file says why. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "check/expr.h"

static void fail(const char *what) {
    fprintf(stderr, "fuzz invariant broken: %s\n", what);
    abort();
}

static void check_log(const tta_check_log *l) {
    if (l->verdict == TTA_CHECK_PASS && l->n_failures) fail("a passing log with failures");
    if (l->verdict != TTA_CHECK_PASS && !l->n_failures) fail("a failing log without failures");
    if ((unsigned)l->verdict > TTA_CHECK_UNKNOWN) fail("verdict out of range");
    for (size_t i = 0; i < l->n_failures; i++)
        if (!l->failures[i].rule || !l->failures[i].message || !l->failures[i].message[0]) fail("failure without rule or message");
}

static const char SMALL_LOG[] =
    ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1, \"event_type\": \"POINT_IN_TIME\", \"key\": \"submission_org\", "
    "\"value\": \"x\", \"metadata\": {}}\n"
    ":::MLLOG {\"time_ms\": 2, \"key\": \"submission_division\", \"value\": \"closed\", \"metadata\": {}}\n"
    ":::MLLOG {\"time_ms\": 3, \"key\": \"submission_benchmark\", \"value\": \"bert\", \"metadata\": {}}\n";

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    static tta_check_rules *rules;
    static const char *const rulesets[] = {"0.7.0", "1.0.0", "2.0.0", "2.1.0", "3.0.0", "3.1.0", "4.0.0",
                                           "4.1.0", "5.0.0", "5.1.0", "6.0.0", "6.1.0"};
    if (!rules) {
        tta_error err;
        if (tta_check_rules_load(&rules, &err) != TTA_OK) fail("the embedded rules do not load");
    }
    if (size < 2) return 0;
    const char *text = (const char *)data + 2;
    size_t n = size - 2;
    tta_check_log log;
    tta_error err;
    int mode = data[0] % 3;
    if (memmem(data, size, ":::MLLOG", 8)) {
        mode = 0;
        text = (const char *)data;
        n = size;
    }
    switch (mode) {
    case 0: {
        const char *rs = rulesets[size % (sizeof rulesets / sizeof rulesets[0])];
        if (tta_check_log_text(rules, rs, size % 2 ? TTA_CHECK_AS_PUBLISHED : 0, "fuzz.txt", text, n, &log, &err) != TTA_OK)
            fail("checking a log failed");
        check_log(&log);
        tta_check_log_free(&log);
        break;
    }
    case 1: {
        char *src = malloc(n + 1);
        memcpy(src, text, n);
        src[n] = '\0';
        cc_arena a = {0};
        cc_node *node;
        char why[200];
        cc_dict *s;
        cc_env env = {.arena = &a};
        env.globals = cc_make_globals(&a, &s);
        env.locals = cc_new_dict(&a).u.d;
        cc_val v, x;
        const char *line = "{\"value\": {\"FID\": 1.5, \"l\": [1, 2]}, \"metadata\": {\"epoch_num\": 3, \"samples_count\": 8}}";
        if (cc_json_parse(&a, line, strlen(line), &v, why, sizeof why) != 0) fail("the fixed line does not parse");
        cc_dict_set(&a, env.locals, "v", 1, v);
        cc_dict_set(&a, s, "global_batch_size", 17, cc_int(256));
        for (int mode = 0; mode < 2; mode++) {
            int rc = mode ? cc_parse_code(&a, src, &node, why, sizeof why) : cc_parse_expr(&a, src, &node, why, sizeof why);
            if (rc != CC_OK) {
                if (!why[0]) fail("a refused rule without a reason");
                continue;
            }
            rc = mode ? cc_exec(&env, node) : cc_eval(&env, node, &x);
            if (rc != CC_OK && !env.why[0]) fail("an evaluation stopped without a reason");
            if (rc == CC_OK && !mode) cc_repr(x, 0, why, sizeof why);
        }
        cc_json_parse(&a, src, n, &v, why, sizeof why);
        cc_arena_free(&a);
        free(src);
        break;
    }
    default: {
        tta_check_rules *r = NULL;
        int rc = tta_check_rules_parse(text, n, "fuzz.json", &r, &err);
        if (rc != TTA_OK) {
            if (r || strncmp(err.text, "fuzz.json: ", 11) != 0) fail("a refused rules file without its name");
            break;
        }
        for (size_t i = 0; i < sizeof rulesets / sizeof rulesets[0]; i++)
            if (tta_check_rules_has(r, rulesets[i])) {
                if (tta_check_log_text(r, rulesets[i], 0, "small.txt", SMALL_LOG, sizeof SMALL_LOG - 1, &log, &err) != TTA_OK)
                    fail("checking with fuzzed rules failed");
                check_log(&log);
                tta_check_log_free(&log);
            }
        tta_check_rules_free(r);
        break;
    }
    }
    return 0;
}
