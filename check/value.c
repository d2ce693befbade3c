/* value.c: the arena and the values of check/'s rule evaluator (expr.h), with Python's truth, equality
 * and str()/repr(). */
#include "check/expr.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"

struct cc_chunk {
    cc_chunk *next;
    size_t used, cap;
    max_align_t data[];
};

/* Returns n bytes from a, not zeroed; a chunk is 64 KiB or the request, whichever is larger. */
void *cc_alloc_raw(cc_arena *a, size_t n) {
    assert(a != NULL);
    n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    if (a->head == NULL || a->head->cap - a->head->used < n) {
        cc_chunk *c = NULL;
        if (a->spare && a->spare->cap >= n) { /* a kept chunk (every kept one is 64 KiB or more) */
            c = a->spare;
            a->spare = c->next;
            a->spare_bytes -= c->cap;
        } else {
            size_t cap = n > 65536 ? n : 65536;
            c = mallocCheck(sizeof *c + cap);
            c->cap = cap;
        }
        c->next = a->head;
        c->used = 0;
        a->head = c;
    }
    void *p = (char *)a->head->data + a->head->used;
    a->head->used += n;
    return p;
}

/* Returns n zeroed bytes from a. */
void *cc_alloc(cc_arena *a, size_t n) {
    void *p = cc_alloc_raw(a, n);
    memset(p, 0, n);
    return p;
}

/* Frees every chunk of a. */
void cc_arena_free(cc_arena *a) {
    assert(a != NULL);
    cc_arena_reset(a);
    while (a->spare) {
        cc_chunk *next = a->spare->next;
        free(a->spare);
        a->spare = next;
    }
    a->spare_bytes = 0;
}

/* Moves every chunk of a to its spare list; at most 64 MiB is kept, the rest freed. */
void cc_arena_reset(cc_arena *a) {
    assert(a != NULL);
    while (a->head) {
        cc_chunk *next = a->head->next;
        if (a->spare_bytes + a->head->cap <= ((size_t)64 << 20)) {
            a->spare_bytes += a->head->cap;
            a->head->next = a->spare;
            a->spare = a->head;
        } else {
            free(a->head);
        }
        a->head = next;
    }
}

/* Copies s[0..n) into a, NUL-terminated. */
char *cc_strndup(cc_arena *a, const char *s, size_t n) {
    char *p = cc_alloc_raw(a, n + 1);
    if (n) memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

/* The constructors: plain values need no arena. */
cc_val cc_none(void) {
    cc_val v = {.kind = CV_NONE};
    return v;
}
/* Python's True or False. */
cc_val cc_bool(int b) {
    cc_val v = {.kind = CV_BOOL, .u.i = b != 0};
    return v;
}
/* An int. */
cc_val cc_int(int64_t i) {
    cc_val v = {.kind = CV_INT, .u.i = i};
    return v;
}
/* A float. */
cc_val cc_float(double f) {
    cc_val v = {.kind = CV_FLOAT, .u.f = f};
    return v;
}
/* A string holding a copy of p[0..n). */
cc_val cc_strv(cc_arena *a, const char *p, size_t n) {
    cc_val v = {.kind = CV_STR};
    v.u.s = cc_alloc(a, sizeof *v.u.s);
    v.u.s->p = cc_strndup(a, p, n);
    v.u.s->n = n;
    return v;
}
/* An empty list. */
cc_val cc_new_list(cc_arena *a) {
    cc_val v = {.kind = CV_LIST};
    v.u.l = cc_alloc(a, sizeof *v.u.l);
    return v;
}
/* An empty dict. */
cc_val cc_new_dict(cc_arena *a) {
    cc_val v = {.kind = CV_DICT};
    v.u.d = cc_alloc(a, sizeof *v.u.d);
    return v;
}

/* Appends x to l, doubling its room when full (the old items stay in the arena). */
void cc_list_push(cc_arena *a, cc_list *l, cc_val x) {
    assert(l != NULL);
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        cc_val *items = cc_alloc(a, cap * sizeof *items);
        if (l->n) memcpy(items, l->items, l->n * sizeof *items);
        l->items = items;
        l->cap = cap;
    }
    l->items[l->n++] = x;
}

/* Returns d's value for key, or NULL; a linear search (rule state and log values are small dicts). */
cc_val *cc_dict_get(const cc_dict *d, const char *key, size_t klen) {
    assert(d != NULL);
    for (size_t i = 0; i < d->n; i++)
        if (d->keys[i].n == klen && memcmp(d->keys[i].p, key, klen) == 0) return &d->vals[i];
    return NULL;
}

