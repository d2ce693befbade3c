/* test_expr.c: check/'s evaluator of the compliance rules' Python (check/expr.h): each expression's
 * value as Python 3 gives it (the expected texts were read from python3 -c 'print(repr(...))'), the
 * exceptions Python raises (CC_RAISE), what tta refuses (CC_UNSUPPORTED), statements with state, the
 * JSON of log lines as json.loads reads them, and every rule of the embedded rules file parsed. */
#include <string.h>

#include "check/check.h"
#include "check/expr.h"
#include "check/ruleset.h"
#include "tta_test.h"

typedef struct {
    const char *expr;
    int rc;           /* CC_OK, CC_RAISE, CC_UNSUPPORTED */
    const char *repr; /* CC_OK: Python's repr of the value */
} case_t;

static const case_t CASES[] = {
    {"1 + 2 * 3", CC_OK, "7"},
    {"\"it's\"", CC_OK, "\"it's\""},
    {"'say \"hi\"'", CC_OK, "'say \"hi\"'"},
    {"'a\\nb\\\\c'", CC_OK, "'a\\nb\\\\c'"},
    {"\"both ' and \\\"\"", CC_OK, "'both \\' and \"'"},
    {"7 / 2", CC_OK, "3.5"},
    {"7 // 2", CC_OK, "3"},
    {"-7 // 2", CC_OK, "-4"},
    {"-7 % 3", CC_OK, "2"},
    {"7.5 % -2", CC_OK, "-0.5"},
    {"2 ** 10", CC_OK, "1024"},
    {"2 ** -1", CC_OK, "0.5"},
    {"(256 / 1024) ** 0.5", CC_OK, "0.5"},
    {"1_200_000 - 8000", CC_OK, "1192000"},
    {"1e-05 == 0.00001", CC_OK, "True"},
    {"1 == 1.0", CC_OK, "True"},
    {"True == 1", CC_OK, "True"},
    {"'a' == 1", CC_OK, "False"},
    {"0.0 <= 0.5 <= 1.0", CC_OK, "True"},
    {"1 < 2 > 3", CC_OK, "False"},
    {"'b' in ['a', 'b']", CC_OK, "True"},
    {"'x' not in {'x': 1}", CC_OK, "False"},
    {"'ell' in 'hello'", CC_OK, "True"},
    {"('a' in 'abc') | ('z' in 'abc')", CC_OK, "True"},
    {"0 or 'y'", CC_OK, "'y'"},
    {"[] and 1", CC_OK, "[]"},
    {"not None", CC_OK, "True"},
    {"3 if 1 > 2 else 4", CC_OK, "4"},
    {"max(1, 2.5, 2)", CC_OK, "2.5"},
    {"min([3, 1, 2])", CC_OK, "1"},
    {"abs(-2.5)", CC_OK, "2.5"},
    {"len({'a': 1, 'b': 2})", CC_OK, "2"},
    {"sorted(['b', 'c', 'a']) == sorted(['c', 'a', 'b'])", CC_OK, "True"},
    {"sorted([3, 1, 2])", CC_OK, "[1, 2, 3]"},
    {"int(2.9)", CC_OK, "2"},
    {"int('12')", CC_OK, "12"},
    {"float('inf') > 1e308", CC_OK, "True"},
    {"isinstance(3, int)", CC_OK, "True"},
    {"isinstance(3.0, int)", CC_OK, "False"},
    {"isinstance(True, int)", CC_OK, "True"},
    {"is_integer(10 * (75.0 / 50.0 - 1))", CC_OK, "True"},
    {"is_integer(0.3 / 0.1)", CC_OK, "True"},
    {"is_integer(2.5)", CC_OK, "False"},
    {"math.ceil(2.1)", CC_OK, "3"},
    {"math.floor(-2.1)", CC_OK, "-3"},
    {"math.log2(8)", CC_OK, "3.0"},
    {"math.ceil(1_200_000 * 1152 / 2048) - 8000", CC_OK, "667000"},
    {"'training_{}/{}.yaml'.format('5.1.0', 'x')", CC_OK, "'training_5.1.0/x.yaml'"},
    {"'{}'.format(1.5)", CC_OK, "'1.5'"},
    {"{'a': [1, {'b': None}]}", CC_OK, "{'a': [1, {'b': None}]}"},
    {"{1: 'x'}[1.0]", CC_OK, "'x'"},
    {"round(2.5)", CC_OK, "2"},
    {"round(3.5)", CC_OK, "4"},
    {"(1, 2)", CC_OK, "[1, 2]"},
    {"'abc'[-1]", CC_OK, "'c'"},
    /* Python raises */
    {"{'a': 1}['b']", CC_RAISE, NULL},
    {"1 / 0", CC_RAISE, NULL},
    {"1 // 0", CC_RAISE, NULL},
    {"None < 1", CC_RAISE, NULL},
    {"'a' + 1", CC_RAISE, NULL},
    {"undefined_name", CC_RAISE, NULL},
    {"[1][3]", CC_RAISE, NULL},
    {"math.log2(0)", CC_RAISE, NULL},
    {"is_integer(float('inf'))", CC_RAISE, NULL},
    {"{[1]: 2}", CC_RAISE, NULL},
    {"1 in 5", CC_RAISE, NULL},
    {"len(5)", CC_RAISE, NULL},
    /* outside tta's subset */
    {"2 ** 64", CC_UNSUPPORTED, NULL},
    {"9223372036854775807 + 1", CC_UNSUPPORTED, NULL},
    {"[x for x in [1]]", CC_UNSUPPORTED, NULL},
    {"lambda x: x", CC_UNSUPPORTED, NULL},
    {"'%d' % 3", CC_UNSUPPORTED, NULL},
    {"[1][0:1]", CC_UNSUPPORTED, NULL},
    {"f(x=1)", CC_UNSUPPORTED, NULL},
    {"1 +", CC_UNSUPPORTED, NULL},
};

