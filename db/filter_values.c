/* filter_values.c: is a filter a mistake? Each plain value of a tta_filter must be a value its
 * column holds (case-insensitively, as the filter matches), and an --entry id an entry; a value
 * that is not gets an error naming the closest values the column holds (edit distance). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/buf.h"
#include "common/check.h"
#include "db/query.h"

/* Each text field: its name for people and the distinct values it may take, from entries and
 * from system descriptions (`tta ls systems` lists systems that have no entry), and for AlgoPerf
 * leaderboards (`tta report algoperf`) their leaderboard, ruleset and submission. */
static const struct {
    const char *name;
    const char *sql;
} columns[5] = {
    {"round", "SELECT round FROM entries UNION SELECT round FROM systems WHERE round IS NOT NULL"
              " UNION SELECT leaderboard FROM algoperf_files"},
    {"division", "SELECT division FROM entries UNION SELECT division FROM systems WHERE division IS NOT NULL"
                 " UNION SELECT ruleset FROM algoperf_files"},
    {"submitter", "SELECT submitter FROM entries UNION SELECT submitter FROM systems WHERE submitter IS NOT NULL"
                  " UNION SELECT submission FROM algoperf_files"},
    {"system", "SELECT system FROM entries UNION SELECT name FROM systems WHERE name IS NOT NULL"},
    {"benchmark", "SELECT DISTINCT benchmark FROM entries"},
};

/* Levenshtein distance of a and b, letters compared case-insensitively (both at most a few
 * hundred bytes: longer strings count as far apart). */
static size_t distance(const char *a, const char *b) {
    size_t n = strlen(a), m = strlen(b);
    if (n > 512 || m > 512) return (size_t)-1;
    size_t *row = mallocCheck((m + 1) * sizeof *row);
    for (size_t j = 0; j <= m; j++) row[j] = j;
    for (size_t i = 1; i <= n; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t up = row[j];
            size_t cost = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]) ? 0 : 1;
            size_t best = diag + cost;
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    size_t d = row[m];
    free(row);
    return d;
}

/* Checks one text field: TTA_OK when value is NULL, holds in the column, or is a pattern
 * matching some value there (a pattern matching none sets *unmatched); else TTA_ENOTFOUND with
 * "no <field> '<value>' (did you mean A, B or C?)". TTA_EDB when SQLite refuses. */
