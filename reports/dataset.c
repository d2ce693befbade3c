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

/* Contract in reports.h. */
int tta_entry_load_named(sqlite3 *db, const char *spec, tta_entry_data **e, tta_error *err) {
    *e = NULL;
    tta_filter f = {0};
    char *end;
    long id = strtol(spec, &end, 10);
    char *copy = strdupCheck(spec);
    if (*spec && !*end && id > 0) {
        f.entry_id = id;
    } else {
        char *parts[5];
        int n = 0;
        for (char *p = strtok(copy, "/"); p && n < 5; p = strtok(NULL, "/")) parts[n++] = p;
        if (n != 5 || strtok(NULL, "/")) {
            free(copy);
            return tta_fail(err, TTA_EINPUT,
                            "'%s' is neither an entry id nor round/division/submitter/system/benchmark", spec);
        }
        f.round = parts[0];
        f.division = parts[1];
        f.submitter = parts[2];
        f.system = parts[3];
        f.benchmark = parts[4];
    }
    size_t n = 0;
    tta_entry_data *found = NULL;
    int rc = tta_db_entries(db, &f, 0, &found, &n, err);
    free(copy);
    if (rc != TTA_OK) return rc;
    if (n != 1) {
        tta_entries_free(found, n);
        /* Names match whatever their case (db.h, tta_filter): two entries may differ in case only. */
        if (n > 1)
            return tta_fail(err, TTA_EINPUT, "'%s' names %zu entries (whatever their case): give its id (see `tta ls"
                            " entries`)", spec, n);
        return tta_fail(err, TTA_ENOTFOUND, "no entry '%s' (see `tta ls entries`)", spec);
    }
    *e = found;
    tta_error_clear(err);
    return TTA_OK;
}
