/* engine.c: one log through MLCommons' compliance checks, as the checker runs them (mlp_compliance.py at
 * the logging commit of schemas/compliance_rules.json): the log's :::MLLOG lines read as its parser
 * reads them, then each rule file in the order the files enqueue each other, each with a fresh state:
 * BEGIN, per line PRE/CHECK/POST (once for submission_* keys), FIRST_CHECK and ATLEAST_ONE_CHECK, the
 * occurrence requirements, END. Failures are kept the way the checker keeps its messages (one slot per
 * key that a later failure of that key replaces and that a later file redefining the key clears; then
 * the failures not tied to a key), so that the first one left is the checker's first. Where the checker
 * itself stops with an exception, the log fails with the one rule "checker error", as the summarizer
 * drops such a run. */
#include "check/ruleset.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/package.h"
#include "common/check.h"
#include "common/file.h"

#define TOKEN ":::MLLOG "
#define TOKEN_LEN 9
#define MAX_LOG ((size_t)1 << 30)

typedef struct {
    long fileline;
    const char *key; /* NULL when the key is not a string */
    size_t keylen;
    double ts;
    cc_val ll, v;
} line_rec;

typedef struct {
    const char *key; /* the slot's key; NULL for a failure not tied to a key */
    int live;
    tta_check_failure f;
} slot;

typedef struct {
    const tta_check_rules *rules;
    cc_arena *a;
    line_rec *lines;
    size_t n_lines, cap_lines;
    long n_parse_errors, first_bad_line;
    char first_bad_why[160];
    const char **queue;
    size_t q_head, q_n, q_cap;
    slot *slots;
    size_t n_slots, cap_slots;
    int crashed;
    char crash[400];
    long crash_line;
    const char *crash_config;
    const cc_config *cfg; /* the file being run */
    cc_list *loglines;    /* the lines as the rules' BEGIN code sees them (`loglines`), made when first asked */
    const char *ruleset;
    int as_published;
    cc_seed_reader seeds; /* the seed checker's reading of the same lines (package.h) */
} run;

/* Copies the first line of a rule's text, whitespace collapsed, at most 120 characters. */
static char *first_line(const char *text) {
    char buf[128];
    size_t n = 0;
    int space = 0;
    for (const char *p = text; *p && *p != '\n' && n < 120; p++) {
        if (*p == ' ' || *p == '\t' || *p == '\r') {
            space = n > 0;
            continue;
        }
        if (space && n < 119) buf[n++] = ' ';
        space = 0;
        buf[n++] = *p;
    }
    buf[n] = '\0';
    return strdupCheck(buf);
}

/* Adds a failure: keyed (replacing the live slot of key, else a new slot) or not. */
static void add(run *r, const char *key, char *rule, long line, int cannot, const char *fmt, ...) {
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    slot *s = NULL;
    if (key)
        for (size_t i = 0; i < r->n_slots && !s; i++)
            if (r->slots[i].live && r->slots[i].key && strcmp(r->slots[i].key, key) == 0) s = &r->slots[i];
    if (s) {
        free(s->f.rule);
        free(s->f.message);
    } else {
        if (r->n_slots == r->cap_slots) growArray(r->slots, &r->cap_slots, r->n_slots + 1);
        s = &r->slots[r->n_slots++];
        memset(s, 0, sizeof *s);
        s->key = key;
        s->live = 1;
    }
    s->f.rule = rule;
    s->f.config = r->cfg ? (char *)r->cfg->name : NULL;
    s->f.line = line;
    s->f.message = strdupCheck(msg);
    s->f.cannot_evaluate = cannot;
}

/* The checker stops: record why (the first reason only). */
static void crash(run *r, long line, const char *fmt, ...) {
    if (r->crashed) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->crash, sizeof r->crash, fmt, ap);
    va_end(ap);
    r->crashed = 1;
    r->crash_line = line;
    r->crash_config = r->cfg ? r->cfg->name : NULL;
}

/* Records the crash and leaves the (void) function it is in. */
#define CRASH(...)          \
    do {                    \
        crash(__VA_ARGS__); \
        return;             \
    } while (0)

/* The enqueue_config callback: a copy of the name joins the queue. */
static void enqueue(void *user, const char *name, size_t n) {
    run *r = user;
    if (r->q_n == r->q_cap) {
        size_t cap = r->q_cap ? r->q_cap * 2 : 8;
        const char **q = cc_alloc(r->a, cap * sizeof *q);
        if (r->q_n) memcpy(q, r->queue, r->q_n * sizeof *q);
        r->queue = q;
        r->q_cap = cap;
    }
    r->queue[r->q_n++] = cc_strndup(r->a, name, n);
}