static int check_field(sqlite3 *db, int k, const char *value, int *unmatched, tta_error *err) {
    if (!value) return TTA_OK;
    int pattern = tta_filter_is_pattern(value);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, columns[k].sql, -1, &st, NULL) != SQLITE_OK)
        return db_fail(err, db, "reading the filter's values");
    enum { NEAREST = 3 };
    char *best[NEAREST] = {0};
    size_t best_d[NEAREST];
    int found = 0, rc;
    while (!found && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *have = (const char *)sqlite3_column_text(st, 0);
        if (!have) continue;
        if (pattern) continue; /* counted below, by the REGEXP the filter itself uses */
        if (!strcasecmp(have, value)) {
            found = 1;
            break;
        }
        size_t d = distance(value, have);
        int seen = 0; /* "NVIDIA" and "nvidia" are one value to the filter */
        for (int i = 0; i < NEAREST && !seen; i++) seen = best[i] && !strcasecmp(best[i], have);
        for (int i = 0; i < NEAREST && !seen; i++) {
            if (best[i] && d >= best_d[i]) continue;
            free(best[NEAREST - 1]);
            memmove(best + i + 1, best + i, (NEAREST - 1 - i) * sizeof *best);
            memmove(best_d + i + 1, best_d + i, (NEAREST - 1 - i) * sizeof *best_d);
            best[i] = strdupCheck(have);
            best_d[i] = d;
            break;
        }
    }
    int status = TTA_OK;
    if (!found && !pattern && rc != SQLITE_DONE) status = db_fail(err, db, "reading the filter's values");
    sqlite3_finalize(st);
    if (pattern && status == TTA_OK) {
        buf sql = {0};
        buf_printf(&sql, "SELECT EXISTS (SELECT 1 FROM (%s) WHERE %s REGEXP ?1)", columns[k].sql, columns[k].name);
        if (sqlite3_prepare_v2(db, buf_str(&sql), -1, &st, NULL) != SQLITE_OK) {
            status = db_fail(err, db, "reading the filter's values");
        } else {
            sqlite3_bind_text(st, 1, value + 1, (int)strlen(value) - 2, SQLITE_TRANSIENT);
            if (sqlite3_step(st) == SQLITE_ROW) {
                if (!sqlite3_column_int(st, 0)) *unmatched = 1;
            } else {
                status = db_fail(err, db, "matching the filter's pattern");
            }
            sqlite3_finalize(st);
        }
        buf_free(&sql);
    } else if (!found && status == TTA_OK) {
        buf b = {0};
        buf_printf(&b, "no %s '%s'", columns[k].name, value);
        /* only the nearest: values as near as the best one, and no further than half the value's length */
        size_t limit = strlen(value) / 2 + 2;
        int shown = 0;
        for (int i = 0; i < NEAREST; i++) {
            if (!best[i] || best_d[i] > limit || best_d[i] > best_d[0]) continue;
            buf_printf(&b, "%s%s", shown == 0 ? "; did you mean " : ", ", best[i]);
            shown++;
        }
        if (shown) buf_puts(&b, "?");
        else if (best[0]) buf_printf(&b, " (the database holds none like it; `tta ls entries` lists what it holds)");
        else buf_printf(&b, " (the database holds no entries: run `tta ingest PATH...` first)");
        status = tta_fail(err, TTA_ENOTFOUND, "%s", buf_str(&b));
        buf_free(&b);
    }
    for (int i = 0; i < NEAREST; i++) free(best[i]);
    return status;
}

/* Contract in reader.h. */
int tta_filter_validate(sqlite3 *db, const tta_filter *f, tta_error *note, tta_error *err) {
    if (note) tta_error_clear(note);
    if (!f) return TTA_OK;
    int rc = tta_filter_check(f, err);
    if (rc != TTA_OK) return rc;
    const char *v[5] = {f->round, f->division, f->submitter, f->system, f->benchmark};
    for (int k = 0; k < 5; k++) {
        int unmatched = 0;
        rc = check_field(db, k, v[k], &unmatched, err);
        if (rc != TTA_OK) return rc;
        if (unmatched && note && note->code == TTA_OK)
            tta_fail(note, TTA_ENOTFOUND, "no %s matches %s: no entry matches", columns[k].name, v[k]);
    }
    if (f->entry_id > 0) {
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(db, "SELECT (SELECT 1 FROM entries WHERE id = ?1), min(id), max(id) FROM entries", -1,
                               &st, NULL) != SQLITE_OK)
            return db_fail(err, db, "reading the entries");
        sqlite3_bind_int64(st, 1, f->entry_id);
        if (sqlite3_step(st) != SQLITE_ROW) rc = db_fail(err, db, "reading the entries");
        else if (sqlite3_column_type(st, 0) == SQLITE_NULL && sqlite3_column_type(st, 1) == SQLITE_NULL)
            rc = tta_fail(err, TTA_ENOTFOUND, "no entry %lld (the database holds no entries)", (long long)f->entry_id);
        else if (sqlite3_column_type(st, 0) == SQLITE_NULL)
            rc = tta_fail(err, TTA_ENOTFOUND, "no entry %lld (entries are numbered %lld to %lld; `tta ls entries` lists"
                          " them)", (long long)f->entry_id, (long long)sqlite3_column_int64(st, 1),
                          (long long)sqlite3_column_int64(st, 2));
        sqlite3_finalize(st);
    }
    return rc;
}
