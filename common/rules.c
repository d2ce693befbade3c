/* rules.c: schemas/benchmark_rules.json read into C structures (rules.h). */
#include "common/rules.h"

#include <cjson/cJSON.h>
#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"

extern const char tta_rules_json[]; /* generated from schemas/benchmark_rules.json */

static const char *const progress_names[] = {
    [TTA_PROGRESS_FIRST_MEETING] = "epoch_of_first_meeting",
    [TTA_PROGRESS_EPOCH_NUM] = "epoch_num",
    [TTA_PROGRESS_TRAIN_SAMPLES] = "train_samples",
    [TTA_PROGRESS_SAMPLES_COUNT] = "samples_count",
    [TTA_PROGRESS_FIRST_PASSING_STEP] = "first_passing_step_num",
    [TTA_PROGRESS_FIRST_PASSING_SAMPLES] = "first_passing_samples_count",
};

static const char *const scale_names[] = {
    [TTA_SCALE_ASIS] = "asis",
    [TTA_SCALE_FRACTION] = "fraction",
    [TTA_SCALE_BLEU] = "bleu",
    [TTA_SCALE_PERCENT] = "percent",
};

int tta_progress_rule_from_name(const char *name) {
    for (size_t i = 0; name && i < sizeof progress_names / sizeof progress_names[0]; i++)
        if (!strcmp(name, progress_names[i])) return (int)i;
    return -1;
}

const char *tta_progress_rule_name(tta_progress_rule p) {
    return (size_t)p < sizeof progress_names / sizeof progress_names[0] ? progress_names[p] : NULL;
}

int tta_quality_scale_from_name(const char *name) {
    for (size_t i = 0; name && i < sizeof scale_names / sizeof scale_names[0]; i++)
        if (!strcmp(name, scale_names[i])) return (int)i;
    return -1;
}

/* ---- parsing ---- */

typedef struct {
    const char *origin;
    tta_error *err; /* the caller's (may be NULL) */
    int failed;
} parse_ctx;

/* Records the first failure: TTA_EINPUT, "<origin>: <message>". */
static void fail(parse_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(parse_ctx *c, const char *fmt, ...) {
    if (c->failed) return;
    c->failed = 1;
    va_list ap;
    va_start(ap, fmt);
    tta_vfail(c->err, TTA_EINPUT, fmt, ap);
    va_end(ap);
    tta_error_context(c->err, "%s", c->origin);
}

/* A member that must be a string; NULL (and a failure) otherwise. where names the element. */
static const char *req_string(parse_ctx *c, const cJSON *o, const char *key, const char *where) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsString(v) || !v->valuestring[0]) {
        fail(c, "%s: \"%s\" must be a non-empty string", where, key);
        return NULL;
    }
    return v->valuestring;
}

/* A member that may be missing or null; a string otherwise. */
static const char *opt_string(parse_ctx *c, const cJSON *o, const char *key, const char *where) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v || cJSON_IsNull(v)) return NULL;
    if (!cJSON_IsString(v)) {
        fail(c, "%s: \"%s\" must be a string or null", where, key);
        return NULL;
    }
    return v->valuestring;
}

static double opt_number(parse_ctx *c, const cJSON *o, const char *key, const char *where) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v || cJSON_IsNull(v)) return NAN;
    if (!cJSON_IsNumber(v)) {
        fail(c, "%s: \"%s\" must be a number or null", where, key);
        return NAN;
    }
    return v->valuedouble;
}

static double req_number(parse_ctx *c, const cJSON *o, const char *key, const char *where) {
    double d = opt_number(c, o, key, where);
    if (isnan(d)) fail(c, "%s: \"%s\" must be a number", where, key);
    return d;
}

/* -1 when missing or null; 0/1 for a boolean. */
static int opt_bool(parse_ctx *c, const cJSON *o, const char *key, const char *where) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v || cJSON_IsNull(v)) return -1;
    if (!cJSON_IsBool(v)) {
        fail(c, "%s: \"%s\" must be true, false or null", where, key);
        return -1;
    }
    return cJSON_IsTrue(v);
}

static const cJSON *req_array(parse_ctx *c, const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsArray(v)) fail(c, "\"%s\" must be an array", key);
    return v;
}

