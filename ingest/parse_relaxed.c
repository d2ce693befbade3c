/* parse_relaxed.c: relaxed JSON to strict JSON.
 *
 * Logs and descriptions written by hand or by Python print things that are almost JSON:
 * Python's repr of a dict ({'lineno': 53, 'ok': True}), unquoted keys and words
 * ({value: true, metadata: {file: manual}}), trailing commas, comments, tuples, numbers with a
 * percent sign (75.98000%). This reader accepts all of them (bare words only when asked: a
 * log written by a JSON library that lost a quote is broken, not relaxed) and writes the strict
 * JSON they mean: single-quoted strings become JSON strings, bare words become strings, True/False/None
 * become true/false/null, tuples become arrays, NaN and Infinity become null, and a number
 * glued to other characters (75.98000%) stays text, as a string.
 */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "ingest/jsonscan.h"
#include "ingest/parse_common.h"

typedef struct {
    const char *end;
    buf *out;
    buf tmp;        /* decoded string content */
    int bare_words; /* unquoted keys and words as strings ({file: manual}) */
} relaxed_reader;

/* Skips white space and comments (//, #, and slash-star). */
static const char *skip_space(const char *p, const char *end) {
    for (;;) {
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n' || *p == '\f' || *p == '\v')) p++;
        if (end - p >= 2 && p[0] == '/' && p[1] == '/') {
            while (p < end && *p != '\n') p++;
        } else if (end - p >= 2 && p[0] == '/' && p[1] == '*') {
            const char *q = p + 2;
            while (end - q >= 2 && !(q[0] == '*' && q[1] == '/')) q++;
            p = end - q >= 2 ? q + 2 : end;
        } else {
            return p;
        }
    }
}

static int is_delim(char c) {
    return c == ',' || c == ':' || c == '{' || c == '}' || c == '[' || c == ']' || c == '(' || c == ')' || c == '"' ||
           c == '\'' || c == '\n' || c == '\r';
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    c |= 0x20;
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* A quoted string ('...' or "...") at p, decoded into r->tmp and written as a JSON string. */
static const char *quoted(relaxed_reader *r, const char *p) {
    char q = *p++;
    buf_clear(&r->tmp);
    while (p < r->end && *p != q) {
        if (*p == '\\' && p + 1 < r->end) {
            char c = p[1];
            p += 2;
            switch (c) {
            case 'n': buf_putc(&r->tmp, '\n'); break;
            case 't': buf_putc(&r->tmp, '\t'); break;
            case 'r': buf_putc(&r->tmp, '\r'); break;
            case 'b': buf_putc(&r->tmp, '\b'); break;
            case 'f': buf_putc(&r->tmp, '\f'); break;
            case 'x':
                if (r->end - p >= 2 && hexval(p[0]) >= 0 && hexval(p[1]) >= 0) {
                    buf_putc(&r->tmp, (char)(hexval(p[0]) * 16 + hexval(p[1])));
                    p += 2;
                } else {
                    buf_putc(&r->tmp, 'x');
                }
                break;
            case 'u': {
                /* Re-read through the strict scanner's decoder: "\uXXXX" (with a pair). */
                const char *s = p - 2, *e = p;
                int ok = r->end - p >= 4;
                for (int i = 0; ok && i < 4; i++) ok = hexval(p[i]) >= 0;
                if (!ok) {
                    buf_putc(&r->tmp, 'u');
                    break;
                }
                e = p + 4;
                if (r->end - e >= 6 && e[0] == '\\' && e[1] == 'u') {
                    int ok2 = 1;
                    for (int i = 0; ok2 && i < 4; i++) ok2 = hexval(e[2 + i]) >= 0;
                    if (ok2) e += 6;
                }
                char piece[16];
                piece[0] = '"';
                memcpy(piece + 1, s, (size_t)(e - s));
                piece[1 + (e - s)] = '"';
                tta_json_span sp = {piece, (size_t)(e - s) + 2, TTA_JSON_STRING, 0};
                tta_json_string_decode(sp, &r->tmp);
                p = e;
                break;
            }
            default: buf_putc(&r->tmp, c); break; /* \\ \' \" \/ and unknown escapes */
            }
            continue;
        }
        buf_putc(&r->tmp, *p++);
    }
    if (p >= r->end) return NULL; /* unterminated */
    buf_json_string(r->out, buf_str(&r->tmp), r->tmp.len);
    return p + 1;
}

/* Appends d as a JSON number: the shortest %g form that reads back the same; null when d is not
 * finite (JSON has no NaN or infinity). */
static void put_number(buf *out, double d) {
    if (!isfinite(d)) {
        buf_puts(out, "null");
        return;
    }
    char tmp[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, d);
        if (strtod(tmp, NULL) == d) break;
    }
    buf_puts(out, tmp);
}

