/* expr_parse.c: reads the rules' Python (expr.h) into trees: a tokenizer (names, numbers, strings,
 * operators, and the NEWLINE/INDENT/DEDENT of statements) and a recursive-descent parser with Python's
 * precedence. What lies outside the subset is refused here, with its reason, so that a rule using it
 * is reported as "cannot evaluate". */
#include "check/expr_node.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { T_END, T_NAME, T_NUM, T_STR, T_OP, T_NEWLINE, T_INDENT, T_DEDENT };

typedef struct {
    int kind;
    const char *p; /* T_NAME, T_OP: the text; T_STR: the decoded bytes */
    size_t n;
    cc_val num;    /* T_NUM */
} token;

typedef struct {
    cc_arena *a;
    token *t;
    size_t n, cap, pos;
    char *why;
    size_t whycap;
    int failed;
    int depth; /* recursion depth, bounded against hostile rule files */
} parser;

#define MAX_DEPTH 200
#define MAX_TOKENS 200000

/* Records the first reason the text cannot be read; returns NULL for the caller to pass on. */
static void *fail(parser *ps, const char *fmt, ...) {
    if (!ps->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ps->why, ps->whycap, fmt, ap);
        va_end(ap);
        ps->failed = 1;
    }
    return NULL;
}

/* Appends a token. */
static void push(parser *ps, int kind, const char *p, size_t n) {
    if (ps->n == ps->cap) {
        size_t cap = ps->cap ? ps->cap * 2 : 64;
        token *t = cc_alloc(ps->a, cap * sizeof *t);
        if (ps->n) memcpy(t, ps->t, ps->n * sizeof *t);
        ps->t = t;
        ps->cap = cap;
    }
    token *t = &ps->t[ps->n++];
    t->kind = kind;
    t->p = p;
    t->n = n;
}

static const char *const OPS3[] = {"**=", "//=", "...", NULL};
static const char *const OPS2[] = {"==", "!=", "<=", ">=", "**", "//", "+=", "-=", "*=", "/=", "%=",
                                   "|=", "&=", "<<", ">>", "->", ":=", NULL};

/* Reads a number at s into t (ints with '_' separators; floats with '.', 'e'); returns its end. */
static const char *lex_number(parser *ps, const char *s, token *t) {
    char buf[128];
    size_t n = 0;
    int is_float = 0;
    const char *p = s;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X' || p[1] == 'o' || p[1] == 'b')) {
        fail(ps, "number base prefix at '%.10s'", s);
        return p + 2;
    }
    while (isdigit((unsigned char)*p) || *p == '_' || *p == '.' || *p == 'e' || *p == 'E' ||
           ((*p == '+' || *p == '-') && n > 0 && (buf[n - 1] == 'e' || buf[n - 1] == 'E'))) {
        if (*p == '.' || *p == 'e' || *p == 'E') is_float = 1;
        if (*p != '_' && n + 1 < sizeof buf) buf[n++] = *p;
        p++;
    }
    buf[n] = '\0';
    if (*p == 'j' || *p == 'J' || isalpha((unsigned char)*p)) {
        fail(ps, "malformed number at '%.10s'", s);
        return p + 1;
    }
    char *end;
    if (is_float) {
        t->num = cc_float(strtod(buf, &end));
    } else {
        errno = 0;
        long long v = strtoll(buf, &end, 10);
        if (errno == ERANGE) fail(ps, "integer %s past 64 bits", buf);
        t->num = cc_int(v);
    }
    if (*end != '\0') fail(ps, "malformed number '%s'", buf);
    return p;
}

/* Reads a string literal at s (quote q, single or triple) into t, decoding the usual escapes. */
static const char *lex_string(parser *ps, const char *s, token *t) {
    char q = *s;
    int triple = s[1] == q && s[2] == q;
    const char *p = s + (triple ? 3 : 1);
    size_t cap = strlen(p) + 1, n = 0;
    char *out = cc_alloc(ps->a, cap);
    for (;;) {
        if (*p == '\0') {
            fail(ps, "unterminated string");
            break;
        }
        if (triple ? (p[0] == q && p[1] == q && p[2] == q) : *p == q) {
            p += triple ? 3 : 1;
            break;
        }
        if (!triple && *p == '\n') {
            fail(ps, "unterminated string");
            break;
        }
        if (*p == '\\') {
            p++;
            char c = *p ? *p++ : '\\';
            switch (c) {
            case 'n': out[n++] = '\n'; break;
            case 't': out[n++] = '\t'; break;
            case '\\': out[n++] = '\\'; break;
            case '\'': out[n++] = '\''; break;
            case '"': out[n++] = '"'; break;
            case '\n': break;
            default: out[n++] = '\\'; out[n++] = c; break;
            }
            continue;
        }
        out[n++] = *p++;
    }
    t->p = out;
    t->n = n;
    return p;
}

