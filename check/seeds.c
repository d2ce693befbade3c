/* seeds.c: the seeds a result log logs, read as MLCommons' seed checker reads them
 * (package_checker/seed_checker.py _get_seed_records: mlp_parser.parse_file, where any line that does not
 * parse makes the whole reading fail, then (metadata['file'], metadata['lineno'], int(value)) of each line
 * whose key is 'seed'). */
#include "check/package.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"

#define TOKEN ":::MLLOG "
#define TOKEN_LEN 9

/* Python's str.strip() set, for latin-1 text. */
static int py_space(unsigned char c) {
    return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f) || c == 0x85 || c == 0xa0;
}

/* 1 when Python's float() accepts the string p[0..n) (time_ms logged as a string). */
static int py_float_ok(const char *p, size_t n) {
    char buf[128];
    size_t m = 0;
    while (n && py_space((unsigned char)*p)) p++, n--;
    while (n && py_space((unsigned char)p[n - 1])) n--;
    if (n == 0 || n >= sizeof buf) return 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '_') {
            if (i == 0 || i + 1 == n || !(p[i - 1] >= '0' && p[i - 1] <= '9') || !(p[i + 1] >= '0' && p[i + 1] <= '9')) return 0;
            continue;
        }
        if (p[i] == 'x' || p[i] == 'X' || p[i] == 'p' || p[i] == 'P') return 0; /* no hex floats */
        buf[m++] = p[i];
    }
    buf[m] = '\0';
    char *end;
    (void)strtod(buf, &end);
    return *end == '\0';
}

/* Python's int() of a string: optional sign, decimal digits with single '_' between them, whitespace
 * around; the value in decimal into out (leading zeros dropped). 0 or -1. */
static int py_int_str(const char *p, size_t n, char *out, size_t cap) {
    while (n && py_space((unsigned char)*p)) p++, n--;
    while (n && py_space((unsigned char)p[n - 1])) n--;
    int neg = 0;
    if (n && (*p == '+' || *p == '-')) neg = *p == '-', p++, n--;
    if (n == 0 || !(*p >= '0' && *p <= '9') || !(p[n - 1] >= '0' && p[n - 1] <= '9')) return -1;
    size_t m = 0;
    if (neg) out[m++] = '-';
    int leading = 1;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '_') {
            if (!(p[i - 1] >= '0' && p[i - 1] <= '9') || !(p[i + 1] >= '0' && p[i + 1] <= '9')) return -1;
            continue;
        }
        if (!(p[i] >= '0' && p[i] <= '9')) return -1;
        if (leading && p[i] == '0') continue;
        leading = 0;
        if (m + 2 >= cap) return -1;
        out[m++] = p[i];
    }
    if (leading) m = 0, out[m++] = '0'; /* zero, "-0" included */
    out[m] = '\0';
    return 0;
}

/* int(v) in decimal into out; -1 when Python raises (None, a list, NaN, a non-integer string...). */
static int py_int(cc_val v, char *out, size_t cap) {
    switch (v.kind) {
    case CV_BOOL:
    case CV_INT: snprintf(out, cap, "%lld", (long long)v.u.i); return 0;
    case CV_FLOAT:
        if (!isfinite(v.u.f)) return -1;
        snprintf(out, cap, "%.0f", trunc(v.u.f));
        if (!strcmp(out, "-0")) snprintf(out, cap, "0");
        return 0;
    case CV_STR: return py_int_str(v.u.s->p, v.u.s->n, out, cap);
    default: return -1;
    }
}

/* A key for x into a: equal for Python-equal hashables (1 == 1.0 == True; strings by content; a NaN
 * equals nothing, as each line's NaN is a new object); NULL for a list or dict (unhashable). */
static char *hash_key(cc_arena *a, cc_val x) {
    static const char *const nan_tag = "nan";
    char tmp[64];
    switch (x.kind) {
    case CV_NONE: return cc_strndup(a, "z", 1);
    case CV_BOOL:
    case CV_INT: snprintf(tmp, sizeof tmp, "n%lld", (long long)x.u.i); break;
    case CV_FLOAT:
        if (isnan(x.u.f)) {
            snprintf(tmp, sizeof tmp, "%s%p", nan_tag, cc_alloc(a, 1)); /* unique */
        } else if (x.u.f == trunc(x.u.f) && fabs(x.u.f) < 9.2e18) {
            snprintf(tmp, sizeof tmp, "n%lld", (long long)x.u.f);
        } else {
            snprintf(tmp, sizeof tmp, "f%.17g", x.u.f);
        }
        break;
    case CV_STR: {
        char *k = cc_alloc_raw(a, x.u.s->n + 2);
        k[0] = 's';
        memcpy(k + 1, x.u.s->p, x.u.s->n);
        k[x.u.s->n + 1] = '\0';
        for (size_t i = 1; i <= x.u.s->n; i++)
            if (k[i] == '\0' || k[i] == '\x1f') k[i] = '\x1e'; /* keeps the key a C string with one separator */
        return k;
    }
    default: return NULL;
    }
    return cc_strndup(a, tmp, strlen(tmp));
}

/* What is wrong with a line, in the order the checker meets it: the parser's errors (the whole file
 * is read first), then a seed record it cannot build, then one it cannot hash. */
enum { LINE_OK = 0, LINE_PARSE = 1, LINE_RECORD = 2, LINE_UNHASHABLE = 3 };

/* Sets the reason (the log's line first) and returns kind. */
static int fail_at(char *why, size_t cap, long line, const char *what, int kind) {
    snprintf(why, cap, "line %ld: %s", line, what);
    return kind;
}

/* One line's JSON m (NULL: it does not parse; n: its length): LINE_* (why set) when the checker fails on
 * it; a seed appended when it is one. */