/* A bare token (word or number) at p; in keys it runs to ':', in values to a delimiter. */
static const char *bare(relaxed_reader *r, const char *p, int is_key) {
    const char *s = p;
    if (!r->bare_words && is_key) return NULL;
    if (is_key) {
        while (p < r->end && *p != ':' && *p != '\n' && *p != '{' && *p != '}' && *p != ',') p++;
    } else {
        while (p < r->end && !is_delim(*p)) p++;
    }
    const char *e = p;
    while (e > s && (e[-1] == ' ' || e[-1] == '\t')) e--;
    size_t n = (size_t)(e - s);
    if (n == 0) return NULL;
    if (!is_key) {
        static const struct {
            const char *word, *json;
        } literals[] = {{"true", "true"},   {"false", "false"}, {"null", "null"},   {"True", "true"},
                        {"False", "false"}, {"None", "null"},   {"NaN", "null"},    {"nan", "null"},
                        {"Infinity", "null"}, {"-Infinity", "null"}, {"inf", "null"}, {"-inf", "null"}};
        for (size_t i = 0; i < sizeof literals / sizeof literals[0]; i++) {
            if (strlen(literals[i].word) == n && memcmp(s, literals[i].word, n) == 0) {
                buf_puts(r->out, literals[i].json);
                return p;
            }
        }
        tta_json_span v;
        if (tta_json_whole(s, e, &v) && v.type == TTA_JSON_NUMBER) {
            buf_append(r->out, s, n);
            return p;
        }
        /* Numbers JSON does not allow (+1, .5, 1., 007): rewrite them. */
        char tmp[64];
        if (n < sizeof tmp) {
            memcpy(tmp, s, n);
            tmp[n] = '\0';
            char *q;
            double d = strtod(tmp, &q);
            int numeric = *q == '\0' && (tmp[0] == '+' || tmp[0] == '-' || tmp[0] == '.' || (tmp[0] >= '0' && tmp[0] <= '9'));
            for (size_t i = 0; numeric && i < n; i++)
                if ((tmp[i] | 0x20) == 'x' || (tmp[i] | 0x20) == 'n' || (tmp[i] | 0x20) == 'i') numeric = 0;
            if (numeric) {
                put_number(r->out, d);
                return p;
            }
        }
    }
    if (!r->bare_words) return NULL;
    buf_json_string(r->out, s, n);
    return p;
}

static const char *value(relaxed_reader *r, const char *p, int depth);

/* '{' members '}', '[' elements ']' or '(' elements ')'. */
static const char *container(relaxed_reader *r, const char *p, int depth) {
    char open = *p, close = open == '{' ? '}' : open == '[' ? ']' : ')';
    int is_object = open == '{';
    if (depth >= TTA_JSON_MAX_DEPTH) return NULL;
    buf_putc(r->out, is_object ? '{' : '[');
    p++;
    int first = 1;
    for (;;) {
        p = skip_space(p, r->end);
        if (p >= r->end) return NULL;
        if (*p == close) {
            buf_putc(r->out, is_object ? '}' : ']');
            return p + 1;
        }
        if (*p == ',') { /* stray or trailing comma */
            p++;
            continue;
        }
        if (!first) buf_putc(r->out, ',');
        first = 0;
        if (is_object) {
            if (*p == '"' || *p == '\'') {
                p = quoted(r, p);
            } else {
                /* Unquoted key: always a string, even when it looks like a number. */
                const char *s = p;
                p = bare(r, p, 1);
                if (!p) return NULL;
                (void)s;
            }
            if (!p) return NULL;
            p = skip_space(p, r->end);
            if (p >= r->end || *p != ':') return NULL;
            buf_putc(r->out, ':');
            p++;
        }
        p = value(r, p, depth + 1);
        if (!p) return NULL;
    }
}