static void parse_rule(parse_ctx *c, const cJSON *o, const cJSON *sources, tta_rule *r, size_t index) {
    char where[96];
    snprintf(where, sizeof where, "benchmarks[%zu]", index);
    if (!cJSON_IsObject(o)) {
        fail(c, "%s: not an object", where);
        return;
    }
    memset(r, 0, sizeof *r);
    r->ruleset = req_string(c, o, "ruleset", where);
    r->benchmark = req_string(c, o, "benchmark", where);
    if (r->ruleset && r->benchmark) snprintf(where, sizeof where, "%s %s", r->ruleset, r->benchmark);
    r->metric = req_string(c, o, "metric", where);
    r->log_key = req_string(c, o, "log_key", where);
    r->higher_is_better = opt_bool(c, o, "higher_is_better", where);
    if (r->higher_is_better < 0) fail(c, "%s: \"higher_is_better\" must be true or false", where);
    r->target = req_number(c, o, "target", where);
    r->metric2 = opt_string(c, o, "metric2", where);
    r->target2 = opt_number(c, o, "target2", where);
    r->higher_is_better2 = opt_bool(c, o, "higher_is_better2", where);
    if ((r->metric2 != NULL) != !isnan(r->target2) || (r->metric2 != NULL) != (r->higher_is_better2 >= 0))
        fail(c, "%s: metric2, target2 and higher_is_better2 go together", where);
    int scale = tta_quality_scale_from_name(opt_string(c, o, "quality_scale", where));
    if (scale < 0) fail(c, "%s: \"quality_scale\" must be fraction, bleu, percent or asis", where);
    r->scale = scale < 0 ? TTA_SCALE_ASIS : (tta_quality_scale)scale;
    int progress = tta_progress_rule_from_name(opt_string(c, o, "progress", where));
    if (progress < 0) fail(c, "%s: unknown \"progress\"", where);
    r->progress = progress < 0 ? TTA_PROGRESS_FIRST_MEETING : (tta_progress_rule)progress;
    const char *unit = opt_string(c, o, "progress_unit", where);
    if (!unit || (strcmp(unit, "epochs") && strcmp(unit, "samples") && strcmp(unit, "steps") && strcmp(unit, "tokens")))
        fail(c, "%s: \"progress_unit\" must be epochs, samples, steps or tokens", where);
    r->progress_unit = unit ? unit : "epochs";
    r->progress_in_epochs = !strcmp(r->progress_unit, "epochs");
    r->train_set_size = opt_number(c, o, "train_set_size", where);
    double runs = opt_number(c, o, "runs_required", where);
    r->runs_required = isnan(runs) ? 0 : (int)runs;
    double scored = opt_number(c, o, "runs_scored", where);
    if (!isnan(scored) && (scored < 3 || scored != floor(scored) || (r->runs_required && scored > r->runs_required)))
        fail(c, "%s: \"runs_scored\" must be a whole number from 3 (an olympic mean) to runs_required", where);
    r->runs_scored = isnan(scored) ? 0 : (int)scored;
    r->olympic_drop = (int)req_number(c, o, "olympic_drop", where);
    r->max_failed = (int)req_number(c, o, "max_failed", where);
    int rcp = opt_bool(c, o, "rcp", where);
    r->rcp = rcp > 0;
    r->rcp_name = opt_string(c, o, "rcp_name", where);
    if (!r->rcp_name) r->rcp_name = r->benchmark;
    /* Every fact cites a source the file defines. */
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(o, "sources");
    if (!cJSON_IsObject(src) || !src->child) {
        fail(c, "%s: \"sources\" must name the source of each fact", where);
        return;
    }
    for (const cJSON *s = src->child; s; s = s->next) {
        if (!cJSON_IsString(s) || !cJSON_GetObjectItemCaseSensitive(o, s->string)) {
            fail(c, "%s: source of \"%s\" names no fact of this benchmark", where, s->string);
            return;
        }
        /* A source is one key of "sources" or several separated by spaces. */
        const char *p = s->valuestring;
        while (*p) {
            while (*p == ' ') p++;
            size_t n = strcspn(p, " ");
            if (!n) break;
            char key[64];
            if (n >= sizeof key) n = sizeof key - 1;
            memcpy(key, p, n);
            key[n] = '\0';
            if (!cJSON_GetObjectItemCaseSensitive(sources, key)) {
                fail(c, "%s: source \"%s\" is not defined in \"sources\"", where, key);
                return;
            }
            p += strcspn(p, " ");
        }
    }
    r->sources_json = cJSON_PrintUnformatted(src);
}

