/* dataset.c: entries, runs and evaluation curves from the database, in three queries.
 *
 * Whether an evaluation meets its run's target is decided by the database's evaluation_meets
 * view (one rule for tta and for users of sqlite3); reached and epochs-to-target are derived
 * here from those flags exactly as the run_tta view derives them.
 */
#include "reports/dataset.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/check.h"

#define FILTER_SQL                                                                                   \
    " (?1 IS NULL OR e.round = ?1 COLLATE NOCASE) AND (?2 IS NULL OR e.division = ?2 COLLATE NOCASE)" \
    " AND (?3 IS NULL OR e.submitter = ?3 COLLATE NOCASE) AND (?4 IS NULL OR e.system = ?4 COLLATE NOCASE)" \
    " AND (?5 IS NULL OR e.benchmark = ?5 COLLATE NOCASE) AND (?6 = 0 OR e.id = ?6)"

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
    " WHERE" FILTER_SQL " AND EXISTS (SELECT 1 FROM runs r WHERE r.entry_id = e.id)"
    " ORDER BY e.round, e.division, e.submitter, e.system, e.benchmark";

static const char runs_sql[] =
    "SELECT r.id, r.entry_id, r.run_index, s.path, r.status, r.run_start, r.run_stop, r.dawnbench_tta,"
    "  r.global_batch_size, r.seed, e.round, p.checker_progress, p.progress_rule, r.unreadable_records,"
    "  r.first_unreadable_line"
    " FROM runs r JOIN entries e ON e.id = r.entry_id JOIN sources s ON s.id = r.source_id"
    " JOIN run_progress p ON p.run_id = r.id"
    " WHERE" FILTER_SQL " ORDER BY r.entry_id, r.run_index IS NULL, r.run_index, s.path";

static const char evals_sql[] =
    "SELECT m.run_id, m.time, m.epoch, m.samples, m.quality, m.quality2, m.meets"
    " FROM evaluation_meets m JOIN runs r ON r.id = m.run_id JOIN entries e ON e.id = r.entry_id"
    " WHERE" FILTER_SQL " ORDER BY m.run_id, m.seq";

static char *col_text(sqlite3_stmt *st, int i) {
    const unsigned char *t = sqlite3_column_text(st, i);
    return t ? strdupCheck((const char *)t) : NULL;
}
static double col_real(sqlite3_stmt *st, int i) {
    return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}
static int col_count(sqlite3_stmt *st, int i) {
    return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int(st, i);
}

static int prepare_filtered(sqlite3 *db, const char *sql, const tta_filter *f, sqlite3_stmt **st) {
    int rc = sqlite3_prepare_v2(db, sql, -1, st, NULL);
    if (rc != SQLITE_OK) return rc;
    const char *texts[5] = {f->round, f->division, f->submitter, f->system, f->benchmark};
    for (int i = 0; i < 5; i++) {
        if (texts[i])
            sqlite3_bind_text(*st, i + 1, texts[i], -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(*st, i + 1);
    }
    sqlite3_bind_int64(*st, 6, f->entry_id);
    return SQLITE_OK;
}

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

static void set_err(char **err, sqlite3 *db, const char *what) {
    if (!err) return;
    buf b = {0};
    buf_printf(&b, "database: %s: %s", what, sqlite3_errmsg(db));
    *err = buf_take(&b);
}

int tta_entries_load(sqlite3 *db, const tta_filter *filter, int with_curves, tta_entry_data **out, size_t *n,
                     char **err) {
    static const tta_filter all = {0};
    const tta_filter *f = filter ? filter : &all;
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st = NULL;
    int rc = prepare_filtered(db, entries_sql, f, &st);
    if (rc != SQLITE_OK) {
        set_err(err, db, "loading entries");
        return rc;
    }
    tta_entry_data *entries = NULL;
    size_t n_entries = 0, cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        growArray(entries, &cap, n_entries + 1);
        tta_entry_data *e = &entries[n_entries++];
        memset(e, 0, sizeof *e);
        e->id = sqlite3_column_int64(st, 0);
        e->round = col_text(st, 1);
        e->division = col_text(st, 2);
        e->submitter = col_text(st, 3);
        e->system = col_text(st, 4);
        e->benchmark = col_text(st, 5);
        e->accelerators = col_count(st, 6);
        e->nodes = col_count(st, 7);
        e->accelerator_model = col_text(st, 8);
        e->metric = col_text(st, 9);
        e->target = col_real(st, 10);
        e->target2 = col_real(st, 11);
        e->higher_is_better = sqlite3_column_int(st, 12);
        e->unit = col_text(st, 13);
        e->train_samples = col_real(st, 14);
        /* Without rules for the round (replays), the target the runs logged themselves. */
        if (isnan(e->target)) {
            e->target = col_real(st, 15);
            e->target2 = col_real(st, 16);
        }
        e->ruleset = col_text(st, 17);
        e->train_set_size = col_real(st, 18);
        e->scaling_factor = sqlite3_column_type(st, 19) == SQLITE_NULL ? 1.0 : col_real(st, 19);
        e->summary_score_min = col_real(st, 20);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        set_err(err, db, "loading entries");
        tta_entries_free(entries, n_entries);
        return rc;
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

    rc = prepare_filtered(db, runs_sql, f, &st);
    if (rc != SQLITE_OK) {
        set_err(err, db, "loading runs");
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
        r->run_index = col_count(st, 2);
        r->file = col_text(st, 3);
        r->status = col_text(st, 4);
        double start = col_real(st, 5), stop = col_real(st, 6);
        const char *round = (const char *)sqlite3_column_text(st, 10);
        int dawnbench = round && strcmp(round, "dawnbench") == 0;
        r->tta_s = dawnbench ? col_real(st, 7) : stop - start;
        r->global_batch_size = col_real(st, 8);
        r->has_seed = sqlite3_column_type(st, 9) != SQLITE_NULL;
        r->seed = sqlite3_column_int64(st, 9);
        r->reached = -1;
        r->last_quality = NAN;
        r->epochs = NAN;
        /* Rounds with an RCP checker: its convergence point; others: found with the curve below. */
        const char *rule = (const char *)sqlite3_column_text(st, 12);
        int checker = rule && strcmp(rule, "epoch_of_first_meeting") != 0;
        r->progress = checker ? col_real(st, 11) : NAN;
        r->unreadable_records = sqlite3_column_int(st, 13);
        r->first_unreadable_line = col_count(st, 14);
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
        set_err(err, db, "loading runs");
        free(refs);
        tta_entries_free(entries, n_entries);
        return rc;
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

    rc = prepare_filtered(db, evals_sql, f, &st);
    if (rc != SQLITE_OK) {
        set_err(err, db, "loading evaluations");
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
            .time_s = col_real(st, 1) - cur->run_start,
            .epoch = col_real(st, 2),
            .samples = col_real(st, 3),
            .quality = col_real(st, 4),
            .quality2 = col_real(st, 5),
            .meets = col_count(st, 6),
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
        set_err(err, db, "loading evaluations");
        tta_entries_free(entries, n_entries);
        return rc;
    }
    *out = entries;
    *n = n_entries;
    return SQLITE_OK;
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
    if (rc != SQLITE_OK) return 1;
    if (n != 1) {
        buf b = {0};
        buf_printf(&b, "no entry '%s' (see `tta ls entries`)", spec);
        *err = buf_take(&b);
        tta_entries_free(*e, n);
        return 1;
    }
    return 0;
}