static const char *value(relaxed_reader *r, const char *p, int depth) {
    p = skip_space(p, r->end);
    if (p >= r->end) return NULL;
    switch (*p) {
    case '{':
    case '[':
    case '(':
        return container(r, p, depth);
    case '"':
    case '\'':
        return quoted(r, p);
    case '}':
    case ']':
    case ')':
    case ',':
    case ':':
        return NULL;
    default:
        return bare(r, p, 0);
    }
}

int tta_relaxed_to_json(const char *p, size_t n, int flags, buf *out) {
    relaxed_reader r = {.end = p + n, .out = out, .bare_words = (flags & TTA_RELAXED_BARE_WORDS) != 0};
    size_t mark = out->len;
    if (n >= 3 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF) p += 3;
    const char *q = value(&r, p, 0);
    int ok = q && skip_space(q, r.end) == r.end;
    buf_free(&r.tmp);
    if (!ok) {
        out->len = mark;
        if (out->data) out->data[mark] = '\0';
        return 0;
    }
    return 1;
}

/* ---- descriptions ---- */

/* v0.6 NVIDIA systems/<name>.json hold the log's lines: "org: {"value": "NVIDIA", "metadata": ...}".
 * Returns the object {org: "NVIDIA", ...} they describe, or NULL when the text is not that. */
static cJSON *key_value_lines(const char *p, size_t len) {
    const char *end = p + len;
    cJSON *o = cJSON_CreateObject();
    int lines = 0;
    buf b = {0};
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol) eol = end;
        const char *colon = memchr(p, ':', (size_t)(eol - p));
        const char *q = p;
        while (q < eol && isspace((unsigned char)*q)) q++;
        if (q < eol) {
            if (!colon) goto not_lines;
            buf_clear(&b);
            cJSON *v = NULL;
            if (tta_relaxed_to_json(colon + 1, (size_t)(eol - colon - 1), TTA_RELAXED_BARE_WORDS, &b))
                v = cJSON_ParseWithLength(buf_str(&b), b.len);
            if (!v) goto not_lines;
            cJSON *inner = cJSON_IsObject(v) ? cJSON_DetachItemFromObjectCaseSensitive(v, "value") : NULL;
            /* The key as valid UTF-8: through a JSON string and back. */
            buf_clear(&b);
            buf_json_string(&b, q, (size_t)(colon - q));
            cJSON *key = cJSON_ParseWithLength(buf_str(&b), b.len);
            cJSON_AddItemToObject(o, cJSON_IsString(key) ? key->valuestring : "", inner ? inner : v);
            cJSON_Delete(key);
            if (inner) cJSON_Delete(v);
            lines++;
        }
        p = eol + 1;
    }
    buf_free(&b);
    if (lines) return o;
    cJSON_Delete(o);
    return NULL;
not_lines:
    buf_free(&b);
    cJSON_Delete(o);
    return NULL;
}

/* The description text as a cJSON tree: strict or relaxed JSON, or the v0.6 lines form. */
cJSON *tta_parse_description_json(const char *data, size_t len, int allow_lines) {
    buf b = {0};
    cJSON *d = NULL;
    if (tta_relaxed_to_json(data, len, TTA_RELAXED_BARE_WORDS, &b)) d = cJSON_ParseWithLength(buf_str(&b), b.len);
    buf_free(&b);
    if (!d && allow_lines) d = key_value_lines(data, len);
    return d;
}
