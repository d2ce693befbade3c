/* json.c: a log line's JSON read as Python's json.loads reads it (the checker's parser), into check/'s
 * values: ints and floats told apart (isinstance(v, int) is a rule), NaN/Infinity accepted, control
 * characters in strings refused, the last of duplicate keys kept. The text is the line decoded as
 * latin-1, as the checker opens logs: a byte is a character; a \u escape below 256 becomes that byte,
 * above it UTF-8 (such strings never equal a rule's ASCII literals either way). */
#include "check/expr.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    cc_arena *a;
    const char *p, *end, *start;
    char *why;
    size_t cap;
    int depth;
} jp;

#define MAX_DEPTH 400

/* Records the reason with Python's wording and the character position; returns -1. */
static int bad(jp *j, const char *what) {
    snprintf(j->why, j->cap, "%s: char %zu", what, (size_t)(j->p - j->start));
    return -1;
}

static void ws(jp *j) {
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')) j->p++;
}

/* 1 when the text at j->p starts with word (taken). */
static int word(jp *j, const char *w) {
    size_t n = strlen(w);
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n) != 0) return 0;
    j->p += n;
    return 1;
}

/* Four hex digits at p into *u; -1 when not. */
static int hex4(const char *p, const char *end, unsigned *u) {
    if (end - p < 4) return -1;
    *u = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0') : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                   : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 99;
        if (d > 15) return -1;
        *u = *u * 16 + d;
    }
    return 0;
}

/* A string after its opening quote. */
static int string(jp *j, cc_val *out) {
    /* the common case: no escape and no control character before the closing quote */
    const char *f = j->p;
    while (f < j->end && *f != '"' && *f != '\\' && (unsigned char)*f >= 0x20) f++;
    if (f < j->end && *f == '"') {
        size_t len = (size_t)(f - j->p);
        char *b = cc_alloc_raw(j->a, len + 1);
        memcpy(b, j->p, len);
        b[len] = '\0';
        out->kind = CV_STR;
        out->u.s = cc_alloc_raw(j->a, sizeof *out->u.s);
        out->u.s->p = b;
        out->u.s->n = len;
        j->p = f + 1;
        return 0;
    }
    /* the decoded text is never longer than the raw one up to the closing quote (an escape shrinks) */
    const char *q = j->p;
    while (q < j->end && *q != '"') q += *q == '\\' ? 2 : 1;
    size_t raw = (size_t)((q < j->end ? q : j->end) - j->p);
    char *buf = cc_alloc_raw(j->a, raw + 4);
    size_t n = 0;
    for (;;) {
        if (j->p >= j->end) return bad(j, "Unterminated string starting at");
        unsigned char c = (unsigned char)*j->p;
        if (c == '"') {
            j->p++;
            break;
        }
        if (c < 0x20) return bad(j, "Invalid control character at");
        if (c != '\\') {
            buf[n++] = (char)c;
            j->p++;
            continue;
        }
        j->p++;
        if (j->p >= j->end) return bad(j, "Unterminated string starting at");
        char e = *j->p++;
        switch (e) {
        case '"': buf[n++] = '"'; break;
        case '\\': buf[n++] = '\\'; break;
        case '/': buf[n++] = '/'; break;
        case 'b': buf[n++] = '\b'; break;
        case 'f': buf[n++] = '\f'; break;
        case 'n': buf[n++] = '\n'; break;
        case 'r': buf[n++] = '\r'; break;
        case 't': buf[n++] = '\t'; break;
        case 'u': {
            unsigned u, lo;
            if (hex4(j->p, j->end, &u)) return bad(j, "Invalid \\uXXXX escape");
            j->p += 4;
            if (u >= 0xD800 && u < 0xDC00 && j->end - j->p >= 6 && j->p[0] == '\\' && j->p[1] == 'u' &&
                hex4(j->p + 2, j->end, &lo) == 0 && lo >= 0xDC00 && lo < 0xE000) {
                u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                j->p += 6;
            }
            if (u < 0x100) buf[n++] = (char)u;
            else if (u < 0x800) buf[n++] = (char)(0xC0 | u >> 6), buf[n++] = (char)(0x80 | (u & 63));
            else if (u < 0x10000)
                buf[n++] = (char)(0xE0 | u >> 12), buf[n++] = (char)(0x80 | ((u >> 6) & 63)), buf[n++] = (char)(0x80 | (u & 63));
            else
                buf[n++] = (char)(0xF0 | u >> 18), buf[n++] = (char)(0x80 | ((u >> 12) & 63)),
                buf[n++] = (char)(0x80 | ((u >> 6) & 63)), buf[n++] = (char)(0x80 | (u & 63));
            break;
        }
        default: j->p--; return bad(j, "Invalid \\escape");
        }
    }
    out->kind = CV_STR;
    out->u.s = cc_alloc(j->a, sizeof *out->u.s);
    out->u.s->p = buf;
    out->u.s->n = n;
    buf[n] = '\0';
    return 0;
}

