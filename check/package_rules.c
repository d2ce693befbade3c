/* package_rules.c: reads the embedded schemas/package_rules.json (what MLCommons' package checker does per
 * training ruleset; written by schemas/gen_package_rules.py from the logging checkout) once. */
#include "check/package.h"

#include <assert.h>
#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"

extern const char tta_package_rules_json[];

static cc_pkg_rules loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Ends the process on a malformed embedded file (a build defect). */
static void defect(const char *what) {
    fprintf(stderr, "tta: schemas/package_rules.json (embedded): %s\n", what);
    abort();
}

/* A string array member into *out / *n (strings copied, never freed: the rules live as long as the process). */
static void strings(const cJSON *doc, const char *name, const char ***out, size_t *n) {
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(doc, name);
    if (!cJSON_IsArray(a)) defect(name);
    *n = (size_t)cJSON_GetArraySize(a);
    *out = callocCheck(*n + 1, sizeof **out);
    size_t i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, a) {
        if (!cJSON_IsString(e)) defect(name);
        (*out)[i++] = strdupCheck(e->valuestring);
    }
}

static int flag(const cJSON *o, const char *name) {
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, name);
    if (!cJSON_IsBool(f)) defect(name);
    return cJSON_IsTrue(f);
}

static void load(void) {
    cJSON *doc = cJSON_Parse(tta_package_rules_json);
    if (!doc) defect("not valid JSON");
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(doc, "source");
    if (!cJSON_IsString(src)) defect("source");
    loaded.source = strdupCheck(src->valuestring);
    strings(doc, "required_fields", &loaded.required, &loaded.n_required);
    strings(doc, "availability_options", &loaded.options, &loaded.n_options);
    strings(doc, "string_fields", &loaded.strings, &loaded.n_strings);
    const cJSON *rs = cJSON_GetObjectItemCaseSensitive(doc, "rulesets");
    if (!cJSON_IsObject(rs)) defect("rulesets");
    loaded.n_rulesets = (size_t)cJSON_GetArraySize(rs);
    loaded.rulesets = callocCheck(loaded.n_rulesets + 1, sizeof *loaded.rulesets);
    size_t i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, rs) {
        cc_pkg_ruleset *r = &loaded.rulesets[i++];
        snprintf(r->ruleset, sizeof r->ruleset, "%s", e->string);
        r->known = 1;
        r->system_desc = flag(e, "system_desc");
        r->status_checked = flag(e, "status_checked");
        r->seeds_closed = flag(e, "seeds_closed");
        r->rcp_closed = flag(e, "rcp_closed");
    }
    cJSON_Delete(doc);
}

/* The embedded rules, read on first use. */
const cc_pkg_rules *cc_pkg_rules_builtin(void) {
    pthread_once(&once, load);
    return &loaded;
}

/* One ruleset's rules. */
void cc_pkg_ruleset_of(const cc_pkg_rules *r, const char *ruleset, cc_pkg_ruleset *out) {
    assert(r && ruleset && out);
    memset(out, 0, sizeof *out);
    snprintf(out->ruleset, sizeof out->ruleset, "%s", ruleset);
    for (size_t i = 0; i < r->n_rulesets; i++)
        if (!strcmp(r->rulesets[i].ruleset, ruleset)) *out = r->rulesets[i];
}
