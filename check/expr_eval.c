/* expr_eval.c: evaluates the rules' trees (expr_node.h) with Python's semantics for the subset in
 * expr.h: where Python would raise, CC_RAISE with the exception; where tta cannot follow Python (an
 * int past 64 bits, a builtin outside the subset), CC_UNSUPPORTED. */
#include "check/expr_node.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sets env->why and returns code (CC_RAISE or CC_UNSUPPORTED). */
static int stop(cc_env *env, int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(env->why, sizeof env->why, fmt, ap);
    va_end(ap);
    return code;
}

static const char *type_name(cc_val x) {
    static const char *const names[] = {"NoneType", "bool", "int", "float", "str", "list", "dict",
                                        "builtin_function_or_method", "method", "object"};
    return names[x.kind];
}

static int is_num(cc_val x) { return x.kind == CV_BOOL || x.kind == CV_INT || x.kind == CV_FLOAT; }

/* A dict key for k: a string is itself; an int (or a bool, or a float equal to an int, which Python
 * hashes alike), a float or None is written after a 0x01 byte into buf (32 bytes). Lists and dicts
 * are unhashable (TypeError). */
static int key_of(cc_env *env, cc_val k, char *buf, const char **p, size_t *n) {
    switch (k.kind) {
    case CV_STR: *p = k.u.s->p, *n = k.u.s->n; return CC_OK;
    case CV_BOOL:
    case CV_INT: snprintf(buf, 32, "\x01i%lld", (long long)k.u.i); break;
    case CV_FLOAT:
        if (k.u.f == floor(k.u.f) && fabs(k.u.f) < 9e18) snprintf(buf, 32, "\x01i%lld", (long long)k.u.f);
        else snprintf(buf, 32, "\x01f%.17g", k.u.f);
        break;
    case CV_NONE: snprintf(buf, 32, "\x01n"); break;
    case CV_LIST:
    case CV_DICT: return stop(env, CC_RAISE, "TypeError: unhashable type: '%s'", k.kind == CV_LIST ? "list" : "dict");
    default: return stop(env, CC_UNSUPPORTED, "a dict key of type %s", k.kind == CV_OBJ ? "object" : "function");
    }
    *p = buf, *n = strlen(buf);
    return CC_OK;
}

/* The value of a dict key as key_of wrote it. */
static cc_val value_of_key(cc_env *env, const cc_str *k) {
    if (k->n >= 2 && k->p[0] == '\x01') {
        if (k->p[1] == 'i') return cc_int(strtoll(k->p + 2, NULL, 10));
        if (k->p[1] == 'f') return cc_float(strtod(k->p + 2, NULL));
        if (k->p[1] == 'n') return cc_none();
    }
    cc_val v = {.kind = CV_STR};
    v.u.s = (cc_str *)k;
    (void)env;
    return v;
}
static double as_f(cc_val x) { return x.kind == CV_FLOAT ? x.u.f : (double)x.u.i; }

typedef struct {
    const char *name;
    int fn;
} builtin;

static const builtin BUILTINS[] = {
    {"min", CC_FN_MIN},     {"max", CC_FN_MAX},         {"abs", CC_FN_ABS},       {"len", CC_FN_LEN},
    {"sorted", CC_FN_SORTED}, {"int", CC_FN_INT},       {"float", CC_FN_FLOAT},   {"str", CC_FN_STR},
    {"bool", CC_FN_BOOL},   {"round", CC_FN_ROUND},     {"isinstance", CC_FN_ISINSTANCE},
    {"list", CC_FN_LIST},   {"dict", CC_FN_DICT},       {"replace", CC_FN_REPLACE}, {NULL, 0}};

static const builtin MATH[] = {{"ceil", CC_FN_CEIL}, {"floor", CC_FN_FLOOR}, {"log2", CC_FN_LOG2},
                               {"log", CC_FN_LOG},   {"log10", CC_FN_LOG10}, {"sqrt", CC_FN_SQRT},
                               {"exp", CC_FN_EXP},   {"isclose", CC_FN_ISCLOSE}, {NULL, 0}};

/* The globals of a rule file: s, math (an object of its functions and constants), is_integer and
 * enqueue_config, as the checker's state dict holds them. */
cc_dict *cc_make_globals(cc_arena *a, cc_dict **s_out) {
    cc_dict *g = cc_new_dict(a).u.d;
    cc_val s = cc_new_dict(a);
    cc_dict_set(a, g, "s", 1, s);
    cc_val math = cc_new_dict(a);
    math.kind = CV_OBJ;
    for (int i = 0; MATH[i].name; i++) {
        cc_val f = {.kind = CV_FUNC, .u.fn = MATH[i].fn};
        cc_dict_set(a, math.u.d, MATH[i].name, strlen(MATH[i].name), f);
    }
    cc_dict_set(a, math.u.d, "pi", 2, cc_float(M_PI));
    cc_dict_set(a, math.u.d, "e", 1, cc_float(M_E));
    cc_dict_set(a, math.u.d, "inf", 3, cc_float(INFINITY));
    cc_dict_set(a, g, "math", 4, math);
    cc_val f = {.kind = CV_FUNC, .u.fn = CC_FN_IS_INTEGER};
    cc_dict_set(a, g, "is_integer", 10, f);
    f.u.fn = CC_FN_ENQUEUE;
    cc_dict_set(a, g, "enqueue_config", 14, f);
    if (s_out) *s_out = s.u.d;
    return g;
}

/* Looks a name up: locals, globals, builtins (NameError otherwise). */
static int lookup(cc_env *env, const char *name, cc_val *out) {
    size_t n = strlen(name);
    cc_val *v = env->locals ? cc_dict_get(env->locals, name, n) : NULL;
    if (!v) v = cc_dict_get(env->globals, name, n);
    if (v) {
        *out = *v;
        return CC_OK;
    }
    for (int i = 0; BUILTINS[i].name; i++)
        if (strcmp(BUILTINS[i].name, name) == 0) {
            out->kind = CV_FUNC;
            out->u.fn = BUILTINS[i].fn;
            return CC_OK;
        }
    return stop(env, CC_RAISE, "NameError: name '%s' is not defined", name);
}