/* Python's float() of a string: whitespace around, '_' between digits, inf/nan spelt any case. */
static int py_float(const char *p, size_t n, double *out) {
    char buf[128];
    size_t m = 0;
    while (n && (*p == ' ' || (*p >= '\t' && *p <= '\r'))) p++, n--;
    while (n && (p[n - 1] == ' ' || (p[n - 1] >= '\t' && p[n - 1] <= '\r'))) n--;
    if (n == 0 || n >= sizeof buf) return -1;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '_') {
            if (i == 0 || i + 1 == n || !(p[i - 1] >= '0' && p[i - 1] <= '9') || !(p[i + 1] >= '0' && p[i + 1] <= '9')) return -1;
            continue;
        }
        if (p[i] == 'x' || p[i] == 'X' || p[i] == 'p' || p[i] == 'P') return -1; /* no hex floats */
        buf[m++] = p[i];
    }
    buf[m] = '\0';
    char *end;
    *out = strtod(buf, &end);
    return *end == '\0' ? 0 : -1;
}

/* Python's str.strip() set, for latin-1 text. */
static int py_space(unsigned char c) {
    return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f) || c == 0x85 || c == 0xa0;
}

/* One :::MLLOG line's JSON (json[0..n)) into a line record, as string_to_logline: a JSON error or a
 * time_ms that float() refuses is a parse error; a missing member stops the checker. */
static void read_line(run *r, long fileline, long lineno, const char *full, size_t full_n, const char *json, size_t n) {
    char why[160];
    cc_val m;
    int parsed = n > 0 && cc_json_parse(r->a, json, n, &m, why, sizeof why) == 0;
    cc_seeds_line(r->a, &r->seeds, fileline, parsed ? &m : NULL, n);
    if (!parsed) {
        if (n == 0) snprintf(why, sizeof why, "nothing after :::MLLOG");
        if (r->n_parse_errors++ == 0) {
            r->first_bad_line = fileline;
            snprintf(r->first_bad_why, sizeof r->first_bad_why, "%s", why);
        }
        return;
    }
    if (m.kind != CV_DICT) {
        crash(r, fileline, "TypeError: the line's JSON is a %s, not an object",
              m.kind == CV_LIST ? "list" : m.kind == CV_STR ? "string" : "number or constant");
        return;
    }
    cc_val *t = cc_dict_get(m.u.d, "time_ms", 7);
    if (!t) CRASH(r, fileline, "KeyError: 'time_ms'");
    double ts;
    if (t->kind == CV_STR) {
        if (py_float(t->u.s->p, t->u.s->n, &ts) != 0) {
            if (r->n_parse_errors++ == 0) {
                r->first_bad_line = fileline;
                snprintf(r->first_bad_why, sizeof r->first_bad_why, "time_ms is not a number");
            }
            return;
        }
    } else if (t->kind == CV_INT || t->kind == CV_BOOL) {
        ts = (double)t->u.i;
    } else if (t->kind == CV_FLOAT) {
        ts = t->u.f;
    } else {
        CRASH(r, fileline, "TypeError: time_ms is neither a number nor a string");
    }
    cc_val *key = cc_dict_get(m.u.d, "key", 3);
    if (!key) CRASH(r, fileline, "KeyError: 'key'");
    cc_val *value = cc_dict_get(m.u.d, "value", 5);
    if (!value) CRASH(r, fileline, "KeyError: 'value'");
    cc_val *meta = cc_dict_get(m.u.d, "metadata", 8);
    if (!meta) CRASH(r, fileline, "KeyError: 'metadata'");
    if (r->n_lines == r->cap_lines) {
        size_t cap = r->cap_lines ? r->cap_lines * 2 : 256;
        line_rec *l = cc_alloc(r->a, cap * sizeof *l);
        if (r->n_lines) memcpy(l, r->lines, r->n_lines * sizeof *l);
        r->lines = l;
        r->cap_lines = cap;
    }
    line_rec *l = &r->lines[r->n_lines++];
    l->fileline = fileline;
    l->ts = ts;
    if (key->kind == CV_STR) l->key = key->u.s->p, l->keylen = key->u.s->n;
    l->v = cc_new_dict(r->a);
    cc_dict_set(r->a, l->v.u.d, "value", 5, *value);
    cc_dict_set(r->a, l->v.u.d, "metadata", 8, *meta);
    l->ll = cc_new_dict(r->a);
    l->ll.kind = CV_OBJ;
    cc_val fs = {.kind = CV_STR};
    fs.u.s = cc_alloc(r->a, sizeof *fs.u.s);
    fs.u.s->p = full;
    fs.u.s->n = full_n;
    cc_dict_set(r->a, l->ll.u.d, "full_string", 11, fs);
    cc_dict_set(r->a, l->ll.u.d, "timestamp", 9, cc_float(ts));
    cc_dict_set(r->a, l->ll.u.d, "key", 3, *key);
    cc_dict_set(r->a, l->ll.u.d, "value", 5, l->v);
    cc_dict_set(r->a, l->ll.u.d, "lineno", 6, cc_int(lineno));
}