/* A source citation (one key of "sources", or several separated by spaces): a failure when it is
 * missing or names a key the file does not define. */
static void cited_source(parse_ctx *c, const cJSON *sources, const char *text, const char *where) {
    if (!text || !*text) {
        fail(c, "%s: \"source\" must name the source of its facts", where);
        return;
    }
    for (const char *p = text; *p;) {
        while (*p == ' ') p++;
        size_t n = strcspn(p, " ");
        if (!n) break;
        char key[64];
        snprintf(key, sizeof key, "%.*s", (int)(n < sizeof key ? n : sizeof key - 1), p);
        if (!cJSON_GetObjectItemCaseSensitive(sources, key)) {
            fail(c, "%s: source \"%s\" is not defined in \"sources\"", where, key);
            return;
        }
        p += n;
    }
}

/* "summary_columns": per ruleset of "rounds", the summarizer's benchmark columns (strings). */
static void parse_columns(parse_ctx *c, const cJSON *doc, const cJSON *sources, tta_rules *out) {
    const cJSON *cols = req_array(c, doc, "summary_columns"), *it;
    if (c->failed) return;
    out->columns = callocCheck((size_t)cJSON_GetArraySize(cols) + 1, sizeof *out->columns);
    cJSON_ArrayForEach(it, cols) {
        char where[48];
        snprintf(where, sizeof where, "summary_columns[%zu]", out->n_columns);
        tta_rule_columns *rc = &out->columns[out->n_columns++];
        rc->ruleset = req_string(c, it, "ruleset", where);
        cited_source(c, sources, opt_string(c, it, "source", where), where);
        int known = 0;
        for (size_t i = 0; rc->ruleset && i < out->n_rounds && !known; i++)
            known = out->rounds[i].ruleset && !strcmp(out->rounds[i].ruleset, rc->ruleset);
        if (rc->ruleset && !known) fail(c, "%s: ruleset %s governs no round of \"rounds\"", where, rc->ruleset);
        const cJSON *names = req_array(c, it, "benchmarks"), *x;
        if (c->failed) return;
        rc->benchmarks = callocCheck((size_t)cJSON_GetArraySize(names) + 1, sizeof *rc->benchmarks);
        cJSON_ArrayForEach(x, names) {
            if (!cJSON_IsString(x) || !x->valuestring[0]) fail(c, "%s: \"benchmarks\" must hold names", where);
            else rc->benchmarks[rc->n_benchmarks++] = x->valuestring;
        }
    }
}

