/* comm.c: `tta report comm`: where the epoch time of replayed entries goes (compute, data loading,
 * communication exposed and overlapped, evaluation), from the tta_epoch_breakdown records that
 * `tta replay` logs per epoch (docs/replay.md), and how evenly the ranks communicate.
 *
 * Published MLPerf logs have no breakdown: their entries are not listed. The entries come from the
 * dataset loader (the selection every report sees); db/ reads the breakdown and world size
 * records of their runs (tta_db_epoch_breakdowns).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/check.h"
#include "reports/builders.h"
#include "reports/dataset.h"
#include "reports/render.h"
#include "reports/reports.h"

/* ---- Loading ------------------------------------------------------------------------------- */

/* One entry's breakdown, summed over every used record of every run. */
typedef struct {
    const tta_entry_data *entry;
    int workers;        /* largest tta_world_size of its runs; 1 when none logged one */
    int mixed_workers;  /* its runs logged different world sizes */
    size_t runs;        /* runs with at least one used record */
    size_t epochs;      /* records used */
    size_t incomplete;  /* records left out: a field missing or not a number */
    double epoch_s, eval_s, data_s, compute_s, exposed_s, total_s; /* seconds, summed */
    double *rank_s;     /* n_ranks: each rank's total communication, summed */
    size_t n_ranks;
} comm_entry;

typedef struct {
    tta_entry_data *entries; /* as loaded (every entry of the selection) */
    size_t n_entries;
    comm_entry *rows;        /* the entries with breakdown records, in the loader's order */
    size_t n_rows;
} comm_data;

static void comm_data_free(comm_data *d) {
    for (size_t i = 0; i < d->n_rows; i++) free(d->rows[i].rank_s);
    free(d->rows);
    tta_entries_free(d->entries, d->n_entries);
    memset(d, 0, sizeof *d);
}

/* Per-run state while its records stream in. */
typedef struct {
    int64_t id;
    int world;  /* tta_world_size, 0 when not (yet) seen */
    size_t used; /* records of this run added to the entry */
} run_acc;

/* Closes run r into entry c: counts it and its world size when it gave a record. */
static void close_run(comm_entry *c, const run_acc *r) {
    if (!c || r->used == 0) return;
    int k = r->world > 0 ? r->world : 1;
    if (c->runs > 0 && k != c->workers) c->mixed_workers = 1;
    if (c->runs == 0 || k > c->workers) c->workers = k;
    c->runs++;
}

/* Adds one tta_epoch_breakdown record to c; a record with a field missing or not a finite
 * number is counted as incomplete and left out. */
static void add_record(comm_entry *c, const tta_epoch_breakdown *b, run_acc *r) {
    const double v[8] = {b->epoch_s, b->data_s, b->forward_s, b->backward_s, b->optimizer_s,
                         b->comm_exposed_s, b->comm_total_s, b->eval_s};
    for (int i = 0; i < 8; i++) {
        if (!isfinite(v[i]) || v[i] < 0) {
            c->incomplete++;
            return;
        }
    }
    c->epoch_s += v[0];
    c->data_s += v[1];
    c->compute_s += v[2] + v[3] + v[4];
    c->exposed_s += v[5];
    c->total_s += v[6];
    c->eval_s += v[7];
    c->epochs++;
    r->used++;
    if (b->n_ranks > c->n_ranks) {
        c->rank_s = reallocCheck(c->rank_s, b->n_ranks * sizeof *c->rank_s);
        for (size_t k = c->n_ranks; k < b->n_ranks; k++) c->rank_s[k] = 0;
        c->n_ranks = b->n_ranks;
    }
    /* a rank without a number (NAN) makes the spread unknowable */
    for (size_t k = 0; k < b->n_ranks; k++) c->rank_s[k] += b->rank_comm_total_s[k];
}