/* Splits text into tokens; statements (exec mode) get NEWLINE, INDENT and DEDENT as Python's. */
static int tokenize(parser *ps, const char *text, int statements) {
    int indents[64] = {0}, nind = 1, nest = 0, at_line_start = 1;
    const char *p = text;
    while (*p && !ps->failed) {
        if (ps->n > MAX_TOKENS) return fail(ps, "rule text too long"), -1;
        if (at_line_start && nest == 0 && statements) {
            int col = 0;
            const char *q = p;
            while (*q == ' ' || *q == '\t') col += *q++ == '\t' ? 8 - col % 8 : 1;
            if (*q == '\n' || *q == '#' || *q == '\0' || *q == '\r') { /* blank or comment line */
                while (*q && *q != '\n') q++;
                p = *q ? q + 1 : q;
                continue;
            }
            if (col > indents[nind - 1]) {
                if (nind == 64) return fail(ps, "blocks nested too deep"), -1;
                indents[nind++] = col;
                push(ps, T_INDENT, q, 0);
            }
            while (col < indents[nind - 1]) {
                nind--;
                push(ps, T_DEDENT, q, 0);
            }
            if (col != indents[nind - 1]) return fail(ps, "inconsistent indentation"), -1;
            p = q;
            at_line_start = 0;
        }
        char c = *p;
        if (c == '\n') {
            if (nest == 0 && statements) {
                if (ps->n && ps->t[ps->n - 1].kind != T_NEWLINE) push(ps, T_NEWLINE, p, 0);
                at_line_start = 1;
            }
            p++;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
            p++;
        } else if (c == '\\' && p[1] == '\n') {
            p += 2;
        } else if (c == '#') {
            while (*p && *p != '\n') p++;
        } else if (isalpha((unsigned char)c) || c == '_') {
            const char *s = p;
            while (isalnum((unsigned char)*p) || *p == '_') p++;
            if ((*p == '\'' || *p == '"') && p - s <= 2) return fail(ps, "string prefix '%.*s'", (int)(p - s), s), -1;
            push(ps, T_NAME, s, (size_t)(p - s));
        } else if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)p[1]))) {
            push(ps, T_NUM, p, 0);
            p = lex_number(ps, p, &ps->t[ps->n - 1]);
        } else if (c == '\'' || c == '"') {
            push(ps, T_STR, p, 0);
            p = lex_string(ps, p, &ps->t[ps->n - 1]);
        } else {
            size_t len = 0;
            for (int i = 0; OPS3[i] && !len; i++) if (strncmp(p, OPS3[i], 3) == 0) len = 3;
            for (int i = 0; OPS2[i] && !len; i++) if (strncmp(p, OPS2[i], 2) == 0) len = 2;
            if (!len) {
                if (!strchr("+-*/%<>=()[]{},:.;|&^~@", c)) return fail(ps, "unexpected character '%c'", c), -1;
                len = 1;
                if (c == '(' || c == '[' || c == '{') nest++;
                if ((c == ')' || c == ']' || c == '}') && nest > 0) nest--;
            }
            push(ps, T_OP, p, len);
            p += len;
        }
    }
    if (statements) {
        if (ps->n && ps->t[ps->n - 1].kind != T_NEWLINE) push(ps, T_NEWLINE, p, 0);
        while (nind > 1) {
            nind--;
            push(ps, T_DEDENT, p, 0);
        }
    }
    push(ps, T_END, p, 0);
    return ps->failed ? -1 : 0;
}

/* ---- parser ---- */

static const token *peek(parser *ps) { return &ps->t[ps->pos]; }

