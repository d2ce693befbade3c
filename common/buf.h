/* buf.h: a growable byte buffer, always NUL-terminated, for building strings and output.
 *
 * Ownership: the buf owns .data; buf_free releases it; buf_take hands it to the caller.
 */
#ifndef TTA_COMMON_BUF_H
#define TTA_COMMON_BUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct {
    char *data; /* NUL-terminated; NULL until the first append */
    size_t len;
    size_t cap;
} buf;

void buf_reserve(buf *b, size_t extra);
void buf_append(buf *b, const void *p, size_t n);
void buf_puts(buf *b, const char *s);
void buf_putc(buf *b, char c);
void buf_printf(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_vprintf(buf *b, const char *fmt, va_list ap);
/* Appends s (n bytes) as a JSON string literal with quotes, escaping as RFC 8259 requires.
 * Invalid UTF-8 bytes are replaced by U+FFFD so the output is always valid JSON. */
void buf_json_string(buf *b, const char *s, size_t n);
/* Appends a double as JSON: shortest round-trip form; NaN and infinities as null. */
void buf_json_number(buf *b, double v);
void buf_clear(buf *b);
void buf_free(buf *b);
char *buf_take(buf *b); /* returns data (never NULL) and resets b */
/* Returns data, or "" if nothing was appended yet. */
const char *buf_str(const buf *b);

#endif
