/* jsonscan.c: in-place JSON validation and member lookup (see jsonscan.h). */
#include "ingest/jsonscan.h"

#include <stdlib.h>
#include <string.h>

#define JSON_MAX_DEPTH 64

const char *json_skip_ws(const char *p, const char *end) {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
    return p;
}

static int is_hex(char h) { return (h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F'); }

/* p at the opening quote; returns the byte after the closing quote, or NULL. */
static const char *skip_string(const char *p, const char *end) {
    p++;
    while (p < end) {
        unsigned char c = (unsigned char)*p;
        if (c == '"') return p + 1;
        if (c < 0x20) return NULL;
        if (c == '\\') {
            if (++p >= end) return NULL;
            char e = *p;
            if (e == 'u') {
                if (end - p < 5 || !is_hex(p[1]) || !is_hex(p[2]) || !is_hex(p[3]) || !is_hex(p[4])) return NULL;
                p += 4;
            } else if (e != '"' && e != '\\' && e != '/' && e != 'b' && e != 'f' && e != 'n' && e != 'r' && e != 't') {
                return NULL;
            }
        }
        p++;
    }
    return NULL;
}

static const char *skip_number(const char *p, const char *end) {
    const char *s = p;
    if (p < end && *p == '-') p++;
    if (p >= end) return NULL;
    if (*p == '0') {
        p++;
    } else if (*p >= '1' && *p <= '9') {
        while (p < end && *p >= '0' && *p <= '9') p++;
    } else {
        return NULL;
    }
    if (p < end && *p == '.') {
        p++;
        const char *d = p;
        while (p < end && *p >= '0' && *p <= '9') p++;
        if (p == d) return NULL;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-')) p++;
        const char *d = p;
        while (p < end && *p >= '0' && *p <= '9') p++;
        if (p == d) return NULL;
    }
    return p > s ? p : NULL;
}

static const char *skip_literal(const char *p, const char *end, const char *lit) {
    size_t n = strlen(lit);
    if ((size_t)(end - p) < n || memcmp(p, lit, n) != 0) return NULL;
    return p + n;
}

static const char *skip_value_depth(const char *p, const char *end, int depth) {
    p = json_skip_ws(p, end);
    if (p >= end) return NULL;
    switch (*p) {
    case '"':
        return skip_string(p, end);
    case '{':
    case '[': {
        if (depth >= JSON_MAX_DEPTH) return NULL;
        char close = *p == '{' ? '}' : ']';
        int is_object = *p == '{';
        p = json_skip_ws(p + 1, end);
        if (p < end && *p == close) return p + 1;
        for (;;) {
            if (is_object) {
                p = json_skip_ws(p, end);
                if (p >= end || *p != '"') return NULL;
                p = skip_string(p, end);
                if (!p) return NULL;
                p = json_skip_ws(p, end);
                if (p >= end || *p != ':') return NULL;
                p++;
            }
            p = skip_value_depth(p, end, depth + 1);
            if (!p) return NULL;
            p = json_skip_ws(p, end);
            if (p >= end) return NULL;
            if (*p == ',') {
                p++;
                continue;
            }
            if (*p == close) return p + 1;
            return NULL;
        }
    }
    case 't':
        return skip_literal(p, end, "true");
    case 'f':
        return skip_literal(p, end, "false");
    case 'n':
        return skip_literal(p, end, "null");
    /* Python's json.dumps writes these for non-finite floats; logs contain them. */
    case 'N':
        return skip_literal(p, end, "NaN");
    case 'I':
        return skip_literal(p, end, "Infinity");
    default:
        if (*p == '-' && end - p >= 9 && memcmp(p, "-Infinity", 9) == 0) return p + 9;
        return skip_number(p, end);
    }
}

const char *json_skip_value(const char *p, const char *end) { return skip_value_depth(p, end, 0); }

void json_object_each(json_span obj, int (*fn)(json_span key, json_span value, void *ctx), void *ctx) {
    const char *p = obj.p, *end = obj.p + obj.n;
    if (!obj.n || *p != '{') return;
    p = json_skip_ws(p + 1, end);
    while (p < end && *p == '"') {
        const char *ks = p + 1;
        const char *ke = skip_string(p, end);
        if (!ke) return;
        json_span key = {ks, (size_t)(ke - 1 - ks)};
        p = json_skip_ws(ke, end);
        if (p >= end || *p != ':') return;
        p = json_skip_ws(p + 1, end);
        const char *ve = json_skip_value(p, end);
        if (!ve) return;
        json_span value = {p, (size_t)(ve - p)};
        if (fn(key, value, ctx)) return;
        p = json_skip_ws(ve, end);
        if (p < end && *p == ',') p = json_skip_ws(p + 1, end);
    }
}

typedef struct {
    const char *key;
    size_t key_len;
    json_span found;
} find_ctx;

static int find_member(json_span key, json_span value, void *ctx) {
    find_ctx *f = ctx;
    if (key.n == f->key_len && memcmp(key.p, f->key, key.n) == 0) {
        f->found = value;
        return 1;
    }
    return 0;
}

json_span json_object_get(json_span obj, const char *key) {
    find_ctx f = {key, strlen(key), {NULL, 0}};
    json_object_each(obj, find_member, &f);
    return f.found;
}

int json_is_null(json_span v) { return v.n == 0 || (v.n == 4 && memcmp(v.p, "null", 4) == 0); }

int json_string_raw(json_span v, json_span *s) {
    if (v.n < 2 || v.p[0] != '"' || v.p[v.n - 1] != '"') return 0;
    s->p = v.p + 1;
    s->n = v.n - 2;
    return 1;
}

int json_raw_equals(json_span s, const char *lit) {
    size_t n = strlen(lit);
    return s.n == n && memcmp(s.p, lit, n) == 0;
}

int json_number(json_span v, double *out) {
    const char *p = v.p, *end = v.p + v.n;
    if (!v.n) return 0;
    if (*p == '"') {
        p++;
        end--;
        while (p < end && *p == ' ') p++;
    }
    if (p >= end) return 0;
    char tmp[64];
    size_t n = (size_t)(end - p);
    if (n >= sizeof tmp) return 0;
    memcpy(tmp, p, n);
    tmp[n] = '\0';
    char *e;
    double d = strtod(tmp, &e);
    if (e == tmp) return 0;
    while (*e == ' ') e++;
    if (*e == '%') e++;
    while (*e == ' ') e++;
    if (*e) return 0;
    *out = d;
    return 1;
}
