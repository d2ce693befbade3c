/* expr.h: check/'s own contract (not public): the values, the arena, and the small Python subset in
 * which MLCommons' compliance rules are written (schemas/compliance_rules.json, docs/compliance.md).
 *
 * The rules are Python expressions (CHECK, ATLEAST_ONE_CHECK, END CHECK) and statements (BEGIN, PRE,
 * POST) over a log line `ll` (timestamp, key, value, lineno), its value `v` ({'value', 'metadata'}) and
 * the state dict `s`. tta parses each once (cc_parse_expr, cc_parse_code) and evaluates it per line
 * (cc_eval, cc_exec) with Python's semantics for what the rules use: None, bools, 64-bit ints,
 * floats, strings, lists, dicts; arithmetic, comparisons (chained), and/or/not, `in`, x if c else y,
 * subscripts, attribute access, calls of a few builtins (min max abs len sorted int float str bool
 * round isinstance is_integer, math.ceil/floor/log2/log/sqrt, str.format, dict.update/get,
 * list.append, enqueue_config), assignments, `+=` and `if` blocks.
 *
 * An evaluation ends in one of three ways: CC_OK, CC_RAISE (Python would raise an exception: a
 * missing key, a type error, a division by zero; the checker counts that as a failed rule) or
 * CC_UNSUPPORTED (what tta cannot evaluate: syntax or a builtin outside the subset, an integer past
 * 64 bits), which the checker reports as "cannot evaluate", never as a pass or a failure.
 */
#ifndef TTA_CHECK_EXPR_H
#define TTA_CHECK_EXPR_H

#include <stddef.h>
#include <stdint.h>

/* ---- arena: every value of one log's check, freed at once ---- */
typedef struct cc_chunk cc_chunk;
typedef struct {
    cc_chunk *head;
    cc_chunk *spare; /* chunks kept by cc_arena_reset for the next allocations */
    size_t spare_bytes;
} cc_arena;

/* Returns n zeroed bytes from a (aligned for any value); ends the process on out-of-memory. */
void *cc_alloc(cc_arena *a, size_t n);
/* Returns n bytes from a, not zeroed (for buffers the caller fills). */
void *cc_alloc_raw(cc_arena *a, size_t n);
/* Frees every allocation of a; a is empty (reusable) afterwards. */
void cc_arena_free(cc_arena *a);
/* Forgets every allocation of a but keeps its memory for the next ones (a worker checking many logs). */
void cc_arena_reset(cc_arena *a);
/* Copies n bytes of s into a, NUL-terminated. */
char *cc_strndup(cc_arena *a, const char *s, size_t n);

/* ---- values ---- */
enum { CV_NONE, CV_BOOL, CV_INT, CV_FLOAT, CV_STR, CV_LIST, CV_DICT, CV_FUNC, CV_METHOD, CV_OBJ };

typedef struct cc_str cc_str;
typedef struct cc_list cc_list;
typedef struct cc_dict cc_dict;
typedef struct cc_method cc_method;

typedef struct {
    int kind;
    union {
        int64_t i; /* CV_BOOL (0/1), CV_INT */
        double f;  /* CV_FLOAT */
        cc_str *s;
        cc_list *l;    /* CV_LIST (tuples too) */
        cc_dict *d;    /* CV_DICT, CV_OBJ (its attributes) */
        cc_method *m;  /* CV_METHOD: a bound method */
        int fn;        /* CV_FUNC: a builtin, CC_FN_* */
    } u;
} cc_val;

struct cc_str {
    size_t n;
    const char *p;
};
struct cc_list {
    size_t n, cap;
    cc_val *items;
};
struct cc_dict {
    size_t n, cap;
    cc_str *keys;
    cc_val *vals;
};
struct cc_method {
    cc_val self;
    int fn;
};

/* Value constructors (strings and containers live in a). */
cc_val cc_none(void);
cc_val cc_bool(int b);
cc_val cc_int(int64_t i);
cc_val cc_float(double f);
cc_val cc_strv(cc_arena *a, const char *p, size_t n);
cc_val cc_new_list(cc_arena *a);
cc_val cc_new_dict(cc_arena *a);
/* Appends x to list l. */
void cc_list_push(cc_arena *a, cc_list *l, cc_val x);
/* Sets d[key] (replacing an existing key's value, keeping its place). */
void cc_dict_set(cc_arena *a, cc_dict *d, const char *key, size_t klen, cc_val x);
/* Returns a pointer to d[key]'s value, or NULL when d has no such key. */
cc_val *cc_dict_get(const cc_dict *d, const char *key, size_t klen);

/* Python's truth value of x. */
int cc_truthy(cc_val x);
/* Python's x == y (numbers across int/float/bool, strings, lists and dicts element-wise). */
int cc_equal(cc_val x, cc_val y);
/* Writes Python's str(x) (repr inside containers) into out (cap bytes, NUL-terminated, cut with
 * "..." when longer); returns out. */
char *cc_repr(cc_val x, int as_str, char *out, size_t cap);

/* ---- the rules' code ---- */
typedef struct cc_node cc_node;

/* An evaluation's end. */
enum { CC_OK = 0, CC_RAISE = 1, CC_UNSUPPORTED = 2 };

/* Where a rule runs: the names it sees and what it may call back. */
typedef struct {
    cc_arena *arena;   /* the values made while checking one log */
    cc_dict *globals;  /* s, math, is_integer, enqueue_config */
    cc_dict *locals;   /* ll, v, and names the code assigns */
    void (*enqueue)(void *user, const char *config, size_t n); /* enqueue_config(...) */
    void *user;
    char why[200];     /* CC_RAISE: Python's exception; CC_UNSUPPORTED: what tta cannot evaluate */
} cc_env;

/* Parses the expression text (Python eval mode) into *out, its nodes in a (the rules' arena).
 * Returns CC_OK, or CC_UNSUPPORTED with the reason in why (cap bytes): a syntax error or syntax
 * outside the subset. */
int cc_parse_expr(cc_arena *a, const char *text, cc_node **out, char *why, size_t cap);
/* Parses statements (Python exec mode) likewise. */
int cc_parse_code(cc_arena *a, const char *text, cc_node **out, char *why, size_t cap);

/* Evaluates expression e in env into *out. Returns CC_OK, CC_RAISE or CC_UNSUPPORTED (env->why). */
int cc_eval(cc_env *env, const cc_node *e, cc_val *out);
/* Executes statements code in env. Returns as cc_eval. */
int cc_exec(cc_env *env, const cc_node *code);

/* Makes the globals every rule file starts with: s (an empty dict), math, is_integer,
 * enqueue_config. Returns the dict; *s_out is s. */
cc_dict *cc_make_globals(cc_arena *a, cc_dict **s_out);

/* ---- a log line's JSON ---- */
/* Parses the JSON text p[0..n) as Python's json.loads does (ints and floats told apart, NaN and
 * Infinity allowed, the last of duplicate keys kept) into *out. Returns 0, or -1 with the reason
 * in why (cap bytes). */
int cc_json_parse(cc_arena *a, const char *p, size_t n, cc_val *out, char *why, size_t cap);

#endif