/* Finds the last TOKEN in p[0..n), or NULL. */
static const char *last_token(const char *p, size_t n) {
    const char *found = NULL, *q = p, *end = p + n;
    while ((q = memmem(q, (size_t)(end - q), TOKEN, TOKEN_LEN)) != NULL) found = q++;
    return found;
}

/* Splits data into lines (universal newlines: \n, \r\n, \r, as Python's text mode) and reads every
 * line holding :::MLLOG from its last token on (the parser's re.sub(".*" + TOKEN, TOKEN, line)). */
static void read_lines(run *r, const char *data, size_t len) {
    const char *p = data, *end = data + len;
    long fileline = 0, lineno = 0;
    while (p < end) { /* after the checker stops, on for the seed checker, which reads every line */
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e) e = end;
        const char *cr = memchr(p, '\r', (size_t)(e - p)); /* a lone CR ends a line too (universal newlines) */
        if (cr) e = cr;
        fileline++;
        const char *next = e < end ? (e[0] == '\r' && e + 1 < end && e[1] == '\n' ? e + 2 : e + 1) : e;
        const char *tok = e - p >= TOKEN_LEN ? last_token(p, (size_t)(e - p)) : NULL;
        if (tok) {
            const char *j = tok + TOKEN_LEN, *je = e;
            while (je > j && py_space((unsigned char)je[-1])) je--;
            if (!r->crashed) read_line(r, fileline, lineno++, tok, (size_t)(je - tok), j, (size_t)(je - j));
            else cc_seeds_text_line(r->a, &r->seeds, fileline, j, (size_t)(je - j));
        }
        p = next;
    }
}

/* Fresh locals {ll, v} for one rule call (Python gives each eval/exec its own). */
static cc_dict *locals_of(run *r, const line_rec *l) {
    cc_dict *d = cc_new_dict(r->a).u.d;
    cc_dict_set(r->a, d, "ll", 2, l->ll);
    cc_dict_set(r->a, d, "v", 1, l->v);
    return d;
}

/* "value X" of a line for messages. */
static const char *value_text(const line_rec *l, char *buf, size_t cap) {
    cc_val *v = cc_dict_get(l->v.u.d, "value", 5);
    return cc_repr(v ? *v : cc_none(), 0, buf, cap);
}

/* What an init-time rule measured, for its message: "; initialisation took 34.2 min". */
static void init_minutes(const cc_dict *s, const line_rec *l, const char *test, char *buf, size_t cap) {
    buf[0] = '\0';
    cc_val *first = strstr(test, "first_init_start") ? cc_dict_get(s, "first_init_start", 16) : NULL;
    if (first && first->kind == CV_FLOAT && first->u.f < 1e90)
        snprintf(buf, cap, "; initialisation took %.1f min", (l->ts - first->u.f) / 60000.0);
}

/* "KEY: <the test's first line>", the name of a CHECK rule (malloc'd). */
static char *check_rule(const cc_key *k, const char *fl) {
    char *rule = mallocCheck(strlen(k->name) + strlen(fl) + 3);
    sprintf(rule, "%s: %s", k->name, fl);
    return rule;
}

