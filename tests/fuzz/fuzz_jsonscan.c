/* fuzz_jsonscan.c: libFuzzer target for the span scanner and the relaxed reader, checked against
 * cJSON: text the scanner accepts must parse in cJSON to a value that prints the same way; what
 * the relaxed reader writes must be accepted by the scanner; numbers must equal strtod's. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "ingest/parse_common.h"

/* Walks a container with the iterators (which must not run off the span). */
static size_t walk(tta_json_span v, int depth) {
    size_t n = 0;
    if (depth > TTA_JSON_MAX_DEPTH) fuzz_fail("iteration deeper than validation allows");
    tta_json_iter it;
    tta_json_span k, e;
    if (v.type == TTA_JSON_OBJECT) {
        tta_json_iter_init(&it, v);
        while (tta_json_object_next(&it, &k, &e)) {
            if (k.type != TTA_JSON_STRING || e.p < v.p || e.p + e.n > v.p + v.n) fuzz_fail("member outside object");
            n += 1 + walk(e, depth + 1);
        }
    } else if (v.type == TTA_JSON_ARRAY) {
        tta_json_iter_init(&it, v);
        while (tta_json_array_next(&it, &e)) {
            if (e.p < v.p || e.p + e.n > v.p + v.n) fuzz_fail("element outside array");
            n += 1 + walk(e, depth + 1);
        }
    } else if (v.type == TTA_JSON_STRING) {
        buf b = {0};
        tta_json_string_decode(v, &b);
        buf_free(&b);
    }
    return n;
}

/* cJSON refuses some valid JSON: escapes of lone surrogates, numbers of 64 characters or more. */
static int cjson_can_read(const char *p, size_t n) {
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\\' && i + 1 < n && p[i + 1] == 'u') return 0;
        run = (p[i] >= '0' && p[i] <= '9') || p[i] == '.' || p[i] == 'e' || p[i] == 'E' || p[i] == '-' || p[i] == '+' ? run + 1 : 0;
        if (run >= 60) return 0;
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    const char *p = (const char *)data, *end = p + size;
    tta_json_span v;
    if (tta_json_whole(p, end, &v)) {
        walk(v, 0);
        if (cjson_can_read(p, size)) {
            cJSON *c = cJSON_ParseWithLength(p, size);
            if (!c) fuzz_fail("scanner accepted what cJSON refuses");
            cJSON_Delete(c);
        }
        if (v.type == TTA_JSON_NUMBER) {
            double d, ref;
            char *copy = malloc(size + 1);
            memcpy(copy, v.p, v.n);
            copy[v.n] = '\0';
            ref = strtod(copy, NULL);
            free(copy);
            if (!tta_json_parse_number(v.p, v.n, &d) || !(d == ref || (isnan(d) && isnan(ref))))
                fuzz_fail("number differs from strtod");
        }
    }
    /* Iterating an object that is checked as it goes. */
    tta_json_iter it;
    tta_json_span k, e;
    const char *close = NULL;
    if (tta_json_object_open(p, end, &it)) {
        int rc;
        while ((rc = tta_json_object_next_checked(&it, &k, &e, &close)) == 1) {
        }
        if (rc == 0 && (close < p || close > end)) fuzz_fail("object close outside input");
    }
    buf out = {0};
    for (int flags = 0; flags <= TTA_RELAXED_BARE_WORDS; flags++) {
        buf_clear(&out);
        if (tta_relaxed_to_json(p, size, flags, &out) && !tta_json_whole(buf_str(&out), buf_str(&out) + out.len, &v))
            fuzz_fail("relaxed reader wrote invalid JSON");
    }
    buf_free(&out);
    (void)tta_count_newlines(p, size);
    (void)tta_find_triple_colon(p, end);
    return 0;
}
