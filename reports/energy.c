/* energy.c: `tta report energy`: energy to train of the entries with MLPerf power logs, per entry
 * (the summarizer's energy score) and per run, as a table, CSV, JSON (each entry with its runs) or
 * Markdown, a plot of each run's energy against its time to train, and the HTML page's section.
 *
 * The logs are found as MLCommons' result summarizer finds them: beside result_N.txt, the files
 * power/result_N/node_*.txt and power/result_N/sw_*.txt, by path (the sources table), whatever
 * the ingest made of the folder names. The arithmetic is stats/energy.c; docs/statistics.md says
 * what it mirrors and where it departs.
 */
#include "reports/energy.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/check.h"
#include "reports/builders.h"
#include "reports/render.h"
#include "reports/reports.h"
#include "reports/summary.h"

#define J_PER_KWH 3.6e6

/* ---- Loading ------------------------------------------------------------------------------- */

/* One stored power log file. */
typedef struct {
    int64_t source_id;
    char *path;
    char *error;            /* the ingest's error when it could not read the file; NULL when stored */
    tta_power_event *events; /* in log order */
    size_t n, cap;
} power_file;

typedef struct {
    power_file *files; /* sorted by path (byte order, as SQLite's BINARY collation) */
    size_t n;
} power_files;

static void power_files_free(power_files *p) {
    for (size_t i = 0; i < p->n; i++) {
        free(p->files[i].path);
        free(p->files[i].error);
        free(p->files[i].events);
    }
    free(p->files);
    memset(p, 0, sizeof *p);
}

/* Every power log the ingest saw (stored or failed), sorted by path. */
static int load_power_files(sqlite3 *db, power_files *p, char **err) {
    tta_power_source *src;
    size_t n;
    tta_error db_err;
    if (tta_db_power_sources(db, &src, &n, &db_err) != TTA_OK) return tta_report_fail(&db_err, err);
    p->files = callocCheck(n ? n : 1, sizeof *p->files);
    p->n = n;
    for (size_t i = 0; i < n; i++) {
        p->files[i].source_id = src[i].source_id;
        p->files[i].path = src[i].path; /* taken */
        p->files[i].error = src[i].error;
    }
    free(src);
    return 0;
}

static tta_power_key power_key(const char *k) {
    if (!k) return TTA_POWER_OTHER;
    if (!strcmp(k, "power_reading")) return TTA_POWER_READING;
    if (!strcmp(k, "power_measurement_start")) return TTA_POWER_START;
    if (!strcmp(k, "power_measurement_stop")) return TTA_POWER_STOP;
    if (!strcmp(k, "conversion_eff")) return TTA_POWER_CONVERSION_EFF;
    if (!strcmp(k, "interconnect_power_est")) return TTA_POWER_INTERCONNECT_EST;
    return TTA_POWER_OTHER;
}

typedef struct {
    int64_t source_id;
    size_t file;
} source_ref;

static int compare_source_ref(const void *a, const void *b) {
    int64_t x = ((const source_ref *)a)->source_id, y = ((const source_ref *)b)->source_id;
    return x < y ? -1 : x > y;
}

/* Where the samples of the wanted files go while they stream in. */
typedef struct {
    power_files *p;
    const source_ref *refs; /* sorted by source id */
    size_t n_refs;
} sample_sink;

/* Appends one sample to its file's events (tta_power_sample_fn). */
static void add_sample(void *ctx, const tta_power_sample_row *s) {
    const sample_sink *sink = ctx;
    source_ref key = {s->source_id, 0};
    const source_ref *hit = bsearch(&key, sink->refs, sink->n_refs, sizeof *sink->refs, compare_source_ref);
    assert(hit);
    power_file *f = &sink->p->files[hit->file];
    growArray(f->events, &f->cap, f->n + 1);
    f->events[f->n++] = (tta_power_event){.time_s = s->time_s, .value = s->value, .key = power_key(s->key)};
}