/* CHECK (or FIRST_CHECK) tests on a line: each failure takes the key's slot. */
static void run_checks(run *r, cc_env *env, cc_dict *s, const line_rec *l, const cc_key *k, const cc_code *tests, int n) {
    char vbuf[160], extra[80];
    for (int i = 0; i < n; i++) {
        const cc_code *t = &tests[i];
        int rc = CC_UNSUPPORTED;
        cc_val x;
        if (t->node) {
            env->locals = locals_of(r, l);
            rc = cc_eval(env, t->node, &x);
            if (rc == CC_OK && cc_truthy(x)) continue; /* holds: nothing to say */
        }
        char *fl = first_line(t->text);
        if (!t->node) {
            add(r, k->name, check_rule(k, fl), l->fileline, 1, "%s: tta cannot evaluate `%s` (%s)", k->name, fl, t->why);
        } else if (rc == CC_RAISE) {
            add(r, k->name, strdupCheck("error: CHECK"), l->fileline, 0, "%s: the rule `%s` raises %s on this line", k->name, fl, env->why);
        } else if (rc == CC_UNSUPPORTED) {
            add(r, k->name, check_rule(k, fl), l->fileline, 1, "%s: tta cannot evaluate `%s` (%s)", k->name, fl, env->why);
        } else {
            init_minutes(s, l, t->text, extra, sizeof extra);
            add(r, k->name, check_rule(k, fl), l->fileline, 0, "%s: the rule wants `%s`, but the line has value %s%s", k->name, fl,
                value_text(l, vbuf, sizeof vbuf), extra);
        }
        free(fl);
    }
}

/* PRE or POST code on a line. */
static void run_code(run *r, cc_env *env, const line_rec *l, const cc_key *k, const cc_code *c, const char *which) {
    char *fl = first_line(c->text);
    int rc = CC_UNSUPPORTED;
    if (c->node) {
        env->locals = locals_of(r, l);
        rc = cc_exec(env, c->node);
    }
    if (rc == CC_RAISE) {
        char rule[16];
        snprintf(rule, sizeof rule, "error: %s", which);
        add(r, k->name, strdupCheck(rule), l->fileline, 0, "%s: the %s code `%s` raises %s on this line", k->name, which, fl, env->why);
    } else if (rc == CC_UNSUPPORTED) {
        char *rule = mallocCheck(strlen(k->name) + strlen(which) + 8);
        sprintf(rule, "%s: %s", k->name, which);
        add(r, k->name, rule, l->fileline, 1, "%s: tta cannot evaluate the %s code `%s` (%s)", k->name, which, fl,
            c->node ? env->why : c->why);
    }
    free(fl);
}

/* The occurrence requirements of one key (count n, values vals). */
static void requirement(run *r, const cc_key *k, size_t n, const cc_val *vals) {
    const char *req = k->req;
    if (!req || (strcmp(req, "OPTIONAL") == 0 && n == 0)) return;
    char buf[64];
    if (strcmp(req, "EXACTLY_ONE") == 0 && n != 1) {
        int same = n > 0;
        for (size_t i = 1; i < n && same; i++) same = cc_equal(vals[i], vals[0]);
        if (same) return; /* the checker only warns: the same value logged more than once */
        snprintf(buf, sizeof buf, "%s: EXACTLY_ONE", k->name);
        char *rule = strdupCheck(buf);
        if (n == 0) add(r, k->name, rule, 0, 0, "%s must be logged exactly once; the log never logs it", k->name);
        else add(r, k->name, rule, 0, 0, "%s must be logged exactly once; the log has it %zu times, with different values", k->name, n);
    } else if (strcmp(req, "AT_LEAST_ONE") == 0 && n < 1) {
        snprintf(buf, sizeof buf, "%s: AT_LEAST_ONE", k->name);
        add(r, k->name, strdupCheck(buf), 0, 0, "%s must be logged at least once; the log never logs it", k->name);
    } else if (strncmp(req, "AT_LEAST(", 9) == 0) {
        char *end;
        long want = strtol(req + 9, &end, 10);
        if (end == req + 9 || strcmp(end, ")") != 0) CRASH(r, 0, "ValueError: invalid literal for int() in REQ %s", req);
        if ((long)n < want) {
            snprintf(buf, sizeof buf, "%s: AT_LEAST(%ld)", k->name, want);
            add(r, k->name, strdupCheck(buf), 0, 0, "%s must be logged at least %ld times; the log has it %zu times", k->name, want, n);
        }
    }
}

