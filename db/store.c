/* store.c: the writer: parsed files into SQLite with prepared statements, files grouped into
 * transactions of about 8 MB of input or 0.5 s (db.h, "The writer", says why). */
#include "db/writer.h"
#include "db/query.h"

#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/buf.h"
#include "common/check.h"
#include "common/hash.h"

enum {
    ST_BEGIN,
    ST_COMMIT,
    ST_ROLLBACK,
    ST_DELETE_SOURCE,
    ST_INSERT_SOURCE,
    ST_INSERT_SYSTEM,
    ST_INSERT_ENTRY,
    ST_SELECT_ENTRY,
    ST_SYSTEM_DIVISION,
    ST_INSERT_RUN,
    ST_ENTRY_SCALING,
    ST_INSERT_EVENT,
    ST_INSERT_EVAL,
    ST_INSERT_EPOCH,
    ST_INSERT_HPARAM,
    ST_INSERT_POWER,
    ST_INSERT_EVALS,   /* BULK_ROWS evaluations at once */
    ST_INSERT_EPOCHS,  /* BULK_ROWS epochs at once */
    ST_INSERT_HPARAMS, /* BULK_ROWS hyperparameters at once */
    ST_INSERT_ENTRY_FILE,
    ST_INSERT_REPLAY_RUN,  /* replay records (schemas/006_replay_records.sql) */
    ST_INSERT_BREAKDOWN,   /* its text is built from the field names (breakdown_insert_sql) */
    ST_INSERT_RANK_COMM,
    ST_INSERT_MEMORY,        /* a replay's profile (schemas/007_replay_profile.sql); its text is built
                                from the category names (memory_insert_sql) */
    ST_INSERT_LAYER_PROFILE,
    ST_INSERT_LAYER,
    ST_INSERT_ALGOPERF_FILE, /* an AlgoPerf leaderboard's files (schemas/010_algoperf.sql) */
    ST_INSERT_ALGOPERF_EVAL,
    ST_INSERT_ALGOPERF_VALUE,
    ST_INSERT_ALGOPERF_TARGET,
    ST_COUNT
};

/* Rows of a run's evaluations, epochs and hyperparameters go BULK_ROWS to one execution of a
 * multi-row INSERT: a statement execution costs more than the row it inserts (opening the
 * table's cursor, seeking from the root, finishing), and these rows are the writer's most
 * numerous. */
#define BULK_ROWS 32

/* The multi-row statements: the single-row statement's text up to VALUES, then BULK_ROWS
 * groups of cols placeholders. */
enum { BULK_EVALS, BULK_EPOCHS, BULK_HPARAMS, BULK_COUNT };
static const struct {
    int single, bulk, cols;
} bulk_statements[BULK_COUNT] = {
    [BULK_EVALS] = {ST_INSERT_EVAL, ST_INSERT_EVALS, 7},
    [BULK_EPOCHS] = {ST_INSERT_EPOCH, ST_INSERT_EPOCHS, 5},
    [BULK_HPARAMS] = {ST_INSERT_HPARAM, ST_INSERT_HPARAMS, 3},
};

