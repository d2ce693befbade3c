#include "common/buf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"

void buf_reserve(buf *b, size_t extra) {
    size_t need = b->len + extra + 1;
    if (need <= b->cap) return;
    size_t c = b->cap ? b->cap : 64;
    while (c < need) c *= 2;
    b->data = reallocCheck(b->data, c);
    b->data[b->len] = '\0'; /* a fresh buffer reads as "" before its first append */
    b->cap = c;
}

void buf_append(buf *b, const void *p, size_t n) {
    buf_reserve(b, n);
    if (n) memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void buf_puts(buf *b, const char *s) { buf_append(b, s, strlen(s)); }

void buf_putc(buf *b, char c) {
    buf_reserve(b, 1);
    b->data[b->len++] = c;
    b->data[b->len] = '\0';
}

void buf_vprintf(buf *b, const char *fmt, va_list ap) {
    va_list ap2;
    va_copy(ap2, ap);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n < 0) {
        va_end(ap2);
        return;
    }
    if ((size_t)n < sizeof small) {
        buf_append(b, small, (size_t)n);
    } else {
        buf_reserve(b, (size_t)n);
        vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
        b->len += (size_t)n;
    }
    va_end(ap2);
}

void buf_printf(buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(b, fmt, ap);
    va_end(ap);
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0 if invalid. */
static size_t utf8_seq_len(const unsigned char *s, size_t n) {
    unsigned char c = s[0];
    size_t len;
    unsigned min;
    unsigned cp;
    if (c < 0x80) return 1;
    if ((c & 0xE0) == 0xC0) { len = 2; cp = c & 0x1F; min = 0x80; }
    else if ((c & 0xF0) == 0xE0) { len = 3; cp = c & 0x0F; min = 0x800; }
    else if ((c & 0xF8) == 0xF0) { len = 4; cp = c & 0x07; min = 0x10000; }
    else return 0;
    if (len > n) return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return len;
}

void buf_json_string(buf *b, const char *s, size_t n) {
    static const char hex[] = "0123456789abcdef";
    const unsigned char *u = (const unsigned char *)s;
    buf_reserve(b, n + 2);
    buf_putc(b, '"');
    size_t i = 0;
    while (i < n) {
        unsigned char c = u[i];
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            buf_append(b, e, 2);
            i++;
        } else if (c < 0x20) {
            switch (c) {
            case '\n': buf_append(b, "\\n", 2); break;
            case '\t': buf_append(b, "\\t", 2); break;
            case '\r': buf_append(b, "\\r", 2); break;
            default: {
                char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
                buf_append(b, e, 6);
            }
            }
            i++;
        } else if (c < 0x80) {
            size_t j = i;
            while (j < n && u[j] >= 0x20 && u[j] < 0x80 && u[j] != '"' && u[j] != '\\') j++;
            buf_append(b, s + i, j - i);
            i = j;
        } else {
            size_t l = utf8_seq_len(u + i, n - i);
            if (l == 0) {
                buf_append(b, "\xEF\xBF\xBD", 3);
                i++;
            } else {
                buf_append(b, s + i, l);
                i += l;
            }
        }
    }
    buf_putc(b, '"');
}

void buf_json_number(buf *b, double v) {
    if (!isfinite(v)) {
        buf_puts(b, "null");
        return;
    }
    if (fabs(v) < 1e15 && v == (double)(long long)v) {
        buf_printf(b, "%lld", (long long)v);
        return;
    }
    char tmp[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, v);
        if (strtod(tmp, NULL) == v) break;
    }
    buf_puts(b, tmp);
}

void buf_clear(buf *b) {
    b->len = 0;
    if (b->data) b->data[0] = '\0';
}

void buf_free(buf *b) {
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

char *buf_take(buf *b) {
    char *d = b->data ? b->data : strdupCheck("");
    b->data = NULL;
    b->len = b->cap = 0;
    return d;
}

const char *buf_str(const buf *b) { return b->data ? b->data : ""; }