/* The AT_LEAST_ONE_OR groups: the key and its alternatives, names sorted; each group once. */
static void alternatives(run *r, const cc_config *c, const size_t *count) {
    char seen[16][256];
    int n_seen = 0;
    for (int i = 0; i < c->n_keys && !r->crashed; i++) {
        const cc_key *k = &c->keys[i];
        if (!k->req || strncmp(k->req, "AT_LEAST_ONE_OR(", 16) != 0) continue;
        const char *names[16];
        size_t lens[16];
        int nn = 0;
        names[nn] = k->name, lens[nn++] = strlen(k->name);
        const char *p = k->req + 16, *end = k->req + strlen(k->req) - 1;
        while (p <= end && nn < 16) {
            const char *q = p;
            while (q < end && *q != ',') q++;
            const char *a = p, *b = q;
            while (a < b && (*a == ' ' || *a == '\t')) a++;
            while (b > a && (b[-1] == ' ' || b[-1] == '\t')) b--;
            int dup = 0;
            for (int j = 0; j < nn; j++) dup |= lens[j] == (size_t)(b - a) && memcmp(names[j], a, lens[j]) == 0;
            if (!dup) names[nn] = a, lens[nn++] = (size_t)(b - a);
            p = q + 1;
        }
        for (int x = 1; x < nn; x++) /* sort the names */
            for (int y = x; y > 0; y--) {
                size_t m = lens[y] < lens[y - 1] ? lens[y] : lens[y - 1];
                int cmp = memcmp(names[y], names[y - 1], m);
                if (cmp > 0 || (cmp == 0 && lens[y] >= lens[y - 1])) break;
                const char *t = names[y]; names[y] = names[y - 1]; names[y - 1] = t;
                size_t tl = lens[y]; lens[y] = lens[y - 1]; lens[y - 1] = tl;
            }
        char rule[256] = "", said[256] = "";
        size_t any = 0;
        for (int j = 0; j < nn; j++) {
            const cc_key *alt = cc_key_find(c, names[j], lens[j]);
            if (!alt) CRASH(r, 0, "KeyError: '%.*s' (an AT_LEAST_ONE_OR alternative with no rule)", (int)lens[j], names[j]);
            any += count[alt - c->keys];
            snprintf(rule + strlen(rule), sizeof rule - strlen(rule), "%s%.*s", j ? "|" : "", (int)lens[j], names[j]);
            snprintf(said + strlen(said), sizeof said - strlen(said), "%s%.*s", j ? " or " : "", (int)lens[j], names[j]);
        }
        int dup = 0;
        for (int j = 0; j < n_seen; j++) dup |= strcmp(seen[j], rule) == 0;
        if (dup || n_seen == 16) continue;
        snprintf(seen[n_seen++], sizeof seen[0], "%s", rule);
        if (any == 0) {
            strncat(rule, ": AT_LEAST_ONE_OR", sizeof rule - strlen(rule) - 1);
            add(r, NULL, strdupCheck(rule), 0, 0, "the log must have %s; it has none of them", said);
        }
    }
}

/* Lines the BEGIN code added to `loglines` (stable diffusion's aggregated_eval_accuracy) become
 * lines of the log for this file and the next, as in the checker (it extends its own list). */
static void adopt_lines(run *r) {
    for (size_t i = r->n_lines; i < r->loglines->n; i++) {
        cc_val o = r->loglines->items[i];
        if (r->n_lines == r->cap_lines) {
            size_t cap = r->cap_lines ? r->cap_lines * 2 : 256;
            line_rec *l = cc_alloc(r->a, cap * sizeof *l);
            if (r->n_lines) memcpy(l, r->lines, r->n_lines * sizeof *l);
            r->lines = l;
            r->cap_lines = cap;
        }
        line_rec *l = &r->lines[r->n_lines++];
        memset(l, 0, sizeof *l);
        l->ll = o;
        l->v = cc_new_dict(r->a);
        if (o.kind != CV_OBJ) continue; /* not a line: its key lookup fails, the checker skips it too */
        cc_val *k = cc_dict_get(o.u.d, "key", 3), *t = cc_dict_get(o.u.d, "timestamp", 9), *v = cc_dict_get(o.u.d, "value", 5);
        if (k && k->kind == CV_STR) l->key = k->u.s->p, l->keylen = k->u.s->n;
        if (t && (t->kind == CV_FLOAT || t->kind == CV_INT)) l->ts = t->kind == CV_FLOAT ? t->u.f : (double)t->u.i;
        if (v && v->kind == CV_DICT && cc_dict_get(v->u.d, "value", 5)) l->v = *v;
        else l->key = NULL; /* v['value'] would raise: the checker skips the line */
    }
}

