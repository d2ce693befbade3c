/* query_entries.c: entries, runs and evaluation curves (tta_entry_data), in three queries over the
 * filter's selection, and the other questions asked of a selection's runs.
 *
 * Whether an evaluation meets its run's target is decided by the database's evaluation_meets
 * view (one rule for tta and for users of sqlite3); reached and epochs-to-target are derived
 * here from those flags exactly as the run_tta view derives them.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "db/query.h"

static const char entries_sql[] =
    "SELECT e.id, e.round, e.division, e.submitter, e.system, e.benchmark,"
    "  sy.accelerators, sy.nodes, sy.accelerator_model,"
    "  t.metric, t.target, t.target2, COALESCE(t.higher_is_better, 1), COALESCE(t.progress_unit, 'epochs'),"
    "  (SELECT max(r.train_samples) FROM runs r WHERE r.entry_id = e.id),"
    "  (SELECT r.target FROM runs r WHERE r.entry_id = e.id AND r.target IS NOT NULL LIMIT 1),"
    "  (SELECT r.target2 FROM runs r WHERE r.entry_id = e.id AND r.target2 IS NOT NULL LIMIT 1),"
    "  rr.ruleset, t.train_set_size,"
    "  (SELECT f.scaling_factor FROM entry_files f WHERE f.kind = 'scaling' AND f.round = e.round"
    "     AND f.submitter = e.submitter AND f.system = e.system AND f.benchmark = e.benchmark"
    "     ORDER BY f.source_id DESC LIMIT 1),"
    /* the result summarizer's score where a summary.json names the entry (the last one read) */
    "  (SELECT f.score_min FROM entry_files f WHERE f.kind = 'summary' AND f.round = e.round"
    "     AND f.submitter = e.submitter AND f.system = e.system AND f.benchmark = e.benchmark"
    "     AND coalesce(json_extract(f.content, '$.division'), e.division) = e.division COLLATE NOCASE"
    "     ORDER BY f.source_id DESC LIMIT 1)"
    " FROM entries e"
    " LEFT JOIN rule_rounds rr ON rr.round = e.round"
    " LEFT JOIN benchmark_rules t ON t.ruleset = rr.ruleset AND t.benchmark = e.benchmark"
    " LEFT JOIN systems sy ON sy.id = (SELECT x.id FROM systems x WHERE x.round = e.round"
    "   AND x.submitter = e.submitter AND x.name = e.system ORDER BY x.id DESC LIMIT 1)"
    " WHERE" DB_ENTRY_FILTER("e") " AND EXISTS (SELECT 1 FROM runs r WHERE r.entry_id = e.id)"
    " ORDER BY e.round, e.division, e.submitter, e.system, e.benchmark";

static const char runs_sql[] =
    "SELECT r.id, r.entry_id, r.run_index, s.path, r.status, r.run_start, r.run_stop, r.dawnbench_tta,"
    "  r.global_batch_size, r.seed, e.round, p.checker_progress, p.progress_rule, r.unreadable_records,"
    "  r.first_unreadable_line"
    " FROM runs r JOIN entries e ON e.id = r.entry_id JOIN sources s ON s.id = r.source_id"
    " JOIN run_progress p ON p.run_id = r.id"
    " WHERE" DB_ENTRY_FILTER("e") " ORDER BY r.entry_id, r.run_index IS NULL, r.run_index, s.path";

static const char evals_sql[] =
    "SELECT m.run_id, m.time, m.epoch, m.samples, m.quality, m.quality2, m.meets"
    " FROM evaluation_meets m JOIN runs r ON r.id = m.run_id JOIN entries e ON e.id = r.entry_id"
    " WHERE" DB_ENTRY_FILTER("e") " ORDER BY m.run_id, m.seq";

typedef struct {
    int64_t run_id;
    tta_run_data *run;
    tta_entry_data *entry;
    double run_start;
    int met;  /* an evaluation meeting the target was seen */
    int checker; /* progress comes from the RCP checker's reading, not from the curve */
    int any_meets; /* reached when any evaluation meets (stable_diffusion), not only the last */
} run_ref;