/* int64 arithmetic with overflow detection (Python's ints have no bound; tta's stop at 64 bits). */
static int int_op(cc_env *env, int op, int64_t a, int64_t b, cc_val *out) {
    int64_t r = 0;
    switch (op) {
    case OP_ADD: if (__builtin_add_overflow(a, b, &r)) goto big; break;
    case OP_SUB: if (__builtin_sub_overflow(a, b, &r)) goto big; break;
    case OP_MUL: if (__builtin_mul_overflow(a, b, &r)) goto big; break;
    case OP_FLOORDIV:
    case OP_MOD:
        if (b == 0) return stop(env, CC_RAISE, "ZeroDivisionError: integer division or modulo by zero");
        if (a == INT64_MIN && b == -1) goto big;
        r = op == OP_FLOORDIV ? a / b : a % b;
        if (op == OP_FLOORDIV && (a % b != 0) && ((a < 0) != (b < 0))) r--;
        if (op == OP_MOD && r != 0 && ((r < 0) != (b < 0))) r += b;
        break;
    case OP_POW:
        if (b < 0) {
            if (a == 0) return stop(env, CC_RAISE, "ZeroDivisionError: 0.0 cannot be raised to a negative power");
            *out = cc_float(pow((double)a, (double)b));
            return CC_OK;
        }
        r = 1;
        for (int64_t i = 0; i < b; i++) {
            if (__builtin_mul_overflow(r, a, &r)) goto big;
            if (r == 0 || r == 1) break;
        }
        if (r == 1 && a == -1 && (b % 2)) r = -1;
        break;
    case OP_BITOR: r = a | b; break;
    case OP_BITAND: r = a & b; break;
    case OP_BITXOR: r = a ^ b; break;
    default: return stop(env, CC_UNSUPPORTED, "operator %d on ints", op);
    }
    *out = cc_int(r);
    return CC_OK;
big:
    return stop(env, CC_UNSUPPORTED, "an integer past 64 bits");
}

/* Python's binary operators on x and y. */
static int binop(cc_env *env, int op, cc_val x, cc_val y, cc_val *out) {
    static const char *const sym[] = {"+", "-", "*", "/", "//", "%", "**", "|", "&", "^"};
    if ((op == OP_BITOR || op == OP_BITAND || op == OP_BITXOR) && x.kind == CV_BOOL && y.kind == CV_BOOL) {
        int64_t r = op == OP_BITOR ? (x.u.i | y.u.i) : op == OP_BITAND ? (x.u.i & y.u.i) : (x.u.i ^ y.u.i);
        *out = cc_bool((int)r);
        return CC_OK;
    }
    if (is_num(x) && is_num(y)) {
        if (op == OP_DIV) {
            if (as_f(y) == 0.0) return stop(env, CC_RAISE, "ZeroDivisionError: division by zero");
            if (x.kind != CV_FLOAT && y.kind != CV_FLOAT) {
                /* int / int: exact when both fit a double's mantissa, as Python rounds the true quotient */
                *out = cc_float((double)x.u.i / (double)y.u.i);
                return CC_OK;
            }
            *out = cc_float(as_f(x) / as_f(y));
            return CC_OK;
        }
        if (x.kind != CV_FLOAT && y.kind != CV_FLOAT) return int_op(env, op, x.u.i, y.u.i, out);
        if (op == OP_BITOR || op == OP_BITAND || op == OP_BITXOR) goto type_error;
        double a = as_f(x), b = as_f(y), r;
        switch (op) {
        case OP_ADD: r = a + b; break;
        case OP_SUB: r = a - b; break;
        case OP_MUL: r = a * b; break;
        case OP_FLOORDIV:
        case OP_MOD:
            if (b == 0.0) return stop(env, CC_RAISE, "ZeroDivisionError: float modulo");
            r = op == OP_FLOORDIV ? floor(a / b) : a - floor(a / b) * b;
            if (op == OP_MOD) {
                r = fmod(a, b);
                if (r != 0.0 && ((r < 0) != (b < 0))) r += b;
            }
            break;
        case OP_POW:
            if (a == 0.0 && b < 0) return stop(env, CC_RAISE, "ZeroDivisionError: 0.0 cannot be raised to a negative power");
            if (a < 0 && b != floor(b)) return stop(env, CC_UNSUPPORTED, "a negative number to a fractional power (complex)");
            r = pow(a, b);
            if (isinf(r) && !isinf(a) && !isinf(b)) return stop(env, CC_RAISE, "OverflowError: (34, 'Numerical result out of range')");
            break;
        default: goto type_error;
        }
        *out = cc_float(r);
        return CC_OK;
    }
    if (op == OP_ADD && x.kind == CV_STR && y.kind == CV_STR) {
        char *p = cc_alloc(env->arena, x.u.s->n + y.u.s->n + 1);
        memcpy(p, x.u.s->p, x.u.s->n);
        memcpy(p + x.u.s->n, y.u.s->p, y.u.s->n);
        *out = cc_strv(env->arena, p, x.u.s->n + y.u.s->n);
        return CC_OK;
    }
    if (op == OP_ADD && x.kind == CV_LIST && y.kind == CV_LIST) {
        cc_val l = cc_new_list(env->arena);
        for (size_t i = 0; i < x.u.l->n; i++) cc_list_push(env->arena, l.u.l, x.u.l->items[i]);
        for (size_t i = 0; i < y.u.l->n; i++) cc_list_push(env->arena, l.u.l, y.u.l->items[i]);
        *out = l;
        return CC_OK;
    }
    if (op == OP_MOD && x.kind == CV_STR) return stop(env, CC_UNSUPPORTED, "%%-formatting of strings");
    if (op == OP_MUL && (x.kind == CV_STR || x.kind == CV_LIST || y.kind == CV_STR || y.kind == CV_LIST))
        return stop(env, CC_UNSUPPORTED, "repetition of a sequence");
type_error:
    return stop(env, CC_RAISE, "TypeError: unsupported operand type(s) for %s: '%s' and '%s'", sym[op], type_name(x),
                type_name(y));
}