/* 1 when the next token is the operator or keyword s. */
static int is(parser *ps, const char *s) {
    const token *t = peek(ps);
    return (t->kind == T_OP || t->kind == T_NAME) && t->n == strlen(s) && memcmp(t->p, s, t->n) == 0;
}

/* Takes the operator or keyword s if it comes next. */
static int accept(parser *ps, const char *s) {
    if (!is(ps, s)) return 0;
    ps->pos++;
    return 1;
}

/* Takes s, or fails naming what came instead. */
static int expect(parser *ps, const char *s) {
    if (accept(ps, s)) return 1;
    const token *t = peek(ps);
    fail(ps, "expected '%s' at '%.*s'", s, (int)(t->kind == T_END ? 3 : t->n), t->kind == T_END ? "end" : t->p);
    return 0;
}

/* A new node of kind with n children. */
static cc_node *node(parser *ps, int kind, int op, int nkids) {
    cc_node *n = cc_alloc(ps->a, sizeof *n);
    n->kind = kind;
    n->op = op;
    n->nkids = nkids;
    if (nkids) n->kids = cc_alloc(ps->a, (size_t)nkids * sizeof *n->kids);
    return n;
}

/* Adds child k to n (kids grow by copying, parse-time only). */
static void add_kid(parser *ps, cc_node *n, cc_node *k) {
    cc_node **kids = cc_alloc(ps->a, (size_t)(n->nkids + 1) * sizeof *kids);
    if (n->nkids) memcpy(kids, n->kids, (size_t)n->nkids * sizeof *kids);
    kids[n->nkids++] = k;
    n->kids = kids;
}

static cc_node *test(parser *ps);

static const char *const KEYWORDS[] = {"and", "or", "not", "in", "is", "if", "else", "elif", "for", "lambda",
                                       "while", "def", "return", "import", "from", "class", "with", "yield",
                                       "pass", "del", "global", "try", "except", NULL};

/* 1 when t is a Python keyword that cannot be a name. */
static int keyword(const token *t) {
    for (int i = 0; KEYWORDS[i]; i++)
        if (t->n == strlen(KEYWORDS[i]) && memcmp(t->p, KEYWORDS[i], t->n) == 0) return 1;
    return 0;
}

/* Parses the items of a [...] or (...) up to close into node n; returns 1 when a comma was seen. */
static int items(parser *ps, cc_node *n, const char *close) {
    int comma = 0;
    while (!ps->failed && !is(ps, close)) {
        add_kid(ps, n, test(ps));
        if (is(ps, "for")) return fail(ps, "comprehensions are not supported"), 0;
        if (!accept(ps, ",")) break;
        comma = 1;
    }
    expect(ps, close);
    return comma;
}

/* atom: a literal, a name, (...), [...], {...}. */
static cc_node *atom(parser *ps) {
    const token *t = peek(ps);
    if (t->kind == T_NUM) {
        ps->pos++;
        cc_node *n = node(ps, N_CONST, 0, 0);
        n->konst = t->num;
        return n;
    }
    if (t->kind == T_STR) { /* adjacent literals join */
        size_t len = 0;
        size_t start = ps->pos;
        while (peek(ps)->kind == T_STR) len += peek(ps)->n, ps->pos++;
        char *buf = cc_alloc(ps->a, len + 1);
        size_t o = 0;
        for (size_t i = start; i < ps->pos; i++) memcpy(buf + o, ps->t[i].p, ps->t[i].n), o += ps->t[i].n;
        cc_node *n = node(ps, N_CONST, 0, 0);
        n->konst.kind = CV_STR;
        n->konst.u.s = cc_alloc(ps->a, sizeof *n->konst.u.s);
        n->konst.u.s->p = buf;
        n->konst.u.s->n = len;
        return n;
    }
    if (t->kind == T_NAME) {
        cc_node *n = node(ps, N_CONST, 0, 0);
        if (t->n == 4 && memcmp(t->p, "True", 4) == 0) n->konst = cc_bool(1);
        else if (t->n == 5 && memcmp(t->p, "False", 5) == 0) n->konst = cc_bool(0);
        else if (t->n == 4 && memcmp(t->p, "None", 4) == 0) n->konst = cc_none();
        else {
            if (keyword(t)) return fail(ps, "unexpected '%.*s'", (int)t->n, t->p);
            n->kind = N_NAME;
            n->name = cc_strndup(ps->a, t->p, t->n);
        }
        ps->pos++;
        return n;
    }
    if (accept(ps, "(")) {
        if (accept(ps, ")")) return node(ps, N_LIST, 1, 0);
        cc_node *first = test(ps);
        if (accept(ps, ")")) return first;
        if (!accept(ps, ",")) return fail(ps, "expected ')'");
        cc_node *n = node(ps, N_LIST, 1, 0);
        add_kid(ps, n, first);
        items(ps, n, ")");
        return n;
    }
    if (accept(ps, "[")) {
        cc_node *n = node(ps, N_LIST, 0, 0);
        items(ps, n, "]");
        return n;
    }
    if (accept(ps, "{")) {
        cc_node *n = node(ps, N_DICT, 0, 0);
        while (!ps->failed && !is(ps, "}")) {
            add_kid(ps, n, test(ps));
            if (!expect(ps, ":")) break;
            add_kid(ps, n, test(ps));
            if (is(ps, "for")) return fail(ps, "comprehensions are not supported");
            if (!accept(ps, ",")) break;
        }
        expect(ps, "}");
        return n;
    }
    if (t->kind == T_END || t->kind == T_NEWLINE) return fail(ps, "unexpected end of the rule");
    return fail(ps, "unexpected '%.*s'", (int)t->n, t->p);
}

