/* rcp.c: `tta report rcp --rcp-dir DIR`: each entry's convergence against MLCommons' reference
 * convergence points, as the official RCP checker decides it, with the normalisation factor a
 * faster-than-reference score would get. Benchmarks without reference points get a note (the
 * official checker stops with a KeyError). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "reports/dataset.h"
#include "reports/render.h"
#include "reports/summary.h"
#include "reports/reports.h"
#include "stats/stats.h"

enum {
    R_ROUND, R_DIVISION, R_SUBMITTER, R_SYSTEM, R_BENCHMARK, R_BS, R_RUNS, R_EPOCHS_MEAN, R_RCP_MEAN, R_MIN_MEAN,
    R_PASS, R_NORM, R_HOW, R_COUNT
};

static const tta_column rcp_columns[R_COUNT] = {
    [R_ROUND] = {"round", "round", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [R_DIVISION] = {"division", "div", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [R_SUBMITTER] = {"submitter", "submitter", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [R_SYSTEM] = {"system", "system", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [R_BENCHMARK] = {"benchmark", "bench", TTA_COL_TEXT, 0, TTA_FOR_ALL},
    [R_BS] = {"global_batch_size", "batch", TTA_COL_INT, 0, TTA_FOR_ALL},
    [R_RUNS] = {"runs", "runs", TTA_COL_INT, 0, TTA_FOR_ALL},
    [R_EPOCHS_MEAN] = {"epochs_mean", "epochs", TTA_COL_NUMBER, 2, TTA_FOR_ALL},
    [R_RCP_MEAN] = {"rcp_mean", "rcp mean", TTA_COL_NUMBER, 2, TTA_FOR_ALL},
    [R_MIN_MEAN] = {"min_acceptable_mean", "min ok", TTA_COL_NUMBER, 2, TTA_FOR_ALL},
    [R_PASS] = {"pass", "pass", TTA_COL_BOOL, 0, TTA_FOR_ALL},
    [R_NORM] = {"normalization", "norm", TTA_COL_NUMBER, 4, TTA_FOR_ALL},
    [R_HOW] = {"reference", "reference", TTA_COL_TEXT, 0, TTA_FOR_SCRIPTS},
};

typedef struct {
    char *benchmark;
    tta_rcp_set set;
    int status; /* tta_rcp_load's return */
    char *err;
} rcp_cache;

static const rcp_cache *cached_set(rcp_cache **cache, size_t *n, size_t *cap, const char *dir, const char *bench) {
    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*cache)[i].benchmark, bench)) return &(*cache)[i];
    growArray(*cache, cap, *n + 1);
    rcp_cache *c = &(*cache)[(*n)++];
    memset(c, 0, sizeof *c);
    c->benchmark = strdupCheck(bench);
    c->status = tta_rcp_load(dir, bench, &c->set, &c->err);
    return c;
}

int tta_report_rcp(sqlite3 *db, const tta_filter *f, const char *rcp_dir, int format, FILE *out, char **err) {
    tta_entry_data *e;
    size_t n;
    if (tta_entries_load(db, f, 0, &e, &n, err) != SQLITE_OK) return 1;
    tta_table *t = tta_table_new(rcp_columns, R_COUNT);
    rcp_cache *cache = NULL;
    size_t n_cache = 0, cap = 0;
    for (size_t i = 0; i < n; i++) {
        size_t row = tta_table_add_row(t);
        tta_table_set_text(t, row, R_ROUND, e[i].round);
        tta_table_set_text(t, row, R_DIVISION, e[i].division);
        tta_table_set_text(t, row, R_SUBMITTER, e[i].submitter);
        tta_table_set_text(t, row, R_SYSTEM, e[i].system);
        tta_table_set_text(t, row, R_BENCHMARK, e[i].benchmark);
        tta_table_set_number(t, row, R_RUNS, (double)e[i].n_runs);
        /* Sample-counted benchmarks (BERT) are checked in samples, as the references are. */
        int by_samples = e[i].unit && !strcmp(e[i].unit, "samples");
        double *conv = mallocCheck((e[i].n_runs + 1) * sizeof *conv);
        double bs = NAN;
        int unknown_progress = 0;
        for (size_t r = 0; r < e[i].n_runs; r++) {
            const tta_run_data *run = &e[i].runs[r];
            /* A failed run is NAN (the checker counts it as 1e9 epochs); a successful run whose
             * progress was not logged leaves the check undecidable. */
            int ok = tta_run_succeeded(run);
            conv[r] = ok ? (by_samples ? run->samples_to_target : run->epochs) : NAN;
            if (ok && isnan(conv[r])) unknown_progress = 1;
            if (isnan(bs)) bs = run->global_batch_size;
        }
        if (isnan(bs)) tta_table_set_missing(t, row, R_BS, "batch size not logged");
        else tta_table_set_number(t, row, R_BS, bs);
        const rcp_cache *c = cached_set(&cache, &n_cache, &cap, rcp_dir, e[i].benchmark);
        if (c->status != 0) {
            const char *why = c->status > 0 ? "no reference convergence points for this benchmark" : c->err;
            for (int col = R_EPOCHS_MEAN; col <= R_NORM; col++) tta_table_set_missing(t, row, (size_t)col, why);
            free(conv);
            continue;
        }
        if (unknown_progress) {
            const char *why = by_samples ? "samples to target not logged" : "epochs to target not logged";
            for (int col = R_EPOCHS_MEAN; col <= R_NORM; col++) tta_table_set_missing(t, row, (size_t)col, why);
            free(conv);
            continue;
        }
        tta_rcp_result r = tta_rcp_check(&c->set, bs, conv, e[i].n_runs, e[i].benchmark);
        const char *why = r.why ? r.why : "not computable";
        if (isnan(r.subm_mean)) tta_table_set_missing(t, row, R_EPOCHS_MEAN, why);
        else tta_table_set_number(t, row, R_EPOCHS_MEAN, r.subm_mean);
        if (isnan(r.rcp_mean)) tta_table_set_missing(t, row, R_RCP_MEAN, why);
        else tta_table_set_number(t, row, R_RCP_MEAN, r.rcp_mean);
        if (isnan(r.min_mean)) tta_table_set_missing(t, row, R_MIN_MEAN, why);
        else tta_table_set_number(t, row, R_MIN_MEAN, r.min_mean);
        if (r.status == TTA_RCP_PASS || r.status == TTA_RCP_FAIL) {
            tta_table_set_bool(t, row, R_PASS, r.status == TTA_RCP_PASS);
            tta_table_set_number(t, row, R_NORM, r.normalization);
            tta_table_set_text(t, row, R_HOW, r.how);
        } else {
            tta_table_set_missing(t, row, R_PASS, why);
            tta_table_set_missing(t, row, R_NORM, why);
        }
        free(conv);
    }
    tta_table_write(t, (tta_out_format)format, out);
    tta_table_free(t);
    for (size_t i = 0; i < n_cache; i++) {
        free(cache[i].benchmark);
        free(cache[i].err);
        tta_rcp_free(&cache[i].set);
    }
    free(cache);
    tta_entries_free(e, n);
    return 0;
}
