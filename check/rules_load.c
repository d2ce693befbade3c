/* rules_load.c: reads schemas/compliance_rules.json (embedded, or any text of that form) into the rules
 * of ruleset.h, parsing every piece of Python once. A piece tta cannot parse is kept with its reason
 * (the engine reports it as "cannot evaluate"); a malformed file is an error naming what is wrong. */
#include "check/ruleset.h"

#include <assert.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"

extern const char tta_compliance_rules_json[];

/* Parses text as an expression (expr) or statements into *c; a failure keeps its reason. */
static void code(cc_arena *a, const char *text, int expr, cc_code *c) {
    char why[200];
    c->text = cc_strndup(a, text, strlen(text));
    int rc = expr ? cc_parse_expr(a, c->text, &c->node, why, sizeof why) : cc_parse_code(a, c->text, &c->node, why, sizeof why);
    c->why = rc == CC_OK ? NULL : cc_strndup(a, why, strlen(why));
}

/* A list of expressions (an array of strings) into *out and *n; -1 when item is not such an array. */
static int code_list(cc_arena *a, const cJSON *item, cc_code **out, int *n) {
    *out = NULL;
    *n = 0;
    if (!item) return 0;
    if (!cJSON_IsArray(item)) return -1;
    int m = cJSON_GetArraySize(item);
    *out = cc_alloc(a, (size_t)(m ? m : 1) * sizeof **out);
    const cJSON *e;
    cJSON_ArrayForEach(e, item) {
        if (!cJSON_IsString(e)) return -1;
        code(a, e->valuestring, 1, &(*out)[(*n)++]);
    }
    return 0;
}

/* An optional string member name of o into *c (expr or statements); sets *has. -1 when not a string. */
static int code_member(cc_arena *a, const cJSON *o, const char *name, int expr, cc_code *c, int *has) {
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, name);
    *has = 0;
    if (!m) return 0;
    if (!cJSON_IsString(m)) return -1;
    code(a, m->valuestring, expr, c);
    *has = 1;
    return 0;
}

/* Compares the NUL-terminated name with key[0..n) bytewise (key may hold any byte). */
static int name_cmp(const char *name, const char *key, size_t n) {
    size_t m = strlen(name);
    int c = memcmp(name, key, m < n ? m : n);
    return c ? c : m < n ? -1 : m > n;
}

/* One config object into *c; returns NULL or the name of the member that is wrong. */
static const char *config(cc_arena *a, const cJSON *o, cc_config *c) {
    int has;
    if (!cJSON_IsObject(o)) return "config (not an object)";
    if (code_member(a, o, "begin", 0, &c->begin, &c->has_begin)) return "begin";
    const cJSON *end = cJSON_GetObjectItemCaseSensitive(o, "end");
    if (end) {
        if (!cJSON_IsObject(end)) return "end";
        c->has_end = 1;
        if (code_member(a, end, "pre", 0, &c->end_pre, &c->has_end_pre)) return "end.pre";
        if (code_list(a, cJSON_GetObjectItemCaseSensitive(end, "check"), &c->end_check, &c->n_end_check)) return "end.check";
    }
    const cJSON *keys = cJSON_GetObjectItemCaseSensitive(o, "keys");
    if (!cJSON_IsArray(keys)) return "keys";
    int n = cJSON_GetArraySize(keys);
    c->keys = cc_alloc(a, (size_t)(n ? n : 1) * sizeof *c->keys);
    const cJSON *k;
    cJSON_ArrayForEach(k, keys) {
        cc_key *key = &c->keys[c->n_keys];
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(k, "name");
        const cJSON *req = cJSON_GetObjectItemCaseSensitive(k, "req");
        if (!cJSON_IsString(name)) return "keys[].name";
        if (req && !cJSON_IsString(req)) return "keys[].req";
        key->name = cc_strndup(a, name->valuestring, strlen(name->valuestring));
        key->req = req ? cc_strndup(a, req->valuestring, strlen(req->valuestring)) : NULL;
        key->once = strstr(key->name, "submission_") != NULL;
        if (code_member(a, k, "pre", 0, &key->pre, &key->has_pre)) return "keys[].pre";
        if (code_member(a, k, "post", 0, &key->post, &key->has_post)) return "keys[].post";
        if (code_member(a, k, "atleast_one_check", 1, &key->atleast, &key->has_atleast)) return "keys[].atleast_one_check";
        if (code_list(a, cJSON_GetObjectItemCaseSensitive(k, "check"), &key->check, &key->n_check)) return "keys[].check";
        if (code_list(a, cJSON_GetObjectItemCaseSensitive(k, "first_check"), &key->first_check, &key->n_first_check))
            return "keys[].first_check";
        for (int i = 0; i < c->n_keys; i++)
            if (strcmp(c->keys[i].name, key->name) == 0) return "keys[].name (twice)";
        c->n_keys++;
    }
    (void)has;
    c->by_name = cc_alloc(a, (size_t)(c->n_keys ? c->n_keys : 1) * sizeof *c->by_name);
    for (int i = 0; i < c->n_keys; i++) c->by_name[i] = i;
    for (int i = 1; i < c->n_keys; i++) /* insertion sort of a few dozen names */
        for (int j = i; j > 0 && strcmp(c->keys[c->by_name[j - 1]].name, c->keys[c->by_name[j]].name) > 0; j--) {
            int t = c->by_name[j];
            c->by_name[j] = c->by_name[j - 1];
            c->by_name[j - 1] = t;
        }
    return NULL;
}