/* The samples of the files marked wanted[i], each in log order (insertion order). */
static int load_samples(sqlite3 *db, power_files *p, const int *wanted, char **err) {
    source_ref *refs = mallocCheck((p->n ? p->n : 1) * sizeof *refs);
    int64_t *ids = mallocCheck((p->n ? p->n : 1) * sizeof *ids);
    size_t n_refs = 0;
    for (size_t i = 0; i < p->n; i++) {
        if (!wanted[i] || p->files[i].error) continue;
        ids[n_refs] = p->files[i].source_id;
        refs[n_refs++] = (source_ref){p->files[i].source_id, i};
    }
    qsort(refs, n_refs, sizeof *refs, compare_source_ref);
    sample_sink sink = {p, refs, n_refs};
    tta_error db_err;
    int rc = tta_db_power_samples(db, ids, n_refs, add_sample, &sink, &db_err) == TTA_OK ? 0
                                                                                      : tta_report_fail(&db_err, err);
    free(refs);
    free(ids);
    return rc;
}

/* "<folder of path>/power/<its name up to the first dot>/": where the summarizer globs a run's logs
 * (result_0.txt -> power/result_0/). */
static char *power_prefix(const char *path) {
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    size_t stem = strcspn(name, ".");
    buf b = {0};
    buf_append(&b, path, (size_t)(name - path));
    buf_puts(&b, "power/");
    buf_append(&b, name, stem);
    buf_putc(&b, '/');
    return buf_take(&b);
}