/* Evaluates text with s = {'n': 4} and v = {'value': 3, 'metadata': {'epoch_num': 1}}. */
static int eval_text(cc_arena *a, const char *text, cc_val *out, char *why) {
    cc_node *n;
    if (cc_parse_expr(a, text, &n, why, 200) != CC_OK) return CC_UNSUPPORTED;
    cc_dict *s;
    cc_env env = {.arena = a};
    env.globals = cc_make_globals(a, &s);
    cc_dict_set(a, s, "n", 1, cc_int(4));
    env.locals = cc_new_dict(a).u.d;
    int rc = cc_eval(&env, n, out);
    if (rc) strcpy(why, env.why);
    return rc;
}

TEST(expressions) {
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        cc_arena a = {0};
        cc_val v;
        char why[200] = "", repr[200];
        int rc = eval_text(&a, CASES[i].expr, &v, why);
        if (rc != CASES[i].rc) fprintf(stderr, "  %s: rc %d (%s), want %d\n", CASES[i].expr, rc, why, CASES[i].rc);
        CHECK(rc == CASES[i].rc);
        if (rc == CC_OK && CASES[i].repr) {
            cc_repr(v, 0, repr, sizeof repr);
            if (strcmp(repr, CASES[i].repr) != 0) fprintf(stderr, "  %s: %s, want %s\n", CASES[i].expr, repr, CASES[i].repr);
            CHECK(strcmp(repr, CASES[i].repr) == 0);
        }
        CHECK(rc == CC_OK || why[0] != '\0'); /* every refusal says why */
        cc_arena_free(&a);
    }
}

/* Runs the statements of text with a fresh state s (the rules' dictionary) and checks that s ends
 * as Python's repr says: want. */
static void check_state_after(const char *text, const char *want) {
    cc_arena a = {0};
    cc_node *code;
    char why[200] = "";
    CHECK(cc_parse_code(&a, text, &code, why, sizeof why) == CC_OK);
    cc_dict *s;
    cc_env env = {.arena = &a};
    env.globals = cc_make_globals(&a, &s);
    env.locals = cc_new_dict(&a).u.d;
    int rc = cc_exec(&env, code);
    if (rc != CC_OK) fprintf(stderr, "  %s %s\n", why, env.why);
    CHECK(rc == CC_OK);
    char repr[200];
    cc_val sv = {.kind = CV_DICT, .u.d = s};
    cc_repr(sv, 0, repr, sizeof repr);
    if (strcmp(repr, want)) fprintf(stderr, "  %s\n  want %s\n", repr, want);
    CHECK(strcmp(repr, want) == 0);
    cc_arena_free(&a);
}

TEST(statements) {
    check_state_after("s.update({'x': 1, 'l': []})\n"
                      "s['x'] += 2; s['l'] += ['a']\n"
                      "if s['x'] == 3:\n"
                      "    s['y'] = 'three'\n"
                      "else:\n"
                      "    s['y'] = 'other'\n"
                      "d = {}\n"
                      "for k in [1, 2, 2]:\n"
                      "    if k not in d:\n"
                      "        d[k] = 0\n"
                      "    d[k] += 1\n"
                      "s['d'] = d\n",
                      "{'x': 3, 'l': ['a'], 'y': 'three', 'd': {1: 1, 2: 2}}");
    cc_arena a = {0};
    cc_node *code;
    char why[200];
    CHECK(cc_parse_code(&a, "import os", &code, why, sizeof why) == CC_UNSUPPORTED);
    CHECK(cc_parse_code(&a, "while True:\n    pass", &code, why, sizeof why) == CC_UNSUPPORTED);
    cc_arena_free(&a);
}