/* One rule file over every line (the checker's configured_checks). */
static void run_config(run *r, const char *name) {
    const cc_config *c = cc_config_find_as(r->rules, r->ruleset, r->as_published, name, strlen(name));
    if (!c) CRASH(r, 0, "FileNotFoundError: no rule file %s (the log names a division or benchmark that ruleset lacks)", name);
    r->cfg = c;
    cc_dict *s;
    cc_env env = {.arena = r->a, .enqueue = enqueue, .user = r};
    env.globals = cc_make_globals(r->a, &s);
    if (c->has_begin) {
        env.locals = cc_new_dict(r->a).u.d;
        if (!r->loglines) {
            r->loglines = cc_new_list(r->a).u.l;
            for (size_t i = 0; i < r->n_lines; i++) cc_list_push(r->a, r->loglines, r->lines[i].ll);
        }
        cc_val ll = {.kind = CV_LIST, .u.l = r->loglines};
        cc_dict_set(r->a, env.locals, "loglines", 8, ll);
        int rc = c->begin.node ? cc_exec(&env, c->begin.node) : CC_UNSUPPORTED;
        if (rc == CC_RAISE) CRASH(r, 0, "the BEGIN code raises %s", env.why);
        if (rc == CC_UNSUPPORTED)
            add(r, NULL, strdupCheck("BEGIN code"), 0, 1, "tta cannot evaluate the BEGIN code of %s (%s)", name, c->begin.node ? env.why : c->begin.why);
        adopt_lines(r);
    }
    for (size_t i = 0; i < r->n_slots; i++) /* this file's keys replace earlier files' messages about them */
        if (r->slots[i].live && r->slots[i].key && cc_key_find(c, r->slots[i].key, strlen(r->slots[i].key))) {
            r->slots[i].live = 0;
            free(r->slots[i].f.rule);
            free(r->slots[i].f.message);
            r->slots[i].f.rule = r->slots[i].f.message = NULL;
        }
    int nk = c->n_keys;
    size_t *count = cc_alloc(r->a, (size_t)(nk + 1) * sizeof *count);
    cc_list **vals = cc_alloc(r->a, (size_t)(nk + 1) * sizeof *vals);
    char *executed = cc_alloc(r->a, (size_t)nk + 1), *first_seen = cc_alloc(r->a, (size_t)nk + 1);
    int *atl_order = cc_alloc(r->a, (size_t)(nk + 1) * sizeof *atl_order);
    long *atl_pass = cc_alloc(r->a, (size_t)(nk + 1) * sizeof *atl_pass), *atl_unsup = cc_alloc(r->a, (size_t)(nk + 1) * sizeof *atl_unsup);
    char *atl_seen = cc_alloc(r->a, (size_t)nk + 1);
    const line_rec **atl_last = cc_alloc(r->a, (size_t)(nk + 1) * sizeof *atl_last);
    int n_atl = 0;
    for (size_t li = 0; li < r->n_lines && !r->crashed; li++) {
        const line_rec *l = &r->lines[li];
        if (!l->key) continue;
        const cc_key *k = cc_key_find(c, l->key, l->keylen);
        if (!k) continue;
        int ki = (int)(k - c->keys);
        count[ki]++;
        if (!vals[ki]) vals[ki] = cc_new_list(r->a).u.l;
        cc_list_push(r->a, vals[ki], *cc_dict_get(l->v.u.d, "value", 5));
        if (!executed[ki]) {
            if (k->has_pre) run_code(r, &env, l, k, &k->pre, "PRE");
            if (k->n_check) run_checks(r, &env, s, l, k, k->check, k->n_check);
            if (k->has_post) run_code(r, &env, l, k, &k->post, "POST");
        }
        if (k->n_first_check && !first_seen[ki]) {
            first_seen[ki] = 1;
            run_checks(r, &env, s, l, k, k->first_check, k->n_first_check);
        }
        if (k->has_atleast) {
            if (!atl_seen[ki]) atl_seen[ki] = 1, atl_order[n_atl++] = ki;
            atl_last[ki] = l;
            cc_val x;
            int rc = CC_UNSUPPORTED;
            if (k->atleast.node) {
                env.locals = locals_of(r, l);
                rc = cc_eval(&env, k->atleast.node, &x);
            }
            if (rc == CC_RAISE) CRASH(r, l->fileline, "ATLEAST_ONE_CHECK of %s raises %s", k->name, env.why);
            if (rc == CC_UNSUPPORTED) atl_unsup[ki]++;
            else if (cc_truthy(x)) atl_pass[ki]++;
        }
        if (k->once) executed[ki] = 1; /* the key's name is the line's */
    }
    if (r->crashed) return;
    char vbuf[160];
    for (int i = 0; i < n_atl; i++) {
        int ki = atl_order[i];
        if (atl_pass[ki]) continue;
        const cc_key *k = &c->keys[ki];
        char *fl = first_line(k->atleast.text), rule[160];
        snprintf(rule, sizeof rule, "%s: ATLEAST_ONE_CHECK", k->name);
        if (atl_unsup[ki])
            add(r, NULL, strdupCheck(rule), atl_last[ki]->fileline, 1, "%s: tta cannot evaluate `%s` (%s)", k->name, fl,
                k->atleast.node ? "an operation outside tta's subset" : k->atleast.why);
        else
            add(r, NULL, strdupCheck(rule), atl_last[ki]->fileline, 0, "no %s line satisfies `%s`; the last has value %s", k->name, fl,
                value_text(atl_last[ki], vbuf, sizeof vbuf));
        free(fl);
    }
    for (int i = 0; i < nk && !r->crashed; i++)
        requirement(r, &c->keys[i], count[i], vals[i] ? vals[i]->items : NULL);
    alternatives(r, c, count);
    if (r->crashed || !c->has_end) return;
    env.locals = NULL;
    if (c->has_end_pre) {
        env.locals = cc_new_dict(r->a).u.d;
        int rc = c->end_pre.node ? cc_exec(&env, c->end_pre.node) : CC_UNSUPPORTED;
        if (rc == CC_RAISE) CRASH(r, 0, "END PRE raises %s", env.why);
        if (rc == CC_UNSUPPORTED) add(r, NULL, strdupCheck("END: PRE"), 0, 1, "tta cannot evaluate the END code of %s", name);
    }
    for (int i = 0; i < c->n_end_check; i++) {
        const cc_code *t = &c->end_check[i];
        char *fl = first_line(t->text);
        char *rule = mallocCheck(strlen(fl) + 8);
        sprintf(rule, "END: %s", fl);
        cc_val x;
        env.locals = cc_new_dict(r->a).u.d;
        int rc = t->node ? cc_eval(&env, t->node, &x) : CC_UNSUPPORTED;
        if (rc == CC_RAISE) {
            free(rule);
            add(r, NULL, strdupCheck("error: CHECK"), 0, 0, "at the end of the log, `%s` raises %s", fl, env.why);
        } else if (rc == CC_UNSUPPORTED) {
            add(r, NULL, rule, 0, 1, "tta cannot evaluate `%s` (%s)", fl, t->node ? env.why : t->why);
        } else if (!cc_truthy(x)) {
            add(r, NULL, rule, 0, 0, "at the end of the log `%s` does not hold (the tensors initialised or the values seen differ from the rule's)", fl);
        } else {
            free(rule);
        }
        free(fl);
    }
}

