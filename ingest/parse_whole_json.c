/* parse_whole_json.c: a file that is one JSON value (scaling.json, summary.json), read strictly as
 * Python's json reads it (a byte-order mark allowed), with errors naming the line. */
#include <assert.h>

#include "ingest/jsonscan.h"
#include "ingest/parse_common.h"

const char *const tta_json_type_names[] = {"nothing", "an object", "an array", "a string",
                                           "a number", "true", "false", "null"};

uint32_t tta_line_at(const char *data, const char *at) {
    return 1 + (uint32_t)tta_count_newlines(data, (size_t)(at - data));
}

int tta_parse_whole_json(tta_parsed_file *f, const char *data, size_t len, const char *empty_reason,
                         tta_json_span *value) {
    assert(f && value && (data || len == 0));
    const char *p = data, *end = data + len;
    if (len >= 3 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF) p += 3;
    p = tta_json_skip_ws(p, end);
    if (p == end) {
        tta_parse_fail(f, tta_line_at(data, p), "%s", empty_reason);
        return -1;
    }
    const char *error_at = NULL;
    const char *after = tta_json_value(p, end, value, &error_at);
    if (!after) {
        tta_parse_fail(f, tta_line_at(data, error_at ? error_at : p), "not valid JSON");
        return -1;
    }
    const char *rest = tta_json_skip_ws(after, end);
    if (rest != end) {
        tta_parse_fail(f, tta_line_at(data, rest), "text after the JSON value");
        return -1;
    }
    return 0;
}