/* Sets d[key] = x: an existing key keeps its place, a new one goes last (Python's dict order). */
void cc_dict_set(cc_arena *a, cc_dict *d, const char *key, size_t klen, cc_val x) {
    cc_val *old = cc_dict_get(d, key, klen);
    if (old) {
        *old = x;
        return;
    }
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 8;
        cc_str *keys = cc_alloc(a, cap * sizeof *keys);
        cc_val *vals = cc_alloc(a, cap * sizeof *vals);
        if (d->n) {
            memcpy(keys, d->keys, d->n * sizeof *keys);
            memcpy(vals, d->vals, d->n * sizeof *vals);
        }
        d->keys = keys;
        d->vals = vals;
        d->cap = cap;
    }
    d->keys[d->n].p = cc_strndup(a, key, klen);
    d->keys[d->n].n = klen;
    d->vals[d->n] = x;
    d->n++;
}

/* Python's bool(x). */
int cc_truthy(cc_val x) {
    switch (x.kind) {
    case CV_NONE: return 0;
    case CV_BOOL:
    case CV_INT: return x.u.i != 0;
    case CV_FLOAT: return x.u.f != 0.0;
    case CV_STR: return x.u.s->n != 0;
    case CV_LIST: return x.u.l->n != 0;
    case CV_DICT: return x.u.d->n != 0;
    default: return 1;
    }
}

/* 1 when x is a number in Python's sense (bool, int, float). */
static int is_num(cc_val x) {
    return x.kind == CV_BOOL || x.kind == CV_INT || x.kind == CV_FLOAT;
}

static int equal_d(cc_val x, cc_val y, int depth, long *budget);

/* The most element comparisons one cc_equal makes: two lists that each hold themselves twice
 * would otherwise branch 2^100 times before the depth limit. */
#define EQUAL_BUDGET 1000000L

/* Python's x == y. Ints compare exactly with ints; an int and a float compare as numbers. A
 * container equals itself (Python compares items by identity first, so a list holding itself
 * equals itself). Distinct containers nested past 100 levels, or past EQUAL_BUDGET comparisons,
 * compare unequal where Python raises RecursionError. */
int cc_equal(cc_val x, cc_val y) {
    long budget = EQUAL_BUDGET;
    return equal_d(x, y, 0, &budget);
}

/* cc_equal at nesting depth, with *budget comparisons left. */
static int equal_d(cc_val x, cc_val y, int depth, long *budget) {
    if (depth > 100 || --*budget < 0) return 0;
    if (x.kind == y.kind && ((x.kind == CV_LIST && x.u.l == y.u.l) || (x.kind == CV_DICT && x.u.d == y.u.d)))
        return 1; /* the same container */
    if (is_num(x) && is_num(y)) {
        if (x.kind != CV_FLOAT && y.kind != CV_FLOAT) return x.u.i == y.u.i;
        double a = x.kind == CV_FLOAT ? x.u.f : (double)x.u.i;
        double b = y.kind == CV_FLOAT ? y.u.f : (double)y.u.i;
        return a == b;
    }
    if (x.kind != y.kind) return 0;
    switch (x.kind) {
    case CV_NONE: return 1;
    case CV_STR: return x.u.s->n == y.u.s->n && memcmp(x.u.s->p, y.u.s->p, x.u.s->n) == 0;
    case CV_LIST:
        if (x.u.l->n != y.u.l->n) return 0;
        for (size_t i = 0; i < x.u.l->n; i++)
            if (!equal_d(x.u.l->items[i], y.u.l->items[i], depth + 1, budget)) return 0;
        return 1;
    case CV_DICT:
        if (x.u.d->n != y.u.d->n) return 0;
        for (size_t i = 0; i < x.u.d->n; i++) {
            cc_val *o = cc_dict_get(y.u.d, x.u.d->keys[i].p, x.u.d->keys[i].n);
            if (!o || !equal_d(x.u.d->vals[i], *o, depth + 1, budget)) return 0;
        }
        return 1;
    case CV_FUNC: return x.u.fn == y.u.fn;
    default: return x.u.d == y.u.d;
    }
}

/* Appends to out[*len..cap) what fmt makes, keeping room for "..." and the NUL. */
static void put(char *out, size_t cap, size_t *len, const char *s, size_t n) {
    if (*len >= cap) return;
    size_t room = cap - *len - 1;
    if (n > room) n = room;
    memcpy(out + *len, s, n);
    *len += n;
    out[*len] = '\0';
}

/* Python's repr of a float: the shortest of %.15g..%.17g that reads back, with ".0" on a whole one. */
static void float_text(double f, char *buf, size_t cap) {
    if (isnan(f)) {
        snprintf(buf, cap, "nan");
        return;
    }
    if (isinf(f)) {
        snprintf(buf, cap, f < 0 ? "-inf" : "inf");
        return;
    }
    for (int p = 15; p <= 17; p++) {
        snprintf(buf, cap, "%.*g", p, f);
        if (strtod(buf, NULL) == f) break;
    }
    if (!strpbrk(buf, ".en")) strncat(buf, ".0", cap - strlen(buf) - 1);
}

