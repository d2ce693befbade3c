/* dataset.c: the reports' side of loading a selection: db/'s entries (query_entries.c) with the
 * reports' error convention, an entry's name, and an entry named on the command line. */
#include "reports/dataset.h"

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/check.h"

int tta_report_fail(const tta_error *e, char **err) {
    if (err) *err = strdupCheck(e->text[0] ? e->text : "failed");
    return 1;
}

int tta_entries_load(sqlite3 *db, const tta_filter *f, int with_curves, tta_entry_data **out, size_t *n,
                     char **err) {
    tta_error e;
    if (tta_db_entries(db, f, with_curves, out, n, &e) != TTA_OK) return tta_report_fail(&e, err);
    return 0;
}

char *tta_entry_name(const tta_entry_data *e) {
    buf b = {0};
    buf_printf(&b, "%s/%s/%s/%s/%s", e->round, e->division, e->submitter, e->system, e->benchmark);
    return buf_take(&b);
}

/* Loads the entry named by spec: an id from `tta ls entries`, or round/division/submitter/
 * system/benchmark. */
int tta_entry_load_named(sqlite3 *db, const char *spec, tta_entry_data **e, char **err) {
    tta_filter f = {0};
    char *copy = strdupCheck(spec);
    char *end;
    long id = strtol(spec, &end, 10);
    if (*spec && !*end && id > 0) {
        f.entry_id = id;
    } else {
        char *parts[5];
        int n = 0;
        for (char *p = strtok(copy, "/"); p && n < 5; p = strtok(NULL, "/")) parts[n++] = p;
        if (n != 5 || strtok(NULL, "/")) {
            buf b = {0};
            buf_printf(&b, "'%s' is neither an entry id nor round/division/submitter/system/benchmark", spec);
            *err = buf_take(&b);
            free(copy);
            return 1;
        }
        f.round = parts[0];
        f.division = parts[1];
        f.submitter = parts[2];
        f.system = parts[3];
        f.benchmark = parts[4];
    }
    size_t n;
    int rc = tta_entries_load(db, &f, 0, e, &n, err);
    free(copy);
    if (rc) return 1;
    if (n != 1) {
        buf b = {0};
        buf_printf(&b, "no entry '%s' (see `tta ls entries`)", spec);
        *err = buf_take(&b);
        tta_entries_free(*e, n);
        return 1;
    }
    return 0;
}
