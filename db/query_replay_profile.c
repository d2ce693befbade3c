/* query_replay_profile.c: the profile that `tta replay` logs of each run (TTA_KEY_MEMORY and
 * TTA_KEY_LAYER_PROFILE, common/replay_log.h) of a selection's runs, read from the typed tables
 * ingest fills from those records (replay_memory, replay_layer_profiles, replay_layers;
 * schemas/007_replay_profile.sql). Only replays log them: published runs have no rows there. */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/check.h"
#include "common/replay_log.h"
#include "db/query.h"

/* Columns of the runs' query: entry, run, the entry's names, run_index, whether each record is
 * there, steps, then the memory categories (tta_replay_memory order). */
enum { R_ENTRY, R_RUN, R_ROUND, R_SUBMITTER, R_SYSTEM, R_BENCHMARK, R_INDEX, R_HAS_MEM, R_HAS_LAYERS, R_STEPS, R_MEM0 };

/* The runs' query (caller frees): every run of the filter with a memory row or a layer profile,
 * by entry and run; the memory columns named as common/profile_json.h names the categories. */
static char *runs_sql(void) {
    buf b = {0};
    buf_puts(&b, "SELECT e.id, r.id, e.round, e.submitter, e.system, e.benchmark, r.run_index,"
                 " m.run_id IS NOT NULL, p.run_id IS NOT NULL, p.steps");
    for (int i = 0; i < TTA_REPLAY_MEMORY_CATEGORIES; i++)
        buf_printf(&b, ", m.%s", tta_profile_memory_names[tta_replay_memory[i]]);
    buf_puts(&b, " FROM entries e JOIN runs r ON r.entry_id = e.id"
                 " LEFT JOIN replay_memory m ON m.run_id = r.id LEFT JOIN replay_layer_profiles p ON p.run_id = r.id"
                 " WHERE (m.run_id IS NOT NULL OR p.run_id IS NOT NULL) AND" DB_ENTRY_FILTER("e")
                 " ORDER BY e.id, r.id");
    return buf_take(&b);
}

/* The layers of the same runs, by entry, run and place. */
static const char layers_sql[] =
    "SELECT r.id, l.name, l.type, l.flops, l.bytes, l.time_s FROM entries e JOIN runs r ON r.entry_id = e.id"
    " JOIN replay_layers l ON l.run_id = r.id WHERE" DB_ENTRY_FILTER("e") " ORDER BY e.id, r.id, l.idx";

void tta_replay_profiles_free(tta_replay_profile *p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        free(p[i].round);
        free(p[i].submitter);
        free(p[i].system);
        free(p[i].benchmark);
        for (size_t k = 0; k < p[i].n_layers; k++) {
            free(p[i].layers[k].name);
            free(p[i].layers[k].type);
        }
        free(p[i].layers);
    }
    free(p);
}

/* The runs of f with their memory and steps into *out (*n). TTA_OK, TTA_EINPUT or TTA_EDB (nothing
 * to free then). */
static int load_runs(sqlite3 *db, const tta_filter *f, tta_replay_profile **out, size_t *n_out, tta_error *err) {
    sqlite3_stmt *st;
    char *sql = runs_sql();
    int rc = db_prepare_filtered(db, sql, f, &st, "loading the replays' profiles", err);
    free(sql);
    if (rc != TTA_OK) return rc;
    tta_replay_profile *p = NULL;
    size_t n = 0, cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        growArray(p, &cap, n + 1);
        tta_replay_profile *x = &p[n++];
        memset(x, 0, sizeof *x);
        x->entry_id = sqlite3_column_int64(st, R_ENTRY);
        x->run_id = sqlite3_column_int64(st, R_RUN);
        x->round = db_col_text(st, R_ROUND);
        x->submitter = db_col_text(st, R_SUBMITTER);
        x->system = db_col_text(st, R_SYSTEM);
        x->benchmark = db_col_text(st, R_BENCHMARK);
        x->run_index = db_col_count(st, R_INDEX);
        x->has_memory = sqlite3_column_int(st, R_HAS_MEM);
        x->has_layers = sqlite3_column_int(st, R_HAS_LAYERS);
        x->steps = db_col_real(st, R_STEPS);
        for (int k = 0; k < TTA_REPLAY_MEMORY_CATEGORIES; k++) x->memory[k] = db_col_real(st, R_MEM0 + k);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        tta_replay_profiles_free(p, n);
        return db_fail(err, db, "loading the replays' profiles");
    }
    *out = p;
    *n_out = n;
    return TTA_OK;
}

int tta_db_replay_profiles(sqlite3 *db, const tta_filter *f, tta_replay_profile **out, size_t *n_out,
                           tta_error *err) {
    assert(db && out && n_out);
    *out = NULL;
    *n_out = 0;
    tta_replay_profile *p = NULL;
    size_t n = 0;
    int rc = load_runs(db, f, &p, &n, err);
    if (rc != TTA_OK) return rc;
    sqlite3_stmt *st;
    if ((rc = db_prepare_filtered(db, layers_sql, f, &st, "loading the replays' layers", err)) != TTA_OK) {
        tta_replay_profiles_free(p, n);
        return rc;
    }
    /* both queries go by entry and run: the layers' runs come in the runs' order */
    size_t at = 0, cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t run = sqlite3_column_int64(st, 0);
        while (at < n && p[at].run_id != run) at++, cap = 0;
        if (at == n) break; /* not reached: every layer has its run's profile row */
        tta_replay_profile *x = &p[at];
        growArray(x->layers, &cap, x->n_layers + 1);
        x->layers[x->n_layers++] = (tta_replay_layer_row){db_col_text(st, 1), db_col_text(st, 2), db_col_real(st, 3),
                                                          db_col_real(st, 4), db_col_real(st, 5)};
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
        tta_replay_profiles_free(p, n);
        return db_fail(err, db, "loading the replays' layers");
    }
    *out = p;
    *n_out = n;
    return TTA_OK;
}