static int order_d(cc_env *env, cc_val x, cc_val y, int *cmp, int depth);

/* Python's ordering x < y (-1), == (0), > (1) for numbers, strings and lists; TypeError otherwise. */
static int order(cc_env *env, cc_val x, cc_val y, int *cmp) { return order_d(env, x, y, cmp, 0); }

/* order at nesting depth (past 100: Python's RecursionError). */
static int order_d(cc_env *env, cc_val x, cc_val y, int *cmp, int depth) {
    if (depth > 100) return stop(env, CC_RAISE, "RecursionError: maximum recursion depth exceeded in comparison");
    if (is_num(x) && is_num(y)) {
        if (x.kind != CV_FLOAT && y.kind != CV_FLOAT) {
            *cmp = x.u.i < y.u.i ? -1 : x.u.i > y.u.i;
        } else {
            double a = as_f(x), b = as_f(y);
            *cmp = a < b ? -1 : a > b ? 1 : a == b ? 0 : 2; /* 2: unordered (nan) */
        }
        return CC_OK;
    }
    if (x.kind == CV_STR && y.kind == CV_STR) {
        size_t n = x.u.s->n < y.u.s->n ? x.u.s->n : y.u.s->n;
        int c = memcmp(x.u.s->p, y.u.s->p, n);
        *cmp = c < 0 ? -1 : c > 0 ? 1 : x.u.s->n < y.u.s->n ? -1 : x.u.s->n > y.u.s->n;
        return CC_OK;
    }
    if (x.kind == CV_LIST && y.kind == CV_LIST) {
        size_t n = x.u.l->n < y.u.l->n ? x.u.l->n : y.u.l->n;
        for (size_t i = 0; i < n; i++) {
            if (cc_equal(x.u.l->items[i], y.u.l->items[i])) continue;
            return order_d(env, x.u.l->items[i], y.u.l->items[i], cmp, depth + 1);
        }
        *cmp = x.u.l->n < y.u.l->n ? -1 : x.u.l->n > y.u.l->n;
        return CC_OK;
    }
    return stop(env, CC_RAISE, "TypeError: '<' not supported between instances of '%s' and '%s'", type_name(x),
                type_name(y));
}

/* Python's `x in y`. */
static int contains(cc_env *env, cc_val x, cc_val y, int *in) {
    *in = 0;
    if (y.kind == CV_DICT) {
        char buf[32];
        const char *p;
        size_t n;
        int rc = key_of(env, x, buf, &p, &n);
        if (rc) return rc;
        *in = cc_dict_get(y.u.d, p, n) != NULL;
        return CC_OK;
    }
    if (y.kind == CV_LIST) {
        for (size_t i = 0; i < y.u.l->n && !*in; i++) *in = cc_equal(x, y.u.l->items[i]);
        return CC_OK;
    }
    if (y.kind == CV_STR) {
        if (x.kind != CV_STR)
            return stop(env, CC_RAISE, "TypeError: 'in <string>' requires string as left operand, not %s", type_name(x));
        if (x.u.s->n == 0) {
            *in = 1;
            return CC_OK;
        }
        for (size_t i = 0; i + x.u.s->n <= y.u.s->n && !*in; i++) *in = memcmp(y.u.s->p + i, x.u.s->p, x.u.s->n) == 0;
        return CC_OK;
    }
    return stop(env, CC_RAISE, "TypeError: argument of type '%s' is not iterable", type_name(y));
}

/* One comparison x OP y into *r (0/1). */
static int compare(cc_env *env, int op, cc_val x, cc_val y, int *r) {
    int c, rc;
    switch (op) {
    case CMP_EQ: *r = cc_equal(x, y); return CC_OK;
    case CMP_NE: *r = !cc_equal(x, y); return CC_OK;
    case CMP_IN: return contains(env, x, y, r);
    case CMP_NOTIN:
        rc = contains(env, x, y, r);
        *r = !*r;
        return rc;
    case CMP_IS:
    case CMP_ISNOT:
        if (x.kind == CV_NONE || y.kind == CV_NONE || x.kind == CV_BOOL || y.kind == CV_BOOL) {
            *r = x.kind == y.kind && (x.kind == CV_NONE || x.u.i == y.u.i);
            if (op == CMP_ISNOT) *r = !*r;
            return CC_OK;
        }
        return stop(env, CC_UNSUPPORTED, "'is' between values other than None, True, False");
    }
    rc = order(env, x, y, &c);
    if (rc) return rc;
    switch (op) {
    case CMP_LT: *r = c == -1; break;
    case CMP_LE: *r = c == -1 || c == 0; break;
    case CMP_GT: *r = c == 1; break;
    default: *r = c == 1 || c == 0; break;
    }
    return CC_OK;
}

/* Python's round(x) to the nearest int, halves to even (OverflowError on inf, ValueError on nan). */
static int round_int(cc_env *env, double f, cc_val *out) {
    if (isnan(f)) return stop(env, CC_RAISE, "ValueError: cannot convert float NaN to integer");
    if (isinf(f)) return stop(env, CC_RAISE, "OverflowError: cannot convert float infinity to integer");
    double r = nearbyint(f);
    if (fabs(r) >= 9.2e18) return stop(env, CC_UNSUPPORTED, "an integer past 64 bits");
    *out = cc_int((int64_t)r);
    return CC_OK;
}