/* Loads the entries of f and sums the breakdown of each that has one. 0, or 1 with *err. */
static int comm_data_load(sqlite3 *db, const tta_filter *filter, comm_data *d, char **err) {
    static const tta_filter all = {0};
    const tta_filter *f = filter ? filter : &all;
    memset(d, 0, sizeof *d);
    if (tta_entries_load(db, f, 0, &d->entries, &d->n_entries, err)) return 1;
    tta_epoch_breakdown *records;
    size_t n_records;
    tta_error db_err;
    if (tta_db_epoch_breakdowns(db, f, &records, &n_records, &db_err) != TTA_OK) {
        comm_data_free(d);
        return tta_report_fail(&db_err, err);
    }
    comm_entry *acc = callocCheck(d->n_entries ? d->n_entries : 1, sizeof *acc);
    for (size_t i = 0; i < d->n_entries; i++) acc[i].entry = &d->entries[i];
    comm_entry *cur = NULL;
    run_acc run = {0};
    for (size_t k = 0; k < n_records; k++) {
        const tta_epoch_breakdown *b = &records[k];
        if (b->run_id != run.id) {
            close_run(cur, &run);
            run = (run_acc){.id = b->run_id};
            if (!cur || cur->entry->id != b->entry_id) {
                cur = NULL;
                for (size_t i = 0; i < d->n_entries && !cur; i++)
                    if (d->entries[i].id == b->entry_id) cur = &acc[i];
            }
        }
        if (!cur) continue; /* an entry the loader does not list (a run-less entry) */
        if (b->is_world_size) run.world = b->world_size;
        else add_record(cur, b, &run);
    }
    close_run(cur, &run);
    tta_epoch_breakdowns_free(records, n_records);
    /* Keep the entries that logged a breakdown, in the loader's order. */
    for (size_t i = 0; i < d->n_entries; i++) {
        if (acc[i].epochs + acc[i].incomplete > 0) acc[d->n_rows++] = acc[i];
        else free(acc[i].rank_s);
    }
    d->rows = acc;
    return 0;
}

/* ---- The table ------------------------------------------------------------------------------- */

enum {
    M_ENTRY, M_ROUND, M_SUBMITTER, M_SYSTEM, M_BENCHMARK, M_WORKERS, M_RUNS, M_EPOCHS, M_EPOCH_S, M_COMM,
    M_COMM_TOTAL, M_COMPUTE, M_DATA, M_EVAL, M_SPREAD, M_COUNT
};

/* The identity columns without the division: the entries are tta replays, all in division open. */
static const tta_column comm_columns[M_COUNT] = {
    [M_ENTRY] = TTA_ENTRY_COLUMN,
    [M_ROUND] = TTA_ROUND_COLUMN,
    [M_SUBMITTER] = TTA_SUBMITTER_COLUMN,
    [M_SYSTEM] = TTA_SYSTEM_COLUMN,
    [M_BENCHMARK] = TTA_BENCHMARK_COLUMN,
    [M_WORKERS] = {"workers", "K", TTA_COL_INT, 0, TTA_FOR_ALL},
    [M_RUNS] = {"runs", "runs", TTA_COL_INT, 0, TTA_FOR_ALL},
    [M_EPOCHS] = {"epochs", "epochs", TTA_COL_INT, 0, TTA_FOR_ALL},
    [M_EPOCH_S] = {"epoch_s", "s/epoch", TTA_COL_SECONDS, 3, TTA_FOR_ALL},
    [M_COMM] = {"comm_share", "comm (%)", TTA_COL_PERCENT, 1, TTA_FOR_ALL},
    [M_COMM_TOTAL] = {"comm_total_share", "comm total (%)", TTA_COL_PERCENT, 1, TTA_FOR_ALL},
    [M_COMPUTE] = {"compute_share", "compute (%)", TTA_COL_PERCENT, 1, TTA_FOR_ALL},
    [M_DATA] = {"data_share", "data (%)", TTA_COL_PERCENT, 1, TTA_FOR_ALL},
    [M_EVAL] = {"eval_share", "eval (%)", TTA_COL_PERCENT, 1, TTA_FOR_ALL},
    [M_SPREAD] = {"rank_comm_spread", "rank spread", TTA_COL_NUMBER, 2, TTA_FOR_ALL},
};