/* Containers that hold themselves (the fuzzer's find: str() of a list holding itself twice took
 * 2^50 steps, == 2^100): written as Python writes them, compared by identity first, in bounded
 * time. The expected text is python3's for the same statements. */
TEST(self_holding_containers) {
    check_state_after("l = []\n"
                      "l.append(l)\n"
                      "l.append(l)\n"
                      "s['r'] = str(l)\n"
                      "s['e'] = l == l\n"
                      "s['o'] = str(sorted([l, l]))\n"
                      "d = {}\n"
                      "d['a'] = d\n"
                      "s['d'] = str(d)\n",
                      "{'r': '[[...], [...]]', 'e': True, 'o': '[[[...], [...]], [[...], [...]]]', 'd': \"{'a': {...}}\"}");
}

TEST(json) {
    cc_arena a = {0};
    cc_val v;
    char why[160], repr[200];
    const char *ok = "{\"a\": 1, \"b\": 1.0, \"c\": [true, null, NaN], \"d\": \"\\u00e9\\n\", \"a\": 2}";
    CHECK(cc_json_parse(&a, ok, strlen(ok), &v, why, sizeof why) == 0);
    cc_repr(v, 0, repr, sizeof repr);
    CHECK(strcmp(repr, "{'a': 2, 'b': 1.0, 'c': [True, None, nan], 'd': '\xe9\\n'}") == 0); /* repr escapes \n */
    CHECK(cc_dict_get(v.u.d, "a", 1)->kind == CV_INT && cc_dict_get(v.u.d, "b", 1)->kind == CV_FLOAT);
    static const char *const bad[] = {"{\"a\": 1", "{\"a\" 1}", "[1,]", "{\"a\": 1} x", "\"ctl\x01\"", "{'a': 1}", "01", "-", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(cc_json_parse(&a, bad[i], strlen(bad[i]), &v, why, sizeof why) == -1);
        CHECK(why[0] != '\0');
    }
    char deep[2000];
    memset(deep, '[', sizeof deep);
    CHECK(cc_json_parse(&a, deep, sizeof deep, &v, why, sizeof why) == -1);
    cc_arena_free(&a);
}

TEST(embedded_rules_all_parse) {
    tta_check_rules *r;
    tta_error err;
    CHECK(tta_check_rules_load(&r, &err) == TTA_OK);
    if (!r) return;
    int n = 0, bad = 0;
    for (int i = 0; i < r->n_configs; i++) {
        const cc_config *c = &r->configs[i];
        n += c->has_begin;
        bad += c->has_begin && !c->begin.node;
        for (int j = 0; j < c->n_end_check; j++) n++, bad += !c->end_check[j].node;
        for (int k = 0; k < c->n_keys; k++) {
            const cc_key *key = &c->keys[k];
            const cc_code *codes[] = {key->has_pre ? &key->pre : NULL, key->has_post ? &key->post : NULL,
                                      key->has_atleast ? &key->atleast : NULL};
            for (int m = 0; m < 3; m++)
                if (codes[m]) {
                    n++;
                    if (!codes[m]->node) bad++, fprintf(stderr, "  %s %s: %s\n", c->name, key->name, codes[m]->why);
                }
            for (int m = 0; m < key->n_check; m++) n++, bad += !key->check[m].node;
            for (int m = 0; m < key->n_first_check; m++) n++, bad += !key->first_check[m].node;
        }
    }
    fprintf(stderr, "embedded rules: %d configs, %d pieces of Python, %d not parsed\n", r->n_configs, n, bad);
    CHECK(n > 1800 && bad == 0);
    CHECK(tta_check_rules_has(r, "1.0.0") && tta_check_rules_has(r, "6.1.0") && !tta_check_rules_has(r, "0.6.0"));
    tta_check_rules_free(r);
}

TEST(malformed_rules_refused) {
    static const char *const bad[] = {"", "[]", "{\"source\": 1}", "{\"source\": \"s\", \"rulesets\": [], \"configs\": {\"a\": {\"keys\": 3}}}",
                                      "{\"source\": \"s\", \"rulesets\": [], \"configs\": {\"a\": {\"keys\": [{\"name\": 1}]}}}",
                                      "{\"source\": \"s\", \"rulesets\": [], \"configs\": {\"a\": {\"keys\": [{\"name\": \"k\", \"check\": \"x\"}]}}}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tta_check_rules *r = NULL;
        tta_error err;
        CHECK(tta_check_rules_parse(bad[i], strlen(bad[i]), "t.json", &r, &err) == TTA_EINPUT);
        CHECK(r == NULL && strncmp(err.text, "t.json: ", 8) == 0);
    }
}

int main(void) {
    RUN(expressions);
    RUN(statements);
    RUN(self_holding_containers);
    RUN(json);
    RUN(embedded_rules_all_parse);
    RUN(malformed_rules_refused);
    return test_summary();
}