/* atom followed by calls, subscripts and attributes. */
static cc_node *trailers(parser *ps) {
    cc_node *e = atom(ps);
    while (!ps->failed) {
        if (accept(ps, "(")) {
            cc_node *n = node(ps, N_CALL, 0, 0);
            add_kid(ps, n, e);
            while (!ps->failed && !is(ps, ")")) {
                if (peek(ps)->kind == T_NAME && ps->t[ps->pos + 1].kind == T_OP && ps->t[ps->pos + 1].n == 1 &&
                    ps->t[ps->pos + 1].p[0] == '=')
                    return fail(ps, "keyword arguments are not supported");
                if (is(ps, "*") || is(ps, "**")) return fail(ps, "argument unpacking is not supported");
                add_kid(ps, n, test(ps));
                if (is(ps, "for")) return fail(ps, "generator expressions are not supported");
                if (!accept(ps, ",")) break;
            }
            expect(ps, ")");
            e = n;
        } else if (accept(ps, "[")) {
            cc_node *n = node(ps, N_SUBSCRIPT, 0, 2);
            n->kids[0] = e;
            if (is(ps, ":")) return fail(ps, "slices are not supported");
            n->kids[1] = test(ps);
            if (is(ps, ":") || is(ps, ",")) return fail(ps, "slices are not supported");
            expect(ps, "]");
            e = n;
        } else if (accept(ps, ".")) {
            const token *t = peek(ps);
            if (t->kind != T_NAME) return fail(ps, "expected a name after '.'");
            cc_node *n = node(ps, N_ATTR, 0, 1);
            n->kids[0] = e;
            n->name = cc_strndup(ps->a, t->p, t->n);
            ps->pos++;
            e = n;
        } else {
            break;
        }
    }
    return e;
}

static cc_node *factor(parser *ps);

/* power: trailers ['**' factor] (right-associative, binds tighter than a unary minus on its left). */
static cc_node *power(parser *ps) {
    cc_node *e = trailers(ps);
    if (!ps->failed && accept(ps, "**")) {
        cc_node *n = node(ps, N_BINOP, OP_POW, 2);
        n->kids[0] = e;
        n->kids[1] = factor(ps);
        return n;
    }
    return e;
}

/* factor: ('+'|'-'|'~') factor | power. */
static cc_node *factor(parser *ps) {
    if (++ps->depth > MAX_DEPTH) return fail(ps, "rule nested too deep");
    cc_node *r;
    if (accept(ps, "-") || accept(ps, "+")) {
        int neg = ps->t[ps->pos - 1].p[0] == '-';
        r = node(ps, N_UNARY, neg ? OP_NEG : OP_POS, 1);
        r->kids[0] = factor(ps);
    } else if (is(ps, "~")) {
        r = fail(ps, "'~' is not supported");
    } else {
        r = power(ps);
    }
    ps->depth--;
    return r;
}