/* Seconds of all used records of c: each epoch's training plus its evaluation (the log's epoch_s
 * is the training alone). */
static double epoch_time(const comm_entry *c) { return c->epoch_s + c->eval_s; }

/* part / the entry's epoch time, NAN when there is none. */
static double share(const comm_entry *c, double part) {
    double t = epoch_time(c);
    return t > 0 ? part / t : NAN;
}

/* max / min of the ranks' total communication; NAN with *why when it cannot be told. */
static double rank_spread(const comm_entry *c, const char **why) {
    if (c->n_ranks < 2) {
        *why = "one worker";
        return NAN;
    }
    double lo = INFINITY, hi = 0;
    for (size_t k = 0; k < c->n_ranks; k++) {
        if (isnan(c->rank_s[k])) {
            *why = "a rank's communication time is missing";
            return NAN;
        }
        lo = fmin(lo, c->rank_s[k]);
        hi = fmax(hi, c->rank_s[k]);
    }
    if (!(lo > 0)) {
        *why = "a rank logged no communication";
        return NAN;
    }
    return hi / lo;
}

static void comm_row(tta_table *t, const comm_entry *c) {
    const tta_entry_data *e = c->entry;
    size_t row = tta_table_add_row(t);
    tta_identity id = tta_entry_identity(e);
    tta_table_set_identity(t, row, &id);
    tta_table_set_number(t, row, M_WORKERS, c->workers);
    tta_table_set_number(t, row, M_RUNS, (double)c->runs);
    tta_table_set_number(t, row, M_EPOCHS, (double)c->epochs);
    if (c->mixed_workers) tta_table_add_note(t, row, "runs with different numbers of workers (K: the largest)");
    if (c->incomplete) {
        buf b = {0};
        buf_printf(&b, "%zu breakdown record%s with a missing value left out", c->incomplete,
                   c->incomplete == 1 ? "" : "s");
        tta_table_add_note(t, row, buf_str(&b));
        buf_free(&b);
    }
    const char *why = c->epochs ? "no epoch time" : "no complete breakdown record";
    double epochs = c->epochs ? (double)c->epochs : NAN;
    tta_table_set_number_or(t, row, M_EPOCH_S, epoch_time(c) > 0 ? epoch_time(c) / epochs : NAN, why);
    tta_table_set_number_or(t, row, M_COMM, share(c, c->exposed_s), why);
    tta_table_set_number_or(t, row, M_COMM_TOTAL, share(c, c->total_s), why);
    tta_table_set_number_or(t, row, M_COMPUTE, share(c, c->compute_s), why);
    tta_table_set_number_or(t, row, M_DATA, share(c, c->data_s), why);
    tta_table_set_number_or(t, row, M_EVAL, share(c, c->eval_s), why);
    const char *spread_why = NULL;
    double spread = rank_spread(c, &spread_why);
    tta_table_set_number_or(t, row, M_SPREAD, spread, spread_why);
}

static tta_table *comm_table(const comm_entry *c, size_t n) {
    tta_table *t = tta_table_new(comm_columns, M_COUNT);
    for (size_t i = 0; i < n; i++) comm_row(t, &c[i]);
    return t;
}

/* ---- The plot -------------------------------------------------------------------------------- */

enum { P_COMPUTE, P_DATA, P_COMM, P_EVAL, P_OTHER, P_COUNT };

/* A stacked bar per entry: compute, data, exposed communication, evaluation and the rest of the
 * epoch time, in percent. */
