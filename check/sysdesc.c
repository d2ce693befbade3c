/* sysdesc.c: one system description (<org>/systems/<system>.json) checked as MLCommons' system
 * description checker checks it (system_desc_checker.py check_system_desc, run by the package checker for
 * the rulesets schemas/package_rules.json names): json.load, the required fields, the status. */
#include "check/check.h"
#include "check/package.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/check.h"

/* Frees a finding. */
void tta_package_finding_free(tta_package_finding *f) {
    if (!f) return;
    free(f->org);
    free(f->check);
    free(f->path);
    free(f->key);
    free(f->message);
    memset(f, 0, sizeof *f);
}

/* The line and column of byte offset off in data. */
static void line_col(const char *data, size_t len, size_t off, long *line, long *col) {
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off && i < len; i++) {
        if (data[i] == '\n') ++*line, *col = 1;
        else ++*col;
    }
}

/* Fills a finding (strings copied). */
static void set(tta_package_finding *f, const char *ruleset, const char *org, const char *rel, tta_package_verdict v,
                const char *key, const char *message) {
    f->org = strdupCheck(org ? org : "");
    f->check = strdupCheck("system_desc");
    f->path = strdupCheck(rel ? rel : "");
    snprintf(f->ruleset, sizeof f->ruleset, "%s", ruleset ? ruleset : "");
    f->verdict = v;
    f->key = strdupCheck(key);
    f->message = strdupCheck(message);
}

/* Checks one description. */
void tta_check_system_desc_text(const char *ruleset, const char *org, const char *rel, const char *data, size_t len,
                                tta_package_finding *out) {
    assert(ruleset && out && (data || len == 0));
    memset(out, 0, sizeof *out);
    const cc_pkg_rules *pr = cc_pkg_rules_builtin();
    cc_pkg_ruleset rs;
    cc_pkg_ruleset_of(pr, ruleset, &rs);
    buf msg = {0}, key = {0};
    cc_arena a = {0};
    char why[200];
    cc_val doc;
    if (len >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0) {
        set(out, ruleset, org, rel, TTA_PACKAGE_FAIL, "json",
            "a system description must be JSON that Python's json.load reads; this one begins with a UTF-8 byte-order "
            "mark, which it refuses (the package checker stops here)");
        return;
    }
    if (cc_json_parse(&a, data, len, &doc, why, sizeof why) != 0) {
        const char *at = strstr(why, ": char ");
        size_t off = at ? strtoul(at + 7, NULL, 10) : 0;
        long line, col;
        line_col(data, len, off, &line, &col);
        if (at) buf_printf(&msg, "a system description must be JSON that Python's json.load reads; this one is not, at line %ld "
                                 "column %ld: %.*s (the package checker stops here)", line, col, (int)(at - why), why);
        else buf_printf(&msg, "a system description must be JSON that Python's json.load reads; this one is not: %s "
                              "(the package checker stops here)", why);
        set(out, ruleset, org, rel, TTA_PACKAGE_FAIL, "json", buf_str(&msg));
        buf_free(&msg);
        cc_arena_free(&a);
        return;
    }
    if (doc.kind != CV_DICT) {
        set(out, ruleset, org, rel, TTA_PACKAGE_FAIL, "not_object",
            "a system description must be a JSON object of fields; this one is not an object");
        cc_arena_free(&a);
        return;
    }
    const cc_dict *d = doc.u.d;
    for (size_t i = 0; i < pr->n_strings; i++) {
        const cc_val *v = cc_dict_get(d, pr->strings[i], strlen(pr->strings[i]));
        if (v && v->kind != CV_STR) {
            buf_printf(&msg, "the system description checker joins field %s as a string; here it is not a string, and "
                             "the package checker stops (TypeError)", pr->strings[i]);
            set(out, ruleset, org, rel, TTA_PACKAGE_FAIL, "crash", buf_str(&msg));
            buf_free(&msg);
            cc_arena_free(&a);
            return;
        }
    }
    size_t missing = 0;
    buf names = {0};
    for (size_t i = 0; i < pr->n_required; i++) {
        if (cc_dict_get(d, pr->required[i], strlen(pr->required[i]))) continue;
        buf_printf(&names, "%s%s", missing++ ? ", " : "", pr->required[i]);
    }
    const cc_val *status = cc_dict_get(d, "status", 6);
    int bad_status = 0;
    if (rs.status_checked && status) {
        bad_status = 1;
        for (size_t i = 0; i < pr->n_options; i++)
            if (status->kind == CV_STR && status->u.s->n == strlen(pr->options[i]) &&
                memcmp(status->u.s->p, pr->options[i], status->u.s->n) == 0)
                bad_status = 0;
    }
    if (!missing && !bad_status) {
        set(out, ruleset, org, rel, TTA_PACKAGE_PASS, "",
            rs.status_checked ? "every required field is present and the status is an availability option"
                              : "every required field is present");
    } else {
        if (missing) buf_printf(&msg, "a system description must have %zu fields; this one lacks %zu: %s", pr->n_required,
                                missing, buf_str(&names));
        if (bad_status) {
            char v[120];
            cc_repr(*status, 0, v, sizeof v);
            buf_printf(&msg, "%sstatus must be one of", missing ? "; " : "");
            for (size_t i = 0; i < pr->n_options; i++) buf_printf(&msg, "%s '%s'", i ? "," : "", pr->options[i]);
            buf_printf(&msg, " (ruleset %s); it is %s", ruleset, v);
        }
        /* the key follows the checker's message, which keeps only the status when the status is wrong */
        if (bad_status) buf_puts(&key, "status");
        else {
            buf_puts(&key, "missing:");
            size_t k = 0; /* sorted, as the recorded expectations keep them */
            const char **sorted = callocCheck(missing + 1, sizeof *sorted);
            for (size_t i = 0; i < pr->n_required; i++)
                if (!cc_dict_get(d, pr->required[i], strlen(pr->required[i]))) sorted[k++] = pr->required[i];
            for (size_t i = 1; i < k; i++)
                for (size_t j = i; j > 0 && strcmp(sorted[j - 1], sorted[j]) > 0; j--) {
                    const char *t = sorted[j];
                    sorted[j] = sorted[j - 1];
                    sorted[j - 1] = t;
                }
            for (size_t i = 0; i < k; i++) buf_printf(&key, "%s%s", i ? "," : "", sorted[i]);
            free(sorted);
        }
        set(out, ruleset, org, rel, TTA_PACKAGE_FAIL, buf_str(&key), buf_str(&msg));
    }
    buf_free(&names);
    buf_free(&msg);
    buf_free(&key);
    cc_arena_free(&a);
}
