/* rcp.c: `tta report rcp --rcp-dir DIR`: each entry's verdict, message and normalisation factor as
 * MLCommons' RCP checker (check_directory, rcp_pass "pruned_rcps") gives them, from each run's
 * convergence point as the database keeps it (run_tta.progress, read the checker's way) and the
 * benchmark rules (rule_rounds, benchmark_rules). DIR is one training_X.Y.Z folder (every entry is
 * checked against it) or a folder of such folders (each entry against its round's ruleset). Entries
 * the checker cannot judge (no folder, no file, a converged run without a convergence point) get a
 * note instead of a verdict. */
#include <assert.h>
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/buf.h"
#include "common/check.h"
#include "reports/render.h"
#include "reports/reports.h"
#include "stats/stats.h"

enum {
    R_ID, R_ROUND, R_RULESET, R_DIVISION, R_SUBMITTER, R_SYSTEM, R_BENCHMARK, R_RUNS, R_BS, R_VERDICT, R_MESSAGE,
    R_RCP_MEAN, R_MIN_MEAN, R_SUBM_MEAN, R_NORM, R_UNIT, R_COUNT
};

/* People see the verdict with the checker's message, the submission's mean against the smallest
 * passing one and the factor; scripts get every column. */
static const tta_column rcp_columns[R_COUNT] = {
    [R_ID] = {"entry", "id", TTA_COL_INT, 0, TTA_FOR_ALL},
    [R_ROUND] = {"round", "round", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [R_RULESET] = {"ruleset", "rules", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [R_DIVISION] = {"division", "div", TTA_COL_TEXT, 0, TTA_FOR_SCRIPTS},
    [R_SUBMITTER] = {"submitter", "submitter", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [R_SYSTEM] = {"system", "system", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [R_BENCHMARK] = {"benchmark", "bench", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [R_RUNS] = {"runs", "runs", TTA_COL_INT, 0, TTA_FOR_SCRIPTS},
    [R_BS] = {"bs", "batch", TTA_COL_INT, 0, TTA_FOR_ALL},
    [R_VERDICT] = {"verdict", "verdict", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [R_MESSAGE] = {"message", "message", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [R_RCP_MEAN] = {"rcp_mean", "rcp mean", TTA_COL_NUMBER, 2, TTA_FOR_SCRIPTS},
    [R_MIN_MEAN] = {"min_mean", "min ok", TTA_COL_NUMBER, 2, TTA_FOR_SCRIPTS},
    [R_SUBM_MEAN] = {"subm_mean", "mean", TTA_COL_NUMBER, 2, TTA_FOR_ALL},
    [R_NORM] = {"normalization", "norm", TTA_COL_NUMBER, 4, TTA_FOR_ALL},
    [R_UNIT] = {"progress_unit", "unit", TTA_COL_TEXT, 0, TTA_FOR_SCRIPTS},
};

/* FILTER_SQL of dataset.c: ?1..?6 are the filter's fields. */
#define RCP_FILTER_SQL                                                                                \
    " (?1 IS NULL OR e.round = ?1 COLLATE NOCASE) AND (?2 IS NULL OR e.division = ?2 COLLATE NOCASE)" \
    " AND (?3 IS NULL OR e.submitter = ?3 COLLATE NOCASE) AND (?4 IS NULL OR e.system = ?4 COLLATE NOCASE)" \
    " AND (?5 IS NULL OR e.benchmark = ?5 COLLATE NOCASE) AND (?6 = 0 OR e.id = ?6)"

/* Each entry with its round's ruleset and the rule of its benchmark there (NULLs without one). */
static const char entries_sql[] =
    "SELECT e.id, e.round, rr.ruleset, e.division, e.submitter, e.system, e.benchmark,"
    "  b.benchmark IS NOT NULL, b.rcp, b.rcp_name, COALESCE(b.progress_unit, 'epochs')"
    " FROM entries e"
    " LEFT JOIN rule_rounds rr ON rr.round = e.round"
    " LEFT JOIN benchmark_rules b ON b.ruleset = rr.ruleset AND b.benchmark = e.benchmark"
    " WHERE" RCP_FILTER_SQL " AND EXISTS (SELECT 1 FROM runs r WHERE r.entry_id = e.id)"
    " ORDER BY e.round, e.division, e.submitter, e.system, e.benchmark, e.id";

/* Each run as the checker reads its file: converged when its last run_stop says success, its
 * convergence point (run_tta.progress) and batch size; in file order (the checker's glob). */
static const char runs_sql[] =
    "SELECT t.entry_id, t.file, COALESCE(r.cp_status, r.status) = 'success', t.progress, t.global_batch_size"
    " FROM run_tta t JOIN runs r ON r.id = t.run_id JOIN entries e ON e.id = t.entry_id"
    " WHERE" RCP_FILTER_SQL " ORDER BY e.round, e.division, e.submitter, e.system, e.benchmark, e.id, t.file";

typedef struct {
    int64_t id;
    char *round, *ruleset, *division, *submitter, *system, *benchmark;
    int has_rule, rcp;  /* a rule for the benchmark in the ruleset; does the checker judge it */
    char *rcp_name;     /* rcps_<rcp_name>.json; NULL: the benchmark's name */
    char *unit;         /* progress_unit */
    tta_rcp_run *runs;
    size_t n_runs, cap_runs;
    char *unlogged;     /* the first converged run without a convergence point (its file), or NULL */
} rcp_entry;

typedef struct {
    char *dir, *name;
    tta_rcp_set set;
    int status; /* tta_rcp_load's return */
    char *err;
} rcp_cache;

/* Column i as a malloc'd string; NULL for SQL NULL. */
static char *dup_col(sqlite3_stmt *st, int i) {
    const unsigned char *t = sqlite3_column_text(st, i);
    return t ? strdupCheck((const char *)t) : NULL;
}

/* Column i as a double; NAN for SQL NULL. */
static double real_col(sqlite3_stmt *st, int i) {
    return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

/* Binds f's fields to RCP_FILTER_SQL's ?1..?6. */
static void bind_filter(sqlite3_stmt *st, const tta_filter *f) {
    const char *texts[5] = {f->round, f->division, f->submitter, f->system, f->benchmark};
    for (int i = 0; i < 5; i++) {
        if (texts[i]) sqlite3_bind_text(st, i + 1, texts[i], -1, SQLITE_STATIC);
        else sqlite3_bind_null(st, i + 1);
    }
    sqlite3_bind_int64(st, 6, f->entry_id);
}

/* *err = "database: <what>: <SQLite's message>" (malloc'd), when err is not NULL. */
static void set_db_err(char **err, sqlite3 *db, const char *what) {
    if (!err) return;
    buf b = {0};
    buf_printf(&b, "database: %s: %s", what, sqlite3_errmsg(db));
    *err = buf_take(&b);
}

/* Frees n entries and the array. */
static void entries_free(rcp_entry *e, size_t n) {
    for (size_t i = 0; i < n; i++) {
        free(e[i].round);
        free(e[i].ruleset);
        free(e[i].division);
        free(e[i].submitter);
        free(e[i].system);
        free(e[i].benchmark);
        free(e[i].rcp_name);
        free(e[i].unit);
        free(e[i].runs);
        free(e[i].unlogged);
    }
    free(e);
}

/* The entries matching f with their runs, in two queries. Returns SQLITE_OK, or an error code with
 * *err set. */
static int entries_load(sqlite3 *db, const tta_filter *f, rcp_entry **out, size_t *n_out, char **err) {
    *out = NULL;
    *n_out = 0;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db, entries_sql, -1, &st, NULL);
    if (rc != SQLITE_OK) {
        set_db_err(err, db, "loading entries");
        return rc;
    }
    bind_filter(st, f);
    rcp_entry *e = NULL;
    size_t n = 0, cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        growArray(e, &cap, n + 1);
        rcp_entry *x = &e[n++];
        memset(x, 0, sizeof *x);
        x->id = sqlite3_column_int64(st, 0);
        x->round = dup_col(st, 1);
        x->ruleset = dup_col(st, 2);
        x->division = dup_col(st, 3);
        x->submitter = dup_col(st, 4);
        x->system = dup_col(st, 5);
        x->benchmark = dup_col(st, 6);
        x->has_rule = sqlite3_column_int(st, 7);
        x->rcp = sqlite3_column_int(st, 8);
        x->rcp_name = dup_col(st, 9);
        x->unit = dup_col(st, 10);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        set_db_err(err, db, "loading entries");
        entries_free(e, n);
        return rc;
    }
    rc = sqlite3_prepare_v2(db, runs_sql, -1, &st, NULL);
    if (rc != SQLITE_OK) {
        set_db_err(err, db, "loading runs");
        entries_free(e, n);
        return rc;
    }
    bind_filter(st, f);
    size_t k = 0; /* both queries list entries in the same order: walk them together */
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        while (k < n && e[k].id != id) k++;
        assert(k < n); /* every run's entry was listed */
        rcp_entry *x = &e[k];
        int converged = sqlite3_column_int(st, 2);
        double progress = real_col(st, 3);
        if (converged && isnan(progress) && !x->unlogged) x->unlogged = dup_col(st, 1);
        growArray(x->runs, &x->cap_runs, x->n_runs + 1);
        x->runs[x->n_runs++] = (tta_rcp_run){.progress = converged ? progress : NAN, .bs = real_col(st, 4)};
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        set_db_err(err, db, "loading runs");
        entries_free(e, n);
        return rc;
    }
    *out = e;
    *n_out = n;
    return SQLITE_OK;
}

/* 1 when path is a folder (or a link to one). */
static int is_dir(const char *path) {
    struct stat s;
    return stat(path, &s) == 0 && S_ISDIR(s.st_mode);
}

/* Is dir a folder of training_X.Y.Z folders (rather than one such folder of rcps_*.json)? */
static int holds_rulesets(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    int found = 0;
    buf path = {0};
    struct dirent *de;
    while (!found && (de = readdir(d))) {
        if (strncmp(de->d_name, "training_", 9) != 0) continue;
        buf_clear(&path);
        buf_printf(&path, "%s/%s", dir, de->d_name);
        found = is_dir(buf_str(&path));
    }
    closedir(d);
    buf_free(&path);
    return found;
}

/* The reference set of dir/rcps_<name>.json, loaded once per report. */
static const rcp_cache *cached_set(rcp_cache **cache, size_t *n, size_t *cap, const char *dir, const char *name) {
    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*cache)[i].dir, dir) && !strcmp((*cache)[i].name, name)) return &(*cache)[i];
    growArray(*cache, cap, *n + 1);
    rcp_cache *c = &(*cache)[(*n)++];
    memset(c, 0, sizeof *c);
    c->dir = strdupCheck(dir);
    c->name = strdupCheck(name);
    c->status = tta_rcp_load(dir, name, &c->set, &c->err);
    return c;
}

/* Marks the verdict and every statistic of the row missing for why. */
static void no_verdict(tta_table *t, size_t row, const char *why) {
    for (int col = R_VERDICT; col <= R_NORM; col++) tta_table_set_missing(t, row, (size_t)col, why);
}

int tta_report_rcp(sqlite3 *db, const tta_filter *f, const char *rcp_dir, int format, FILE *out, char **err) {
    static const tta_filter all = {0};
    if (!f) f = &all;
    if (!is_dir(rcp_dir)) {
        if (err) {
            buf b = {0};
            buf_printf(&b, "--rcp-dir %s: not a folder", rcp_dir);
            *err = buf_take(&b);
        }
        return 1;
    }
    rcp_entry *e;
    size_t n;
    if (entries_load(db, f, &e, &n, err) != SQLITE_OK) return 1;
    int per_ruleset = holds_rulesets(rcp_dir);
    tta_table *t = tta_table_new(rcp_columns, R_COUNT);
    rcp_cache *cache = NULL;
    size_t n_cache = 0, cap = 0;
    buf dir = {0}, why = {0};
    for (size_t i = 0; i < n; i++) {
        const rcp_entry *x = &e[i];
        size_t row = tta_table_add_row(t);
        tta_table_set_number(t, row, R_ID, (double)x->id);
        tta_table_set_text(t, row, R_ROUND, x->round);
        tta_table_set_text(t, row, R_RULESET, x->ruleset);
        tta_table_set_text(t, row, R_DIVISION, x->division);
        tta_table_set_text(t, row, R_SUBMITTER, x->submitter);
        tta_table_set_text(t, row, R_SYSTEM, x->system);
        tta_table_set_text(t, row, R_BENCHMARK, x->benchmark);
        tta_table_set_number(t, row, R_RUNS, (double)x->n_runs);
        tta_table_set_text(t, row, R_UNIT, x->unit);
        const char *name = x->rcp_name ? x->rcp_name : x->benchmark;
        buf_clear(&dir);
        buf_clear(&why);
        if (!per_ruleset) {
            buf_printf(&dir, "%s", rcp_dir);
        } else if (!x->ruleset) {
            buf_printf(&why, "no ruleset known for round %s", x->round ? x->round : "?");
        } else if (x->has_rule && !x->rcp) {
            buf_printf(&why, "the RCP checker of rules %s does not judge %s", x->ruleset, x->benchmark);
        } else {
            buf_printf(&dir, "%s/training_%s", rcp_dir, x->ruleset);
            if (!is_dir(buf_str(&dir)))
                buf_printf(&why, "no RCP folder for round %s (rules %s) in %s", x->round, x->ruleset, rcp_dir);
        }
        if (why.len) {
            no_verdict(t, row, buf_str(&why));
            continue;
        }
        const rcp_cache *c = cached_set(&cache, &n_cache, &cap, buf_str(&dir), name);
        if (c->status < 0) {
            no_verdict(t, row, c->err);
            continue;
        }
        if (c->status > 0) { /* the checker stops (KeyError or no file) */
            buf_printf(&why, "no reference convergence points for %s in %s (rcps_%s.json)", x->benchmark,
                       buf_str(&dir), name);
            no_verdict(t, row, buf_str(&why));
            continue;
        }
        if (x->unlogged) { /* the checker stops too (conv_epoch unset) */
            buf_printf(&why, "%s: the run converged but its convergence point is not logged", x->unlogged);
            no_verdict(t, row, buf_str(&why));
            continue;
        }
        tta_rcp_result r = tta_rcp_check(&c->set, x->runs, x->n_runs, name);
        assert(r.pass >= 0);
        tta_table_set_number_or(t, row, R_BS, r.bs, r.msg);
        tta_table_set_text(t, row, R_VERDICT, r.pass ? "pass" : "fail");
        tta_table_set_text(t, row, R_MESSAGE, r.msg);
        const char *unevaluated = "no reference point was evaluated";
        tta_table_set_number_or(t, row, R_RCP_MEAN, r.rcp_mean, unevaluated);
        tta_table_set_number_or(t, row, R_MIN_MEAN, r.min_mean, unevaluated);
        tta_table_set_number_or(t, row, R_SUBM_MEAN, r.subm_mean,
                                r.kind == TTA_RCP_INSUFFICIENT ? "Insufficient convergence" : "too few runs");
        tta_table_set_number_or(t, row, R_NORM, r.normalization, "too few runs");
    }
    tta_table_write(t, (tta_out_format)format, out);
    tta_table_free(t);
    for (size_t i = 0; i < n_cache; i++) {
        free(cache[i].dir);
        free(cache[i].name);
        free(cache[i].err);
        tta_rcp_free(&cache[i].set);
    }
    free(cache);
    buf_free(&dir);
    buf_free(&why);
    entries_free(e, n);
    return 0;
}