static void comm_plot(const comm_entry *c, size_t n, buf *svg) {
    static const char *const series[P_COUNT] = {"compute (forward, backward, optimizer)", "data loading",
                                                "exposed communication", "evaluation", "other"};
    char **names = callocCheck(n ? n : 1, sizeof *names);
    double *v = mallocCheck((n ? n : 1) * P_COUNT * sizeof *v);
    for (size_t i = 0; i < n; i++) {
        const tta_entry_data *e = c[i].entry;
        /* "system benchmark", or with the entry id where that names two entries */
        int twice = 0;
        for (size_t j = 0; j < n && !twice; j++)
            twice = j != i && !strcmp(c[j].entry->system, e->system) && !strcmp(c[j].entry->benchmark, e->benchmark);
        buf b = {0};
        if (twice) buf_printf(&b, "%lld: %s %s", (long long)e->id, e->system, e->benchmark);
        else buf_printf(&b, "%s %s", e->system, e->benchmark);
        names[i] = buf_take(&b);
        double *row = &v[i * P_COUNT];
        row[P_COMPUTE] = share(&c[i], c[i].compute_s) * 100;
        row[P_DATA] = share(&c[i], c[i].data_s) * 100;
        row[P_COMM] = share(&c[i], c[i].exposed_s) * 100;
        row[P_EVAL] = share(&c[i], c[i].eval_s) * 100;
        double rest = 100;
        for (int k = 0; k < P_OTHER; k++) rest -= row[k];
        row[P_OTHER] = isnan(rest) ? NAN : fmax(rest, 0); /* timer rounding can leave -1e-14 */
    }
    tta_bar_plot p = {.title = "Where the epoch time goes",
                      .y = {"share of epoch time, training + evaluation (%)", TTA_AXIS_LINEAR, 0, 100, 1},
                      .x_label = "entry (K workers in the system name: -xK)",
                      .categories = (const char *const *)names,
                      .n_categories = n,
                      .series_names = series,
                      .n_series = P_COUNT,
                      .values = v,
                      .stacked = 1,
                      .value_decimals = 1,
                      .value_suffix = "%"};
    tta_svg_bars(svg, &p);
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
    free(v);
}

/* ---- The report and the HTML section --------------------------------------------------------- */

int tta_report_comm(sqlite3 *db, const tta_filter *f, const tta_report_options *o, FILE *out, char **err) {
    comm_data d;
    if (comm_data_load(db, f, &d, err)) return 1;
    if (d.n_rows == 0 && o->format == TTA_FORMAT_TABLE)
        fprintf(stderr, "tta report comm: no entry has a time breakdown; it comes from replay logs (tta replay)\n");
    tta_table *t = comm_table(d.rows, d.n_rows);
    tta_table_write(t, (tta_out_format)o->format, out);
    tta_table_free(t);
    int rc = 0;
    if (o->svg_path) {
        buf svg = {0};
        comm_plot(d.rows, d.n_rows, &svg);
        rc = tta_write_file(o->svg_path, &svg, err);
        buf_free(&svg);
    }
    comm_data_free(&d);
    return rc;
}

int tta_comm_html_section(sqlite3 *db, const tta_filter *f, buf *page, char **err) {
    comm_data d;
    if (comm_data_load(db, f, &d, err)) return 1;
    if (d.n_rows > 0) {
        tta_html_heading(page, "Where the epoch time goes: compute, data and communication");
        tta_html_paragraph(page,
                           "Replayed entries (tta replay), summed over every epoch of every run: shares of the epoch "
                           "time (training plus evaluation). Exposed communication is the time the training thread "
                           "waited for it; total communication also counts what overlapped backward. Rank spread "
                           "is the largest rank's total communication over the smallest's.");
        buf svg = {0};
        comm_plot(d.rows, d.n_rows, &svg);
        tta_html_figure(page, buf_str(&svg), "Share of epoch time by phase, per entry");
        buf_free(&svg);
        tta_table *t = comm_table(d.rows, d.n_rows);
        tta_html_table(page, t, NULL);
        tta_table_free(t);
    }
    comm_data_free(&d);
    return 0;
}