/* Contract in rules.h. */
int tta_rules_parse(const char *json, size_t len, const char *origin, tta_rules *out, tta_error *err) {
    memset(out, 0, sizeof *out);
    parse_ctx c = {.origin = origin ? origin : "rules", .err = err};
    const char *end = NULL;
    cJSON *doc = cJSON_ParseWithLengthOpts(json, len, &end, 0);
    if (!doc) {
        size_t at = end && end >= json ? (size_t)(end - json) : 0, line = 1;
        for (size_t i = 0; i < at && i < len; i++) line += json[i] == '\n';
        c.failed = 1;
        tta_fail(err, TTA_EINPUT, "%s:%zu: not valid JSON", c.origin, line);
        goto done;
    }
    out->owner = doc;
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(doc, "version");
    if (!cJSON_IsNumber(version)) fail(&c, "\"version\" must be a number");
    out->version = cJSON_IsNumber(version) ? version->valueint : 0;
    const cJSON *sources = cJSON_GetObjectItemCaseSensitive(doc, "sources");
    if (!cJSON_IsObject(sources)) fail(&c, "\"sources\" must be an object");

    const cJSON *rounds = req_array(&c, doc, "rounds"), *aliases = req_array(&c, doc, "aliases"),
                *benchmarks = req_array(&c, doc, "benchmarks");
    if (c.failed) goto done;

    out->rounds = callocCheck((size_t)cJSON_GetArraySize(rounds) + 1, sizeof *out->rounds);
    const cJSON *it;
    cJSON_ArrayForEach(it, rounds) {
        char where[32];
        snprintf(where, sizeof where, "rounds[%zu]", out->n_rounds);
        tta_rule_round *rr = &out->rounds[out->n_rounds++];
        rr->round = req_string(&c, it, "round", where);
        rr->ruleset = req_string(&c, it, "ruleset", where);
        rr->suite = req_string(&c, it, "suite", where);
        rr->rcp_folder = opt_string(&c, it, "rcp_folder", where);
        cited_source(&c, sources, opt_string(&c, it, "source", where), where);
    }
    parse_columns(&c, doc, sources, out);
    out->aliases = callocCheck((size_t)cJSON_GetArraySize(aliases) + 1, sizeof *out->aliases);
    cJSON_ArrayForEach(it, aliases) {
        char where[32];
        snprintf(where, sizeof where, "aliases[%zu]", out->n_aliases);
        tta_rule_alias *a = &out->aliases[out->n_aliases++];
        a->name = req_string(&c, it, "name", where);
        a->benchmark = req_string(&c, it, "benchmark", where);
        a->from = opt_string(&c, it, "from", where);
        a->before = opt_string(&c, it, "before", where);
    }
    out->rules = callocCheck((size_t)cJSON_GetArraySize(benchmarks) + 1, sizeof *out->rules);
    cJSON_ArrayForEach(it, benchmarks) {
        parse_rule(&c, it, sources, &out->rules[out->n_rules], out->n_rules);
        out->n_rules++;
        if (c.failed) break;
    }
    /* Keys are unique; every alias names a benchmark some ruleset has. */
    for (size_t i = 0; !c.failed && i < out->n_rules; i++)
        for (size_t j = i + 1; j < out->n_rules; j++)
            if (!strcmp(out->rules[i].ruleset, out->rules[j].ruleset) &&
                !strcmp(out->rules[i].benchmark, out->rules[j].benchmark))
                fail(&c, "ruleset %s lists %s twice", out->rules[i].ruleset, out->rules[i].benchmark);
    /* An alias names a benchmark some ruleset has, or one that "replay_only" lists (data that tta
     * replays, such as generated or CIFAR-100, which no published ruleset scores). */
    const cJSON *replay_only = cJSON_GetObjectItemCaseSensitive(doc, "replay_only");
    for (size_t i = 0; !c.failed && i < out->n_aliases; i++) {
        int found = 0;
        for (size_t j = 0; j < out->n_rules && !found; j++) found = !strcmp(out->aliases[i].benchmark, out->rules[j].benchmark);
        const cJSON *x;
        cJSON_ArrayForEach(x, replay_only) found |= cJSON_IsString(x) && !strcmp(x->valuestring, out->aliases[i].benchmark);
        if (!found)
            fail(&c, "alias \"%s\" names %s, which no ruleset has (nor replay_only)", out->aliases[i].name,
                 out->aliases[i].benchmark);
    }
done:
    if (c.failed) {
        tta_rules_free(out);
        return TTA_EINPUT;
    }
    tta_error_clear(err);
    return TTA_OK;
}

void tta_rules_free(tta_rules *r) {
    for (size_t i = 0; i < r->n_rules; i++) cJSON_free((void *)r->rules[i].sources_json);
    for (size_t i = 0; i < r->n_columns; i++) free(r->columns[i].benchmarks);
    free(r->columns);
    free(r->rounds);
    free(r->aliases);
    free(r->rules);
    cJSON_Delete(r->owner);
    memset(r, 0, sizeof *r);
}

/* ---- the built-in rules ---- */

static tta_rules builtin;
static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;

static void load_builtin(void) {
    tta_error err;
    if (tta_rules_parse(tta_rules_json, strlen(tta_rules_json), "schemas/benchmark_rules.json (built in)", &builtin,
                        &err) != TTA_OK) {
        fprintf(stderr, "tta: %s\n", err.text);
        abort();
    }
}

const tta_rules *tta_rules_builtin(void) {
    pthread_once(&builtin_once, load_builtin);
    return &builtin;
}

const char *tta_rules_text(void) { return tta_rules_json; }

/* ---- lookups ---- */