typedef struct {
    const char *text;
    int op;
} opname;

/* One left-associative level of binary operators (table ops) over sub. */
static cc_node *binary(parser *ps, cc_node *(*sub)(parser *), const opname *ops) {
    cc_node *e = sub(ps);
    while (!ps->failed) {
        int op = -1;
        for (int i = 0; ops[i].text; i++)
            if (accept(ps, ops[i].text)) {
                op = ops[i].op;
                break;
            }
        if (op < 0) break;
        cc_node *n = node(ps, N_BINOP, op, 2);
        n->kids[0] = e;
        n->kids[1] = sub(ps);
        e = n;
    }
    return e;
}

static const opname TERM_OPS[] = {{"*", OP_MUL}, {"/", OP_DIV}, {"//", OP_FLOORDIV}, {"%", OP_MOD}, {NULL, 0}};
static const opname ARITH_OPS[] = {{"+", OP_ADD}, {"-", OP_SUB}, {NULL, 0}};
static const opname AND_OPS[] = {{"&", OP_BITAND}, {NULL, 0}};
static const opname XOR_OPS[] = {{"^", OP_BITXOR}, {NULL, 0}};
static const opname OR_OPS[] = {{"|", OP_BITOR}, {NULL, 0}};

static cc_node *term(parser *ps) { return binary(ps, factor, TERM_OPS); }
static cc_node *arith(parser *ps) { return binary(ps, term, ARITH_OPS); }
/* shift: '<<' and '>>' are outside the subset. */
static cc_node *shift(parser *ps) {
    cc_node *e = arith(ps);
    if (is(ps, "<<") || is(ps, ">>")) return fail(ps, "shifts are not supported");
    return e;
}
static cc_node *and_expr(parser *ps) { return binary(ps, shift, AND_OPS); }
static cc_node *xor_expr(parser *ps) { return binary(ps, and_expr, XOR_OPS); }
static cc_node *or_expr(parser *ps) { return binary(ps, xor_expr, OR_OPS); }

/* The comparison operator that comes next (taken), or -1. */
static int comp_op(parser *ps) {
    static const opname ops[] = {{"==", CMP_EQ}, {"!=", CMP_NE}, {"<=", CMP_LE}, {">=", CMP_GE},
                                 {"<", CMP_LT},  {">", CMP_GT},  {"in", CMP_IN}, {NULL, 0}};
    for (int i = 0; ops[i].text; i++)
        if (accept(ps, ops[i].text)) return ops[i].op;
    if (is(ps, "not") && ps->t[ps->pos + 1].kind == T_NAME && ps->t[ps->pos + 1].n == 2 &&
        memcmp(ps->t[ps->pos + 1].p, "in", 2) == 0) {
        ps->pos += 2;
        return CMP_NOTIN;
    }
    if (accept(ps, "is")) return accept(ps, "not") ? CMP_ISNOT : CMP_IS;
    return -1;
}

/* comparison: or_expr (comp_op or_expr)*, kept as one chain (a < b < c). */
static cc_node *comparison(parser *ps) {
    cc_node *e = or_expr(ps);
    int op = ps->failed ? -1 : comp_op(ps);
    if (op < 0) return e;
    cc_node *n = node(ps, N_COMPARE, 0, 0);
    add_kid(ps, n, e);
    int *ops = NULL, nops = 0;
    while (op >= 0 && !ps->failed) {
        int *o = cc_alloc(ps->a, (size_t)(nops + 1) * sizeof *o);
        if (nops) memcpy(o, ops, (size_t)nops * sizeof *o);
        o[nops++] = op;
        ops = o;
        add_kid(ps, n, or_expr(ps));
        op = comp_op(ps);
    }
    n->ops = ops;
    return n;
}

/* not_test: 'not' not_test | comparison. */
static cc_node *not_test(parser *ps) {
    if (++ps->depth > MAX_DEPTH) return fail(ps, "rule nested too deep");
    cc_node *r;
    if (accept(ps, "not")) {
        r = node(ps, N_UNARY, OP_NOT, 1);
        r->kids[0] = not_test(ps);
    } else {
        r = comparison(ps);
    }
    ps->depth--;
    return r;
}