/* Epochs of a convergence point in the entry's unit; NAN where samples have no epoch size. */
static double progress_epochs(const tta_entry_data *e, double progress) {
    if (!e->unit || strcmp(e->unit, "epochs") == 0) return progress;
    return e->train_set_size > 0 && strcmp(e->unit, "samples") == 0 ? progress / e->train_set_size : NAN;
}

static int compare_run_ref(const void *a, const void *b) {
    int64_t x = ((const run_ref *)a)->run_id, y = ((const run_ref *)b)->run_id;
    return (x > y) - (x < y);
}

int tta_db_entries(sqlite3 *db, const tta_filter *f, int with_curves, tta_entry_data **out, size_t *n,
                   tta_error *err) {
    assert(db && out && n);
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st = NULL;
    int rc = db_prepare_filtered(db, entries_sql, f, &st, "loading entries", err);
    if (rc != TTA_OK) return rc;
    tta_entry_data *entries = NULL;
    size_t n_entries = 0, cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        growArray(entries, &cap, n_entries + 1);
        tta_entry_data *e = &entries[n_entries++];
        memset(e, 0, sizeof *e);
        e->id = sqlite3_column_int64(st, 0);
        e->round = db_col_text(st, 1);
        e->division = db_col_text(st, 2);
        e->submitter = db_col_text(st, 3);
        e->system = db_col_text(st, 4);
        e->benchmark = db_col_text(st, 5);
        e->accelerators = db_col_count(st, 6);
        e->nodes = db_col_count(st, 7);
        e->accelerator_model = db_col_text(st, 8);
        e->metric = db_col_text(st, 9);
        e->target = db_col_real(st, 10);
        e->target2 = db_col_real(st, 11);
        e->higher_is_better = sqlite3_column_int(st, 12);
        e->unit = db_col_text(st, 13);
        e->train_samples = db_col_real(st, 14);
        /* Without rules for the round (replays), the target the runs logged themselves. */
        if (isnan(e->target)) {
            e->target = db_col_real(st, 15);
            e->target2 = db_col_real(st, 16);
        }
        e->ruleset = db_col_text(st, 17);
        e->train_set_size = db_col_real(st, 18);
        e->scaling_factor = sqlite3_column_type(st, 19) == SQLITE_NULL ? 1.0 : db_col_real(st, 19);
        e->summary_score_min = db_col_real(st, 20);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        tta_entries_free(entries, n_entries);
        return db_fail(err, db, "loading entries");
    }
    /* Entries arrive ordered by name; look them up by id through a sorted copy of ids. */
    int64_t *ids = mallocCheck((n_entries ? n_entries : 1) * sizeof *ids);
    size_t *order = mallocCheck((n_entries ? n_entries : 1) * sizeof *order);
    for (size_t i = 0; i < n_entries; i++) order[i] = i;
    /* insertion sort of indexes by id: entries are few (thousands at most) */
    for (size_t i = 1; i < n_entries; i++) {
        size_t k = order[i], j = i;
        while (j > 0 && entries[order[j - 1]].id > entries[k].id) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = k;
    }
    for (size_t i = 0; i < n_entries; i++) ids[i] = entries[order[i]].id;

    rc = db_prepare_filtered(db, runs_sql, f, &st, "loading runs", err);
    if (rc != TTA_OK) {
        free(ids);
        free(order);
        tta_entries_free(entries, n_entries);
        return rc;
    }
    run_ref *refs = NULL;
    size_t n_refs = 0, refs_cap = 0;
    size_t *run_caps = callocCheck(n_entries ? n_entries : 1, sizeof *run_caps);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t eid = sqlite3_column_int64(st, 1);
        /* bsearch over sorted ids */
        size_t lo = 0, hi = n_entries;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (ids[mid] < eid)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == n_entries || ids[lo] != eid) continue;
        size_t ei = order[lo];
        tta_entry_data *e = &entries[ei];
        growArray(e->runs, &run_caps[ei], e->n_runs + 1);
        tta_run_data *r = &e->runs[e->n_runs++];
        memset(r, 0, sizeof *r);
        r->id = sqlite3_column_int64(st, 0);
        r->run_index = db_col_count(st, 2);
        r->file = db_col_text(st, 3);
        r->status = db_col_text(st, 4);
        double start = db_col_real(st, 5), stop = db_col_real(st, 6);
        r->run_start_s = start;
        r->run_stop_s = stop;
        const char *round = (const char *)sqlite3_column_text(st, 10);
        int dawnbench = round && strcmp(round, "dawnbench") == 0;
        r->tta_s = dawnbench ? db_col_real(st, 7) : stop - start;
        r->global_batch_size = db_col_real(st, 8);
        r->has_seed = sqlite3_column_type(st, 9) != SQLITE_NULL;
        r->seed = sqlite3_column_int64(st, 9);
        r->reached = -1;
        r->last_quality = NAN;
        r->epochs = NAN;
        /* Rounds with an RCP checker: its convergence point; others: found with the curve below. */
        const char *rule = (const char *)sqlite3_column_text(st, 12);
        int checker = rule && strcmp(rule, "epoch_of_first_meeting") != 0;
        r->progress = checker ? db_col_real(st, 11) : NAN;
        r->unreadable_records = sqlite3_column_int(st, 13);
        r->first_unreadable_line = db_col_count(st, 14);
        if (checker) r->epochs = progress_epochs(e, r->progress);
        r->samples_to_target = NAN;
        growArray(refs, &refs_cap, n_refs + 1);
        refs[n_refs].run_id = r->id;
        refs[n_refs].entry = e;
        refs[n_refs].run = NULL; /* resolved after all runs are in place (arrays may move) */
        refs[n_refs].run_start = isnan(start) ? 0 : start;
        refs[n_refs].met = 0;
        refs[n_refs].checker = checker;
        refs[n_refs].any_meets = rule && strncmp(rule, "first_passing", 13) == 0;
        n_refs++;
    }
    sqlite3_finalize(st);
    free(run_caps);
    free(ids);
    free(order);
    if (rc != SQLITE_DONE) {
        db_fail(err, db, "loading runs");
        free(refs);
        tta_entries_free(entries, n_entries);
        return TTA_EDB;
    }
    /* Resolve run pointers now that every entry's run array is final (arrays may have moved). */
    for (size_t i = 0; i < n_refs; i++) {
        tta_entry_data *e = refs[i].entry;
        for (size_t j = 0; j < e->n_runs; j++)
            if (e->runs[j].id == refs[i].run_id) {
                refs[i].run = &e->runs[j];
                break;
            }
    }
    if (n_refs > 1) qsort(refs, n_refs, sizeof *refs, compare_run_ref);

    rc = db_prepare_filtered(db, evals_sql, f, &st, "loading evaluations", err);
    if (rc != TTA_OK) {
        free(refs);
        tta_entries_free(entries, n_entries);
        return rc;
    }
    run_ref *cur = NULL;
    size_t curve_cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t run_id = sqlite3_column_int64(st, 0);
        if (!cur || cur->run_id != run_id) {
            run_ref key = {.run_id = run_id};
            cur = n_refs ? bsearch(&key, refs, n_refs, sizeof key, compare_run_ref) : NULL;
            curve_cap = 0;
            if (!cur) continue;
        }
        tta_run_data *r = cur->run;
        tta_curve_point p = {
            .time_s = db_col_real(st, 1) - cur->run_start,
            .epoch = db_col_real(st, 2),
            .samples = db_col_real(st, 3),
            .quality = db_col_real(st, 4),
            .quality2 = db_col_real(st, 5),
            .meets = db_col_count(st, 6),
        };
        /* reached (and last_quality): the last evaluation (any, for benchmarks that converge at
         * their first passing step: their evaluations finish out of order); epochs: at the first
         * one that meets. */
        r->reached = cur->any_meets && r->reached == 1 ? 1 : p.meets;
        r->last_quality = p.quality;
        if (p.meets == 1 && !cur->met) {
            const tta_entry_data *e = cur->entry;
            int by_samples = e->unit && strcmp(e->unit, "samples") == 0;
            cur->met = 1;
            r->samples_to_target = p.samples;
            /* Sample-counted benchmarks (BERT): epochs = samples / training-set size, unknown
             * when the log gives no sample count at the evaluation (its epoch_num is not one). */
            /* v0.7 BERT logs train_samples as the samples it trained on, not the training-set
             * size: a "size" the run reaches at its target is not one. */
            if (!cur->checker) {
                if (by_samples) {
                    r->progress = p.samples;
                    r->epochs = !isnan(p.samples) && e->train_samples > p.samples * 1.01
                                    ? p.samples / e->train_samples
                                    : NAN;
                } else {
                    r->progress = r->epochs = p.epoch;
                }
            }
        }
        if (with_curves) {
            growArray(r->curve, &curve_cap, r->n_curve + 1);
            r->curve[r->n_curve++] = p;
        }
    }
    sqlite3_finalize(st);
    for (size_t i = 0; i < n_refs; i++) {
        tta_run_data *r = refs[i].run;
        /* As run_tta.success_unmet: the last evaluation misses the target, or there is none. */
        r->success_unmet = r->status && !strcmp(r->status, "success") &&
                           (r->reached == 0 || (r->reached == -1 && !isnan(refs[i].entry->target)));
    }
    free(refs);
    if (rc != SQLITE_DONE) {
        db_fail(err, db, "loading evaluations");
        tta_entries_free(entries, n_entries);
        return TTA_EDB;
    }
    *out = entries;
    *n = n_entries;
    return TTA_OK;
}

