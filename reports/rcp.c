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
#include "common/rules.h"
#include "reports/builders.h"
#include "reports/dataset.h"
#include "reports/render.h"
#include "reports/reports.h"
#include "stats/stats.h"

enum {
    R_ID, R_ROUND, R_RULESET, R_DIVISION, R_SUBMITTER, R_SYSTEM, R_BENCHMARK, R_RUNS, R_BS, R_VERDICT, R_MESSAGE,
    R_RCP_MEAN, R_MIN_MEAN, R_SUBM_MEAN, R_MEAN_UNIT, R_NORM, R_UNIT, R_COUNT
};

/* People see the verdict with the checker's message, the submission's mean against the smallest
 * passing one (with its unit) and the factor; scripts get every column. The ruleset the entry is checked against
 * follows its round; the division is for scripts only (rcp_table). */
static const tta_column rcp_columns[R_COUNT] = {
    [R_ID] = TTA_ENTRY_COLUMN,
    [R_ROUND] = TTA_ROUND_COLUMN,
    [R_RULESET] = {"ruleset", "rules", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [R_DIVISION] = TTA_DIVISION_COLUMN,
    [R_SUBMITTER] = TTA_SUBMITTER_COLUMN,
    [R_SYSTEM] = TTA_SYSTEM_COLUMN,
    [R_BENCHMARK] = TTA_BENCHMARK_COLUMN,
    [R_RUNS] = {"runs", "runs", TTA_COL_INT, 0, TTA_FOR_SCRIPTS},
    [R_BS] = {"bs", "batch", TTA_COL_INT, 0, TTA_FOR_ALL},
    [R_VERDICT] = {"verdict", "verdict", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [R_MESSAGE] = {"message", "message", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [R_RCP_MEAN] = {"rcp_mean", "rcp mean", TTA_COL_NUMBER, 2, TTA_FOR_SCRIPTS},
    [R_MIN_MEAN] = {"min_mean", "min ok", TTA_COL_NUMBER, 2, TTA_FOR_SCRIPTS},
    [R_SUBM_MEAN] = {"subm_mean", "mean", TTA_COL_NUMBER, 2, TTA_FOR_ALL},
    /* the mean's unit beside it for people (epochs or samples, as the benchmark's rule counts);
     * scripts read progress_unit */
    [R_MEAN_UNIT] = {"mean_unit", "unit", TTA_COL_TEXT, 0, TTA_FOR_PEOPLE},
    [R_NORM] = {"normalization", "norm", TTA_COL_NUMBER, 4, TTA_FOR_ALL},
    [R_UNIT] = {"progress_unit", "unit", TTA_COL_TEXT, 0, TTA_FOR_SCRIPTS},
};

/* An entry as the checker sees it (db.h: tta_rcp_entry_row) with its runs as the checker takes them. */
typedef struct {
    const tta_rcp_entry_row *row;
    tta_rcp_run *runs;      /* row->n_runs: a run that did not converge has no progress (NAN) */
    const char *unlogged;   /* the first converged run without a convergence point (its file), or NULL */
} rcp_entry;

typedef struct {
    char *dir, *name;
    tta_rcp_set set;
    int status; /* tta_rcp_load's tta_status: TTA_ENOTFOUND is no file for the benchmark */
    tta_error err;
} rcp_cache;

/* The checker's runs of each entry row (*out: n of them; free with entries_free). */
static rcp_entry *entries_of(const tta_rcp_entry_row *rows, size_t n) {
    rcp_entry *e = callocCheck(n ? n : 1, sizeof *e);
    for (size_t i = 0; i < n; i++) {
        const tta_rcp_entry_row *x = &rows[i];
        e[i].row = x;
        e[i].runs = mallocCheck((x->n_runs ? x->n_runs : 1) * sizeof *e[i].runs);
        for (size_t j = 0; j < x->n_runs; j++) {
            const tta_rcp_run_row *r = &x->runs[j];
            if (r->converged && isnan(r->progress) && !e[i].unlogged) e[i].unlogged = r->file;
            e[i].runs[j] = (tta_rcp_run){.progress = r->converged ? r->progress : NAN, .bs = r->global_batch_size};
        }
    }
    return e;
}

/* Frees what entries_of gave. */
static void entries_free(rcp_entry *e, size_t n) {
    for (size_t i = 0; i < n; i++) free(e[i].runs);
    free(e);
}

/* 1 when path is a folder (or a link to one). */
static int is_dir(const char *path) {
    struct stat s;
    return stat(path, &s) == 0 && S_ISDIR(s.st_mode);
}

/* Is dir a folder of training_X.Y.Z (or hpc_X.Y.Z) folders (rather than one such folder of rcps_*.json)? */
static int holds_rulesets(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    int found = 0;
    buf path = {0};
    struct dirent *de;
    while (!found && (de = readdir(d))) {
        if (strncmp(de->d_name, "training_", 9) != 0 && strncmp(de->d_name, "hpc_", 4) != 0) continue;
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

/* The table of rcp_columns, whose division only scripts get: people's table leaves its width to
 * the checker's message. */
static tta_table *rcp_table(void) {
    tta_column cols[R_COUNT];
    memcpy(cols, rcp_columns, sizeof cols);
    cols[R_DIVISION].audience = TTA_FOR_SCRIPTS;
    return tta_table_new(cols, R_COUNT);
}

/* Marks the verdict and every statistic of the row missing for why. */
static void no_verdict(tta_table *t, size_t row, const char *why) {
    for (int col = R_VERDICT; col <= R_NORM; col++) tta_table_set_missing(t, row, (size_t)col, why);
}

/* The row's note naming the entry's flagged runs (run_flags: an aborted run counts as not converged
 * for the checker; the others are read as logged): up to three by name, then how many more. */
static void flags_note(tta_table *t, size_t row, const tta_rcp_entry_row *x) {
    buf b = {0};
    size_t flagged = 0;
    for (size_t j = 0; j < x->n_runs; j++) {
        const tta_rcp_run_row *r = &x->runs[j];
        if (!r->flags || !*r->flags) continue;
        if (flagged++ < 3) {
            const char *name = r->file ? strrchr(r->file, '/') : NULL;
            buf_printf(&b, "%s%s (%s)", flagged > 1 ? "; " : "flagged runs (tta ls runs says why): ",
                       name ? name + 1 : r->file ? r->file : "?", r->flags);
        }
    }
    if (flagged > 3) buf_printf(&b, " and %zu more", flagged - 3);
    if (flagged) tta_table_add_note(t, row, buf_str(&b));
    buf_free(&b);
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
    tta_rcp_entry_row *rows;
    size_t n;
    tta_error db_err;
    if (tta_db_rcp_entries(db, f, &rows, &n, &db_err) != TTA_OK) return tta_report_fail(&db_err, err);
    rcp_entry *e = entries_of(rows, n);
    int per_ruleset = holds_rulesets(rcp_dir);
    tta_table *t = rcp_table();
    rcp_cache *cache = NULL;
    size_t n_cache = 0, cap = 0;
    buf dir = {0}, why = {0};
    for (size_t i = 0; i < n; i++) {
        const tta_rcp_entry_row *x = e[i].row;
        size_t row = tta_table_add_row(t);
        tta_identity id = {.id = x->id, .round = x->round, .division = x->division, .submitter = x->submitter,
                           .system = x->system, .benchmark = x->benchmark};
        tta_table_set_identity(t, row, &id);
        tta_table_set_text(t, row, R_RULESET, x->ruleset);
        tta_table_set_number(t, row, R_RUNS, (double)x->n_runs);
        tta_table_set_text(t, row, R_UNIT, x->unit);
        tta_table_set_text(t, row, R_MEAN_UNIT, x->unit);
        flags_note(t, row, x);
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
            char folder[64];
            tta_rules_rcp_folder(tta_rules_builtin(), x->ruleset, folder, sizeof folder);
            buf_printf(&dir, "%s/%s", rcp_dir, folder);
            if (!is_dir(buf_str(&dir)))
                buf_printf(&why, "no RCP folder for round %s (rules %s) in %s", x->round, x->ruleset, rcp_dir);
        }
        if (why.len) {
            no_verdict(t, row, buf_str(&why));
            continue;
        }
        const rcp_cache *c = cached_set(&cache, &n_cache, &cap, buf_str(&dir), name);
        if (c->status != TTA_OK && c->status != TTA_ENOTFOUND) {
            no_verdict(t, row, c->err.text);
            continue;
        }
        if (c->status == TTA_ENOTFOUND) { /* the checker stops (KeyError or no file) */
            buf_printf(&why, "no reference convergence points for %s in %s (rcps_%s.json)", x->benchmark,
                       buf_str(&dir), name);
            no_verdict(t, row, buf_str(&why));
            continue;
        }
        if (e[i].unlogged) { /* the checker stops too (conv_epoch unset) */
            buf_printf(&why, "%s: the run converged but its convergence point is not logged", e[i].unlogged);
            no_verdict(t, row, buf_str(&why));
            continue;
        }
        tta_rcp_result r = tta_rcp_check(&c->set, e[i].runs, x->n_runs, name);
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
        tta_rcp_free(&cache[i].set);
    }
    free(cache);
    buf_free(&dir);
    buf_free(&why);
    entries_free(e, n);
    tta_rcp_entries_free(rows, n);
    return 0;
}