/* Orders configs by name. */
static int config_cmp(const void *x, const void *y) {
    return strcmp(((const cc_config *)x)->name, ((const cc_config *)y)->name);
}

/* The configs of object o into *out (sorted by name); TTA_EINPUT naming a malformed one. */
static int parse_configs(cc_arena *a, const cJSON *o, cc_config **out, int *n_out, const char *name, tta_error *err) {
    int n = cJSON_GetArraySize(o);
    cc_config *cs = cc_alloc(a, (size_t)(n ? n : 1) * sizeof *cs);
    int k = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, o) {
        cc_config *c = &cs[k++];
        c->name = cc_strndup(a, e->string, strlen(e->string));
        const char *what = config(a, e, c);
        if (what) return tta_fail(err, TTA_EINPUT, "%s: config %s: member %s is malformed", name, c->name, what);
    }
    qsort(cs, (size_t)k, sizeof *cs, config_cmp);
    for (int i = 1; i < k; i++)
        if (strcmp(cs[i - 1].name, cs[i].name) == 0) return tta_fail(err, TTA_EINPUT, "%s: config %s twice", name, cs[i].name);
    *out = cs;
    *n_out = k;
    return TTA_OK;
}

/* Reads rules from JSON text. */
int tta_check_rules_parse(const char *json, size_t len, const char *name, tta_check_rules **out, tta_error *err) {
    assert(json && name && out);
    *out = NULL;
    cJSON *doc = cJSON_ParseWithLength(json, len);
    if (!doc) return tta_fail(err, TTA_EINPUT, "%s: not valid JSON", name);
    tta_check_rules *r = callocCheck(1, sizeof *r);
    const char *bad = NULL;
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(doc, "source");
    const cJSON *rs = cJSON_GetObjectItemCaseSensitive(doc, "rulesets");
    const cJSON *configs = cJSON_GetObjectItemCaseSensitive(doc, "configs");
    if (!cJSON_IsString(src)) bad = "source";
    else if (!cJSON_IsArray(rs)) bad = "rulesets";
    else if (!cJSON_IsObject(configs)) bad = "configs";
    if (!bad) {
        r->source = cc_strndup(&r->arena, src->valuestring, strlen(src->valuestring));
        char list[512] = "";
        const cJSON *e;
        cJSON_ArrayForEach(e, rs) {
            if (!cJSON_IsString(e) || strlen(e->valuestring) > 15 || strlen(list) + strlen(e->valuestring) + 2 > sizeof list) {
                bad = "rulesets[]";
                break;
            }
            if (list[0]) strcat(list, ",");
            strcat(list, e->valuestring);
        }
        r->rulesets = cc_strndup(&r->arena, list, strlen(list));
        if (parse_configs(&r->arena, configs, &r->configs, &r->n_configs, name, err)) {
            cJSON_Delete(doc);
            tta_check_rules_free(r);
            return TTA_EINPUT;
        }
        const cJSON *pub = cJSON_GetObjectItemCaseSensitive(doc, "published");
        if (pub && !cJSON_IsObject(pub)) bad = "published";
        int np = pub ? cJSON_GetArraySize(pub) : 0;
        r->published = cc_alloc(&r->arena, (size_t)(np ? np : 1) * sizeof *r->published);
        const cJSON *p;
        if (pub && !bad)
            cJSON_ArrayForEach(p, pub) {
                cc_published *x = &r->published[r->n_published++];
                const cJSON *commit = cJSON_GetObjectItemCaseSensitive(p, "commit");
                const cJSON *date = cJSON_GetObjectItemCaseSensitive(p, "date");
                const cJSON *cf = cJSON_GetObjectItemCaseSensitive(p, "configs");
                if (!cJSON_IsString(commit) || !cJSON_IsString(date) || !cJSON_IsObject(cf)) {
                    bad = "published.*";
                    break;
                }
                x->ruleset = cc_strndup(&r->arena, p->string, strlen(p->string));
                x->commit = cc_strndup(&r->arena, commit->valuestring, strlen(commit->valuestring));
                x->date = cc_strndup(&r->arena, date->valuestring, strlen(date->valuestring));
                if (parse_configs(&r->arena, cf, &x->configs, &x->n_configs, name, err)) {
                    cJSON_Delete(doc);
                    tta_check_rules_free(r);
                    return TTA_EINPUT;
                }
            }
        for (int i = 1; i < r->n_configs && !bad; i++)
            if (strcmp(r->configs[i - 1].name, r->configs[i].name) == 0) bad = "configs (a name twice)";
    }
    cJSON_Delete(doc);
    if (bad) {
        tta_check_rules_free(r);
        return tta_fail(err, TTA_EINPUT, "%s: member %s is missing or malformed", name, bad);
    }
    *out = r;
    return TTA_OK;
}