/* The first string value logged for key, or NULL. */
static char *first_string(const run *r, const char *key) {
    size_t n = strlen(key);
    for (size_t i = 0; i < r->n_lines; i++) {
        const line_rec *l = &r->lines[i];
        if (!l->key || l->keylen != n || memcmp(l->key, key, n) != 0) continue;
        cc_val *v = cc_dict_get(l->v.u.d, "value", 5);
        return v && v->kind == CV_STR ? strndupCheck(v->u.s->p, v->u.s->n) : NULL;
    }
    return NULL;
}

/* Checks one log's text in a fresh arena. */
int tta_check_log_text(const tta_check_rules *rules, const char *ruleset, unsigned flags, const char *path, const char *data,
                       size_t len, tta_check_log *out, tta_error *err) {
    cc_arena a = {0};
    int rc = cc_check_text(rules, ruleset, flags, path, data, len, &a, out, err);
    cc_arena_free(&a);
    return rc;
}

/* Checks one log's text with the scratch arena. */
int cc_check_text(const tta_check_rules *rules, const char *ruleset, unsigned flags, const char *path, const char *data,
                  size_t len, cc_arena *scratch, tta_check_log *out, tta_error *err) {
    assert(rules && ruleset && path && out && scratch && (data || len == 0));
    memset(out, 0, sizeof *out);
    if (!tta_check_rules_has(rules, ruleset))
        return tta_fail(err, TTA_ENOTFOUND, "%s: no compliance rules for ruleset %s (tta has %s)", path, ruleset,
                        tta_check_rules_rulesets(rules));
    run r = {.rules = rules, .a = scratch, .ruleset = ruleset, .as_published = (flags & TTA_CHECK_AS_PUBLISHED) != 0};
    read_lines(&r, data ? data : "", len);
    if (!r.crashed && r.n_parse_errors)
        add(&r, NULL, strdupCheck("parse errors"), r.first_bad_line, 0,
            "%ld :::MLLOG line%s cannot be read (the first: %s), and the checker fails a log with such lines",
            r.n_parse_errors, r.n_parse_errors == 1 ? "" : "s", r.first_bad_why);
    if (!r.crashed && r.n_lines == 0 && r.n_parse_errors == 0)
        add(&r, NULL, strdupCheck("no log lines"), 0, 0, "the file has no :::MLLOG line");
    char first[64];
    snprintf(first, sizeof first, "training_%s/common.yaml", ruleset);
    enqueue(&r, first, strlen(first));
    while (!r.crashed && r.q_head < r.q_n) run_config(&r, r.queue[r.q_head++]);
    out->path = strdupCheck(path);
    snprintf(out->ruleset, sizeof out->ruleset, "%s", ruleset);
    out->benchmark = first_string(&r, "submission_benchmark");
    out->division = first_string(&r, "submission_division");
    if (r.crashed) {
        for (size_t i = 0; i < r.n_slots; i++) free(r.slots[i].f.rule), free(r.slots[i].f.message);
        out->failures = callocCheck(1, sizeof *out->failures);
        out->n_failures = 1;
        tta_check_failure *f = &out->failures[0];
        f->rule = strdupCheck("checker error");
        f->config = r.crash_config ? (char *)r.crash_config : NULL;
        f->line = r.crash_line;
        char msg[600];
        snprintf(msg, sizeof msg, "MLCommons' checker stops with an exception on this log (%s), so the summarizer drops the run", r.crash);
        f->message = strdupCheck(msg);
        out->verdict = TTA_CHECK_FAIL;
    } else {
        size_t n = 0;
        for (size_t i = 0; i < r.n_slots; i++) n += r.slots[i].live;
        out->failures = callocCheck(n ? n : 1, sizeof *out->failures);
        int fail = 0, unknown = 0;
        for (int pass = 0; pass < 2; pass++) /* keyed slots first, then the others, as the checker prints */
            for (size_t i = 0; i < r.n_slots; i++) {
                slot *s = &r.slots[i];
                if (!s->live || (pass == 0) != (s->key != NULL)) continue;
                out->failures[out->n_failures++] = s->f;
                fail |= !s->f.cannot_evaluate;
                unknown |= s->f.cannot_evaluate;
            }
        out->verdict = fail ? TTA_CHECK_FAIL : unknown ? TTA_CHECK_UNKNOWN : TTA_CHECK_PASS;
    }
    free(r.slots);
    out->seeds_status = cc_seeds_status(&r.seeds);
    out->seeds_why = out->seeds_status ? strdupCheck(r.seeds.why) : NULL;
    out->seeds = callocCheck(r.seeds.n ? r.seeds.n : 1, sizeof *out->seeds);
    for (size_t i = 0; i < r.seeds.n; i++)
        out->seeds[out->n_seeds++] = (struct tta_check_seed){strdupCheck(r.seeds.seeds[i].where),
                                                             strdupCheck(r.seeds.seeds[i].seed), r.seeds.seeds[i].line};
    cc_arena_reset(scratch);
    return TTA_OK;
}