/* The first file whose path is not below prefix (paths sorted): a lower bound. */
static size_t first_at_or_after(const power_files *p, const char *prefix) {
    size_t lo = 0, hi = p->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(p->files[mid].path, prefix) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* 1 for node_*.txt, 2 for sw_*.txt (the summarizer's globs), 0 for another name. */
static int log_kind(const char *name) {
    if (strchr(name, '/')) return 0;
    size_t n = strlen(name);
    if (n < 4 || strcmp(name + n - 4, ".txt") != 0) return 0;
    if (n >= 9 && !strncmp(name, "node_", 5)) return 1;
    if (n >= 7 && !strncmp(name, "sw_", 3)) return 2;
    return 0;
}

/* The files of run r: indices into p, written to out (at most p->n); returns how many. */
static size_t run_files(const power_files *p, const tta_run_data *r, size_t *out) {
    if (!r->file) return 0;
    char *prefix = power_prefix(r->file);
    size_t len = strlen(prefix), k = 0;
    for (size_t i = first_at_or_after(p, prefix); i < p->n && !strncmp(p->files[i].path, prefix, len); i++)
        if (log_kind(p->files[i].path + len)) out[k++] = i;
    free(prefix);
    return k;
}

static const char *base_name(const char *path) {
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Adds "; "-separated text to *note. */
static void note_add(char **note, const char *text) {
    buf b = {0};
    if (*note) buf_printf(&b, "%s; ", *note);
    buf_puts(&b, text);
    free(*note);
    *note = buf_take(&b);
}

/* The run's energy from its files (indices idx[0..n) into p). */
static void run_energy(const power_files *p, const size_t *idx, size_t n, tta_energy_run *out) {
    const tta_run_data *r = out->run;
    tta_power_log *logs = mallocCheck((n ? n : 1) * sizeof *logs);
    const power_file *unreadable = NULL;
    for (size_t k = 0; k < n; k++) {
        const power_file *f = &p->files[idx[k]];
        logs[k] = (tta_power_log){f->events, f->n, log_kind(base_name(f->path)) == 2};
        if (f->error && !unreadable) unreadable = f;
    }
    out->files = n;
    if (unreadable) {
        /* What tta could not read is not guessed at: the run has no energy. */
        buf b = {0};
        buf_printf(&b, "%s: the power log could not be read (%s)", base_name(unreadable->path), unreadable->error);
        out->energy = (tta_run_energy){.energy_j = NAN, .node_j = NAN, .interconnect_j = NAN,
                                       .interconnect_measured_j = NAN, .avg_power_w = NAN,
                                       .status = TTA_ENERGY_BAD_VALUE, .why = "a power log could not be read"};
        note_add(&out->note, buf_str(&b));
        buf_free(&b);
        free(logs);
        return;
    }
    out->energy = tta_run_energy_of(logs, n, r->tta_s);
    buf b = {0};
    if (out->energy.status != TTA_ENERGY_OK && out->energy.status != TTA_ENERGY_NO_NODE_LOG &&
        out->energy.status != TTA_ENERGY_NO_TIME) {
        buf_printf(&b, "%s: %s", base_name(p->files[idx[out->energy.bad_log]].path), out->energy.why);
        note_add(&out->note, buf_str(&b));
    } else if (out->energy.status == TTA_ENERGY_OK) {
        for (size_t k = 0; k < n; k++) {
            if (logs[k].is_switch) continue;
            tta_node_energy e = tta_power_node_energy(logs[k].events, logs[k].n, r->tta_s);
            if (!e.stop_found) {
                buf_clear(&b);
                buf_printf(&b, "%s: no power_measurement_stop, its latest reading ends the window (as the summarizer)",
                           base_name(p->files[idx[k]].path));
                note_add(&out->note, buf_str(&b));
            }
        }
    }
    buf_free(&b);
    free(logs);
}

/* The energy score of row x (its runs' energies known). */
static void entry_score(tta_energy_entry *x) {
    const tta_entry_data *e = x->entry;
    size_t n = e->n_runs;
    double *times = mallocCheck((n ? n : 1) * sizeof *times);
    int *success = mallocCheck((n ? n : 1) * sizeof *success), *used = mallocCheck((n ? n : 1) * sizeof *used);
    tta_run_energy *energies = mallocCheck((n ? n : 1) * sizeof *energies);
    for (size_t i = 0; i < n; i++) {
        times[i] = e->runs[i].tta_s;
        success[i] = x->runs[i].succeeded && !e->runs[i].not_compliant; /* the summarizer drops it */
        energies[i] = x->runs[i].energy;
    }
    x->score = tta_energy_score_of(times, success, energies, n, e->benchmark, e->round, x->scaling_factor, used);
    double measured = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        x->runs[i].used = used[i];
        if (used[i]) {
            measured += energies[i].interconnect_measured_j;
            k++;
        }
    }
    x->interconnect_measured_j = k ? measured / (double)k * x->scaling_factor : NAN;
    free(times);
    free(success);
    free(used);
    free(energies);
}

int tta_energy_load_for(sqlite3 *db, const tta_entry_data *e, size_t n, tta_energy_data *d, char **err) {
    memset(d, 0, sizeof *d);
    d->n_entries = n;
    d->row_of = mallocCheck((n ? n : 1) * sizeof *d->row_of);
    for (size_t i = 0; i < n; i++) d->row_of[i] = -1;
    power_files p = {0};
    if (load_power_files(db, &p, err)) {
        power_files_free(&p);
        tta_energy_free(d);
        return 1;
    }
    /* Which runs have logs, and so which entries and files are needed. */
    size_t total_runs = 0;
    for (size_t i = 0; i < n; i++) total_runs += e[i].n_runs;
    size_t **files_of = callocCheck(total_runs ? total_runs : 1, sizeof *files_of);
    size_t *n_files_of = callocCheck(total_runs ? total_runs : 1, sizeof *n_files_of);
    int *wanted = callocCheck(p.n ? p.n : 1, sizeof *wanted);
    size_t *scratch = mallocCheck((p.n ? p.n : 1) * sizeof *scratch);
    int *entry_has = callocCheck(n ? n : 1, sizeof *entry_has);
    for (size_t i = 0, run = 0; i < n; i++) {
        for (size_t r = 0; r < e[i].n_runs; r++, run++) {
            size_t k = run_files(&p, &e[i].runs[r], scratch);
            if (k == 0) continue;
            files_of[run] = mallocCheck(k * sizeof **files_of);
            memcpy(files_of[run], scratch, k * sizeof *scratch);
            n_files_of[run] = k;
            for (size_t j = 0; j < k; j++) wanted[scratch[j]] = 1;
            entry_has[i] = 1;
        }
    }
    int rc = load_samples(db, &p, wanted, err);
    size_t cap = 0;
    for (size_t i = 0, run = 0; i < n && rc == 0; run += e[i].n_runs, i++) {
        if (!entry_has[i]) continue;
        growArray(d->rows, &cap, d->n_rows + 1);
        d->row_of[i] = (long)d->n_rows;
        tta_energy_entry *x = &d->rows[d->n_rows++];
        memset(x, 0, sizeof *x);
        x->entry = &e[i];
        x->runs = callocCheck(e[i].n_runs ? e[i].n_runs : 1, sizeof *x->runs);
        /* The folder's scaling.json factor as the performance score takes it (summary.c). */
        x->scaling_factor = e[i].scaling_factor > 0 ? e[i].scaling_factor : 1.0;
        for (size_t r = 0; r < e[i].n_runs; r++) {
            tta_energy_run *y = &x->runs[r];
            y->run = &e[i].runs[r];
            y->succeeded = tta_run_succeeded(y->run);
            run_energy(&p, files_of[run + r], n_files_of[run + r], y);
        }
        entry_score(x);
    }
    for (size_t k = 0; k < total_runs; k++) free(files_of[k]);
    free(files_of);
    free(n_files_of);
    free(wanted);
    free(scratch);
    free(entry_has);
    power_files_free(&p);
    if (rc == 0) return 0;
    tta_energy_free(d);
    return 1;
}

int tta_energy_load(sqlite3 *db, const tta_filter *f, tta_energy_data *d, char **err) {
    tta_entry_data *e;
    size_t n;
    if (tta_entries_load(db, f, 0, &e, &n, err)) return 1;
    if (tta_energy_load_for(db, e, n, d, err)) {
        tta_entries_free(e, n);
        return 1;
    }
    d->entries = e;
    return 0;
}

void tta_energy_free(tta_energy_data *d) {
    for (size_t i = 0; i < d->n_rows; i++) {
        for (size_t r = 0; r < d->rows[i].entry->n_runs; r++) free(d->rows[i].runs[r].note);
        free(d->rows[i].runs);
    }
    free(d->rows);
    free(d->row_of);
    if (d->entries) tta_entries_free(d->entries, d->n_entries);
    memset(d, 0, sizeof *d);
}

/* ---- Tables -------------------------------------------------------------------------------- */

enum {
    E_RUNS = TTA_IDENTITY_COUNT, E_POWER_RUNS, E_USED, E_SCORE,
    E_ENERGY_J, E_ENERGY_KWH, E_UNSCALED_J, E_POWER_W, E_NODE_J, E_NODE_KWH, E_IC_J, E_IC_KWH, E_IC_MEASURED_J,
    E_SCALING, E_COUNT
};

static const tta_column entry_columns[E_COUNT] = {
    TTA_IDENTITY_COLUMNS,
    [E_RUNS] = {"run_count", "runs", TTA_COL_INT, 0, TTA_FOR_ALL},
    [E_POWER_RUNS] = {"power_runs", "with power", TTA_COL_INT, 0, TTA_FOR_ALL},
    [E_USED] = {"used_runs", "used", TTA_COL_INT, 0, TTA_FOR_ALL},
    [E_SCORE] = {"score_min", "score (min)", TTA_COL_NUMBER, 2, TTA_FOR_ALL},
    [E_ENERGY_J] = {"energy_j", "energy (J)", TTA_COL_NUMBER, 0, TTA_FOR_SCRIPTS},
    [E_ENERGY_KWH] = {"energy_kwh", "energy (kWh)", TTA_COL_NUMBER, 2, TTA_FOR_ALL},
    [E_UNSCALED_J] = {"energy_unscaled_j", "unscaled (J)", TTA_COL_NUMBER, 0, TTA_FOR_SCRIPTS},
    [E_POWER_W] = {"avg_power_w", "power (W)", TTA_COL_NUMBER, 0, TTA_FOR_ALL},
    [E_NODE_J] = {"node_j", "nodes (J)", TTA_COL_NUMBER, 0, TTA_FOR_SCRIPTS},
    [E_NODE_KWH] = {"node_kwh", "nodes (kWh)", TTA_COL_NUMBER, 2, TTA_FOR_PEOPLE},
    [E_IC_J] = {"interconnect_j", "switches (J)", TTA_COL_NUMBER, 0, TTA_FOR_SCRIPTS},
    [E_IC_KWH] = {"interconnect_kwh", "switches (kWh)", TTA_COL_NUMBER, 2, TTA_FOR_PEOPLE},
    [E_IC_MEASURED_J] = {"interconnect_measured_j", "switches measured (J)", TTA_COL_NUMBER, 0, TTA_FOR_SCRIPTS},
    [E_SCALING] = {"scaling_factor", "scaling", TTA_COL_NUMBER, 4, TTA_FOR_ALL},
};

enum {
    R_RUN = TTA_IDENTITY_COUNT, R_FILE, R_SUCCESS, R_USED, R_TTA,
    R_ENERGY_J, R_ENERGY_KWH, R_NODE_J, R_NODE_KWH, R_IC_J, R_IC_KWH, R_IC_MEASURED_J, R_POWER_W, R_NODES,
    R_SWITCHES, R_COUNT
};

static const tta_column run_columns[R_COUNT] = {
    TTA_IDENTITY_COLUMNS,
    [R_RUN] = {"run_index", "run", TTA_COL_INT, 0, TTA_FOR_ALL},
    [R_FILE] = {"file", "file", TTA_COL_PATH, 0, TTA_FOR_SCRIPTS},
    [R_SUCCESS] = {"success", "ok", TTA_COL_BOOL, 0, TTA_FOR_ALL},
    [R_USED] = {"used", "used", TTA_COL_BOOL, 0, TTA_FOR_ALL},
    [R_TTA] = {"tta_s", "tta (min)", TTA_COL_MINUTES, 2, TTA_FOR_ALL},
    [R_ENERGY_J] = {"energy_j", "energy (J)", TTA_COL_NUMBER, 0, TTA_FOR_SCRIPTS},
    [R_ENERGY_KWH] = {"energy_kwh", "energy (kWh)", TTA_COL_NUMBER, 3, TTA_FOR_ALL},
    [R_NODE_J] = {"node_j", "nodes (J)", TTA_COL_NUMBER, 0, TTA_FOR_SCRIPTS},
    [R_NODE_KWH] = {"node_kwh", "nodes (kWh)", TTA_COL_NUMBER, 3, TTA_FOR_PEOPLE},
    [R_IC_J] = {"interconnect_j", "switches (J)", TTA_COL_NUMBER, 0, TTA_FOR_SCRIPTS},
    [R_IC_KWH] = {"interconnect_kwh", "switches (kWh)", TTA_COL_NUMBER, 3, TTA_FOR_PEOPLE},
    [R_IC_MEASURED_J] = {"interconnect_measured_j", "switches measured (J)", TTA_COL_NUMBER, 0, TTA_FOR_SCRIPTS},
    [R_POWER_W] = {"avg_power_w", "power (W)", TTA_COL_NUMBER, 0, TTA_FOR_ALL},
    [R_NODES] = {"nodes", "nodes", TTA_COL_INT, 0, TTA_FOR_ALL},
    [R_SWITCHES] = {"switches", "sw", TTA_COL_INT, 0, TTA_FOR_ALL},
};

/* Sets a joule column and its kWh twin for people. */
static void set_energy(tta_table *t, size_t row, size_t col_j, long col_kwh, double j, const char *why) {
    tta_table_set_number_or(t, row, col_j, j, why);
    if (col_kwh >= 0) tta_table_set_number_or(t, row, (size_t)col_kwh, j / J_PER_KWH, why);
}

/* "sw_0.txt has no interconnect_power_est ..." when the entry's used runs have switch logs without
 * estimates but with readings. */
static void switch_note(tta_table *t, size_t row, const tta_energy_entry *x) {
    size_t without = 0;
    for (size_t r = 0; r < x->entry->n_runs; r++)
        if (x->runs[r].used) without += x->runs[r].energy.no_estimate;
    if (without == 0) return;
    buf b = {0};
    buf_printf(&b, "switch logs without interconnect_power_est count 0 W, as in the summarizer");
    if (!isnan(x->interconnect_measured_j))
        buf_printf(&b, " (their own power readings: %.3f kWh, not included)", x->interconnect_measured_j / J_PER_KWH);
    tta_table_add_note(t, row, buf_str(&b));
    buf_free(&b);
}

static void entry_row(tta_table *t, const tta_energy_entry *x) {
    const tta_entry_data *e = x->entry;
    const tta_energy_score *s = &x->score;
    size_t row = tta_table_add_row(t);
    tta_identity id = tta_entry_identity(e);
    tta_table_set_identity(t, row, &id);
    tta_table_set_number(t, row, E_RUNS, (double)e->n_runs);
    tta_table_set_number(t, row, E_POWER_RUNS, (double)s->runs_with_energy);
    tta_table_set_number(t, row, E_USED, (double)s->n_used);
    const char *score_why = s->score.why ? s->score.why : "no score";
    tta_table_set_number_or(t, row, E_SCORE, s->score.score * x->scaling_factor / 60.0, score_why);
    if (!isnan(s->score.score) && s->score.why) tta_table_add_note(t, row, s->score.why);
    const char *why = s->why;
    buf b = {0};
    if (s->status == TTA_ENERGY_RUN_MISSING) {
        const tta_energy_run *m = &x->runs[s->missing_run];
        buf_printf(&b, "run %d has no energy: %s", m->run->run_index,
                   m->note ? m->note : m->energy.why ? m->energy.why : "unknown");
        why = buf_str(&b);
    }
    set_energy(t, row, E_ENERGY_J, E_ENERGY_KWH, s->energy_j, why);
    tta_table_set_number_or(t, row, E_UNSCALED_J, s->energy_unscaled_j, why);
    tta_table_set_number_or(t, row, E_POWER_W, s->avg_power_w, why);
    set_energy(t, row, E_NODE_J, E_NODE_KWH, s->node_j, why);
    set_energy(t, row, E_IC_J, E_IC_KWH, s->interconnect_j, why);
    tta_table_set_number_or(t, row, E_IC_MEASURED_J, x->interconnect_measured_j,
                            why ? why : "no switch log with power readings");
    buf_free(&b);
    tta_table_set_number(t, row, E_SCALING, x->scaling_factor);
    if (s->status == TTA_ENERGY_OK) switch_note(t, row, x);
    tta_table_note_flags(t, row, e, NULL);
}

static tta_table *entry_table(const tta_energy_data *d) {
    tta_table *t = tta_table_new(entry_columns, E_COUNT);
    for (size_t i = 0; i < d->n_rows; i++) entry_row(t, &d->rows[i]);
    return t;
}

/* The runs of row x (nested: without the entry's columns for scripts). */
static void run_rows(tta_table *t, const tta_energy_entry *x) {
    const tta_entry_data *e = x->entry;
    tta_identity id = tta_entry_identity(e);
    for (size_t r = 0; r < e->n_runs; r++) {
        const tta_energy_run *y = &x->runs[r];
        size_t row = tta_table_add_row(t);
        tta_table_set_identity(t, row, &id);
        if (y->run->run_index >= 0) tta_table_set_number(t, row, R_RUN, y->run->run_index);
        else tta_table_set_missing(t, row, R_RUN, "no run number in the file name");
        tta_table_set_text(t, row, R_FILE, y->run->file);
        tta_table_set_bool(t, row, R_SUCCESS, y->succeeded);
        tta_table_set_bool(t, row, R_USED, y->used);
        tta_table_set_number_or(t, row, R_TTA, y->run->tta_s, "no run_start or run_stop");
        const tta_run_energy *en = &y->energy;
        /* the reason that names the file when there is one */
        const char *why = en->status == TTA_ENERGY_NO_NODE_LOG && y->files == 0 ? "no power log for this run"
                          : en->status != TTA_ENERGY_OK && y->note                ? y->note
                                                                                  : en->why;
        set_energy(t, row, R_ENERGY_J, R_ENERGY_KWH, en->energy_j, why);
        set_energy(t, row, R_NODE_J, R_NODE_KWH, en->node_j, why);
        set_energy(t, row, R_IC_J, R_IC_KWH, en->interconnect_j, why);
        tta_table_set_number_or(t, row, R_IC_MEASURED_J, en->interconnect_measured_j,
                                en->status != TTA_ENERGY_OK ? why : "no switch log with power readings");
        tta_table_set_number_or(t, row, R_POWER_W, en->avg_power_w, why);
        tta_table_set_number(t, row, R_NODES, (double)en->nodes);
        tta_table_set_number(t, row, R_SWITCHES, (double)en->switches);
        if (y->note && why != y->note) tta_table_add_note(t, row, y->note);
        if (!y->succeeded) tta_table_add_note(t, row, "did not succeed: not in the score");
        tta_table_note_run_flags(t, row, y->run);
    }
}

static tta_table *run_table(const tta_energy_data *d, const tta_energy_entry *only) {
    tta_column cols[R_COUNT];
    memcpy(cols, run_columns, sizeof cols);
    if (only) /* nested under its entry: the entry's own columns are said there */
        for (int c = 0; c < TTA_IDENTITY_COUNT; c++) cols[c].audience = TTA_FOR_PEOPLE;
    tta_table *t = tta_table_new(cols, R_COUNT);
    if (only) run_rows(t, only);
    else
        for (size_t i = 0; i < d->n_rows; i++) run_rows(t, &d->rows[i]);
    return t;
}

/* JSON: the entries' array, each object with its runs as "runs": [...]. The table writer puts one
 * object per line ("[", rows ending "}" or "},", "]"): each row's closing brace gets the runs. */
static void write_nested_json(const tta_energy_data *d, FILE *out) {
    tta_table *t = entry_table(d);
    buf rows = {0}, b = {0}, runs = {0};
    tta_table_render(t, TTA_OUT_JSON, NULL, &rows);
    tta_table_free(t);
    const char *p = buf_str(&rows);
    size_t row = 0;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        int is_row = len >= 2 && p[0] == ' ' && p[1] == '{';
        if (is_row) {
            assert(row < d->n_rows);
            int comma = p[len - 1] == ',';
            size_t body = len - (size_t)comma;
            assert(p[body - 1] == '}');
            buf_append(&b, p, body - 1);
            tta_table *rt = run_table(d, &d->rows[row++]);
            buf_clear(&runs);
            tta_table_render(rt, TTA_OUT_JSON, NULL, &runs);
            tta_table_free(rt);
            while (runs.len && runs.data[runs.len - 1] == '\n') runs.data[--runs.len] = '\0';
            buf_puts(&b, ", \"runs\": ");
            buf_append(&b, runs.data, runs.len);
            buf_puts(&b, comma ? "}," : "}");
        } else {
            buf_append(&b, p, len);
        }
        if (eol) buf_putc(&b, '\n');
        p = eol ? eol + 1 : p + len;
    }
    assert(row == d->n_rows);
    fwrite(buf_str(&b), 1, b.len, out);
    buf_free(&rows);
    buf_free(&runs);
    buf_free(&b);
}

/* ---- The plot ------------------------------------------------------------------------------ */

/* Each run's energy (kWh) against its time to train (min), a series of points per entry. */
static void energy_plot(const tta_energy_data *d, buf *svg) {
    size_t n = d->n_rows;
    tta_series *series = callocCheck(n ? n : 1, sizeof *series);
    double **x = callocCheck(n ? n : 1, sizeof *x), **y = callocCheck(n ? n : 1, sizeof *y);
    char **names = callocCheck(n ? n : 1, sizeof *names);
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {0, 0};
    for (size_t i = 0; i < n; i++) {
        const tta_energy_entry *r = &d->rows[i];
        const tta_entry_data *e = r->entry;
        x[i] = mallocCheck((e->n_runs ? e->n_runs : 1) * sizeof **x);
        y[i] = mallocCheck((e->n_runs ? e->n_runs : 1) * sizeof **y);
        for (size_t k = 0; k < e->n_runs; k++) {
            x[i][k] = e->runs[k].tta_s / 60.0;
            y[i][k] = r->runs[k].energy.energy_j / J_PER_KWH;
            double v[2] = {x[i][k], y[i][k]};
            for (int a = 0; a < 2; a++)
                if (v[a] > 0) {
                    lo[a] = fmin(lo[a], v[a]);
                    hi[a] = fmax(hi[a], v[a]);
                }
        }
        int twice = 0;
        for (size_t j = 0; j < n && !twice; j++)
            twice = j != i && !strcmp(d->rows[j].entry->system, e->system) &&
                    !strcmp(d->rows[j].entry->benchmark, e->benchmark);
        buf b = {0};
        if (twice) buf_printf(&b, "%lld: %s %s", (long long)e->id, e->system, e->benchmark);
        else buf_printf(&b, "%s %s", e->system, e->benchmark);
        names[i] = buf_take(&b);
        series[i] = (tta_series){.name = names[i], .x = x[i], .y = y[i], .n = e->n_runs, .marks = TTA_MARK_POINTS};
    }
    /* Log axes when the runs span more than two orders of magnitude (several benchmarks). */
    int log_x = hi[0] > 0 && lo[0] < INFINITY && hi[0] / lo[0] > 100;
    int log_y = hi[1] > 0 && lo[1] < INFINITY && hi[1] / lo[1] > 100;
    tta_xy_plot p = {.title = "Energy to train against time to train, per run",
                     .x = {.label = "time to train (min)", .scale = log_x ? TTA_AXIS_LOG10 : TTA_AXIS_LINEAR,
                           .include_zero = !log_x},
                     .y = {.label = "energy to train (kWh)", .scale = log_y ? TTA_AXIS_LOG10 : TTA_AXIS_LINEAR,
                           .include_zero = !log_y},
                     .series = series,
                     .n_series = n};
    tta_svg_xy(svg, &p);
    for (size_t i = 0; i < n; i++) {
        free(x[i]);
        free(y[i]);
        free(names[i]);
    }
    free(x);
    free(y);
    free(names);
    free(series);
}

/* ---- The report and the HTML section ------------------------------------------------------- */

int tta_report_energy(sqlite3 *db, const tta_filter *f, const tta_report_options *o, FILE *out, char **err) {
    tta_energy_data d;
    if (tta_energy_load(db, f, &d, err)) return 1;
    if (d.n_rows == 0 && o->format == TTA_FORMAT_TABLE)
        fprintf(stderr, "tta report energy: no entry has power logs (results/<system>/<benchmark>/power/)\n");
    if (o->format == TTA_FORMAT_JSON) {
        write_nested_json(&d, out);
    } else {
        tta_table *t = o->runs ? run_table(&d, NULL) : entry_table(&d);
        tta_table_write(t, (tta_out_format)o->format, out);
        tta_table_free(t);
    }
    int rc = 0;
    if (o->svg_path) {
        buf svg = {0};
        energy_plot(&d, &svg);
        rc = tta_write_file(o->svg_path, &svg, err);
        buf_free(&svg);
    }
    tta_energy_free(&d);
    return rc;
}

int tta_energy_html_section(sqlite3 *db, const tta_filter *f, buf *page, char **err) {
    tta_energy_data d;
    if (tta_energy_load(db, f, &d, err)) return 1;
    if (d.n_rows > 0) {
        tta_html_heading(page, "Energy to train");
        tta_html_paragraph(page,
                           "Entries with power logs, as MLCommons' result summarizer scores them: per run, each "
                           "node's power readings integrated over its measurement window and scaled to the run's "
                           "time to train, times its conversion efficiency, plus the switches' estimated power "
                           "times the time to train; the score is the mean over the runs of the performance "
                           "score's olympic slice, times the folder's scaling factor. docs/statistics.md gives "
                           "the formulas and where the summarizer fails.");
        buf svg = {0};
        energy_plot(&d, &svg);
        tta_html_figure(page, buf_str(&svg), "Energy against time to train of every run (the slope is the power)");
        buf_free(&svg);
        tta_table *t = entry_table(&d);
        tta_html_table(page, t, NULL);
        tta_table_free(t);
    }
    tta_energy_free(&d);
    return 0;
}