/* Reads the embedded rules. */
int tta_check_rules_load(tta_check_rules **out, tta_error *err) {
    int rc = tta_check_rules_parse(tta_compliance_rules_json, strlen(tta_compliance_rules_json),
                                   "schemas/compliance_rules.json (embedded)", out, err);
    if (rc) err->code = TTA_EINTERNAL;
    return rc ? TTA_EINTERNAL : TTA_OK;
}

/* Frees the rules. */
void tta_check_rules_free(tta_check_rules *r) {
    if (!r) return;
    cc_arena_free(&r->arena);
    free(r);
}

/* The config by name among cs[0..n) (binary search). */
static const cc_config *find_in(const cc_config *cs, int count, const char *name, size_t n) {
    int lo = 0, hi = count - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        int c = name_cmp(cs[mid].name, name, n);
        if (c == 0) return &cs[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid - 1;
    }
    return NULL;
}

/* Today's config by name. */
const cc_config *cc_config_find(const tta_check_rules *r, const char *name, size_t n) {
    return find_in(r->configs, r->n_configs, name, n);
}

/* The config by name as published for ruleset (when asked and kept), else today's. */
const cc_config *cc_config_find_as(const tta_check_rules *r, const char *ruleset, int as_published, const char *name,
                                   size_t n) {
    for (int i = 0; as_published && i < r->n_published; i++)
        if (strcmp(r->published[i].ruleset, ruleset) == 0) {
            const cc_config *c = find_in(r->published[i].configs, r->published[i].n_configs, name, n);
            if (c) return c;
        }
    return find_in(r->configs, r->n_configs, name, n);
}

/* The key record by name (binary search over by_name). */
const cc_key *cc_key_find(const cc_config *c, const char *key, size_t n) {
    int lo = 0, hi = c->n_keys - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        const char *k = c->keys[c->by_name[mid]].name;
        int cmp = name_cmp(k, key, n);
        if (cmp == 0) return &c->keys[c->by_name[mid]];
        if (cmp < 0) lo = mid + 1;
        else hi = mid - 1;
    }
    return NULL;
}

/* 1 when the ruleset's common.yaml is among the configs. */
int tta_check_rules_has(const tta_check_rules *r, const char *ruleset) {
    char name[64];
    snprintf(name, sizeof name, "training_%s/common.yaml", ruleset);
    return r && cc_config_find(r, name, strlen(name)) != NULL;
}

/* The rules' source. */
const char *tta_check_rules_source(const tta_check_rules *r) { return r->source; }
/* The rulesets held. */
const char *tta_check_rules_rulesets(const tta_check_rules *r) { return r->rulesets; }