/* and_test / or_test: short-circuit chains returning an operand, as Python's. */
static cc_node *bool_chain(parser *ps, int op) {
    cc_node *e = op == OP_AND ? not_test(ps) : bool_chain(ps, OP_AND);
    while (!ps->failed && accept(ps, op == OP_AND ? "and" : "or")) {
        cc_node *n = node(ps, N_BOOLOP, op, 2);
        n->kids[0] = e;
        n->kids[1] = op == OP_AND ? not_test(ps) : bool_chain(ps, OP_AND);
        e = n;
    }
    return e;
}

/* test: or_test ['if' or_test 'else' test]. */
static cc_node *test(parser *ps) {
    if (++ps->depth > MAX_DEPTH) return fail(ps, "rule nested too deep");
    if (is(ps, "lambda")) return fail(ps, "lambda is not supported");
    cc_node *e = bool_chain(ps, OP_OR);
    if (!ps->failed && accept(ps, "if")) {
        cc_node *n = node(ps, N_IFEXP, 0, 3);
        n->kids[0] = e;
        n->kids[1] = bool_chain(ps, OP_OR);
        if (expect(ps, "else")) n->kids[2] = test(ps);
        e = n;
    }
    ps->depth--;
    return e;
}

static cc_node *block(parser *ps);
static cc_node *if_stmt(parser *ps);
static cc_node *for_stmt(parser *ps);

/* One simple statement: an expression, an assignment, an augmented assignment, pass. */
static cc_node *small_stmt(parser *ps) {
    if (accept(ps, "pass")) return node(ps, N_BLOCK, 0, 0);
    static const char *const keywords[] = {"while", "def", "return", "import", "class", "with",
                                           "try", "del", "global", "lambda", "yield", NULL};
    for (int i = 0; keywords[i]; i++)
        if (is(ps, keywords[i])) return fail(ps, "'%s' is not supported", keywords[i]);
    cc_node *e = test(ps);
    if (ps->failed) return NULL;
    static const opname aug[] = {{"+=", OP_ADD}, {"-=", OP_SUB}, {"*=", OP_MUL}, {"/=", OP_DIV}, {"|=", OP_BITOR}, {NULL, 0}};
    for (int i = 0; aug[i].text; i++)
        if (accept(ps, aug[i].text)) {
            if (e->kind != N_NAME && e->kind != N_SUBSCRIPT) return fail(ps, "cannot assign to that");
            cc_node *n = node(ps, N_AUGASSIGN, aug[i].op, 2);
            n->kids[0] = e;
            n->kids[1] = test(ps);
            return n;
        }
    if (accept(ps, "=")) {
        if (e->kind != N_NAME && e->kind != N_SUBSCRIPT && e->kind != N_ATTR) return fail(ps, "cannot assign to that");
        cc_node *n = node(ps, N_ASSIGN, 0, 2);
        n->kids[0] = e;
        n->kids[1] = test(ps);
        if (is(ps, "=")) return fail(ps, "chained assignment is not supported");
        return n;
    }
    if (is(ps, ",")) return fail(ps, "tuple statements are not supported");
    cc_node *n = node(ps, N_EXPRSTMT, 0, 1);
    n->kids[0] = e;
    return n;
}

/* A suite after ':': statements on the same line, or an indented block. */
static cc_node *suite(parser *ps) {
    if (peek(ps)->kind != T_NEWLINE) {
        cc_node *b = node(ps, N_BLOCK, 0, 0);
        do {
            if (peek(ps)->kind == T_NEWLINE) break;
            add_kid(ps, b, small_stmt(ps));
        } while (!ps->failed && accept(ps, ";"));
        if (peek(ps)->kind == T_NEWLINE) ps->pos++;
        else fail(ps, "expected the end of the line");
        return b;
    }
    ps->pos++;
    if (peek(ps)->kind != T_INDENT) return fail(ps, "expected an indented block");
    ps->pos++;
    cc_node *b = block(ps);
    if (peek(ps)->kind == T_DEDENT) ps->pos++;
    return b;
}