const char *tta_rules_ruleset(const tta_rules *r, const char *round) {
    if (!round) return NULL;
    for (size_t i = 0; i < r->n_rounds; i++)
        if (!strcasecmp(r->rounds[i].round, round)) return r->rounds[i].ruleset;
    return NULL;
}

int tta_rules_is_mlperf_round(const tta_rules *r, const char *round) {
    int i = tta_rules_round_order(r, round);
    return i >= 0 && r->rounds[i].suite && (!strcmp(r->rounds[i].suite, "mlperf") || !strcmp(r->rounds[i].suite, "hpc"));
}

int tta_rules_is_hpc_round(const tta_rules *r, const char *round) {
    int i = tta_rules_round_order(r, round);
    return i >= 0 && r->rounds[i].suite && !strcmp(r->rounds[i].suite, "hpc");
}

void tta_rules_rcp_folder(const tta_rules *r, const char *ruleset, char *out, size_t n) {
    assert(ruleset && out && n > 0);
    for (size_t i = 0; i < r->n_rounds; i++)
        if (!strcmp(r->rounds[i].ruleset, ruleset) && r->rounds[i].rcp_folder) {
            snprintf(out, n, "%s", r->rounds[i].rcp_folder);
            return;
        }
    snprintf(out, n, "training_%s", ruleset);
}

const tta_rule_columns *tta_rules_summary_columns(const tta_rules *r, const char *ruleset) {
    for (size_t i = 0; ruleset && i < r->n_columns; i++)
        if (!strcmp(r->columns[i].ruleset, ruleset)) return &r->columns[i];
    return NULL;
}

int tta_rules_round_order(const tta_rules *r, const char *round) {
    if (!round) return -1;
    for (size_t i = 0; i < r->n_rounds; i++)
        if (!strcasecmp(r->rounds[i].round, round)) return (int)i;
    return -1;
}

const tta_rule *tta_rules_find(const tta_rules *r, const char *round, const char *benchmark) {
    const char *ruleset = tta_rules_ruleset(r, round);
    if (!ruleset || !benchmark) return NULL;
    for (size_t i = 0; i < r->n_rules; i++)
        if (!strcmp(r->rules[i].ruleset, ruleset) && !strcmp(r->rules[i].benchmark, benchmark)) return &r->rules[i];
    return NULL;
}

int tta_rules_ruleset_order(const tta_rules *r, const char *ruleset) {
    for (size_t i = 0; i < r->n_rounds; i++)
        if (!strcmp(r->rounds[i].ruleset, ruleset)) return (int)i;
    return -1;
}

const tta_rule *tta_rules_latest(const tta_rules *r, const char *benchmark) {
    const tta_rule *best = NULL;
    int best_order = -2;
    if (!benchmark) return NULL;
    for (size_t i = 0; i < r->n_rules; i++) {
        if (strcmp(r->rules[i].benchmark, benchmark)) continue;
        int o = tta_rules_ruleset_order(r, r->rules[i].ruleset);
        if (o > best_order) best = &r->rules[i], best_order = o;
    }
    return best;
}

const char *tta_rules_canonical(const tta_rules *r, const char *name, size_t n, const char *round) {
    char low[64];
    while (n && (*name == ' ' || *name == '"')) name++, n--;
    while (n && (name[n - 1] == ' ' || name[n - 1] == '"')) n--;
    if (n == 0 || n >= sizeof low) return NULL;
    for (size_t i = 0; i < n; i++) {
        char ch = (char)tolower((unsigned char)name[i]);
        low[i] = ch == '-' || ch == ' ' ? '_' : ch;
    }
    low[n] = '\0';
    int when = tta_rules_round_order(r, round);
    const char *fallback = NULL;
    for (size_t i = 0; i < r->n_aliases; i++) {
        const tta_rule_alias *a = &r->aliases[i];
        if (strcmp(low, a->name)) continue;
        if (when < 0) {
            /* Unknown round: the meaning that holds today (no "before" bound). */
            if (!a->before) return a->benchmark;
            if (!fallback) fallback = a->benchmark;
            continue;
        }
        if (a->from && when < tta_rules_round_order(r, a->from)) continue;
        if (a->before && when >= tta_rules_round_order(r, a->before)) continue;
        return a->benchmark;
    }
    return fallback;
}
