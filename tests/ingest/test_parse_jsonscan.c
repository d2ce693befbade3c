/* test_parse_jsonscan.c: the span scanner (validation, iteration, numbers, strings, newline and
 * marker search) and the relaxed-JSON reader the parsers fall back to. */
#include <stdlib.h>

#include "ingest/parse_common.h"
#include "test_parse_util.h"

static int valid(const char *s) {
    tta_json_span v;
    return tta_json_whole(s, s + strlen(s), &v);
}

static int valid_n(const char *s, size_t n) {
    tta_json_span v;
    return tta_json_whole(s, s + n, &v);
}

TEST(validation) {
    static const char *const good[] = {"0", "-0.5e+10", "1E5", "\"a\\u00e9\\n\"", "[]", "{}", " {\"a\": [1, {\"b\": null}], \"c\": true} ",
                                       "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"", "false", "[\"\\ud83d\\ude00\"]"};
    static const char *const bad[] = {"", "01", "1.", ".5", "-", "+1", "NaN", "Infinity", "[1,]", "{\"a\":1,}", "{a:1}",
                                      "'a'", "\"\x01\"", "\"\xff\"", "\"\xc3\"", "\"\xed\xa0\x80\"", "\"\\x41\"", "[1 2]",
                                      "{\"a\" 1}", "tru", "nulll", "\"abc", "[[[", "1 2"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        if (!valid(good[i])) fprintf(stderr, "should be valid: %s\n", good[i]);
        CHECK(valid(good[i]));
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (valid(bad[i])) fprintf(stderr, "should be invalid: %s\n", bad[i]);
        CHECK(!valid(bad[i]));
    }
    /* Nesting is bounded. */
    char deep[200];
    memset(deep, '[', 100);
    memset(deep + 100, ']', 100);
    CHECK(!tta_json_whole(deep, deep + 200, &(tta_json_span){0}));
    CHECK(tta_json_whole(deep + 40, deep + 160, &(tta_json_span){0}));
    /* A value stops where it ends; the error position points into the text. */
    const char *t = "{\"a\": 1} trailing", *err = NULL;
    tta_json_span v;
    CHECK(tta_json_value(t, t + strlen(t), &v, NULL) == t + 8 && v.type == TTA_JSON_OBJECT && v.n == 8);
    CHECK(tta_json_value("[1, x]", "[1, x]" + 6, &v, &err) == NULL && err && *err == 'x');
}

TEST(iteration) {
    const char *t = "{\"key\": \"run_stop\", \"value\": {\"x\": [1, \"]\"]}, \"e\\\"sc\": 2, \"metadata\": {\"status\": \"success\"}}";
    tta_json_span obj, k, v;
    CHECK(tta_json_whole(t, t + strlen(t), &obj));
    tta_json_iter it;
    tta_json_iter_init(&it, obj);
    int n = 0;
    while (tta_json_object_next(&it, &k, &v)) {
        if (n == 0) CHECK(TTA_JSON_IS(k, "key") && TTA_JSON_IS(v, "run_stop") && v.plain);
        if (n == 1) CHECK(v.type == TTA_JSON_OBJECT && v.n == 15);
        if (n == 2) CHECK(!k.plain && TTA_JSON_IS(k, "e\"sc") && v.type == TTA_JSON_NUMBER);
        n++;
    }
    CHECK(n == 4);
    tta_json_span meta, status;
    CHECK(tta_json_find(obj, "metadata", &meta) && tta_json_find(meta, "status", &status) && TTA_JSON_IS(status, "success"));
    CHECK(!tta_json_find(obj, "missing", &v) && v.type == TTA_JSON_NONE);
    /* The checked iterator reads and validates in one pass. */
    const char *close = NULL;
    tta_json_iter c;
    CHECK(tta_json_object_open(t, t + strlen(t), &c) == t);
    n = 0;
    int rc;
    while ((rc = tta_json_object_next_checked(&c, &k, &v, &close)) == 1) n++;
    CHECK(rc == 0 && n == 4 && close == t + strlen(t));
    const char *broken = "{\"a\": 1, \"b\": [}";
    CHECK(tta_json_object_open(broken, broken + strlen(broken), &c));
    while ((rc = tta_json_object_next_checked(&c, &k, &v, &close)) == 1) {
    }
    CHECK(rc == -1);
    const char *trailing = "{\"a\": 1,}";
    CHECK(tta_json_object_open(trailing, trailing + 9, &c));
    while ((rc = tta_json_object_next_checked(&c, &k, &v, &close)) == 1) {
    }
    CHECK(rc == -1);
}

TEST(numbers) {
    static const char *const texts[] = {"0", "-0", "1", "0.1", "0.7598", "1592669212356", "1593138491273.5", "1e-08",
                                        "21.799999237060547", "0.712178111076355", "123456789012345678901234567890",
                                        "1.7976931348623157e308", "4.9e-324", "1e400", "0.30000000000000004",
                                        "9007199254740993", "3.14159265358979323846264338327950288"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        double d = -1;
        CHECK(tta_json_parse_number(texts[i], strlen(texts[i]), &d));
        double ref = strtod(texts[i], NULL);
        if (d != ref) fprintf(stderr, "%s: %.17g, strtod %.17g\n", texts[i], d, ref);
        CHECK(d == ref);
    }
    double d;
    CHECK(!tta_json_parse_number("1.5x", 4, &d));
    CHECK(!tta_json_parse_number("00", 2, &d));
    int pct = 0;
    tta_json_span s = {"\" 74.418% \"", 11, TTA_JSON_STRING, 1};
    CHECK(tta_json_span_number(s, &d, &pct) && d == 74.418 && pct == 1);
    s = (tta_json_span){"\"25.59\"", 7, TTA_JSON_STRING, 1};
    CHECK(tta_json_span_number(s, &d, &pct) && d == 25.59 && pct == 0);
    s = (tta_json_span){"\"n/a\"", 5, TTA_JSON_STRING, 1};
    CHECK(!tta_json_span_number(s, &d, NULL));
}

TEST(strings) {
    const char *t = "\"tab\\there \\u00e9 \\ud83d\\ude00 \\ud800 q\\\"\"";
    tta_json_span s;
    CHECK(tta_json_whole(t, t + strlen(t), &s) && !s.plain);
    buf b = {0};
    tta_json_string_decode(s, &b);
    CHECK_STR(buf_str(&b), "tab\there \xc3\xa9 \xf0\x9f\x98\x80 \xef\xbf\xbd q\"");
    buf_free(&b);
}

/* Strings are scanned 16 bytes at a time: every special byte is found wherever it falls in or
 * across a block, and a string that runs into the end of the text is refused whatever its length. */
TEST(string_blocks) {
    static const struct {
        const char *bytes;
        int valid, plain;
    } specials[] = {{"\\n", 1, 0}, {"\\\"", 1, 0}, {"\xc3\xa9", 1, 1}, {"\x7f", 1, 1}, {"\x01", 0, 0},
                    {"\x1f", 0, 0}, {"\xff", 0, 0}, {"\\x", 0, 0}, {"\xe2\x82", 0, 0}};
    char text[80];
    for (size_t k = 0; k < sizeof specials / sizeof specials[0]; k++) {
        size_t sn = strlen(specials[k].bytes);
        for (size_t at = 0; at < 40; at++) {
            /* "aaa...<special>aaa" with the special at offset at, 45 bytes of text in all */
            size_t n = 0;
            text[n++] = '"';
            for (size_t i = 0; i < at; i++) text[n++] = 'a';
            memcpy(text + n, specials[k].bytes, sn);
            n += sn;
            while (n < 44) text[n++] = 'b';
            text[n++] = '"';
            tta_json_span v = {0};
            int ok = tta_json_whole(text, text + n, &v);
            if (ok != specials[k].valid) fprintf(stderr, "special %zu at %zu: valid %d\n", k, at, ok);
            CHECK(ok == specials[k].valid);
            if (ok) CHECK(v.n == n && v.plain == specials[k].plain);
        }
    }
    /* Unterminated at every length, and a quote only at the very end. */
    for (size_t n = 1; n < 40; n++) {
        memset(text, 'a', n);
        text[0] = '"';
        CHECK(!valid_n(text, n));
        text[n] = '"';
        CHECK(valid_n(text, n + 1));
    }
}

TEST(search) {
    char text[300];
    memset(text, 'a', sizeof text);
    for (int i = 0; i < 300; i += 7) text[i] = '\n';
    size_t expect = 0;
    for (int i = 0; i < 300; i++) expect += text[i] == '\n';
    for (size_t off = 0; off < 40; off++) CHECK(tta_count_newlines(text + off, 300 - off) == expect - (off + 6) / 7);
    memcpy(text + 250, ":::", 3);
    text[100] = ':';
    text[101] = ':';
    CHECK(tta_find_triple_colon(text, text + 300) == text + 250);
    CHECK(tta_find_triple_colon(text, text + 252) == NULL);
    CHECK(tta_find_triple_colon(text + 251, text + 300) == NULL);
    memcpy(text + 17, ":::", 3);
    CHECK(tta_find_triple_colon(text + 3, text + 300) == text + 17);
}

static int relaxed(const char *in, int flags, const char *expect) {
    buf b = {0};
    int ok = tta_relaxed_to_json(in, strlen(in), flags, &b);
    int same = expect ? ok && strcmp(buf_str(&b), expect) == 0 : !ok;
    if (!same) fprintf(stderr, "relaxed %s: %s -> %s\n", in, ok ? "ok" : "refused", buf_str(&b));
    buf_free(&b);
    return same;
}

TEST(relaxed_json) {
    CHECK(relaxed("{'lineno': 53, 'ok': True, 'x': None, 'f': False}", 0, "{\"lineno\":53,\"ok\":true,\"x\":null,\"f\":false}"));
    CHECK(relaxed("{value: true, metadata: {lineno: 0, file: manual}}", TTA_RELAXED_BARE_WORDS,
                  "{\"value\":true,\"metadata\":{\"lineno\":0,\"file\":\"manual\"}}"));
    CHECK(relaxed("{value: true}", 0, NULL)); /* no bare words unless asked */
    CHECK(relaxed("{\"value\": nul}", 0, NULL));
    CHECK(relaxed("{\"value\": 75.98000%, \"epoch\": 79}", TTA_RELAXED_BARE_WORDS, "{\"value\":\"75.98000%\",\"epoch\":79}"));
    CHECK(relaxed("[1, 2,] // comment\n", 0, "[1,2]"));
    CHECK(relaxed("{\"a\": (1, 2), /* c */ \"b\": [NaN, +3, .5]}", 0, "{\"a\":[1,2],\"b\":[null,3,0.5]}"));
    CHECK(relaxed("\xef\xbb\xbf{\"a\": 'it\\'s \\x41'}", 0, "{\"a\":\"it's A\"}"));
    CHECK(relaxed("{\"a\": 1", 0, NULL));
    CHECK(relaxed("{\"a\": 1} {\"b\": 2}", 0, NULL));
    CHECK(relaxed("'\\ud83d\\ude00'", 0, "\"\xf0\x9f\x98\x80\""));
}

int main(void) {
    RUN(validation);
    RUN(iteration);
    RUN(numbers);
    RUN(strings);
    RUN(string_blocks);
    RUN(search);
    RUN(relaxed_json);
    return test_summary();
}