/* if test ':' suite ('elif' test ':' suite)* ['else' ':' suite]: kids cond, then, else (or NULL). */
static cc_node *if_stmt(parser *ps) {
    if (++ps->depth > MAX_DEPTH) return fail(ps, "rule nested too deep");
    cc_node *n = node(ps, N_IF, 0, 3);
    n->kids[0] = test(ps);
    if (expect(ps, ":")) n->kids[1] = suite(ps);
    if (!ps->failed && accept(ps, "elif")) {
        n->kids[2] = if_stmt(ps);
    } else if (!ps->failed && accept(ps, "else")) {
        if (expect(ps, ":")) n->kids[2] = suite(ps);
    }
    ps->depth--;
    return n;
}

/* for NAME in test ':' suite: kids target, iterable, body. */
static cc_node *for_stmt(parser *ps) {
    if (++ps->depth > MAX_DEPTH) return fail(ps, "rule nested too deep");
    const token *t = peek(ps);
    if (t->kind != T_NAME || keyword(t)) return fail(ps, "for loops over one name only are supported");
    cc_node *n = node(ps, N_FOR, 0, 3);
    n->kids[0] = node(ps, N_NAME, 0, 0);
    n->kids[0]->name = cc_strndup(ps->a, t->p, t->n);
    ps->pos++;
    if (!expect(ps, "in")) return NULL;
    n->kids[1] = test(ps);
    if (expect(ps, ":")) n->kids[2] = suite(ps);
    ps->depth--;
    if (n->kids[2] == NULL) return fail(ps, "expected the loop's body");
    return n;
}

/* Statements up to a DEDENT or the end. */
static cc_node *block(parser *ps) {
    cc_node *b = node(ps, N_BLOCK, 0, 0);
    while (!ps->failed && peek(ps)->kind != T_END && peek(ps)->kind != T_DEDENT) {
        if (peek(ps)->kind == T_NEWLINE) {
            ps->pos++;
            continue;
        }
        if (accept(ps, "if")) {
            add_kid(ps, b, if_stmt(ps));
            continue;
        }
        if (accept(ps, "for")) {
            add_kid(ps, b, for_stmt(ps));
            continue;
        }
        if (accept(ps, "from")) { /* only the one import the rules use: a dataclass copy */
            if (!(accept(ps, "dataclasses") && accept(ps, "import") && accept(ps, "replace"))) {
                fail(ps, "imports other than 'from dataclasses import replace' are not supported");
                break;
            }
            if (peek(ps)->kind == T_NEWLINE) ps->pos++;
            continue;
        }
        do {
            if (peek(ps)->kind == T_NEWLINE) break;
            add_kid(ps, b, small_stmt(ps));
        } while (!ps->failed && accept(ps, ";"));
        if (ps->failed) break;
        if (peek(ps)->kind == T_NEWLINE) ps->pos++;
        else if (peek(ps)->kind != T_END) fail(ps, "unexpected '%.*s'", (int)peek(ps)->n, peek(ps)->p);
    }
    return b;
}

/* Parses text as an expression (statements 0) or statements (1). */
static int parse(cc_arena *a, const char *text, int statements, cc_node **out, char *why, size_t cap) {
    assert(a && text && out && why && cap > 0);
    parser ps = {.a = a, .why = why, .whycap = cap};
    why[0] = '\0';
    *out = NULL;
    while (*text == ' ' || *text == '\n' || *text == '\t' || *text == '\r') text++; /* the checker strips */
    if (tokenize(&ps, text, statements) != 0) return CC_UNSUPPORTED;
    cc_node *n = statements ? block(&ps) : test(&ps);
    if (!ps.failed && peek(&ps)->kind != T_END) {
        const token *t = peek(&ps);
        fail(&ps, "unexpected '%.*s' after the rule", (int)t->n, t->p);
    }
    if (ps.failed) return CC_UNSUPPORTED;
    *out = n;
    return CC_OK;
}

/* Parses an expression (eval mode). */
int cc_parse_expr(cc_arena *a, const char *text, cc_node **out, char *why, size_t cap) {
    return parse(a, text, 0, out, why, cap);
}

/* Parses statements (exec mode). */
int cc_parse_code(cc_arena *a, const char *text, cc_node **out, char *why, size_t cap) {
    return parse(a, text, 1, out, why, cap);
}