/* int(f) by truncation, or floor/ceil, with Python's errors. */
static int float_to_int(cc_env *env, double f, int how, cc_val *out) {
    if (isnan(f)) return stop(env, CC_RAISE, "ValueError: cannot convert float NaN to integer");
    if (isinf(f)) return stop(env, CC_RAISE, "OverflowError: cannot convert float infinity to integer");
    double r = how < 0 ? floor(f) : how > 0 ? ceil(f) : trunc(f);
    if (fabs(r) >= 9.2e18) return stop(env, CC_UNSUPPORTED, "an integer past 64 bits");
    *out = cc_int((int64_t)r);
    return CC_OK;
}

static int eval(cc_env *env, const cc_node *e, cc_val *out);

/* Sorts list items with Python's ordering (insertion sort: rule lists are short; stable as Python's). */
static int sort_items(cc_env *env, cc_val *it, size_t n) {
    for (size_t i = 1; i < n; i++) {
        cc_val x = it[i];
        size_t j = i;
        while (j > 0) {
            int c, rc = order(env, x, it[j - 1], &c);
            if (rc) return rc;
            if (c != -1) break;
            it[j] = it[j - 1];
            j--;
        }
        it[j] = x;
    }
    return CC_OK;
}

/* str.format with positional '{}' / '{N}' fields and '{{' '}}'. */
static int format(cc_env *env, cc_val self, const cc_val *args, int nargs, cc_val *out) {
    char buf[4096], part[1024];
    size_t len = 0;
    int next = 0;
    const char *p = self.u.s->p, *end = p + self.u.s->n;
    while (p < end) {
        if (*p == '{' && p + 1 < end && p[1] == '{') {
            buf[len++] = '{', p += 2;
        } else if (*p == '}' && p + 1 < end && p[1] == '}') {
            buf[len++] = '}', p += 2;
        } else if (*p == '{') {
            const char *q = memchr(p, '}', (size_t)(end - p));
            if (!q) return stop(env, CC_RAISE, "ValueError: Single '{' encountered in format string");
            int idx = next++;
            if (q > p + 1) {
                if (q - p - 1 > 3 || strspn(p + 1, "0123456789") != (size_t)(q - p - 1))
                    return stop(env, CC_UNSUPPORTED, "a format field other than {} or {N}");
                idx = atoi(p + 1);
            }
            if (idx >= nargs) return stop(env, CC_RAISE, "IndexError: Replacement index %d out of range", idx);
            cc_repr(args[idx], 1, part, sizeof part);
            size_t n = strlen(part);
            if (len + n >= sizeof buf - 1) return stop(env, CC_UNSUPPORTED, "a formatted string over 4 KiB");
            memcpy(buf + len, part, n);
            len += n;
            p = q + 1;
        } else {
            buf[len++] = *p++;
        }
        if (len >= sizeof buf - 2) return stop(env, CC_UNSUPPORTED, "a formatted string over 4 KiB");
    }
    *out = cc_strv(env->arena, buf, len);
    return CC_OK;
}