/* A number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?; an int unless it has a fraction or exponent. */
static int number(jp *j, cc_val *out) {
    const char *s = j->p;
    int is_float = 0;
    if (j->p < j->end && *j->p == '-') j->p++;
    if (j->p < j->end && *j->p == '0') j->p++;
    else if (j->p < j->end && *j->p >= '1' && *j->p <= '9') while (j->p < j->end && *j->p >= '0' && *j->p <= '9') j->p++;
    else {
        j->p = s;
        return bad(j, "Expecting value");
    }
    if (j->p + 1 < j->end && *j->p == '.' && j->p[1] >= '0' && j->p[1] <= '9') {
        is_float = 1;
        j->p++;
        while (j->p < j->end && *j->p >= '0' && *j->p <= '9') j->p++;
    }
    if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
        const char *q = j->p + 1;
        if (q < j->end && (*q == '+' || *q == '-')) q++;
        if (q < j->end && *q >= '0' && *q <= '9') {
            is_float = 1;
            while (q < j->end && *q >= '0' && *q <= '9') q++;
            j->p = q;
        }
    }
    char buf[400];
    size_t n = (size_t)(j->p - s);
    if (n >= sizeof buf) {
        *out = cc_float(HUGE_VAL); /* hundreds of digits: beyond what tta evaluates exactly */
        return 0;
    }
    memcpy(buf, s, n);
    buf[n] = '\0';
    if (!is_float) {
        errno = 0;
        long long v = strtoll(buf, NULL, 10);
        if (errno != ERANGE) {
            *out = cc_int(v);
            return 0;
        }
    }
    *out = cc_float(strtod(buf, NULL)); /* an int past 64 bits becomes its nearest double */
    return 0;
}

static int value(jp *j, cc_val *out);

/* An object after '{'. */
static int object(jp *j, cc_val *out) {
    *out = cc_new_dict(j->a);
    ws(j);
    if (j->p < j->end && *j->p == '}') {
        j->p++;
        return 0;
    }
    for (;;) {
        ws(j);
        if (j->p >= j->end || *j->p != '"') return bad(j, "Expecting property name enclosed in double quotes");
        j->p++;
        cc_val k, v;
        if (string(j, &k)) return -1;
        ws(j);
        if (j->p >= j->end || *j->p != ':') return bad(j, "Expecting ':' delimiter");
        j->p++;
        if (value(j, &v)) return -1;
        cc_dict_set(j->a, out->u.d, k.u.s->p, k.u.s->n, v);
        ws(j);
        if (j->p < j->end && *j->p == ',') {
            j->p++;
            continue;
        }
        if (j->p < j->end && *j->p == '}') {
            j->p++;
            return 0;
        }
        return bad(j, "Expecting ',' delimiter");
    }
}

/* An array after '['. */
static int array(jp *j, cc_val *out) {
    *out = cc_new_list(j->a);
    ws(j);
    if (j->p < j->end && *j->p == ']') {
        j->p++;
        return 0;
    }
    for (;;) {
        cc_val v;
        if (value(j, &v)) return -1;
        cc_list_push(j->a, out->u.l, v);
        ws(j);
        if (j->p < j->end && *j->p == ',') {
            j->p++;
            continue;
        }
        if (j->p < j->end && *j->p == ']') {
            j->p++;
            return 0;
        }
        return bad(j, "Expecting ',' delimiter");
    }
}

/* Any value (leading whitespace allowed). */
static int value(jp *j, cc_val *out) {
    ws(j);
    if (j->p >= j->end) return bad(j, "Expecting value");
    char c = *j->p;
    if (c == '"') {
        j->p++;
        return string(j, out);
    }
    if (c == '{' || c == '[') {
        if (++j->depth > MAX_DEPTH) return bad(j, "nested too deep (Python: RecursionError)");
        j->p++;
        int rc = c == '{' ? object(j, out) : array(j, out);
        j->depth--;
        return rc;
    }
    if (word(j, "null")) *out = cc_none();
    else if (word(j, "true")) *out = cc_bool(1);
    else if (word(j, "false")) *out = cc_bool(0);
    else if (word(j, "NaN")) *out = cc_float(NAN);
    else if (word(j, "Infinity")) *out = cc_float(INFINITY);
    else if (word(j, "-Infinity")) *out = cc_float(-INFINITY);
    else return number(j, out);
    return 0;
}

/* Parses p[0..n) as json.loads: one value, whitespace around it, nothing else. */
int cc_json_parse(cc_arena *a, const char *p, size_t n, cc_val *out, char *why, size_t cap) {
    assert(a && p && out && why && cap > 0);
    jp j = {.a = a, .p = p, .end = p + n, .start = p, .why = why, .cap = cap};
    why[0] = '\0';
    if (value(&j, out)) return -1;
    ws(&j);
    if (j.p != j.end) return bad(&j, "Extra data");
    return 0;
}