void tta_entries_free(tta_entry_data *entries, size_t n) {
    for (size_t i = 0; i < n; i++) {
        tta_entry_data *e = &entries[i];
        for (size_t j = 0; j < e->n_runs; j++) {
            free(e->runs[j].file);
            free(e->runs[j].status);
            free(e->runs[j].curve);
        }
        free(e->runs);
        free(e->round);
        free(e->division);
        free(e->submitter);
        free(e->system);
        free(e->benchmark);
        free(e->accelerator_model);
        free(e->metric);
        free(e->unit);
        free(e->ruleset);
    }
    free(entries);
}

int tta_db_same_runs(sqlite3 *db, int64_t a, int64_t b) {
    /* run_start as SQLite prints it, in order: the comparison trend.c has always made */
    static const char sql[] = "SELECT group_concat(run_start, ',') FROM (SELECT run_start FROM runs"
                              " WHERE entry_id = ?1 AND run_start IS NOT NULL ORDER BY run_start)";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return 0;
    }
    char *starts[2] = {NULL, NULL};
    int64_t ids[2] = {a, b};
    for (int k = 0; k < 2; k++) {
        sqlite3_bind_int64(st, 1, ids[k]);
        if (sqlite3_step(st) == SQLITE_ROW) starts[k] = db_col_text(st, 0);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    int same = starts[0] && starts[1] && !strcmp(starts[0], starts[1]);
    free(starts[0]);
    free(starts[1]);
    return same;
}

int tta_db_run_number(sqlite3 *db, int64_t run_id, const char *key, double *out, tta_error *err) {
    assert(db && key && out);
    *out = NAN;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT value FROM hyperparameters WHERE run_id = ?1 AND key = ?2", -1, &st, NULL) !=
        SQLITE_OK) {
        sqlite3_finalize(st);
        return db_fail(err, db, "reading a hyperparameter");
    }
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        const char *t = (const char *)sqlite3_column_text(st, 0);
        char *end;
        double x = t ? strtod(t, &end) : 0;
        if (t && end != t) *out = x;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return db_fail(err, db, "reading a hyperparameter");
    return TTA_OK;
}