/* Calls builtin fn (with self for a bound method) on args. */
static int call(cc_env *env, int fn, cc_val self, cc_val *args, int n, cc_val *out) {
    cc_val x = n > 0 ? args[0] : cc_none();
    *out = cc_none();
    switch (fn) {
    case CC_FN_MIN:
    case CC_FN_MAX: {
        cc_val *it = args;
        size_t m = (size_t)n;
        if (n == 1 && x.kind == CV_LIST) it = x.u.l->items, m = x.u.l->n;
        if (m == 0) return stop(env, CC_RAISE, "ValueError: %s() arg is an empty sequence", fn == CC_FN_MIN ? "min" : "max");
        *out = it[0];
        for (size_t i = 1; i < m; i++) {
            int c, rc = order(env, it[i], *out, &c);
            if (rc) return rc;
            if ((fn == CC_FN_MIN && c == -1) || (fn == CC_FN_MAX && c == 1)) *out = it[i];
        }
        return CC_OK;
    }
    case CC_FN_ABS:
        if (n != 1 || !is_num(x)) return stop(env, CC_RAISE, "TypeError: bad operand type for abs(): '%s'", type_name(x));
        if (x.kind == CV_FLOAT) *out = cc_float(fabs(x.u.f));
        else if (x.u.i == INT64_MIN) return stop(env, CC_UNSUPPORTED, "an integer past 64 bits");
        else *out = cc_int(x.u.i < 0 ? -x.u.i : x.u.i);
        return CC_OK;
    case CC_FN_LEN:
        if (n == 1 && x.kind == CV_STR) *out = cc_int((int64_t)x.u.s->n);
        else if (n == 1 && x.kind == CV_LIST) *out = cc_int((int64_t)x.u.l->n);
        else if (n == 1 && x.kind == CV_DICT) *out = cc_int((int64_t)x.u.d->n);
        else return stop(env, CC_RAISE, "TypeError: object of type '%s' has no len()", type_name(x));
        return CC_OK;
    case CC_FN_SORTED:
    case CC_FN_LIST: {
        cc_val l = cc_new_list(env->arena);
        if (n == 1 && x.kind == CV_LIST) {
            for (size_t i = 0; i < x.u.l->n; i++) cc_list_push(env->arena, l.u.l, x.u.l->items[i]);
        } else if (n == 1 && x.kind == CV_DICT) {
            for (size_t i = 0; i < x.u.d->n; i++) cc_list_push(env->arena, l.u.l, value_of_key(env, &x.u.d->keys[i]));
        } else if (n == 1 && x.kind == CV_STR) {
            return stop(env, CC_UNSUPPORTED, "iterating over a string");
        } else if (n != 0 || fn == CC_FN_SORTED) {
            return stop(env, CC_RAISE, "TypeError: '%s' object is not iterable", type_name(x));
        }
        *out = l;
        return fn == CC_FN_SORTED ? sort_items(env, l.u.l->items, l.u.l->n) : CC_OK;
    }
    case CC_FN_INT:
        if (n == 0) *out = cc_int(0);
        else if (x.kind == CV_INT || x.kind == CV_BOOL) *out = cc_int(x.u.i);
        else if (x.kind == CV_FLOAT) return float_to_int(env, x.u.f, 0, out);
        else if (x.kind == CV_STR) {
            char buf[64], *end;
            if (x.u.s->n >= sizeof buf) return stop(env, CC_UNSUPPORTED, "int() of a long string");
            memcpy(buf, x.u.s->p, x.u.s->n);
            buf[x.u.s->n] = '\0';
            long long v = strtoll(buf, &end, 10);
            while (*end == ' ') end++;
            if (end == buf || *end) return stop(env, CC_RAISE, "ValueError: invalid literal for int() with base 10: '%s'", buf);
            *out = cc_int(v);
        } else return stop(env, CC_RAISE, "TypeError: int() argument must be a string or a number, not '%s'", type_name(x));
        return CC_OK;
    case CC_FN_FLOAT:
        if (n == 0) *out = cc_float(0.0);
        else if (is_num(x)) *out = cc_float(as_f(x));
        else if (x.kind == CV_STR) {
            char buf[64], *end;
            if (x.u.s->n >= sizeof buf) return stop(env, CC_UNSUPPORTED, "float() of a long string");
            memcpy(buf, x.u.s->p, x.u.s->n);
            buf[x.u.s->n] = '\0';
            double v = strtod(buf, &end);
            while (*end == ' ') end++;
            if (end == buf || *end) return stop(env, CC_RAISE, "ValueError: could not convert string to float: '%s'", buf);
            *out = cc_float(v);
        } else return stop(env, CC_RAISE, "TypeError: float() argument must be a string or a number, not '%s'", type_name(x));
        return CC_OK;
    case CC_FN_STR: {
        char buf[1024];
        cc_repr(x, 1, buf, sizeof buf);
        if (strlen(buf) >= sizeof buf - 4) return stop(env, CC_UNSUPPORTED, "str() of a long value");
        *out = n == 0 ? cc_strv(env->arena, "", 0) : cc_strv(env->arena, buf, strlen(buf));
        return CC_OK;
    }
    case CC_FN_BOOL: *out = cc_bool(n > 0 && cc_truthy(x)); return CC_OK;
    case CC_FN_ROUND:
        if (n != 1) return stop(env, CC_UNSUPPORTED, "round() with digits");
        if (x.kind == CV_INT || x.kind == CV_BOOL) *out = cc_int(x.u.i);
        else if (x.kind == CV_FLOAT) return round_int(env, x.u.f, out);
        else return stop(env, CC_RAISE, "TypeError: type %s doesn't define __round__ method", type_name(x));
        return CC_OK;
    case CC_FN_IS_INTEGER: { /* the checker's: abs(round(value) - value) < 0.00001 */
        if (n != 1) return stop(env, CC_RAISE, "TypeError: is_integer() takes 1 positional argument");
        if (x.kind == CV_INT || x.kind == CV_BOOL) {
            *out = cc_bool(1);
            return CC_OK;
        }
        if (x.kind != CV_FLOAT) return stop(env, CC_RAISE, "TypeError: type %s doesn't define __round__ method", type_name(x));
        cc_val r;
        int rc = round_int(env, x.u.f, &r);
        if (rc) return rc;
        *out = cc_bool(fabs((double)r.u.i - x.u.f) < 0.00001);
        return CC_OK;
    }
    case CC_FN_ISINSTANCE: {
        if (n != 2) return stop(env, CC_RAISE, "TypeError: isinstance expected 2 arguments");
        cc_val t = args[1];
        int m = 0;
        cc_val *ts = &t;
        size_t nt = 1;
        if (t.kind == CV_LIST) ts = t.u.l->items, nt = t.u.l->n;
        for (size_t i = 0; i < nt; i++) {
            if (ts[i].kind != CV_FUNC) return stop(env, CC_RAISE, "TypeError: isinstance() arg 2 must be a type");
            switch (ts[i].u.fn) {
            case CC_FN_INT: m |= x.kind == CV_INT || x.kind == CV_BOOL; break;
            case CC_FN_FLOAT: m |= x.kind == CV_FLOAT; break;
            case CC_FN_STR: m |= x.kind == CV_STR; break;
            case CC_FN_BOOL: m |= x.kind == CV_BOOL; break;
            case CC_FN_LIST: m |= x.kind == CV_LIST; break;
            case CC_FN_DICT: m |= x.kind == CV_DICT; break;
            default: return stop(env, CC_RAISE, "TypeError: isinstance() arg 2 must be a type");
            }
        }
        *out = cc_bool(m);
        return CC_OK;
    }
    case CC_FN_ENQUEUE:
        if (n != 1 || x.kind != CV_STR) return stop(env, CC_UNSUPPORTED, "enqueue_config() of a non-string");
        if (env->enqueue) env->enqueue(env->user, x.u.s->p, x.u.s->n);
        return CC_OK;
    case CC_FN_DICT:
        if (n != 0) return stop(env, CC_UNSUPPORTED, "dict() with arguments");
        *out = cc_new_dict(env->arena);
        return CC_OK;
    case CC_FN_CEIL:
    case CC_FN_FLOOR:
        if (n != 1 || !is_num(x)) return stop(env, CC_RAISE, "TypeError: must be real number, not %s", type_name(x));
        if (x.kind != CV_FLOAT) {
            *out = cc_int(x.u.i);
            return CC_OK;
        }
        return float_to_int(env, x.u.f, fn == CC_FN_CEIL ? 1 : -1, out);
    case CC_FN_LOG2:
    case CC_FN_LOG:
    case CC_FN_LOG10:
    case CC_FN_SQRT:
    case CC_FN_EXP: {
        if (n < 1 || !is_num(x)) return stop(env, CC_RAISE, "TypeError: must be real number, not %s", type_name(x));
        double f = as_f(x);
        if (fn == CC_FN_EXP) {
            *out = cc_float(exp(f));
            if (isinf(out->u.f)) return stop(env, CC_RAISE, "OverflowError: math range error");
            return CC_OK;
        }
        if (fn == CC_FN_SQRT ? f < 0 : f <= 0) return stop(env, CC_RAISE, "ValueError: math domain error");
        if (fn == CC_FN_LOG && n == 2) {
            if (!is_num(args[1]) || as_f(args[1]) <= 0) return stop(env, CC_RAISE, "ValueError: math domain error");
            *out = cc_float(log(f) / log(as_f(args[1])));
            return CC_OK;
        }
        if (x.kind != CV_FLOAT && fn != CC_FN_SQRT && llabs(x.u.i) > (1LL << 53))
            return stop(env, CC_UNSUPPORTED, "the logarithm of an int past 53 bits");
        *out = cc_float(fn == CC_FN_LOG2 ? log2(f) : fn == CC_FN_LOG ? log(f) : fn == CC_FN_LOG10 ? log10(f) : sqrt(f));
        return CC_OK;
    }
    case CC_FN_ISCLOSE: {
        if (n != 2 || !is_num(args[0]) || !is_num(args[1])) return stop(env, CC_UNSUPPORTED, "math.isclose() other than (a, b)");
        double a = as_f(args[0]), b = as_f(args[1]);
        *out = cc_bool(a == b || fabs(a - b) <= 1e-09 * fmax(fabs(a), fabs(b)));
        return CC_OK;
    }
    case CC_FN_M_FORMAT: return format(env, self, args, n, out);
    case CC_FN_M_UPDATE:
        if (n != 1 || x.kind != CV_DICT) return stop(env, CC_UNSUPPORTED, "dict.update() of other than a dict");
        for (size_t i = 0; i < x.u.d->n; i++)
            cc_dict_set(env->arena, self.u.d, x.u.d->keys[i].p, x.u.d->keys[i].n, x.u.d->vals[i]);
        return CC_OK;
    case CC_FN_M_GET: {
        if (n < 1 || n > 2) return stop(env, CC_RAISE, "TypeError: get expected 1 or 2 arguments");
        char buf[32];
        const char *p;
        size_t kn;
        int rc = key_of(env, x, buf, &p, &kn);
        if (rc) return rc;
        cc_val *v = cc_dict_get(self.u.d, p, kn);
        *out = v ? *v : n == 2 ? args[1] : cc_none();
        return CC_OK;
    }
    case CC_FN_M_KEYS: return call(env, CC_FN_LIST, cc_none(), &self, 1, out);
    case CC_FN_M_APPEND:
        if (n != 1) return stop(env, CC_RAISE, "TypeError: append() takes exactly one argument");
        cc_list_push(env->arena, self.u.l, x);
        return CC_OK;
    case CC_FN_M_STARTSWITH:
    case CC_FN_M_ENDSWITH: {
        if (n != 1 || x.kind != CV_STR) return stop(env, CC_UNSUPPORTED, "startswith/endswith of other than a string");
        size_t k = x.u.s->n, m = self.u.s->n;
        int r = k <= m && memcmp(self.u.s->p + (fn == CC_FN_M_STARTSWITH ? 0 : m - k), x.u.s->p, k) == 0;
        *out = cc_bool(r);
        return CC_OK;
    }
    case CC_FN_M_VALUES: {
        cc_val l = cc_new_list(env->arena);
        for (size_t i = 0; i < self.u.d->n; i++) cc_list_push(env->arena, l.u.l, self.u.d->vals[i]);
        *out = l;
        return CC_OK;
    }
    case CC_FN_M_EXTEND:
        if (n != 1 || (x.kind != CV_LIST && x.kind != CV_DICT)) return stop(env, CC_UNSUPPORTED, "list.extend() of other than a list");
        if (x.kind == CV_DICT) return stop(env, CC_UNSUPPORTED, "list.extend() of a dict");
        for (size_t i = 0, m = x.u.l->n; i < m; i++) cc_list_push(env->arena, self.u.l, x.u.l->items[i]);
        return CC_OK;
    case CC_FN_REPLACE: { /* dataclasses.replace(obj): a shallow copy of a log line */
        if (n != 1 || x.kind != CV_OBJ) return stop(env, CC_UNSUPPORTED, "replace() of other than a log line");
        cc_val c = cc_new_dict(env->arena);
        c.kind = CV_OBJ;
        for (size_t i = 0; i < x.u.d->n; i++) cc_dict_set(env->arena, c.u.d, x.u.d->keys[i].p, x.u.d->keys[i].n, x.u.d->vals[i]);
        *out = c;
        return CC_OK;
    }
    case CC_FN_M_LOWER: {
        char *p = cc_strndup(env->arena, self.u.s->p, self.u.s->n);
        for (size_t i = 0; i < self.u.s->n; i++) if (p[i] >= 'A' && p[i] <= 'Z') p[i] += 32;
        *out = cc_strv(env->arena, p, self.u.s->n);
        return CC_OK;
    }
    }
    return stop(env, CC_UNSUPPORTED, "builtin %d", fn);
}