static int one_parsed_line(cc_arena *a, long fileline, const cc_val *mp, size_t n, cc_seed **out, size_t *n_out,
                           size_t *cap, char *why, size_t wcap) {
    if (!mp) return fail_at(why, wcap, fileline, n == 0 ? "nothing after :::MLLOG" : "not JSON", LINE_PARSE);
    cc_val m = *mp;
    if (m.kind != CV_DICT) return fail_at(why, wcap, fileline, "the line's JSON is not an object", LINE_PARSE);
    cc_val *t = cc_dict_get(m.u.d, "time_ms", 7);
    if (!t) return fail_at(why, wcap, fileline, "no time_ms", LINE_PARSE);
    if (!(t->kind == CV_INT || t->kind == CV_BOOL || t->kind == CV_FLOAT ||
          (t->kind == CV_STR && py_float_ok(t->u.s->p, t->u.s->n))))
        return fail_at(why, wcap, fileline, "time_ms is not a number", LINE_PARSE);
    cc_val *key = cc_dict_get(m.u.d, "key", 3);
    cc_val *value = cc_dict_get(m.u.d, "value", 5);
    cc_val *meta = cc_dict_get(m.u.d, "metadata", 8);
    if (!key || !value || !meta) return fail_at(why, wcap, fileline, !key ? "no key" : !value ? "no value" : "no metadata", LINE_PARSE);
    if (key->kind != CV_STR || key->u.s->n != 4 || memcmp(key->u.s->p, "seed", 4) != 0) return 0;
    if (meta->kind != CV_DICT) return fail_at(why, wcap, fileline, "a seed whose metadata is not an object", LINE_RECORD);
    cc_val *file = cc_dict_get(meta->u.d, "file", 4);
    cc_val *lineno = cc_dict_get(meta->u.d, "lineno", 6);
    if (!file || !lineno) return fail_at(why, wcap, fileline, !file ? "a seed without metadata.file" : "a seed without metadata.lineno", LINE_RECORD);
    char seed[400];
    if (py_int(*value, seed, sizeof seed) != 0) return fail_at(why, wcap, fileline, "a seed that int() refuses", LINE_RECORD);
    char *fk = hash_key(a, *file), *lk = hash_key(a, *lineno);
    if (!fk || !lk)
        return fail_at(why, wcap, fileline, "a seed whose metadata.file or lineno is a list or object (Python cannot hash it)",
                       LINE_UNHASHABLE);
    if (*n_out == *cap) {
        size_t c = *cap ? *cap * 2 : 8;
        cc_seed *s = cc_alloc(a, c * sizeof *s);
        if (*n_out) memcpy(s, *out, *n_out * sizeof *s);
        *out = s;
        *cap = c;
    }
    size_t wl = strlen(fk) + strlen(lk) + 2;
    char *w = cc_alloc_raw(a, wl);
    snprintf(w, wl, "%s\x1f%s", fk, lk);
    (*out)[*n_out].where = w;
    (*out)[*n_out].seed = cc_strndup(a, seed, strlen(seed));
    (*out)[*n_out].line = fileline;
    (*n_out)++;
    return 0;
}

/* Contract in package.h. */
void cc_seeds_line(cc_arena *a, cc_seed_reader *sr, long fileline, const cc_val *m, size_t n) {
    assert(a && sr);
    char line_why[200];
    int rc = one_parsed_line(a, fileline, m, n, &sr->seeds, &sr->n, &sr->cap, line_why, sizeof line_why);
    if (rc != LINE_OK && (sr->worst == LINE_OK || rc < sr->worst)) {
        sr->worst = rc;
        snprintf(sr->why, sizeof sr->why, "%s", line_why);
    }
}

/* Contract in package.h. */
void cc_seeds_text_line(cc_arena *a, cc_seed_reader *sr, long fileline, const char *json, size_t n) {
    char jwhy[160];
    cc_val m;
    int ok = n > 0 && cc_json_parse(a, json, n, &m, jwhy, sizeof jwhy) == 0;
    cc_seeds_line(a, sr, fileline, ok ? &m : NULL, n);
}

/* Contract in package.h. */
int cc_seeds_status(const cc_seed_reader *sr) {
    return sr->worst == LINE_OK ? 0 : sr->worst == LINE_UNHASHABLE ? -2 : -1;
}

/* Reads every seed of a log (universal newlines; each :::MLLOG line from its last token). */
int cc_seeds_read(cc_arena *a, const char *data, size_t len, cc_seed **out, size_t *n, char *why, size_t cap) {
    assert(a && (data || len == 0) && out && n && why && cap > 0);
    cc_seed_reader sr = {0};
    const char *p = data, *end = data + len;
    long fileline = 0;
    while (p < end) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e) e = end;
        const char *cr = memchr(p, '\r', (size_t)(e - p));
        if (cr) e = cr;
        fileline++;
        const char *next = e < end ? (e[0] == '\r' && e + 1 < end && e[1] == '\n' ? e + 2 : e + 1) : e;
        const char *tok = NULL, *q = p;
        while (q < e && (q = memmem(q, (size_t)(e - q), TOKEN, TOKEN_LEN)) != NULL) tok = q++;
        if (tok) {
            const char *j = tok + TOKEN_LEN, *je = e;
            while (je > j && py_space((unsigned char)je[-1])) je--;
            cc_seeds_text_line(a, &sr, fileline, j, (size_t)(je - j));
        }
        p = next;
    }
    *out = sr.seeds;
    *n = sr.n;
    snprintf(why, cap, "%s", sr.worst ? sr.why : "");
    return cc_seeds_status(&sr);
}
