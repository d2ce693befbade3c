/* model_spec.c: reads a model file (JSON, rules in schemas/model.schema.json) into an expanded,
 * validated tta_graph for a given input shape and class count.
 *
 * What a model file may say (docs/replay-engine.md has the full description):
 *   {"name": "...", "input": [C, H, W] (each an integer or "input"), "params": {...},
 *    "blocks": {"basic": {"args": {...}, "layers": [...]}}, "layers": [...],
 *    "label_smoothing": 0.0}
 * Numeric layer fields are numbers or expressions over params ("$c1 * $width", "$n - 1");
 * string fields may be "$param". Predefined params: in_channels, in_height, in_width, classes.
 * A layer's "input" is "prev" (default), "input" (the data), "in" (a block's input) or a layer
 * name (block-local names first, then outer ones). Validation is strict: unknown layer types,
 * unknown fields, missing required fields, dangling references, duplicate names, shapes that
 * do not work for the input, and layers whose output nothing uses are errors.
 */
#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "common/check.h"
#include "replay/model_internal.h"

typedef struct {
    char name[TTA_NAME_MAX];
    int is_str;
    double num;
    char str[TTA_NAME_MAX];
} pval;

typedef struct scope {
    pval *v;
    int n;
    const struct scope *parent;
} scope;

typedef struct {
    char name[2 * TTA_NAME_MAX];
    int node;
} name_entry;

/* A list of layers being expanded: the top level or one block instance. */
typedef struct frame {
    char prefix[TTA_NAME_MAX]; /* prepended to names declared here ("s1.0.") */
    int in;                    /* the block's input node ("in"); unused at top level */
    int prev;                  /* the node "prev" refers to */
    int is_block;
    const scope *sc;
    char where[160];           /* location for messages */
    const struct frame *parent;
} frame;

typedef struct {
    tta_graph *g;
    const tta_model_config *cfg;
    const cJSON *blocks;
    name_entry *names;
    int nnames;
    size_t names_cap;
    char *err;
    size_t errlen;
    int depth;
} parser;