/* Python's repr of a string: in single quotes, or double quotes when it holds a single quote and
 * no double quote; backslash, the quote used, \n, \r and \t escaped, other control bytes as \xNN.
 * Bytes from 0x80 (UTF-8) are written as they are, as Python writes printable characters. */
static void str_repr(const cc_str *str, char *out, size_t cap, size_t *len) {
    int single = str->n && memchr(str->p, '\'', str->n), dbl = str->n && memchr(str->p, '"', str->n);
    char q = single && !dbl ? '"' : '\'';
    put(out, cap, len, &q, 1);
    for (size_t i = 0; i < str->n && *len + 1 < cap; i++) {
        unsigned char c = (unsigned char)str->p[i];
        char esc[8];
        if (c == '\\' || c == (unsigned char)q) {
            esc[0] = '\\', esc[1] = (char)c;
            put(out, cap, len, esc, 2);
        } else if (c == '\n' || c == '\r' || c == '\t') {
            esc[0] = '\\', esc[1] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
            put(out, cap, len, esc, 2);
        } else if (c < 0x20 || c == 0x7f) {
            snprintf(esc, sizeof esc, "\\x%02x", c);
            put(out, cap, len, esc, 4);
        } else {
            put(out, cap, len, (const char *)&str->p[i], 1);
        }
    }
    put(out, cap, len, &q, 1);
}

/* The containers being written, outermost first: one met again is a container holding itself,
 * which Python writes as [...] or {...}. */
#define REPR_DEPTH 50
typedef struct {
    const void *open[REPR_DEPTH];
    int n;
} repr_path;

/* 1 when the list or dict x is on the path (being written around this point). */
static int on_path(const repr_path *path, const void *x) {
    for (int i = 0; i < path->n; i++)
        if (path->open[i] == x) return 1;
    return 0;
}

/* Writes x's text at out[*len]; as_str: str() of a string is itself, else repr with quotes.
 * Returns at once when out is full, so that the work is bounded by cap whatever x holds. */
static void repr_into(cc_val x, int as_str, char *out, size_t cap, size_t *len, repr_path *path) {
    char buf[64];
    if (*len + 1 >= cap) return;
    if (x.kind == CV_LIST || x.kind == CV_DICT) {
        const void *c = x.kind == CV_LIST ? (const void *)x.u.l : (const void *)x.u.d;
        int list = x.kind == CV_LIST;
        if (on_path(path, c) || path->n == REPR_DEPTH) { /* itself (or nested past the path's room) */
            put(out, cap, len, list ? "[...]" : "{...}", 5);
            return;
        }
        path->open[path->n++] = c;
        put(out, cap, len, list ? "[" : "{", 1);
        size_t n = list ? x.u.l->n : x.u.d->n;
        for (size_t i = 0; i < n && *len + 1 < cap; i++) {
            if (i) put(out, cap, len, ", ", 2);
            if (list) {
                repr_into(x.u.l->items[i], 0, out, cap, len, path);
                continue;
            }
            const cc_str *k = &x.u.d->keys[i];
            if (k->n >= 2 && k->p[0] == '\x01') { /* an int, float or None key (expr_eval.c's key_of) */
                put(out, cap, len, k->p[1] == 'n' ? "None" : k->p + 2, k->p[1] == 'n' ? 4 : k->n - 2);
                put(out, cap, len, ": ", 2);
            } else {
                put(out, cap, len, "'", 1);
                put(out, cap, len, k->p, k->n);
                put(out, cap, len, "': ", 3);
            }
            repr_into(x.u.d->vals[i], 0, out, cap, len, path);
        }
        put(out, cap, len, list ? "]" : "}", 1);
        path->n--;
        return;
    }
    switch (x.kind) {
    case CV_NONE: put(out, cap, len, "None", 4); return;
    case CV_BOOL: put(out, cap, len, x.u.i ? "True" : "False", x.u.i ? 4 : 5); return;
    case CV_INT:
        snprintf(buf, sizeof buf, "%lld", (long long)x.u.i);
        put(out, cap, len, buf, strlen(buf));
        return;
    case CV_FLOAT:
        float_text(x.u.f, buf, sizeof buf);
        put(out, cap, len, buf, strlen(buf));
        return;
    case CV_STR:
        if (as_str) put(out, cap, len, x.u.s->p, x.u.s->n);
        else str_repr(x.u.s, out, cap, len);
        return;
    default: put(out, cap, len, "<object>", 8); return;
    }
}

/* Writes str(x) (as_str) or repr(x) into out; cut with "..." when longer than cap. */
char *cc_repr(cc_val x, int as_str, char *out, size_t cap) {
    assert(out != NULL && cap >= 8);
    size_t len = 0;
    out[0] = '\0';
    repr_path path = {.n = 0};
    repr_into(x, as_str, out, cap - 3, &len, &path);
    if (len >= cap - 4) strcpy(out + len, "...");
    return out;
}