/* Reads and checks one log file with the scratch arena. */
int cc_check_file(const tta_check_rules *rules, const char *ruleset, unsigned flags, const char *path, cc_arena *scratch,
                  tta_check_log *out, tta_error *err) {
    tta_file f;
    memset(out, 0, sizeof *out);
    int rc = tta_file_load(path, MAX_LOG, "a result log", TTA_FILE_MAP_LARGE, &f, err);
    if (rc) return rc;
    rc = cc_check_text(rules, ruleset, flags, path, f.data, f.len, scratch, out, err);
    tta_file_free(&f);
    return rc;
}

/* Reads and checks one log file. */
int tta_check_log_file(const tta_check_rules *rules, const char *ruleset, unsigned flags, const char *path, tta_check_log *out,
                       tta_error *err) {
    cc_arena a = {0};
    int rc = cc_check_file(rules, ruleset, flags, path, &a, out, err);
    cc_arena_free(&a);
    return rc;
}

/* Frees a log's verdict. */
void tta_check_log_free(tta_check_log *log) {
    if (!log) return;
    for (size_t i = 0; i < log->n_failures; i++) {
        free(log->failures[i].rule);
        free(log->failures[i].message);
    }
    free(log->failures);
    for (size_t i = 0; i < log->n_seeds; i++) free(log->seeds[i].where), free(log->seeds[i].seed);
    free(log->seeds);
    free(log->seeds_why);
    free(log->path);
    free(log->benchmark);
    free(log->division);
    memset(log, 0, sizeof *log);
}
