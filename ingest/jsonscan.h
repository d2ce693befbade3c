/* jsonscan.h: a span-based JSON scanner for log records (internal to ingest/).
 *
 * Validates JSON text in place and hands back spans into it: no allocation, no copies. A span
 * that tta_json_value accepted is valid RFC 8259 JSON (UTF-8 checked inside strings, nesting
 * at most TTA_JSON_MAX_DEPTH; NaN and Infinity are not JSON and are refused), so it can be
 * stored as JSON text as it is.
 *
 * Ownership: spans point into the caller's bytes and live as long as they do.
 */
#ifndef TTA_INGEST_JSONSCAN_H
#define TTA_INGEST_JSONSCAN_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

#define TTA_JSON_MAX_DEPTH 64

typedef enum {
    TTA_JSON_NONE = 0, /* absent */
    TTA_JSON_OBJECT,
    TTA_JSON_ARRAY,
    TTA_JSON_STRING,
    TTA_JSON_NUMBER,
    TTA_JSON_TRUE,
    TTA_JSON_FALSE,
    TTA_JSON_NULL,
} tta_json_type;

typedef struct {
    const char *p; /* first byte of the value (a string's opening quote); NULL when absent */
    size_t n;      /* bytes of the value's text */
    uint8_t type;  /* tta_json_type */
    uint8_t plain; /* strings: 1 when the content has no escapes (then p + 1, n - 2 is the text) */
} tta_json_span;

/* Skips JSON whitespace from p, never past end. */
const char *tta_json_skip_ws(const char *p, const char *end);

/* The end of the run of bytes at p (before end) that a JSON string can hold as they are:
 * printable ASCII other than '"' and '\\'. Stops at a control byte, a quote, a backslash or any
 * byte >= 0x80. Sixteen bytes at a time. */
const char *tta_json_plain_prefix(const char *p, const char *end);

/* Validates one JSON value starting at p (after optional whitespace) that ends at or before end.
 * Returns the position just past the value and fills *out, or NULL when the text there is not
 * valid JSON; then *error_at (when not NULL) is where the scanner gave up. */
const char *tta_json_value(const char *p, const char *end, tta_json_span *out, const char **error_at);

/* Validates that [p, end) is exactly one JSON value with optional surrounding whitespace. */
int tta_json_whole(const char *p, const char *end, tta_json_span *out);

/* Iteration over an object or array span that tta_json_value accepted: init with the
 * container, then each _next call gives the next member (key is a string span) or element
 * and returns 1, or returns 0 at the end. */
typedef struct {
    const char *p, *end;
} tta_json_iter;
void tta_json_iter_init(tta_json_iter *it, tta_json_span container);
int tta_json_object_next(tta_json_iter *it, tta_json_span *key, tta_json_span *value);
int tta_json_array_next(tta_json_iter *it, tta_json_span *value);

/* Validating iteration over an object that was not validated yet (one pass for the members a
 * caller reads): open at p (returns the '{' or NULL), then each _next_checked call returns 1
 * with the next member (its value validated), 0 at the closing brace (*close just past it), or
 * -1 when the text is not a valid JSON object. */
const char *tta_json_object_open(const char *p, const char *end, tta_json_iter *it);
int tta_json_object_next_checked(tta_json_iter *it, tta_json_span *key, tta_json_span *value, const char **close);

/* The same one step at a time, so that a caller can read a member's object value in the same
 * pass that validates it: _next_key_checked returns 1 with the next key (the iterator then at
 * its value), 0 at the closing brace (*close just past it) or -1; then either
 * _iter_value_checked validates the value and moves past it (1, or -1 when invalid), or
 * _iter_enter_object (1 when the value is an object) starts *sub on the value's members, which
 * the caller iterates with _next_checked up to its close, and _iter_value_end(it, close)
 * moves past the value (1, or -1 when what follows is not ',' or '}'). */
int tta_json_object_next_key_checked(tta_json_iter *it, tta_json_span *key, const char **close);
int tta_json_iter_value_checked(tta_json_iter *it, tta_json_span *value);
int tta_json_iter_enter_object(const tta_json_iter *it, tta_json_iter *sub);
int tta_json_iter_value_end(tta_json_iter *it, const char *after);

/* 1 when a string span's content equals lit (n bytes); escaped strings are compared decoded. */
int tta_json_string_is(tta_json_span s, const char *lit, size_t n);
#define TTA_JSON_IS(s, lit) tta_json_string_is((s), (lit), sizeof(lit) - 1)

/* Finds member key of an object span; returns 1 and *value, else 0 (and *value absent). */
int tta_json_find(tta_json_span object, const char *key, tta_json_span *value);

/* Converts JSON number text (exactly n bytes in JSON grammar) to the correctly rounded double.
 * Returns 1, or 0 when the text is not a JSON number. */
int tta_json_parse_number(const char *p, size_t n, double *out);

/* Reads the number a span holds: a JSON number, or a string holding a number with optional
 * spaces and a trailing '%' (then *percent = 1 when percent is not NULL). Returns 1 and *out,
 * else 0. */
int tta_json_span_number(tta_json_span s, double *out, int *percent);

/* Appends a string span's content, escapes resolved, to b. */
void tta_json_string_decode(tta_json_span s, buf *b);

/* Counts the '\n' bytes in [p, p + n). */
size_t tta_count_newlines(const char *p, size_t n);

/* The first ":::" in [p, end) (where every MLPerf log marker starts), or NULL. */
const char *tta_find_triple_colon(const char *p, const char *end);

#endif
