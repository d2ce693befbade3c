/* published.c: where an entry's logs and system description are published, as addresses built
 * from the round's "published" rule (schemas/benchmark_rules.json: the repository, the folder where
 * a stored file's path within it begins, whether logs are linked as a folder or a file) and the
 * files as the ingest stored them. The summarizer's details_url is the same kind of address for
 * the system description; here every part of the path comes from a file that was read, so a layout
 * of its own (v0.5's submissions, DAWNBench's tasks) links where the file really is.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/rules.h"
#include "reports/builders.h"

/* The part of path from its last folder named as one of p's "from" ("{submitter}": submitter),
 * or NULL when none is. */
static const char *within(const char *path, const tta_rule_published *p, const char *submitter) {
    const char *found = NULL;
    for (const char *c = path; c && *c; c = strchr(c, '/') ? strchr(c, '/') + 1 : NULL) {
        size_t len = strcspn(c, "/");
        if (!c[len]) break; /* the file's own name is no folder */
        for (size_t k = 0; k < p->n_from; k++) {
            const char *name = strcmp(p->from[k], "{submitter}") ? p->from[k] : submitter;
            if (name && strlen(name) == len && !strncmp(c, name, len)) found = c;
        }
    }
    return found;
}

/* "<repository>/<how>/HEAD/<the first n bytes of rel, percent-encoded but for '/'>" (HEAD: the
 * repository's default branch, main or master). */
static char *address(const tta_rule_published *p, const char *how, const char *rel, size_t n) {
    buf b = {0};
    buf_printf(&b, "%s/%s/HEAD/", p->repository, how);
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)rel[i];
        if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || strchr("-._~/", ch))
            buf_putc(&b, (char)ch);
        else buf_printf(&b, "%%%02X", ch);
    }
    return buf_take(&b);
}

char *tta_entry_logs_url(const tta_entry_data *e) {
    assert(e);
    const tta_rule_published *p = tta_rules_published(tta_rules_builtin(), e->round);
    const char *rel = p && e->n_runs && e->runs[0].file ? within(e->runs[0].file, p, e->submitter) : NULL;
    if (!rel) return NULL;
    if (p->logs_file) return address(p, "blob", rel, strlen(rel));
    return address(p, "tree", rel, (size_t)(strrchr(rel, '/') - rel)); /* within() left a file name */
}

char *tta_entry_system_url(const tta_entry_data *e) {
    assert(e);
    const tta_rule_published *p = tta_rules_published(tta_rules_builtin(), e->round);
    const char *rel = p && e->description_file ? within(e->description_file, p, e->submitter) : NULL;
    return rel ? address(p, "blob", rel, strlen(rel)) : NULL;
}

void tta_table_set_published(tta_table *t, size_t row, const tta_entry_data *e) {
    static const tta_column cols[] = {TTA_LOGS_URL_COLUMN, TTA_DESCRIPTION_URL_COLUMN};
    long logs = tta_table_column(t, cols[0].key), desc = tta_table_column(t, cols[1].key);
    assert(logs >= 0 || desc >= 0);
    if (logs >= 0) {
        char *u = tta_entry_logs_url(e);
        if (u) tta_table_set_text(t, row, (size_t)logs, u);
        free(u);
    }
    if (desc >= 0) {
        char *u = tta_entry_system_url(e);
        if (u) tta_table_set_text(t, row, (size_t)desc, u);
        free(u);
    }
}
