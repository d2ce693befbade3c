/* jsonscan.h: in-place JSON validation and member lookup over spans (internal to ingest/).
 * No allocation: spans point into the caller's bytes and live as long as they do. */
#ifndef TTA_INGEST_JSONSCAN_H
#define TTA_INGEST_JSONSCAN_H

#include <stddef.h>

typedef struct {
    const char *p; /* NULL with n == 0 when absent */
    size_t n;
} json_span;

/* Skips JSON whitespace from p (never past end). */
const char *json_skip_ws(const char *p, const char *end);

/* Validates one JSON value at p (after optional whitespace, nesting at most 64); returns the
 * position just past it, or NULL when the text is not valid JSON. */
const char *json_skip_value(const char *p, const char *end);

/* Calls fn for each member of an object span (key without its quotes) until fn returns 1. */
void json_object_each(json_span obj, int (*fn)(json_span key, json_span value, void *ctx), void *ctx);

/* The value of member key of an object span, or an empty span. */
json_span json_object_get(json_span obj, const char *key);

/* 1 when the span is absent or JSON null. */
int json_is_null(json_span v);

/* The content of a JSON string span without its quotes (escapes left as they are); 1 if a string. */
int json_string_raw(json_span v, json_span *s);

/* 1 when the raw span equals lit. */
int json_raw_equals(json_span s, const char *lit);

/* The number a span holds (a JSON number, or a string holding one, optionally with '%'). */
int json_number(json_span v, double *out);

#endif