typedef struct {
    int kind;
    const char *name;
    int fn;
} method;

static const method METHODS[] = {{CV_STR, "format", CC_FN_M_FORMAT},     {CV_DICT, "update", CC_FN_M_UPDATE},
                                 {CV_DICT, "get", CC_FN_M_GET},          {CV_DICT, "keys", CC_FN_M_KEYS},
                                 {CV_LIST, "append", CC_FN_M_APPEND},    {CV_STR, "startswith", CC_FN_M_STARTSWITH},
                                 {CV_STR, "endswith", CC_FN_M_ENDSWITH}, {CV_STR, "lower", CC_FN_M_LOWER},
                                 {CV_DICT, "values", CC_FN_M_VALUES},    {CV_LIST, "extend", CC_FN_M_EXTEND},
                                 {0, NULL, 0}};

/* x.name: an object's attribute or a bound method. */
static int attribute(cc_env *env, cc_val x, const char *name, cc_val *out) {
    if (x.kind == CV_OBJ) {
        cc_val *v = cc_dict_get(x.u.d, name, strlen(name));
        if (v) {
            *out = *v;
            return CC_OK;
        }
        if (cc_dict_get(x.u.d, "__module__", 10) == NULL && cc_dict_get(x.u.d, "ceil", 4) != NULL)
            return stop(env, CC_UNSUPPORTED, "math.%s", name);
        return stop(env, CC_RAISE, "AttributeError: object has no attribute '%s'", name);
    }
    for (int i = 0; METHODS[i].name; i++)
        if (METHODS[i].kind == x.kind && strcmp(METHODS[i].name, name) == 0) {
            out->kind = CV_METHOD;
            out->u.m = cc_alloc(env->arena, sizeof *out->u.m);
            out->u.m->self = x;
            out->u.m->fn = METHODS[i].fn;
            return CC_OK;
        }
    if (x.kind == CV_NONE || x.kind == CV_BOOL || x.kind == CV_INT || x.kind == CV_FLOAT)
        return stop(env, CC_RAISE, "AttributeError: '%s' object has no attribute '%s'", type_name(x), name);
    return stop(env, CC_UNSUPPORTED, "the method %s.%s", type_name(x), name);
}