static int fail(parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(parser *p, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err, p->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* ------------------------------------------------------------------------------------------ */
/* Parameters and expressions                                                                   */

static const pval *scope_find(const scope *s, const char *name) {
    for (; s; s = s->parent)
        for (int i = 0; i < s->n; i++)
            if (strcmp(s->v[i].name, name) == 0) return &s->v[i];
    return NULL;
}

typedef struct {
    const char *s;
    const scope *sc;
    char msg[160];
} expr_state;

static double expr_sum(expr_state *e);

static void skip_ws(expr_state *e) {
    while (isspace((unsigned char)*e->s)) e->s++;
}

static double expr_factor(expr_state *e) {
    skip_ws(e);
    if (*e->s == '(') {
        e->s++;
        double v = expr_sum(e);
        skip_ws(e);
        if (*e->s != ')') {
            if (!e->msg[0]) snprintf(e->msg, sizeof e->msg, "missing ')'");
            return 0;
        }
        e->s++;
        return v;
    }
    if (*e->s == '-') {
        e->s++;
        return -expr_factor(e);
    }
    if (*e->s == '$') {
        e->s++;
        char name[TTA_NAME_MAX];
        int n = 0;
        while ((isalnum((unsigned char)*e->s) || *e->s == '_') && n < TTA_NAME_MAX - 1) name[n++] = *e->s++;
        name[n] = 0;
        const pval *v = scope_find(e->sc, name);
        if (!v) {
            if (!e->msg[0]) snprintf(e->msg, sizeof e->msg, "unknown parameter $%s", name);
            return 0;
        }
        if (v->is_str) {
            if (!e->msg[0]) snprintf(e->msg, sizeof e->msg, "parameter $%s is a string, not a number", name);
            return 0;
        }
        return v->num;
    }
    char *end;
    double v = strtod(e->s, &end);
    if (end == e->s) {
        if (!e->msg[0]) snprintf(e->msg, sizeof e->msg, "expected a number or $param at \"%s\"", e->s);
        return 0;
    }
    e->s = end;
    return v;
}

static double expr_term(expr_state *e) {
    double v = expr_factor(e);
    for (;;) {
        skip_ws(e);
        if (*e->s == '*') {
            e->s++;
            v *= expr_factor(e);
        } else if (*e->s == '/') {
            e->s++;
            double d = expr_factor(e);
            if (d == 0 && !e->msg[0]) snprintf(e->msg, sizeof e->msg, "division by zero");
            v = d != 0 ? v / d : 0;
        } else {
            return v;
        }
    }
}

static double expr_sum(expr_state *e) {
    double v = expr_term(e);
    for (;;) {
        skip_ws(e);
        if (*e->s == '+') {
            e->s++;
            v += expr_term(e);
        } else if (*e->s == '-') {
            e->s++;
            v -= expr_term(e);
        } else {
            return v;
        }
    }
}

/* A numeric field: a JSON number or an expression string. */
static int eval_number(parser *p, const frame *fr, const char *lname, const char *field,
                       const cJSON *item, double *out) {
    if (cJSON_IsNumber(item)) {
        *out = item->valuedouble;
        return 0;
    }
    if (cJSON_IsString(item)) {
        expr_state e = {.s = item->valuestring, .sc = fr->sc};
        double v = expr_sum(&e);
        skip_ws(&e);
        if (!e.msg[0] && *e.s) snprintf(e.msg, sizeof e.msg, "unexpected \"%s\"", e.s);
        if (e.msg[0])
            return fail(p, "%s: layer \"%s\": field \"%s\": %s", fr->where, lname, field, e.msg);
        *out = v;
        return 0;
    }
    if (cJSON_IsBool(item)) {
        *out = cJSON_IsTrue(item);
        return 0;
    }
    return fail(p, "%s: layer \"%s\": field \"%s\" must be a number or an expression string",
                fr->where, lname, field);
}

/* An integer field >= min; absent: def (or an error when required). Expressions are rounded
 * to the nearest integer so that "$c1 * $width" with width 0.25 gives 32, not 31.999. */
static int get_int(parser *p, const frame *fr, const cJSON *layer, const char *lname,
                   const char *field, int required, int def, int min, int *out) {
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(layer, field);
    if (!it) {
        if (required) return fail(p, "%s: layer \"%s\": missing required field \"%s\"", fr->where, lname, field);
        *out = def;
        return 0;
    }
    double v;
    if (eval_number(p, fr, lname, field, it, &v)) return -1;
    double r = floor(v + 0.5);
    if (!(r >= min && r <= 1e8))
        return fail(p, "%s: layer \"%s\": field \"%s\" = %g is out of range (at least %d)", fr->where,
                    lname, field, v, min);
    *out = (int)r;
    return 0;
}

static int get_float(parser *p, const frame *fr, const cJSON *layer, const char *lname,
                     const char *field, double def, double lo, double hi, float *out) {
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(layer, field);
    double v = def;
    if (it && eval_number(p, fr, lname, field, it, &v)) return -1;
    if (!(v >= lo && v <= hi))
        return fail(p, "%s: layer \"%s\": field \"%s\" = %g is outside [%g, %g]", fr->where, lname,
                    field, v, lo, hi);
    *out = (float)v;
    return 0;
}

/* A string field; "$name" takes a string parameter. */
static int get_str(parser *p, const frame *fr, const cJSON *layer, const char *lname,
                   const char *field, const char *def, char *out, size_t outlen) {
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(layer, field);
    if (!it) {
        snprintf(out, outlen, "%s", def);
        return 0;
    }
    if (!cJSON_IsString(it))
        return fail(p, "%s: layer \"%s\": field \"%s\" must be a string", fr->where, lname, field);
    const char *s = it->valuestring;
    if (s[0] == '$') {
        const pval *v = scope_find(fr->sc, s + 1);
        if (!v) return fail(p, "%s: layer \"%s\": unknown parameter %s", fr->where, lname, s);
        if (v->is_str)
            snprintf(out, outlen, "%s", v->str);
        else
            snprintf(out, outlen, "%g", v->num);
        return 0;
    }
    snprintf(out, outlen, "%s", s);
    return 0;
}

static int pval_from_json(pval *v, const cJSON *it) {
    if (cJSON_IsNumber(it)) {
        v->num = it->valuedouble;
    } else if (cJSON_IsBool(it)) {
        v->num = cJSON_IsTrue(it);
    } else if (cJSON_IsString(it)) {
        v->is_str = 1;
        snprintf(v->str, sizeof v->str, "%s", it->valuestring);
    } else {
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Names and nodes                                                                              */

static int name_lookup(const parser *p, const char *full) {
    for (int i = p->nnames - 1; i >= 0; i--)
        if (strcmp(p->names[i].name, full) == 0) return i;
    return -1;
}

static int name_add(parser *p, const frame *fr, const char *full, int node) {
    if (name_lookup(p, full) >= 0) return fail(p, "%s: duplicate layer name \"%s\"", fr->where, full);
    if (strlen(full) >= TTA_NAME_MAX - 16)
        return fail(p, "%s: layer name \"%s\" is too long", fr->where, full);
    growArray(p->names, &p->names_cap, (size_t)p->nnames + 1);
    snprintf(p->names[p->nnames].name, sizeof p->names[p->nnames].name, "%s", full);
    p->names[p->nnames].node = node;
    p->nnames++;
    return 0;
}

/* Resolves an input reference to a node index (-1: the model input). */
static int resolve(parser *p, const frame *fr, const char *lname, const char *ref, int *node) {
    if (strcmp(ref, "prev") == 0) {
        *node = fr->prev;
        return 0;
    }
    if (strcmp(ref, "input") == 0) {
        *node = -1;
        return 0;
    }
    if (strcmp(ref, "in") == 0) {
        if (!fr->is_block)
            return fail(p, "%s: layer \"%s\": \"in\" (a block's input) used outside a block", fr->where, lname);
        *node = fr->in;
        return 0;
    }
    for (const frame *f = fr; f; f = f->parent) {
        char full[2 * TTA_NAME_MAX + 8];
        snprintf(full, sizeof full, "%s%s", f->prefix, ref);
        int i = name_lookup(p, full);
        if (i >= 0) {
            *node = p->names[i].node;
            return 0;
        }
    }
    return fail(p, "%s: layer \"%s\": input \"%s\" is not the name of an earlier layer", fr->where,
                lname, ref);
}

static void node_shape(const parser *p, int node, int *c, int *h, int *w) {
    if (node < 0) {
        *c = p->g->in_c;
        *h = p->g->in_h;
        *w = p->g->in_w;
    } else {
        *c = p->g->nodes[node].c;
        *h = p->g->nodes[node].h;
        *w = p->g->nodes[node].w;
    }
}

static int node_add(parser *p, const frame *fr, const tta_node *n) {
    tta_graph *g = p->g;
    if (g->nnodes >= 100000) return fail(p, "%s: more than 100000 layers", fr->where);
    growArray(g->nodes, &g->cap, (size_t)g->nnodes + 1);
    g->nodes[g->nnodes] = *n;
    if (name_add(p, fr, n->name, g->nnodes)) return -1;
    return g->nnodes++;
}

static int check_fields(parser *p, const frame *fr, const cJSON *layer, const char *lname,
                        const char *type, const char *const *allowed) {
    const cJSON *it;
    cJSON_ArrayForEach(it, layer) {
        int ok = 0;
        for (int i = 0; allowed[i]; i++)
            if (strcmp(it->string, allowed[i]) == 0) ok = 1;
        if (!ok)
            return fail(p, "%s: layer \"%s\": unknown field \"%s\" for type \"%s\"", fr->where, lname,
                        it->string, type);
    }
    return 0;
}

/* Output size of a window op, PyTorch floor mode. */
static int window_out(parser *p, const frame *fr, const char *lname, int in, int k, int s, int pad,
                      int *out) {
    if (in + 2 * pad < k)
        return fail(p, "%s: layer \"%s\": kernel %d does not fit the %d-pixel input (padding %d)",
                    fr->where, lname, k, in, pad);
    *out = (in + 2 * pad - k) / s + 1;
    return 0;
}

static int expand_layers(parser *p, frame *fr, const cJSON *layers);

static const char *const common_fields[] = {"name", "type", "input", "comment", NULL};

/* The scope of one block instance: the block's declared args with their defaults, overridden
 * by the call's "args" and, for the first repetition, "first_args". A given value is a string
 * when it is "$param" naming a string parameter or a plain word ("A"), else an expression. */
static int block_args(parser *p, const frame *fr, const char *lname, const char *type,
                      const cJSON *bargs, const cJSON *args, const cJSON *first, pval *vals, int *count) {
    int k = 0;
    const cJSON *a;
    for (int pass = 0; pass < 2; pass++) { /* reject arguments the block does not declare */
        const cJSON *given_set = pass ? first : args;
        cJSON_ArrayForEach(a, given_set) {
            if (!bargs || !cJSON_GetObjectItemCaseSensitive(bargs, a->string))
                return fail(p, "%s: layer \"%s\": block \"%s\" has no argument \"%s\"", fr->where,
                            lname, type, a->string);
        }
    }
    cJSON_ArrayForEach(a, bargs) {
        memset(&vals[k], 0, sizeof vals[k]);
        snprintf(vals[k].name, sizeof vals[k].name, "%s", a->string);
        const cJSON *given = first ? cJSON_GetObjectItemCaseSensitive(first, a->string) : NULL;
        if (!given && args) given = cJSON_GetObjectItemCaseSensitive(args, a->string);
        if (given) {
            const pval *ref = cJSON_IsString(given) && given->valuestring[0] == '$'
                                  ? scope_find(fr->sc, given->valuestring + 1)
                                  : NULL;
            if (ref && ref->is_str) {
                vals[k] = *ref;
                snprintf(vals[k].name, sizeof vals[k].name, "%s", a->string);
            } else if (cJSON_IsString(given) && isalpha((unsigned char)given->valuestring[0]) &&
                       strspn(given->valuestring, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_") ==
                           strlen(given->valuestring)) {
                vals[k].is_str = 1;
                snprintf(vals[k].str, sizeof vals[k].str, "%s", given->valuestring);
            } else {
                double v;
                if (eval_number(p, fr, lname, a->string, given, &v)) return -1;
                vals[k].num = v;
            }
        } else if (cJSON_IsNull(a)) {
            return fail(p, "%s: layer \"%s\": block \"%s\" needs argument \"%s\"", fr->where, lname,
                        type, a->string);
        } else if (pval_from_json(&vals[k], a)) {
            return fail(p, "blocks.%s.args.%s: a default must be a number, boolean, string or null",
                        type, a->string);
        }
        k++;
    }
    *count = k;
    return 0;
}

/* What every layer entry has, read before its type's own fields. */
typedef struct {
    const char *type;            /* the layer type, after "$param" substitution */
    char lname[TTA_NAME_MAX];    /* its name in its list: given, or the type and index */
    char full[2 * TTA_NAME_MAX]; /* with the frame's prefix: its name in the graph */
    int in0;                     /* the node its "input" names (-1: the model input) */
    int C, H, W;                 /* that input's shape */
} layer_head;

/* Reads the fields every layer entry shares: checks that layer (entry `index` of fr's list)
 * is an object with a string "type" (a "$param" type must name a string parameter), an
 * optional "name" without '.' (else the name is the type and index), a full name short
 * enough for the names derived from it, and an "input" naming an earlier layer; fills h.
 * Returns 0, or -1 with the message in p->err. */
static int read_layer_head(parser *p, const frame *fr, const cJSON *layer, int index, layer_head *h) {
    if (!cJSON_IsObject(layer)) return fail(p, "%s[%d]: a layer must be an object", fr->where, index);
    const cJSON *jt = cJSON_GetObjectItemCaseSensitive(layer, "type");
    if (!cJSON_IsString(jt)) return fail(p, "%s[%d]: missing \"type\" (a string)", fr->where, index);
    h->type = jt->valuestring;
    if (h->type[0] == '$') { /* a type chosen by a string parameter ("$global_pool") */
        const pval *v = scope_find(fr->sc, h->type + 1);
        if (!v || !v->is_str)
            return fail(p, "%s[%d]: type %s is not a string parameter", fr->where, index, h->type);
        h->type = v->str;
    }
    const cJSON *jn = cJSON_GetObjectItemCaseSensitive(layer, "name");
    if (jn && (!cJSON_IsString(jn) || !jn->valuestring[0] || strchr(jn->valuestring, '.')))
        return fail(p, "%s[%d]: \"name\" must be a non-empty string without '.'", fr->where, index);
    if (jn)
        snprintf(h->lname, sizeof h->lname, "%s", jn->valuestring);
    else
        snprintf(h->lname, sizeof h->lname, "%.40s%d", h->type, index);
    snprintf(h->full, sizeof h->full, "%s%s", fr->prefix, h->lname);
    if (strlen(h->full) >= TTA_NAME_MAX - 16) /* room for ".running_mean" and ".conv" */
        return fail(p, "%s[%d]: layer name \"%s\" is longer than %d characters", fr->where, index,
                    h->full, TTA_NAME_MAX - 17);
    h->in0 = fr->prev;
    const cJSON *ji = cJSON_GetObjectItemCaseSensitive(layer, "input");
    if (ji) {
        if (!cJSON_IsString(ji))
            return fail(p, "%s: layer \"%s\": \"input\" must be a string", fr->where, h->lname);
        if (resolve(p, fr, h->lname, ji->valuestring, &h->in0)) return -1;
    }
    node_shape(p, h->in0, &h->C, &h->H, &h->W);
    return 0;
}

/* Expands a call of block blk (layer h): checks the call's fields ("repeat", "args",
 * "first_args"), then expands the block's layers `repeat` times in a row, each repetition
 * reading the previous one's output, with its own argument scope (block_args) and name prefix
 * ("s1.0.", "s1.1.", or "s1." when there is one). The call's name, and "prev", then refer to
 * the last repetition's output. Blocks nest at most 8 deep. Returns 0, or -1 with p->err. */
static int expand_block_call(parser *p, frame *fr, const cJSON *layer, const cJSON *blk,
                             const layer_head *h) {
    static const char *const f[] = {"name", "type", "input", "comment", "repeat", "args", "first_args", NULL};
    const char *lname = h->lname;
    if (check_fields(p, fr, layer, lname, h->type, f)) return -1;
    int repeat = 1;
    if (get_int(p, fr, layer, lname, "repeat", 0, 1, 0, &repeat)) return -1;
    if (p->depth >= 8) return fail(p, "%s: layer \"%s\": blocks nested deeper than 8", fr->where, lname);
    const cJSON *bargs = cJSON_GetObjectItemCaseSensitive(blk, "args");
    const cJSON *blayers = cJSON_GetObjectItemCaseSensitive(blk, "layers");
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(layer, "args");
    const cJSON *first = cJSON_GetObjectItemCaseSensitive(layer, "first_args");
    if ((args && !cJSON_IsObject(args)) || (first && !cJSON_IsObject(first)))
        return fail(p, "%s: layer \"%s\": \"args\" and \"first_args\" must be objects", fr->where, lname);
    int nargs = bargs ? cJSON_GetArraySize(bargs) : 0;
    pval *vals = callocCheck(nargs ? nargs : 1, sizeof *vals);
    int rc = 0, cur = h->in0;
    for (int r = 0; !rc && r < repeat; r++) {
        int k = 0;
        rc = block_args(p, fr, lname, h->type, bargs, args, r == 0 ? first : NULL, vals, &k);
        if (rc) break;
        scope sc = {.v = vals, .n = k, .parent = fr->sc};
        frame sub = {.in = cur, .prev = cur, .is_block = 1, .sc = &sc, .parent = fr};
        if (repeat > 1)
            snprintf(sub.prefix, sizeof sub.prefix, "%.*s.%d.", TTA_NAME_MAX - 24, h->full, r);
        else
            snprintf(sub.prefix, sizeof sub.prefix, "%.*s.", TTA_NAME_MAX - 24, h->full);
        snprintf(sub.where, sizeof sub.where, "blocks.%.40s.layers (in %.60s)", h->type, h->full);
        p->depth++;
        rc = expand_layers(p, &sub, blayers);
        p->depth--;
        cur = sub.prev;
    }
    free(vals);
    if (rc) return -1;
    if (name_add(p, fr, h->full, cur)) return -1;
    fr->prev = cur;
    return 0;
}

/* The op kind a layer type names, or -1 (a "shortcut", or no layer type): the loss and the
 * padding shortcut are made by the parser, never written in a model file. */
static int layer_kind(const char *type) {
    int kind = -1;
    for (int k = 0; k < TTA_OP_COUNT; k++)
        if (k != TTA_OP_XENT && k != TTA_OP_PAD_SHORTCUT && strcmp(type, tta_op_kind_name(k)) == 0) kind = k;
    return kind;
}

/* A "conv" layer's fields into n: out channels, kernel, stride, pad and bias, and the output
 * size they give for the input h. Returns 0, or -1 with p->err. */
static int read_conv(parser *p, const frame *fr, const cJSON *layer, const layer_head *h, tta_node *n) {
    static const char *const f[] = {"name", "type", "input", "comment", "out", "kernel", "stride", "pad", "bias", NULL};
    const char *lname = h->lname;
    if (check_fields(p, fr, layer, lname, h->type, f)) return -1;
    int out;
    if (get_int(p, fr, layer, lname, "out", 1, 0, 1, &out) ||
        get_int(p, fr, layer, lname, "kernel", 1, 0, 1, &n->kernel) ||
        get_int(p, fr, layer, lname, "stride", 0, 1, 1, &n->stride) ||
        get_int(p, fr, layer, lname, "pad", 0, 0, 0, &n->pad) ||
        get_int(p, fr, layer, lname, "bias", 0, 1, 0, &n->bias))
        return -1;
    n->c = out;
    if (window_out(p, fr, lname, h->H, n->kernel, n->stride, n->pad, &n->h) ||
        window_out(p, fr, lname, h->W, n->kernel, n->stride, n->pad, &n->w))
        return -1;
    return 0;
}

/* A "maxpool" or "avgpool" layer's fields into n: kernel, stride (default the kernel) and pad
 * (at most half the kernel), and the output size. Returns 0, or -1 with p->err. */
static int read_pool(parser *p, const frame *fr, const cJSON *layer, const layer_head *h, tta_node *n) {
    static const char *const f[] = {"name", "type", "input", "comment", "kernel", "stride", "pad", NULL};
    const char *lname = h->lname;
    if (check_fields(p, fr, layer, lname, h->type, f) ||
        get_int(p, fr, layer, lname, "kernel", 1, 0, 1, &n->kernel) ||
        get_int(p, fr, layer, lname, "stride", 0, n->kernel, 1, &n->stride) ||
        get_int(p, fr, layer, lname, "pad", 0, 0, 0, &n->pad))
        return -1;
    if (2 * n->pad > n->kernel)
        return fail(p, "%s: layer \"%s\": padding %d is more than half the kernel %d", fr->where,
                    lname, n->pad, n->kernel);
    if (window_out(p, fr, lname, h->H, n->kernel, n->stride, n->pad, &n->h) ||
        window_out(p, fr, lname, h->W, n->kernel, n->stride, n->pad, &n->w))
        return -1;
    return 0;
}

/* An "add" layer's "inputs" (two earlier layers of one shape) into n. Returns 0, or -1 with
 * p->err. */
static int read_add(parser *p, const frame *fr, const cJSON *layer, const layer_head *h, tta_node *n) {
    static const char *const f[] = {"name", "type", "comment", "inputs", NULL};
    const char *lname = h->lname;
    if (check_fields(p, fr, layer, lname, h->type, f)) return -1;
    const cJSON *ins = cJSON_GetObjectItemCaseSensitive(layer, "inputs");
    if (!cJSON_IsArray(ins) || cJSON_GetArraySize(ins) != 2)
        return fail(p, "%s: layer \"%s\": add needs \"inputs\": an array of two layer names", fr->where, lname);
    for (int k = 0; k < 2; k++) {
        const cJSON *r = cJSON_GetArrayItem(ins, k);
        if (!cJSON_IsString(r)) return fail(p, "%s: layer \"%s\": \"inputs\" must hold strings", fr->where, lname);
        if (resolve(p, fr, lname, r->valuestring, &n->in[k])) return -1;
    }
    n->nin = 2;
    int c1, h1, w1, c2, h2, w2;
    node_shape(p, n->in[0], &c1, &h1, &w1);
    node_shape(p, n->in[1], &c2, &h2, &w2);
    if (c1 != c2 || h1 != h2 || w1 != w2)
        return fail(p, "%s: layer \"%s\": add of different shapes %dx%dx%d and %dx%dx%d", fr->where,
                    lname, c1, h1, w1, c2, h2, w2);
    n->c = c1;
    n->h = h1;
    n->w = w1;
    return 0;
}

/* The fields of a layer of op kind n->kind (any kind layer_kind returns) into n, whose input
 * and shape are the input's: checks that the layer has no field its kind does not take, reads
 * and range-checks those it does, and sets the output shape. Returns 0, or -1 with p->err. */
static int read_op_fields(parser *p, const frame *fr, const cJSON *layer, const layer_head *h, tta_node *n) {
    const char *lname = h->lname, *type = h->type;
    switch (n->kind) {
    case TTA_OP_CONV:
        return read_conv(p, fr, layer, h, n);
    case TTA_OP_MAXPOOL:
    case TTA_OP_AVGPOOL:
        return read_pool(p, fr, layer, h, n);
    case TTA_OP_ADD:
        return read_add(p, fr, layer, h, n);
    case TTA_OP_BN: {
        static const char *const f[] = {"name", "type", "input", "comment", "eps", "momentum", NULL};
        if (check_fields(p, fr, layer, lname, type, f) ||
            get_float(p, fr, layer, lname, "eps", 1e-5, 1e-12, 1, &n->eps) ||
            get_float(p, fr, layer, lname, "momentum", 0.1, 0, 1, &n->momentum))
            return -1;
        return 0;
    }
    case TTA_OP_GAP:
    case TTA_OP_GMP:
    case TTA_OP_FLATTEN:
    case TTA_OP_RELU:
        if (check_fields(p, fr, layer, lname, type, common_fields)) return -1;
        if (n->kind == TTA_OP_FLATTEN) n->c = h->C * h->H * h->W;
        if (n->kind != TTA_OP_RELU) n->h = n->w = 1;
        return 0;
    case TTA_OP_LINEAR: {
        static const char *const f[] = {"name", "type", "input", "comment", "out", "bias", NULL};
        if (check_fields(p, fr, layer, lname, type, f) ||
            get_int(p, fr, layer, lname, "out", 1, 0, 1, &n->c) ||
            get_int(p, fr, layer, lname, "bias", 0, 1, 0, &n->bias))
            return -1;
        if (h->H * h->W != 1)
            return fail(p, "%s: layer \"%s\": linear needs a flat input, got %dx%dx%d (add a flatten "
                        "or global pooling layer before it)", fr->where, lname, h->C, h->H, h->W);
        return 0;
    }
    case TTA_OP_DROPOUT: {
        static const char *const f[] = {"name", "type", "input", "comment", "p", NULL};
        if (check_fields(p, fr, layer, lname, type, f) ||
            get_float(p, fr, layer, lname, "p", 0.5, 0, 0.999, &n->p))
            return -1;
        return 0;
    }
    case TTA_OP_SCALE: {
        static const char *const f[] = {"name", "type", "input", "comment", "factor", NULL};
        if (check_fields(p, fr, layer, lname, type, f)) return -1;
        if (!cJSON_GetObjectItemCaseSensitive(layer, "factor"))
            return fail(p, "%s: layer \"%s\": missing required field \"factor\"", fr->where, lname);
        return get_float(p, fr, layer, lname, "factor", 1, -1e6, 1e6, &n->factor);
    }
    default:
        assert(0 && "read_op_fields: a kind layer_kind does not return");
        return fail(p, "%s: layer \"%s\": unknown layer type \"%s\"", fr->where, lname, type);
    }
}

/* Expands a "shortcut" layer h (n: a node on its input, of its input's shape): identity when
 * stride 1 and the channels stay (no node: the name refers to the input), option A a padding
 * shortcut node (subsample and zero channels), option B a 1x1 conv node and a batch-norm node
 * ("<name>.conv", "<name>.bn"; the name refers to the bn). Sets fr->prev to what the name
 * refers to. Returns 0, or -1 with p->err. */
static int expand_shortcut(parser *p, frame *fr, const cJSON *layer, const layer_head *h, tta_node n) {
    static const char *const f[] = {"name", "type", "input", "comment", "out", "stride", "option", NULL};
    const char *lname = h->lname, *full = h->full;
    const int C = h->C, H = h->H, W = h->W;
    if (check_fields(p, fr, layer, lname, h->type, f)) return -1;
    int out = 0, stride = 1;
    char opt[TTA_NAME_MAX];
    if (get_int(p, fr, layer, lname, "out", 1, 0, 1, &out) ||
        get_int(p, fr, layer, lname, "stride", 0, 1, 1, &stride) ||
        get_str(p, fr, layer, lname, "option", "A", opt, sizeof opt))
        return -1;
    if (strcmp(opt, "A") != 0 && strcmp(opt, "B") != 0)
        return fail(p, "%s: layer \"%s\": shortcut option must be \"A\" or \"B\", not \"%s\"",
                    fr->where, lname, opt);
    if (stride == 1 && out == C) { /* identity: no node, the name refers to the input */
        if (name_add(p, fr, full, h->in0)) return -1;
        fr->prev = h->in0;
        return 0;
    }
    if (opt[0] == 'A') {
        if (out < C)
            return fail(p, "%s: layer \"%s\": option-A shortcut cannot reduce %d channels to %d",
                        fr->where, lname, C, out);
        n.kind = TTA_OP_PAD_SHORTCUT;
        n.c = out;
        n.stride = stride;
        n.pad_front = (out - C) / 2;
        n.h = (H + stride - 1) / stride;
        n.w = (W + stride - 1) / stride;
        int id = node_add(p, fr, &n);
        if (id < 0) return -1;
        fr->prev = id;
        return 0;
    }
    tta_node cv = n, bn;
    cv.kind = TTA_OP_CONV;
    cv.c = out;
    cv.kernel = 1;
    cv.stride = stride;
    cv.bias = 0;
    cv.h = (H - 1) / stride + 1;
    cv.w = (W - 1) / stride + 1;
    snprintf(cv.name, sizeof cv.name, "%.*s.conv", TTA_NAME_MAX - 8, full);
    int idc = node_add(p, fr, &cv);
    if (idc < 0) return -1;
    bn = cv;
    bn.kind = TTA_OP_BN;
    bn.in[0] = idc;
    bn.eps = 1e-5f;
    bn.momentum = 0.1f;
    snprintf(bn.name, sizeof bn.name, "%.*s.bn", TTA_NAME_MAX - 8, full);
    int idb = node_add(p, fr, &bn);
    if (idb < 0 || name_add(p, fr, full, idb)) return -1;
    fr->prev = idb;
    return 0;
}

/* Expands one entry (number `index`) of fr's layers array: a block call, a shortcut, or one
 * op node, added to the graph and named; fr->prev becomes what the entry's name refers to.
 * Returns 0, or -1 with the message (naming fr->where and the layer) in p->err. */
static int expand_layer(parser *p, frame *fr, const cJSON *layer, int index) {
    layer_head h;
    if (read_layer_head(p, fr, layer, index, &h)) return -1;
    const cJSON *blk = p->blocks ? cJSON_GetObjectItemCaseSensitive(p->blocks, h.type) : NULL;
    if (blk) return expand_block_call(p, fr, layer, blk, &h);
    tta_node n = {.in = {h.in0, -1}, .nin = 1, .c = h.C, .h = h.H, .w = h.W, .kernel = 1, .stride = 1};
    snprintf(n.name, sizeof n.name, "%.*s", TTA_NAME_MAX - 1, h.full);
    int kind = layer_kind(h.type);
    if (kind < 0) {
        if (strcmp(h.type, "shortcut") != 0)
            return fail(p, "%s: layer \"%s\": unknown layer type \"%s\"", fr->where, h.lname, h.type);
        return expand_shortcut(p, fr, layer, &h, n);
    }
    n.kind = kind;
    if (read_op_fields(p, fr, layer, &h, &n)) return -1;
    int id = node_add(p, fr, &n);
    if (id < 0) return -1;
    fr->prev = id;
    return 0;
}

static int expand_layers(parser *p, frame *fr, const cJSON *layers) {
    if (!cJSON_IsArray(layers)) return fail(p, "%s: \"layers\" must be an array", fr->where);
    int i = 0;
    const cJSON *l;
    cJSON_ArrayForEach(l, layers) {
        if (expand_layer(p, fr, l, i)) return -1;
        i++;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */

void tta_graph_free(tta_graph *g) {
    free(g->nodes);
    memset(g, 0, sizeof *g);
}

static int parse_overrides(parser *p, pval *vals, int n, const char *ov) {
    if (!ov) return 0;
    const char *s = ov;
    while (*s) {
        while (*s == ',' || isspace((unsigned char)*s)) s++;
        if (!*s) break;
        const char *eq = strchr(s, '=');
        if (!eq) return fail(p, "model parameter override \"%s\": expected name=value", s);
        size_t kl = (size_t)(eq - s);
        const char *v = eq + 1;
        size_t vl = strcspn(v, ", \t\n");
        char key[TTA_NAME_MAX], val[TTA_NAME_MAX];
        snprintf(key, sizeof key, "%.*s", (int)(kl < TTA_NAME_MAX - 1 ? kl : TTA_NAME_MAX - 1), s);
        snprintf(val, sizeof val, "%.*s", (int)(vl < TTA_NAME_MAX - 1 ? vl : TTA_NAME_MAX - 1), v);
        int found = 0;
        for (int i = 0; i < n; i++) {
            if (strcmp(vals[i].name, key) != 0) continue;
            found = 1;
            char *end;
            double d = strtod(val, &end);
            if (end != val && *end == 0) {
                vals[i].is_str = 0;
                vals[i].num = d;
            } else {
                vals[i].is_str = 1;
                snprintf(vals[i].str, sizeof vals[i].str, "%s", val);
            }
        }
        if (!found) return fail(p, "model parameter override \"%s\": the model has no parameter \"%s\"", key, key);
        s = v + vl;
    }
    return 0;
}

/* Checks the model file's top level: a JSON object with no unknown field and a non-empty
 * "name" (copied to p->g->name). Returns 0, or -1 with the message (naming origin) in p->err. */
static int read_model_top(parser *p, const cJSON *root, const char *origin) {
    if (!cJSON_IsObject(root)) return fail(p, "%s: a model file is a JSON object", origin);
    static const char *const top[] = {"$schema", "name", "description", "input", "params", "blocks",
                                      "layers", "label_smoothing", "comment", NULL};
    const cJSON *it;
    cJSON_ArrayForEach(it, root) {
        int ok = 0;
        for (int i = 0; top[i]; i++) ok |= strcmp(it->string, top[i]) == 0;
        if (!ok) return fail(p, "%s: unknown top-level field \"%s\"", origin, it->string);
    }
    const cJSON *jname = cJSON_GetObjectItemCaseSensitive(root, "name");
    if (!cJSON_IsString(jname) || !jname->valuestring[0])
        return fail(p, "%s: missing \"name\" (a non-empty string)", origin);
    snprintf(p->g->name, sizeof p->g->name, "%s", jname->valuestring);
    return 0;
}

/* Sets the graph's input shape from p->cfg (which must give a positive shape and class count)
 * and checks the file's optional "input" [C, H, W] against it (an entry "input" takes the
 * data's). Returns 0, or -1 with the message in p->err. */
static int read_model_input(parser *p, const cJSON *root, const char *origin) {
    const tta_model_config *cfg = p->cfg;
    if (!cfg || cfg->channels <= 0 || cfg->height <= 0 || cfg->width <= 0 || cfg->classes <= 0)
        return fail(p, "%s: the input shape and class count must be positive", origin);
    p->g->in_c = cfg->channels;
    p->g->in_h = cfg->height;
    p->g->in_w = cfg->width;
    const cJSON *jin = cJSON_GetObjectItemCaseSensitive(root, "input");
    if (!jin) return 0;
    if (!cJSON_IsArray(jin) || cJSON_GetArraySize(jin) != 3)
        return fail(p, "%s: \"input\" must be [C, H, W] (each an integer or \"input\")", origin);
    int want[3] = {cfg->channels, cfg->height, cfg->width};
    static const char *const dim[3] = {"channels", "height", "width"};
    for (int k = 0; k < 3; k++) {
        const cJSON *d = cJSON_GetArrayItem(jin, k);
        if (cJSON_IsString(d) && strcmp(d->valuestring, "input") == 0) continue;
        if (!cJSON_IsNumber(d)) return fail(p, "%s: \"input\" entries must be integers or \"input\"", origin);
        if ((int)d->valuedouble != want[k])
            return fail(p, "%s: the model wants input %s %d, the data has %d", origin, dim[k],
                        (int)d->valuedouble, want[k]);
    }
    return 0;
}

/* Sets the graph's label smoothing: the file's "label_smoothing" (a number in [0, 1), default
 * 0), replaced by p->cfg's when that is >= 0 (it must be below 1). Returns 0, or -1 with
 * p->err. */
static int read_label_smoothing(parser *p, const cJSON *root, const char *origin) {
    tta_graph *g = p->g;
    const cJSON *jls = cJSON_GetObjectItemCaseSensitive(root, "label_smoothing");
    g->label_smoothing = 0;
    if (jls) {
        if (!cJSON_IsNumber(jls) || jls->valuedouble < 0 || jls->valuedouble >= 1)
            return fail(p, "%s: \"label_smoothing\" must be a number in [0, 1)", origin);
        g->label_smoothing = (float)jls->valuedouble;
    }
    if (p->cfg->label_smoothing >= 0) g->label_smoothing = p->cfg->label_smoothing;
    if (g->label_smoothing >= 1) return fail(p, "%s: label smoothing must be below 1", origin);
    return 0;
}

/* The parameters in scope at the top level: the four predefined from p->cfg (in_channels,
 * in_height, in_width, classes), then the file's "params" (which may not redefine them),
 * then p->cfg->overrides on the file's. *vals (NULL until allocated; the caller frees it,
 * also after an error) gets *count values. Returns 0, or -1 with the message in p->err. */
static int read_params(parser *p, const cJSON *root, const char *origin, pval **vals, int *count) {
    const tta_model_config *cfg = p->cfg;
    *vals = NULL;
    *count = 0;
    const cJSON *jp = cJSON_GetObjectItemCaseSensitive(root, "params");
    if (jp && !cJSON_IsObject(jp)) return fail(p, "%s: \"params\" must be an object", origin);
    int np = 4 + (jp ? cJSON_GetArraySize(jp) : 0);
    pval *v = *vals = callocCheck(np, sizeof *v);
    static const char *const pre[4] = {"in_channels", "in_height", "in_width", "classes"};
    int predefined[4] = {cfg->channels, cfg->height, cfg->width, cfg->classes};
    for (int k = 0; k < 4; k++) {
        snprintf(v[k].name, sizeof v[k].name, "%s", pre[k]);
        v[k].num = predefined[k];
    }
    int k = 4;
    const cJSON *it;
    cJSON_ArrayForEach(it, jp) {
        for (int j = 0; j < 4; j++)
            if (strcmp(it->string, pre[j]) == 0)
                return fail(p, "%s: params: \"%s\" is predefined from the data", origin, it->string);
        if (strlen(it->string) >= TTA_NAME_MAX || pval_from_json(&v[k], it))
            return fail(p, "%s: params.%s must be a number, boolean or string", origin, it->string);
        snprintf(v[k].name, sizeof v[k].name, "%s", it->string);
        k++;
    }
    if (parse_overrides(p, v + 4, k - 4, cfg->overrides)) return -1;
    *count = k;
    return 0;
}

/* Checks the file's optional "blocks": an object whose members are {"args": {...},
 * "layers": [...], "comment"} and are not named as a layer type is; sets p->blocks. Returns
 * 0, or -1 with the message in p->err. */
static int read_blocks(parser *p, const cJSON *root, const char *origin) {
    const cJSON *jb = cJSON_GetObjectItemCaseSensitive(root, "blocks");
    if (!jb) return 0;
    if (!cJSON_IsObject(jb)) return fail(p, "%s: \"blocks\" must be an object", origin);
    const cJSON *it;
    cJSON_ArrayForEach(it, jb) {
        const cJSON *f;
        cJSON_ArrayForEach(f, it) {
            if (strcmp(f->string, "args") && strcmp(f->string, "layers") && strcmp(f->string, "comment"))
                return fail(p, "%s: blocks.%s: unknown field \"%s\"", origin, it->string, f->string);
        }
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(it, "args");
        if (!cJSON_IsObject(it) || !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(it, "layers")) ||
            (a && !cJSON_IsObject(a)))
            return fail(p, "%s: blocks.%s must be {\"args\": {...}, \"layers\": [...]}", origin, it->string);
        int builtin = strcmp(it->string, "shortcut") == 0;
        for (int t = 0; t < TTA_OP_COUNT; t++) builtin |= strcmp(it->string, tta_op_kind_name(t)) == 0;
        if (builtin) return fail(p, "%s: blocks.%s: a block may not take a layer type's name", origin, it->string);
    }
    p->blocks = jb;
    return 0;
}

/* Checks the expanded graph's output: it has layers; the last top-level entry (its node is
 * last_prev) is the last node, not an alias of an earlier one, and gives the [classes] logits;
 * every other node's output is some node's input. Returns 0, or -1 with p->err. */
static int check_graph_output(parser *p, const char *origin, int last_prev) {
    const tta_graph *g = p->g;
    if (g->nnodes == 0) return fail(p, "%s: the model has no layers", origin);
    if (last_prev != g->nnodes - 1)
        return fail(p, "%s: the last layer must produce the logits (it is an alias of an earlier one)", origin);
    const tta_node *last = &g->nodes[g->nnodes - 1];
    if (last->c != p->cfg->classes || last->h != 1 || last->w != 1)
        return fail(p, "%s: the last layer \"%s\" gives %dx%dx%d, not the %d class logits", origin,
                    last->name, last->c, last->h, last->w, p->cfg->classes);
    int *used = callocCheck(g->nnodes, sizeof *used);
    for (int i = 0; i < g->nnodes; i++)
        for (int j = 0; j < g->nodes[i].nin; j++)
            if (g->nodes[i].in[j] >= 0) used[g->nodes[i].in[j]] = 1;
    int rc = 0;
    for (int i = 0; !rc && i + 1 < g->nnodes; i++)
        if (!used[i]) rc = fail(p, "%s: the output of layer \"%s\" is never used", origin, g->nodes[i].name);
    free(used);
    return rc;
}

/* Expands the file's top-level "layers" (a non-empty array) with the parameters vals[0..n)
 * in scope into p->g, and checks its output. Returns 0, or -1 with the message in p->err. */
static int expand_model_layers(parser *p, const cJSON *root, const char *origin, pval *vals, int n) {
    const cJSON *jl = cJSON_GetObjectItemCaseSensitive(root, "layers");
    if (!cJSON_IsArray(jl) || cJSON_GetArraySize(jl) == 0)
        return fail(p, "%s: missing \"layers\" (a non-empty array)", origin);
    scope sc = {.v = vals, .n = n};
    frame top_frame = {.in = -1, .prev = -1, .sc = &sc};
    snprintf(top_frame.where, sizeof top_frame.where, "%s: layers", origin);
    if (expand_layers(p, &top_frame, jl)) return -1;
    return check_graph_output(p, origin, top_frame.prev);
}

int tta_graph_parse(tta_graph *g, const char *json, const char *origin,
                    const tta_model_config *cfg, char *err, size_t errlen) {
    memset(g, 0, sizeof *g);
    parser p = {.g = g, .cfg = cfg, .err = err, .errlen = errlen};
    if (!origin) origin = "model";
    cJSON *root = cJSON_Parse(json);
    if (!root) {
        const char *at = cJSON_GetErrorPtr();
        snprintf(err, errlen, "%s: not valid JSON near \"%.30s\"", origin, at ? at : "");
        return -1;
    }
    pval *vals = NULL;
    int nvals = 0;
    int rc = read_model_top(&p, root, origin);
    if (!rc) rc = read_model_input(&p, root, origin);
    if (!rc) rc = read_label_smoothing(&p, root, origin);
    if (!rc) rc = read_params(&p, root, origin, &vals, &nvals);
    if (!rc) rc = read_blocks(&p, root, origin);
    if (!rc) rc = expand_model_layers(&p, root, origin, vals, nvals);
    free(vals);
    free(p.names);
    cJSON_Delete(root);
    if (rc) tta_graph_free(g);
    return rc;
}