static const char *const statement_sql[ST_COUNT] = {
    [ST_BEGIN] = "BEGIN IMMEDIATE",
    [ST_COMMIT] = "COMMIT",
    [ST_ROLLBACK] = "ROLLBACK",
    [ST_DELETE_SOURCE] = "DELETE FROM sources WHERE path = ?1",
    [ST_INSERT_SOURCE] = "INSERT INTO sources(path, size, hash, format, status, error) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    [ST_INSERT_SYSTEM] = "INSERT INTO systems(source_id, round, submitter, name, division, status, accelerator_model,"
                         " nodes, accelerators_per_node, accelerators, host_processor, framework, description)"
                         " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
    [ST_INSERT_ENTRY] = "INSERT OR IGNORE INTO entries(round, division, submitter, system, benchmark)"
                        " VALUES (?1, ?2, ?3, ?4, ?5)",
    [ST_SELECT_ENTRY] = "SELECT id FROM entries WHERE round = ?1 AND division = ?2 AND submitter = ?3"
                        " AND system = ?4 AND benchmark = ?5",
    [ST_SYSTEM_DIVISION] = "SELECT division FROM systems WHERE round = ?1 AND submitter = ?2 AND name = ?3"
                           " AND division IS NOT NULL ORDER BY id DESC LIMIT 1",
    [ST_INSERT_RUN] = "INSERT INTO runs(source_id, entry_id, run_index, platform, seed, run_start, run_stop, status,"
                      " target, target2, global_batch_size, train_samples, eval_samples,"
                      " cp_epoch_num, cp_samples_count, cp_train_samples, cp_first_passing_step,"
                      " cp_first_passing_samples, cp_status, unreadable_records, first_unreadable_line, init_start, init_stop,"
                      " log_nodes, log_accelerators_per_node, compliance, compliance_reason)"
                      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18,"
                      " ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27)",
    [ST_ENTRY_SCALING] = "UPDATE entries SET scaling = ?2 WHERE id = ?1 AND scaling IS NULL",
    [ST_INSERT_EVENT] = "INSERT INTO event_log(run_id, n, records, files) VALUES (?1, ?2, ?3, ?4)",
    [ST_INSERT_EVAL] = "INSERT INTO evaluations(run_id, seq, time, epoch, samples, quality, quality2)"
                       " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    [ST_INSERT_EPOCH] = "INSERT INTO epochs(run_id, seq, epoch, start, stop) VALUES (?1, ?2, ?3, ?4, ?5)",
    [ST_INSERT_HPARAM] = "INSERT OR IGNORE INTO hyperparameters(run_id, key, value) VALUES (?1, ?2, ?3)",
    [ST_INSERT_POWER] = "INSERT INTO power_samples(source_id, round, submitter, system, benchmark, run_index, node,"
                        " time, key, value) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    [ST_INSERT_ENTRY_FILE] = "INSERT INTO entry_files(source_id, round, submitter, system, benchmark, kind,"
                             " scaling_factor, score_min, content) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    [ST_INSERT_REPLAY_RUN] = "INSERT INTO replay_runs(run_id, world_size, replay_of, to_schedule_end, unseen_accuracy,"
                             " shifted_accuracy) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    [ST_INSERT_RANK_COMM] = "INSERT INTO replay_rank_comm(run_id, seq, rank, comm_total_s) VALUES (?1, ?2, ?3, ?4)",
    [ST_INSERT_LAYER_PROFILE] = "INSERT INTO replay_layer_profiles(run_id, steps) VALUES (?1, ?2)",
    [ST_INSERT_LAYER] = "INSERT INTO replay_layers(run_id, idx, name, type, flops, bytes, time_s)"
                        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    [ST_INSERT_ALGOPERF_FILE] = "INSERT INTO algoperf_files(source_id, kind, leaderboard, ruleset, submission, study,"
                                " workload, framework, trial, content) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    [ST_INSERT_ALGOPERF_EVAL] = "INSERT INTO algoperf_evals(source_id, idx, global_step, score, submission_time,"
                                " eval_time, total_duration) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    [ST_INSERT_ALGOPERF_VALUE] = "INSERT OR REPLACE INTO algoperf_values(source_id, idx, name, value)"
                                 " VALUES (?1, ?2, ?3, ?4)",
    [ST_INSERT_ALGOPERF_TARGET] = "INSERT OR REPLACE INTO algoperf_targets(source_id, version, workload, metric,"
                                   " target, minimize, step_hint, role, base) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
};

struct tta_store {
    sqlite3 *db;
    sqlite3_stmt *st[ST_COUNT];
    db_facts *facts; /* works out the facts of the runs each transaction wrote */
    /* The last entry looked up: consecutive files usually belong to the same entry. */
    char *last_entry_key;
    int64_t last_entry_id;
    /* The open transaction (tta_store_write opens it, tta_store_flush or a full batch commits). */
    int in_batch;
    uint64_t batch_bytes;
    double batch_start;
    tta_store_counts pending;   /* written in the open transaction */
    tta_store_counts committed; /* written by committed transactions */
    int64_t rolled_back;        /* files whose transaction was rolled back */
    /* Something tta_store_finish may have to fix was written: a run of unknown division, a
     * system description, or a replaced file (whose entry may be left without runs). */
    int needs_finish;
    int needs_algoperf; /* an AlgoPerf file written or a file removed: its studies as runs again */
};

/* Limits of one transaction: big enough that the pages every commit rewrites (the b-tree roots
 * and interior pages of every table and index) are written once for many files, small enough
 * that readers see progress and an interrupted ingest repeats little. */
#define BATCH_BYTES (8u << 20)
#define BATCH_SECONDS 0.5

static double mono_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static int set_err(tta_error *err, sqlite3 *db, const char *path, const char *what) {
    return tta_fail(err, TTA_EDB, "%s: %s: %s", path ? path : "database", what, sqlite3_errmsg(db));
}

const char *tta_run_status_name(tta_run_status s) {
    switch (s) {
    case TTA_RUN_SUCCESS: return "success";
    case TTA_RUN_ABORTED: return "aborted";
    case TTA_RUN_UNKNOWN: break;
    }
    return "unknown";
}

size_t tta_db_max_value_bytes(sqlite3 *db) { return (size_t)sqlite3_limit(db, SQLITE_LIMIT_LENGTH, -1); }

/* The insert of a time breakdown row: run_id, seq, epoch, then one column per field, named as
 * common/replay_log.h names them (caller frees). */
static char *breakdown_insert_sql(void) {
    buf b = {0};
    buf_puts(&b, "INSERT INTO replay_epoch_breakdown(run_id, seq, epoch");
    for (int i = 0; i < TTA_BREAKDOWN_FIELDS; i++) buf_printf(&b, ", %s", tta_breakdown_names[i]);
    buf_puts(&b, ") VALUES (?, ?, ?");
    for (int i = 0; i < TTA_BREAKDOWN_FIELDS; i++) buf_puts(&b, ", ?");
    buf_putc(&b, ')');
    return buf_take(&b);
}

/* The insert of a replay's memory row: run_id, then one column per category of tta_replay_memory,
 * named as common/profile_json.h names its member (caller frees). */
static char *memory_insert_sql(void) {
    buf b = {0};
    buf_puts(&b, "INSERT INTO replay_memory(run_id");
    for (int i = 0; i < TTA_REPLAY_MEMORY_CATEGORIES; i++)
        buf_printf(&b, ", %s", tta_profile_memory_names[tta_replay_memory[i]]);
    buf_puts(&b, ") VALUES (?");
    for (int i = 0; i < TTA_REPLAY_MEMORY_CATEGORIES; i++) buf_puts(&b, ", ?");
    buf_putc(&b, ')');
    return buf_take(&b);
}

/* The SQL of statement i: statement_sql, or for a multi-row statement its single-row
 * statement's text with BULK_ROWS groups of placeholders, or the breakdown's or the memory's
 * insert (caller frees). */
static char *statement_text(int i) {
    if (i == ST_INSERT_BREAKDOWN) return breakdown_insert_sql();
    if (i == ST_INSERT_MEMORY) return memory_insert_sql();
    for (int k = 0; k < BULK_COUNT; k++) {
        if (bulk_statements[k].bulk != i) continue;
        const char *single = statement_sql[bulk_statements[k].single];
        const char *values = strstr(single, " VALUES ");
        assert(values);
        buf b = {0};
        buf_append(&b, single, (size_t)(values - single));
        buf_puts(&b, " VALUES ");
        for (int row = 0; row < BULK_ROWS; row++) {
            buf_puts(&b, row ? ",(" : "(");
            for (int c = 0; c < bulk_statements[k].cols; c++) buf_puts(&b, c ? ",?" : "?");
            buf_putc(&b, ')');
        }
        return buf_take(&b);
    }
    assert(statement_sql[i]);
    return strdupCheck(statement_sql[i]);
}

int tta_store_open(sqlite3 *db, tta_store **out, tta_error *err) {
    tta_store *s = callocCheck(1, sizeof *s);
    s->db = db;
    for (int i = 0; i < ST_COUNT; i++) {
        char *sql = statement_text(i);
        int rc = sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s->st[i], NULL);
        free(sql);
        if (rc != SQLITE_OK) {
            set_err(err, db, NULL, "preparing statement");
            tta_store_close(s);
            *out = NULL;
            return TTA_EDB;
        }
    }
    if (db_facts_open(db, &s->facts, err) != TTA_OK) {
        tta_store_close(s);
        *out = NULL;
        return TTA_EDB;
    }
    *out = s;
    return TTA_OK;
}

void tta_store_close(tta_store *s) {
    if (!s) return;
    tta_store_flush(s, NULL);
    for (int i = 0; i < ST_COUNT; i++) sqlite3_finalize(s->st[i]);
    db_facts_close(s->facts);
    free(s->last_entry_key);
    free(s);
}

/* Binding helpers: NULL for absent strings and NaN numbers. */
static void bind_text(sqlite3_stmt *st, int i, const char *s) {
    if (s)
        sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, i);
}
static void bind_span(sqlite3_stmt *st, int i, tta_str s) {
    if (s.p && s.n)
        sqlite3_bind_text(st, i, s.p, (int)s.n, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, i);
}
static void bind_real(sqlite3_stmt *st, int i, double v) {
    if (isnan(v))
        sqlite3_bind_null(st, i);
    else
        sqlite3_bind_double(st, i, v);
}
static void bind_count(sqlite3_stmt *st, int i, int v) {
    if (v < 0)
        sqlite3_bind_null(st, i);
    else
        sqlite3_bind_int(st, i, v);
}

/* Steps a statement that returns no rows and resets it. */
static int exec_stmt(sqlite3_stmt *st) {
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

int tta_store_load_sources(tta_store *s, tta_stored_source **out, size_t *n, tta_error *err) {
    sqlite3_stmt *st;
    *out = NULL;
    *n = 0;
    if (sqlite3_prepare_v2(s->db, "SELECT path, size, hash, status FROM sources", -1, &st, NULL) != SQLITE_OK)
        return set_err(err, s->db, NULL, "reading sources");
    size_t cap = 0;
    tta_stored_source *v = NULL;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        growArray(v, &cap, *n + 1);
        tta_stored_source *e = &v[(*n)++];
        e->path = strdupCheck((const char *)sqlite3_column_text(st, 0));
        e->size = (uint64_t)sqlite3_column_int64(st, 1);
        const char *h = (const char *)sqlite3_column_text(st, 2);
        snprintf(e->hash, sizeof e->hash, "%s", h ? h : "");
        const char *status = (const char *)sqlite3_column_text(st, 3);
        e->ok = status && strcmp(status, "ok") == 0;
    }
    sqlite3_finalize(st);
    *out = v;
    if (rc != SQLITE_DONE) return set_err(err, s->db, NULL, "reading sources");
    return TTA_OK;
}

void tta_stored_sources_free(tta_stored_source *v, size_t n) {
    for (size_t i = 0; i < n; i++) free(v[i].path);
    free(v);
}

static const char *or_unknown(const char *s) { return s && *s ? s : "unknown"; }

/* Division of a run: its system description's, as MLCommons' summarizer files a folder (the
 * logs of a few folders name another: v0.7 SIAT's open resnet, Intel's open BERT of v2.1-v3.1),
 * else as logged, else "unknown" (filled by tta_store_finish when the description arrives
 * later; descriptions are walked first). */
static const char *run_division(tta_store *s, const tta_run_record *r, char *tmp, size_t tmp_len) {
    sqlite3_stmt *st = s->st[ST_SYSTEM_DIVISION];
    bind_text(st, 1, or_unknown(r->round));
    bind_text(st, 2, or_unknown(r->submitter));
    bind_text(st, 3, or_unknown(r->system));
    const char *described = NULL;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
        snprintf(tmp, tmp_len, "%s", (const char *)sqlite3_column_text(st, 0));
        for (char *c = tmp; *c; c++) *c = (char)tolower((unsigned char)*c);
        described = tmp;
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (described) return described;
    s->needs_finish = 1; /* a description arriving later decides (tta_store_finish) */
    if (r->division && *r->division) return r->division;
    return "unknown";
}

/* Finds or creates the entry of a run; returns its id, or -1 on a database error. */
static int64_t entry_id(tta_store *s, const char *round, const char *division, const char *submitter,
                        const char *system, const char *benchmark) {
    buf key = {0};
    buf_printf(&key, "%s\x1f%s\x1f%s\x1f%s\x1f%s", round, division, submitter, system, benchmark);
    if (s->last_entry_key && strcmp(s->last_entry_key, buf_str(&key)) == 0) {
        buf_free(&key);
        return s->last_entry_id;
    }
    const char *fields[5] = {round, division, submitter, system, benchmark};
    sqlite3_stmt *ins = s->st[ST_INSERT_ENTRY], *sel = s->st[ST_SELECT_ENTRY];
    for (int i = 0; i < 5; i++) bind_text(ins, i + 1, fields[i]);
    if (exec_stmt(ins) != SQLITE_OK) {
        buf_free(&key);
        return -1;
    }
    for (int i = 0; i < 5; i++) bind_text(sel, i + 1, fields[i]);
    int64_t id = -1;
    if (sqlite3_step(sel) == SQLITE_ROW) id = sqlite3_column_int64(sel, 0);
    sqlite3_reset(sel);
    sqlite3_clear_bindings(sel);
    /* The cache is only valid within the transaction that may roll back: reset on error. */
    free(s->last_entry_key);
    s->last_entry_key = buf_take(&key);
    s->last_entry_id = id;
    return id;
}

/* Binders of one row i of an array at parameters first, first + 1, ... */
typedef void bind_row_fn(sqlite3_stmt *st, int first, int64_t run_id, const void *rows, size_t i);

static void bind_eval(sqlite3_stmt *st, int first, int64_t run_id, const void *rows, size_t i) {
    const tta_eval *v = (const tta_eval *)rows + i;
    sqlite3_bind_int64(st, first, run_id);
    sqlite3_bind_int64(st, first + 1, (int64_t)i);
    bind_real(st, first + 2, v->time_s);
    bind_real(st, first + 3, v->epoch);
    bind_real(st, first + 4, v->samples);
    bind_real(st, first + 5, v->quality);
    bind_real(st, first + 6, v->quality2);
}

static void bind_epoch(sqlite3_stmt *st, int first, int64_t run_id, const void *rows, size_t i) {
    const tta_epoch_mark *m = (const tta_epoch_mark *)rows + i;
    sqlite3_bind_int64(st, first, run_id);
    sqlite3_bind_int64(st, first + 1, (int64_t)i);
    bind_real(st, first + 2, m->epoch);
    bind_real(st, first + 3, m->start_s);
    bind_real(st, first + 4, m->stop_s);
}

/* An empty key binds NULL, which the NOT NULL column makes INSERT OR IGNORE skip. */
static void bind_hparam(sqlite3_stmt *st, int first, int64_t run_id, const void *rows, size_t i) {
    const tta_kv *h = (const tta_kv *)rows + i;
    sqlite3_bind_int64(st, first, run_id);
    bind_span(st, first + 1, h->key);
    bind_span(st, first + 2, h->value);
}

/* Inserts the n rows with bulk_statements[kind]: BULK_ROWS per execution, the rest one by one. */
static int insert_rows(tta_store *s, int kind, int64_t run_id, const void *rows, size_t n, bind_row_fn *bind) {
    int cols = bulk_statements[kind].cols, rc;
    size_t i = 0;
    sqlite3_stmt *st = s->st[bulk_statements[kind].bulk];
    for (; i + BULK_ROWS <= n; i += BULK_ROWS) {
        for (int k = 0; k < BULK_ROWS; k++) bind(st, 1 + k * cols, run_id, rows, i + (size_t)k);
        if ((rc = exec_stmt(st)) != SQLITE_OK) return rc;
    }
    st = s->st[bulk_statements[kind].single];
    for (; i < n; i++) {
        bind(st, 1, run_id, rows, i);
        if ((rc = exec_stmt(st)) != SQLITE_OK) return rc;
    }
    return SQLITE_OK;
}

/* Writes the profile of replay run r (run_id): its memory row, and its layer profile's row with
 * one row per layer. SQLite's code. */
static int write_replay_profile(tta_store *s, int64_t run_id, const tta_run_record *r) {
    int rc;
    sqlite3_stmt *st;
    if (r->has_memory) {
        st = s->st[ST_INSERT_MEMORY];
        sqlite3_bind_int64(st, 1, run_id);
        for (int i = 0; i < TTA_REPLAY_MEMORY_CATEGORIES; i++) bind_real(st, 2 + i, r->memory[i]);
        if ((rc = exec_stmt(st)) != SQLITE_OK) return rc;
    }
    if (!r->has_layer_profile) return SQLITE_OK;
    st = s->st[ST_INSERT_LAYER_PROFILE];
    sqlite3_bind_int64(st, 1, run_id);
    bind_real(st, 2, r->layer_steps);
    if ((rc = exec_stmt(st)) != SQLITE_OK) return rc;
    st = s->st[ST_INSERT_LAYER];
    for (size_t i = 0; i < r->n_layers; i++) {
        const tta_replay_layer *L = &r->layers[i];
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_int64(st, 2, (int64_t)i);
        bind_text(st, 3, L->name);
        bind_text(st, 4, L->type);
        bind_real(st, 5, L->flops);
        bind_real(st, 6, L->bytes);
        bind_real(st, 7, L->time_s);
        if ((rc = exec_stmt(st)) != SQLITE_OK) return rc;
    }
    return SQLITE_OK;
}

/* Writes the replay records of run r (run_id): its own row (world size, the claim it replays, how
 * it ran, its final accuracies), its time breakdowns with their ranks' communication, and its
 * profile (write_replay_profile). SQLite's code. */
static int write_replay_records(tta_store *s, int64_t run_id, const tta_run_record *r) {
    int rc;
    if (r->replay_logged) {
        sqlite3_stmt *st = s->st[ST_INSERT_REPLAY_RUN];
        sqlite3_bind_int64(st, 1, run_id);
        if (isfinite(r->world_size) && fabs(r->world_size) < 9.2e18)
            sqlite3_bind_int64(st, 2, (int64_t)r->world_size);
        else
            sqlite3_bind_null(st, 2);
        bind_text(st, 3, r->replay_of);
        bind_count(st, 4, r->to_schedule_end);
        bind_real(st, 5, r->unseen_accuracy);
        bind_real(st, 6, r->shifted_accuracy);
        if ((rc = exec_stmt(st)) != SQLITE_OK) return rc;
    }
    for (size_t i = 0; i < r->n_breakdowns; i++) {
        const tta_breakdown_record *b = &r->breakdowns[i];
        sqlite3_stmt *st = s->st[ST_INSERT_BREAKDOWN];
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_int64(st, 2, (int64_t)i);
        bind_real(st, 3, b->epoch);
        for (int k = 0; k < TTA_BREAKDOWN_FIELDS; k++) bind_real(st, 4 + k, b->seconds[k]);
        if ((rc = exec_stmt(st)) != SQLITE_OK) return rc;
        st = s->st[ST_INSERT_RANK_COMM];
        for (uint32_t k = 0; k < b->n_ranks; k++) {
            sqlite3_bind_int64(st, 1, run_id);
            sqlite3_bind_int64(st, 2, (int64_t)i);
            sqlite3_bind_int64(st, 3, k);
            bind_real(st, 4, b->rank_comm_s[k]);
            if ((rc = exec_stmt(st)) != SQLITE_OK) return rc;
        }
    }
    return write_replay_profile(s, run_id, r);
}

/* Writes the run of f; the source row is source_id. */
static int write_run(tta_store *s, const tta_db_file *f, int64_t source_id, int64_t *events) {
    const tta_run_record *r = f->run;
    assert(r && f->records);
    char division_tmp[64];
    const char *division = run_division(s, r, division_tmp, sizeof division_tmp);
    int64_t eid = entry_id(s, or_unknown(r->round), division, or_unknown(r->submitter), or_unknown(r->system),
                           or_unknown(r->benchmark));
    if (eid < 0) return SQLITE_ERROR;

    sqlite3_stmt *st = s->st[ST_INSERT_RUN];
    sqlite3_bind_int64(st, 1, source_id);
    sqlite3_bind_int64(st, 2, eid);
    bind_count(st, 3, r->run_index);
    bind_text(st, 4, r->platform);
    if (r->has_seed)
        sqlite3_bind_int64(st, 5, r->seed);
    else
        sqlite3_bind_null(st, 5);
    bind_real(st, 6, r->run_start_s);
    bind_real(st, 7, r->run_stop_s);
    bind_text(st, 8, tta_run_status_name(r->status));
    bind_real(st, 9, r->target);
    bind_real(st, 10, r->target2);
    bind_real(st, 11, r->global_batch_size);
    bind_real(st, 12, r->train_samples);
    bind_real(st, 13, r->eval_samples);
    bind_real(st, 14, r->cp_epoch_num);
    bind_real(st, 15, r->cp_samples_count);
    bind_real(st, 16, r->cp_train_samples);
    bind_real(st, 17, r->cp_first_passing_step);
    bind_real(st, 18, r->cp_first_passing_samples);
    /* NULL without a run_stop record: the checker then has no status to read. */
    bind_text(st, 19, r->cp_status == TTA_RUN_UNKNOWN ? NULL : tta_run_status_name(r->cp_status));
    sqlite3_bind_int64(st, 20, r->unreadable_records);
    bind_count(st, 21, r->unreadable_records ? (int)r->first_unreadable_line : -1);
    bind_real(st, 22, r->init_start_s);
    bind_real(st, 23, r->init_stop_s);
    bind_count(st, 24, r->log_nodes);
    bind_count(st, 25, r->log_accelerators_per_node);
    bind_text(st, 26, r->compliance);
    bind_text(st, 27, r->compliance_reason);
    int rc = exec_stmt(st);
    if (rc != SQLITE_OK) return rc;
    int64_t run_id = sqlite3_last_insert_rowid(s->db);
    if (r->scaling) { /* the first folder that names it sets the entry's scaling (docs/database.md) */
        st = s->st[ST_ENTRY_SCALING];
        sqlite3_bind_int64(st, 1, eid);
        bind_text(st, 2, r->scaling);
        if ((rc = exec_stmt(st)) != SQLITE_OK) return rc;
    }

    /* Every record goes into one JSON array (docs/database.md); ingest's parser threads encode it. */
    st = s->st[ST_INSERT_EVENT];
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int64(st, 2, (int64_t)f->n_events);
    /* Over SQLite's length limit this fails with SQLITE_TOOBIG and its message (ingest.c fails such
     * a file before it gets here). */
    if ((rc = sqlite3_bind_text64(st, 3, f->records, f->records_len, SQLITE_STATIC, SQLITE_UTF8)) != SQLITE_OK)
        return rc;
    bind_text(st, 4, f->records_files);
    if ((rc = exec_stmt(st)) != SQLITE_OK) return rc;
    *events += (int64_t)f->n_events;

    if ((rc = insert_rows(s, BULK_EVALS, run_id, r->evals, r->n_evals, bind_eval)) != SQLITE_OK) return rc;
    if ((rc = insert_rows(s, BULK_EPOCHS, run_id, r->epochs, r->n_epochs, bind_epoch)) != SQLITE_OK) return rc;
    if ((rc = insert_rows(s, BULK_HPARAMS, run_id, r->hparams, r->n_hparams, bind_hparam)) != SQLITE_OK) return rc;
    return write_replay_records(s, run_id, r);
}

static int write_system(tta_store *s, const tta_db_file *f, int64_t source_id) {
    const tta_system_record *y = f->system;
    assert(y);
    sqlite3_stmt *st = s->st[ST_INSERT_SYSTEM];
    sqlite3_bind_int64(st, 1, source_id);
    bind_text(st, 2, or_unknown(y->round));
    bind_text(st, 3, or_unknown(y->submitter));
    bind_text(st, 4, or_unknown(y->name));
    bind_text(st, 5, y->division);
    bind_text(st, 6, y->status);
    bind_text(st, 7, y->accelerator_model);
    bind_count(st, 8, y->nodes);
    bind_count(st, 9, y->accelerators_per_node);
    bind_count(st, 10, y->accelerators);
    bind_text(st, 11, y->host_processor);
    bind_text(st, 12, y->framework);
    bind_text(st, 13, y->raw_json);
    return exec_stmt(st);
}

static int write_power(tta_store *s, const tta_db_file *f, int64_t source_id) {
    const tta_power_record *p = f->power;
    assert(p);
    sqlite3_stmt *st = s->st[ST_INSERT_POWER];
    for (size_t i = 0; i < p->n_samples; i++) {
        const tta_power_sample *x = &p->samples[i];
        sqlite3_bind_int64(st, 1, source_id);
        bind_text(st, 2, p->round);
        bind_text(st, 3, p->submitter);
        bind_text(st, 4, p->system);
        bind_text(st, 5, p->benchmark);
        bind_count(st, 6, p->run_index);
        bind_text(st, 7, x->node);
        bind_real(st, 8, x->time_s);
        bind_span(st, 9, x->key);
        bind_real(st, 10, x->value);
        int rc = exec_stmt(st);
        if (rc != SQLITE_OK) return rc;
    }
    return SQLITE_OK;
}

/* A file beside a folder's result logs (scaling.json), or one score of a summary.json record,
 * keyed as the folder's runs are: the identity its entry gets ("unknown" where the path has
 * none), so that a join on (round, submitter, system, benchmark) with entries finds it. */
static int write_entry_file(tta_store *s, const tta_entry_file_record *e, int64_t source_id) {
    assert(e->kind);
    sqlite3_stmt *st = s->st[ST_INSERT_ENTRY_FILE];
    sqlite3_bind_int64(st, 1, source_id);
    bind_text(st, 2, or_unknown(e->round));
    bind_text(st, 3, or_unknown(e->submitter));
    bind_text(st, 4, or_unknown(e->system));
    bind_text(st, 5, or_unknown(e->benchmark));
    bind_text(st, 6, e->kind);
    bind_real(st, 7, e->scaling_factor);
    bind_real(st, 8, e->score_min);
    bind_span(st, 9, e->content);
    return exec_stmt(st);
}

/* An AlgoPerf file: a targets file's workloads, or a trial file's row and, for its
 * eval_measurements.csv, its evaluations and validation metrics. */
static int write_algoperf(tta_store *s, const tta_algoperf_record *a, int64_t source_id) {
    assert(a && a->kind);
    int rc;
    if (!strcmp(a->kind, "targets")) {
        sqlite3_stmt *st = s->st[ST_INSERT_ALGOPERF_TARGET];
        for (size_t i = 0; i < a->n_targets; i++) {
            const tta_algoperf_target *t = &a->targets[i];
            sqlite3_bind_int64(st, 1, source_id);
            bind_text(st, 2, a->version);
            bind_text(st, 3, t->workload);
            bind_text(st, 4, t->metric);
            bind_real(st, 5, t->target);
            sqlite3_bind_int(st, 6, t->minimize);
            if (t->step_hint >= 0) sqlite3_bind_int64(st, 7, t->step_hint);
            bind_text(st, 8, t->role);
            bind_text(st, 9, t->base);
            if ((rc = exec_stmt(st)) != SQLITE_OK) return rc;
        }
        return SQLITE_OK;
    }
    sqlite3_stmt *st = s->st[ST_INSERT_ALGOPERF_FILE];
    sqlite3_bind_int64(st, 1, source_id);
    bind_text(st, 2, a->kind);
    bind_text(st, 3, or_unknown(a->leaderboard));
    bind_text(st, 4, or_unknown(a->ruleset));
    bind_text(st, 5, or_unknown(a->submission));
    sqlite3_bind_int(st, 6, a->study);
    bind_text(st, 7, or_unknown(a->workload));
    bind_text(st, 8, a->framework);
    sqlite3_bind_int(st, 9, a->trial);
    bind_span(st, 10, a->content);
    if ((rc = exec_stmt(st)) != SQLITE_OK) return rc;
    st = s->st[ST_INSERT_ALGOPERF_EVAL];
    for (size_t i = 0; i < a->n_evals; i++) {
        const tta_algoperf_eval *e = &a->evals[i];
        sqlite3_bind_int64(st, 1, source_id);
        sqlite3_bind_int64(st, 2, (int64_t)i);
        bind_real(st, 3, e->global_step);
        bind_real(st, 4, e->score);
        bind_real(st, 5, e->submission_time);
        bind_real(st, 6, e->eval_time);
        bind_real(st, 7, e->total_duration);
        if ((rc = exec_stmt(st)) != SQLITE_OK) return rc;
    }
    st = s->st[ST_INSERT_ALGOPERF_VALUE];
    for (size_t i = 0; i < a->n_values; i++) {
        const tta_algoperf_value *v = &a->values[i];
        assert(v->eval < a->n_evals);
        sqlite3_bind_int64(st, 1, source_id);
        sqlite3_bind_int64(st, 2, v->eval);
        bind_span(st, 3, v->name);
        bind_real(st, 4, v->value);
        if ((rc = exec_stmt(st)) != SQLITE_OK) return rc;
    }
    return SQLITE_OK;
}

/* After a database error: sets *err (unless set) to "<where>: <what>: <SQLite's message>" and
 * the files that go with it, then undoes the open transaction: its files are as if never seen
 * (a re-run stores them, as after a crash). path is the file being written, or NULL at a commit. */
static void rollback_batch(tta_store *s, const char *path, const char *what, tta_error *err) {
    long long before = (long long)(s->pending.ingested + s->pending.failed);
    if (path)
        tta_fail(err, TTA_EDB, "%s: %s: %s (this file and the %lld before it in the open transaction were rolled back;"
                 " a re-run stores them)", path, what, sqlite3_errmsg(s->db), before);
    else
        tta_fail(err, TTA_EDB, "database: %s: %s (the %lld files of the transaction were rolled back; a re-run stores"
                 " them)", what, sqlite3_errmsg(s->db), before);
    if (!s->in_batch) return;
    s->in_batch = 0;
    exec_stmt(s->st[ST_ROLLBACK]);
    s->rolled_back += s->pending.ingested + s->pending.failed;
    memset(&s->pending, 0, sizeof s->pending);
    /* The entry cache may name an entry created in the rolled-back transaction. */
    free(s->last_entry_key);
    s->last_entry_key = NULL;
}

int tta_store_flush(tta_store *s, tta_error *err) {
    if (!s->in_batch) return TTA_OK;
    assert(s->facts);
    /* The facts of the runs this transaction wrote, in it: a reader never sees a run without them. */
    if (db_facts_work_out(s->facts, NULL) != TTA_OK) {
        rollback_batch(s, NULL, "working out the runs' facts", err);
        return TTA_EDB;
    }
    int rc = exec_stmt(s->st[ST_COMMIT]);
    if (rc != SQLITE_OK) {
        rollback_batch(s, NULL, "committing", err);
        return TTA_EDB;
    }
    s->in_batch = 0;
    s->committed.ingested += s->pending.ingested;
    s->committed.failed += s->pending.failed;
    s->committed.runs += s->pending.runs;
    s->committed.events += s->pending.events;
    memset(&s->pending, 0, sizeof s->pending);
    return TTA_OK;
}

tta_store_counts tta_store_committed(const tta_store *s) { return s->committed; }

tta_store_counts tta_store_written(const tta_store *s) {
    tta_store_counts c = s->committed;
    c.ingested += s->pending.ingested;
    c.failed += s->pending.failed;
    c.runs += s->pending.runs;
    c.events += s->pending.events;
    return c;
}

int64_t tta_store_rolled_back(const tta_store *s) { return s->rolled_back; }

/* Writes the rows of f into the open transaction: SQLITE_OK or SQLite's error. */
static int write_file(tta_store *s, const tta_db_file *f, int64_t *runs, int64_t *events) {
    char hash[17];
    tta_hash_hex(f->hash, hash);
    sqlite3_stmt *st = s->st[ST_DELETE_SOURCE];
    bind_text(st, 1, f->path);
    int rc = exec_stmt(st);
    if (rc != SQLITE_OK) return rc;
    if (sqlite3_changes(s->db) > 0) s->needs_finish = s->needs_algoperf = 1;
    st = s->st[ST_INSERT_SOURCE];
    bind_text(st, 1, f->path);
    sqlite3_bind_int64(st, 2, (int64_t)f->size);
    bind_text(st, 3, hash);
    bind_text(st, 4, f->format);
    bind_text(st, 5, f->failed ? "failed" : "ok");
    bind_text(st, 6, f->failed ? f->error : NULL);
    if ((rc = exec_stmt(st)) != SQLITE_OK) return rc;
    int64_t source_id = sqlite3_last_insert_rowid(s->db);
    if (f->failed) return SQLITE_OK;
    switch (f->kind) {
    case TTA_DB_FILE_RUN:
        *runs += 1;
        return write_run(s, f, source_id, events);
    case TTA_DB_FILE_SYSTEM:
        s->needs_finish = 1;
        return write_system(s, f, source_id);
    case TTA_DB_FILE_POWER:
        return write_power(s, f, source_id);
    case TTA_DB_FILE_ENTRY_FILES:
        for (size_t i = 0; i < f->n_entry_files; i++) {
            int rc = write_entry_file(s, &f->entry_files[i], source_id);
            if (rc != SQLITE_OK) return rc;
        }
        return SQLITE_OK;
    case TTA_DB_FILE_ALGOPERF:
        s->needs_algoperf = 1;
        return write_algoperf(s, f->algoperf, source_id);
    case TTA_DB_FILE_NONE:
        break;
    }
    return SQLITE_OK;
}

int tta_store_write(tta_store *s, const tta_db_file *f, tta_error *err) {
    assert(f->path && f->format);
    if (!s->in_batch) {
        if (exec_stmt(s->st[ST_BEGIN]) != SQLITE_OK) return set_err(err, s->db, f->path, "beginning transaction");
        s->in_batch = 1;
        s->batch_bytes = 0;
        s->batch_start = mono_s();
    }
    int64_t runs = 0, events = 0;
    int rc = write_file(s, f, &runs, &events);
    if (rc != SQLITE_OK) {
        /* No savepoint per file (copying every page a file touches into a statement journal
         * cost the writer a third of its time): a database error undoes the whole open
         * transaction, which is what a crash at this point would have done. */
        rollback_batch(s, f->path, "storing", err);
        return TTA_EDB;
    }
    if (f->failed)
        s->pending.failed++;
    else
        s->pending.ingested++;
    s->pending.runs += runs;
    s->pending.events += events;
    s->batch_bytes += f->size;
    if (s->batch_bytes >= BATCH_BYTES || mono_s() - s->batch_start >= BATCH_SECONDS) return tta_store_flush(s, err);
    return TTA_OK;
}

int tta_store_forget(tta_store *s, const char *path, tta_error *err) {
    assert(path);
    if (!s->in_batch) {
        if (exec_stmt(s->st[ST_BEGIN]) != SQLITE_OK) return set_err(err, s->db, path, "beginning transaction");
        s->in_batch = 1;
        s->batch_bytes = 0;
        s->batch_start = mono_s();
    }
    sqlite3_stmt *st = s->st[ST_DELETE_SOURCE];
    bind_text(st, 1, path);
    int rc = exec_stmt(st);
    if (rc != SQLITE_OK) {
        rollback_batch(s, path, "removing", err);
        return TTA_EDB;
    }
    if (sqlite3_changes(s->db) > 0) s->needs_finish = s->needs_algoperf = 1; /* its entry may be left without runs */
    return TTA_OK;
}

int tta_store_finish(tta_store *s, tta_error *err) {
    /* Entries whose division was unknown when their runs were stored, or taken from the logs
     * before their system description arrived (the parser threads finish in any order): take the
     * division of their system description (where its descriptions agree on one), merging into an
     * existing entry of that division if any; run_division's rule, whatever the order. */
    static const char *const sql =
        "BEGIN IMMEDIATE;"
        "CREATE TEMP TABLE IF NOT EXISTS entry_fix(old_id INTEGER PRIMARY KEY, division TEXT);"
        "DELETE FROM entry_fix;"
        "INSERT INTO entry_fix SELECT e.id, CASE WHEN e.division = 'unknown'"
        "   THEN (SELECT division FROM systems y WHERE y.round = e.round"
        "     AND y.submitter = e.submitter AND y.name = e.system AND y.division IS NOT NULL"
        "     ORDER BY y.id DESC LIMIT 1)"
        "   ELSE (SELECT lower(min(y.division)) FROM systems y WHERE y.round = e.round"
        "     AND y.submitter = e.submitter AND y.name = e.system AND y.division IS NOT NULL"
        "     HAVING count(DISTINCT lower(y.division)) = 1) END"
        " FROM entries e;"
        "DELETE FROM entry_fix WHERE division IS NULL"
        "  OR division = (SELECT e.division FROM entries e WHERE e.id = entry_fix.old_id);"
        "INSERT OR IGNORE INTO entries(round, division, submitter, system, benchmark)"
        " SELECT e.round, f.division, e.submitter, e.system, e.benchmark FROM entry_fix f JOIN entries e ON e.id = f.old_id;"
        "UPDATE runs SET entry_id = (SELECT n.id FROM entry_fix f JOIN entries o ON o.id = f.old_id"
        "   JOIN entries n ON n.round = o.round AND n.division = f.division AND n.submitter = o.submitter"
        "   AND n.system = o.system AND n.benchmark = o.benchmark WHERE f.old_id = runs.entry_id)"
        " WHERE entry_id IN (SELECT old_id FROM entry_fix);"
        "DELETE FROM entries WHERE NOT EXISTS (SELECT 1 FROM runs r WHERE r.entry_id = entries.id);"
        "COMMIT;";
    char *msg = NULL;
    int rc = tta_store_flush(s, err);
    if (rc != TTA_OK) return rc;
    if (s->needs_algoperf) {
        int64_t derived = 0;
        if ((rc = db_algoperf_runs(s->db, &derived, err)) != TTA_OK) return rc;
        s->committed.runs += derived; /* written after their files, which count none */
        s->needs_algoperf = 0;
    }
    if (!s->needs_finish) return tta_db_facts_refresh(s->db, err); /* no entry to fix */
    free(s->last_entry_key);
    s->last_entry_key = NULL;
    rc = sqlite3_exec(s->db, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK) {
        tta_fail(err, TTA_EDB, "database: finishing ingest: %s", msg ? msg : sqlite3_errmsg(s->db));
        sqlite3_free(msg);
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        return TTA_EDB;
    }
    return tta_db_facts_refresh(s->db, err);
}