/* x[i]: a dict by key, a list or string by index. */
static int subscript(cc_env *env, cc_val x, cc_val i, cc_val *out) {
    if (x.kind == CV_DICT) {
        char buf[32];
        const char *p;
        size_t n;
        int rc = key_of(env, i, buf, &p, &n);
        if (rc) return rc;
        cc_val *v = cc_dict_get(x.u.d, p, n);
        if (!v) {
            char k[120];
            return stop(env, CC_RAISE, "KeyError: %s", cc_repr(i, 0, k, sizeof k));
        }
        *out = *v;
        return CC_OK;
    }
    if (x.kind == CV_LIST || x.kind == CV_STR) {
        if (i.kind != CV_INT && i.kind != CV_BOOL)
            return stop(env, CC_RAISE, "TypeError: %s indices must be integers, not %s", type_name(x), type_name(i));
        int64_t n = x.kind == CV_LIST ? (int64_t)x.u.l->n : (int64_t)x.u.s->n, k = i.u.i;
        if (k < 0) k += n;
        if (k < 0 || k >= n) return stop(env, CC_RAISE, "IndexError: %s index out of range", type_name(x));
        *out = x.kind == CV_LIST ? x.u.l->items[k] : cc_strv(env->arena, x.u.s->p + k, 1);
        return CC_OK;
    }
    return stop(env, CC_RAISE, "TypeError: '%s' object is not subscriptable", type_name(x));
}

/* Evaluates every child of e from index from into vals. */
static int eval_kids(cc_env *env, const cc_node *e, int from, cc_val *vals) {
    for (int i = from; i < e->nkids; i++) {
        int rc = eval(env, e->kids[i], &vals[i - from]);
        if (rc) return rc;
    }
    return CC_OK;
}

/* The evaluator proper. */
static int eval(cc_env *env, const cc_node *e, cc_val *out) {
    int rc;
    cc_val x, y;
    switch (e->kind) {
    case N_CONST: *out = e->konst; return CC_OK;
    case N_NAME: return lookup(env, e->name, out);
    case N_LIST:
    case N_DICT: {
        cc_val c = e->kind == N_LIST ? cc_new_list(env->arena) : cc_new_dict(env->arena);
        for (int i = 0; i < e->nkids; i++) {
            if ((rc = eval(env, e->kids[i], &x))) return rc;
            if (e->kind == N_LIST) {
                cc_list_push(env->arena, c.u.l, x);
                continue;
            }
            if ((rc = eval(env, e->kids[++i], &y))) return rc;
            char buf[32];
            const char *p;
            size_t n;
            if ((rc = key_of(env, x, buf, &p, &n))) return rc;
            cc_dict_set(env->arena, c.u.d, p, n, y);
        }
        *out = c;
        return CC_OK;
    }
    case N_SUBSCRIPT:
        if ((rc = eval(env, e->kids[0], &x)) || (rc = eval(env, e->kids[1], &y))) return rc;
        return subscript(env, x, y, out);
    case N_ATTR:
        if ((rc = eval(env, e->kids[0], &x))) return rc;
        return attribute(env, x, e->name, out);
    case N_CALL: {
        cc_val args[16];
        if (e->nkids - 1 > 16) return stop(env, CC_UNSUPPORTED, "a call with more than 16 arguments");
        if ((rc = eval(env, e->kids[0], &x)) || (rc = eval_kids(env, e, 1, args))) return rc;
        if (x.kind == CV_FUNC) return call(env, x.u.fn, cc_none(), args, e->nkids - 1, out);
        if (x.kind == CV_METHOD) return call(env, x.u.m->fn, x.u.m->self, args, e->nkids - 1, out);
        return stop(env, CC_RAISE, "TypeError: '%s' object is not callable", type_name(x));
    }
    case N_UNARY:
        if ((rc = eval(env, e->kids[0], &x))) return rc;
        if (e->op == OP_NOT) {
            *out = cc_bool(!cc_truthy(x));
            return CC_OK;
        }
        if (!is_num(x)) return stop(env, CC_RAISE, "TypeError: bad operand type for unary %s: '%s'", e->op == OP_NEG ? "-" : "+", type_name(x));
        if (x.kind == CV_FLOAT) *out = cc_float(e->op == OP_NEG ? -x.u.f : x.u.f);
        else if (e->op == OP_NEG && x.u.i == INT64_MIN) return stop(env, CC_UNSUPPORTED, "an integer past 64 bits");
        else *out = cc_int(e->op == OP_NEG ? -x.u.i : x.u.i);
        return CC_OK;
    case N_BINOP:
        if ((rc = eval(env, e->kids[0], &x)) || (rc = eval(env, e->kids[1], &y))) return rc;
        return binop(env, e->op, x, y, out);
    case N_BOOLOP:
        if ((rc = eval(env, e->kids[0], &x))) return rc;
        if ((e->op == OP_AND) != cc_truthy(x)) {
            *out = x;
            return CC_OK;
        }
        return eval(env, e->kids[1], out);
    case N_COMPARE: {
        if ((rc = eval(env, e->kids[0], &x))) return rc;
        for (int i = 1; i < e->nkids; i++) {
            int r;
            if ((rc = eval(env, e->kids[i], &y)) || (rc = compare(env, e->ops[i - 1], x, y, &r))) return rc;
            if (!r) {
                *out = cc_bool(0);
                return CC_OK;
            }
            x = y;
        }
        *out = cc_bool(1);
        return CC_OK;
    }
    case N_IFEXP:
        if ((rc = eval(env, e->kids[1], &x))) return rc;
        return eval(env, e->kids[cc_truthy(x) ? 0 : 2], out);
    }
    return stop(env, CC_UNSUPPORTED, "a statement where an expression belongs");
}

/* Evaluates an expression. */
int cc_eval(cc_env *env, const cc_node *e, cc_val *out) {
    assert(env && e && out);
    env->why[0] = '\0';
    return eval(env, e, out);
}

/* Stores x into the target (a name: a local; a subscript: a dict key or list index). */
static int assign(cc_env *env, const cc_node *t, cc_val x) {
    if (t->kind == N_NAME) {
        cc_dict_set(env->arena, env->locals, t->name, strlen(t->name), x);
        return CC_OK;
    }
    cc_val obj, key;
    int rc;
    if (t->kind == N_ATTR) { /* an attribute of a log line (a dataclass) */
        if ((rc = eval(env, t->kids[0], &obj))) return rc;
        if (obj.kind != CV_OBJ) return stop(env, CC_RAISE, "AttributeError: '%s' object attribute '%s' is read-only", type_name(obj), t->name);
        cc_dict_set(env->arena, obj.u.d, t->name, strlen(t->name), x);
        return CC_OK;
    }
    if ((rc = eval(env, t->kids[0], &obj)) || (rc = eval(env, t->kids[1], &key))) return rc;
    if (obj.kind == CV_DICT) {
        char buf[32];
        const char *p;
        size_t n;
        if ((rc = key_of(env, key, buf, &p, &n))) return rc;
        cc_dict_set(env->arena, obj.u.d, p, n, x);
        return CC_OK;
    }
    if (obj.kind == CV_LIST) {
        if (key.kind != CV_INT) return stop(env, CC_RAISE, "TypeError: list indices must be integers");
        int64_t k = key.u.i < 0 ? key.u.i + (int64_t)obj.u.l->n : key.u.i;
        if (k < 0 || k >= (int64_t)obj.u.l->n) return stop(env, CC_RAISE, "IndexError: list assignment index out of range");
        obj.u.l->items[k] = x;
        return CC_OK;
    }
    return stop(env, CC_RAISE, "TypeError: '%s' object does not support item assignment", type_name(obj));
}

/* Runs one statement. */
static int exec(cc_env *env, const cc_node *st) {
    cc_val x, y;
    int rc;
    switch (st->kind) {
    case N_BLOCK:
        for (int i = 0; i < st->nkids; i++)
            if ((rc = exec(env, st->kids[i]))) return rc;
        return CC_OK;
    case N_EXPRSTMT: return eval(env, st->kids[0], &x);
    case N_ASSIGN:
        if ((rc = eval(env, st->kids[1], &x))) return rc;
        return assign(env, st->kids[0], x);
    case N_AUGASSIGN:
        if ((rc = eval(env, st->kids[0], &x)) || (rc = eval(env, st->kids[1], &y))) return rc;
        if (st->op == OP_ADD && x.kind == CV_LIST) { /* list += iterable extends in place */
            if (y.kind != CV_LIST) return stop(env, CC_UNSUPPORTED, "list += of other than a list");
            size_t n = y.u.l->n;
            for (size_t i = 0; i < n; i++) cc_list_push(env->arena, x.u.l, y.u.l->items[i]);
            return CC_OK;
        }
        if ((rc = binop(env, st->op, x, y, &x))) return rc;
        return assign(env, st->kids[0], x);
    case N_IF:
        if ((rc = eval(env, st->kids[0], &x))) return rc;
        if (cc_truthy(x)) return exec(env, st->kids[1]);
        return st->kids[2] ? exec(env, st->kids[2]) : CC_OK;
    case N_FOR:
        if ((rc = eval(env, st->kids[1], &x))) return rc;
        if (x.kind == CV_DICT) {
            if ((rc = call(env, CC_FN_LIST, cc_none(), &x, 1, &x))) return rc;
        } else if (x.kind != CV_LIST) {
            return stop(env, x.kind == CV_STR ? CC_UNSUPPORTED : CC_RAISE, "TypeError: '%s' object is not iterable", type_name(x));
        }
        for (size_t i = 0; i < x.u.l->n; i++) { /* a list growing in the loop is seen growing, as Python's */
            if ((rc = assign(env, st->kids[0], x.u.l->items[i])) || (rc = exec(env, st->kids[2]))) return rc;
        }
        return CC_OK;
    }
    return eval(env, st, &x);
}

/* Executes statements. */
int cc_exec(cc_env *env, const cc_node *code) {
    assert(env && code);
    env->why[0] = '\0';
    return exec(env, code);
}
