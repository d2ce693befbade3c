/* report_run.c: the registry of report kinds (one static const table that `tta report KIND` and
 * the HTML page both read), the common shape of the table kinds, and the page that gathers them.
 *
 * A table kind is built from the loaded entries by its table builder (and plot); the other kinds
 * run on their own and give the page a section of their own. Adding a report is adding a row.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/check.h"
#include "reports/builders.h"
#include "reports/energy.h"
#include "reports/reports.h"

/* The distinct benchmarks of e, in order of first appearance; returns how many (names point
 * into e). */
static size_t distinct_benchmarks(const tta_entry_data *e, size_t n, const char **names) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < k && strcmp(names[j], e[i].benchmark)) j++;
        if (j == k) names[k++] = e[i].benchmark;
    }
    return k;
}

/* Shallow copies of the entries of one benchmark (the copies share the originals' memory and
 * are freed with free() alone). */
static tta_entry_data *entries_of(const tta_entry_data *e, size_t n, const char *benchmark, size_t *m) {
    tta_entry_data *out = mallocCheck((n ? n : 1) * sizeof *out);
    *m = 0;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(e[i].benchmark, benchmark)) out[(*m)++] = e[i];
    return out;
}

/* "dir/name.svg" for one benchmark of several: "dir/name-<benchmark>.svg". */
static char *plot_path(const char *path, const char *benchmark, int several) {
    buf b = {0};
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (!several) {
        buf_puts(&b, path);
    } else if (dot && (!slash || dot > slash)) {
        buf_append(&b, path, (size_t)(dot - path));
        buf_printf(&b, "-%s%s", benchmark, dot);
    } else {
        buf_printf(&b, "%s-%s.svg", path, benchmark);
    }
    return buf_take(&b);
}

/* What the HTML page's sections are given. */
typedef struct {
    sqlite3 *db;
    const tta_filter *f;
    const tta_entry_data *e; /* the selection, loaded with curves */
    size_t n;
    size_t top; /* where the page's sections begin (after the introduction) */
} page_ctx;

typedef int (*report_fn)(sqlite3 *, const tta_filter *, const tta_report_options *, FILE *, char **);
/* A kind that speaks common/error.h's convention: its code reaches the exit status (compare's
 * TTA_EUSAGE for entries of different benchmarks). */
typedef int (*status_fn)(sqlite3 *, const tta_filter *, const tta_report_options *, FILE *, tta_error *);
typedef int (*section_fn)(const page_ctx *, buf *page, char **err);

typedef struct {
    const char *name;
    const char *help;   /* its lines of `tta report --help` */
    int operands;       /* operands after the name: compare A B, html OUT.html */
    /* a table kind: */
    int with_curves;    /* the builders need the runs' evaluations */
    tta_table_builder table;
    tta_table_finisher finish; /* NULL: none */
    tta_plot_builder plot;
    /* any other kind: */
    report_fn run;
    status_fn run_status; /* instead of run */
    /* on the HTML page, in increasing place (0: not on it); a table kind's section is its heading,
     * a figure per benchmark and its table; the others have their own. */
    int place;
    const char *heading, *caption;
    int pairs_only;      /* table kind: plot a benchmark only when its table has rows */
    const char *anchor;  /* table kind: the column whose value N makes a row's id "entry-N" */
    section_fn section;
    int at_top;          /* the section goes above the others, built after them (it links to them) */
} report_kind;

static int run_compare(sqlite3 *db, const tta_filter *f, const tta_report_options *o, FILE *out, tta_error *err) {
    (void)f;
    return tta_report_compare(db, o->operand[0], o->operand[1], o->format, out, err);
}
static int run_rcp(sqlite3 *db, const tta_filter *f, const tta_report_options *o, FILE *out, char **err) {
    return tta_report_rcp(db, f, o->rcp_dir, o->format, out, err);
}
static int run_threshold(sqlite3 *db, const tta_filter *f, const tta_report_options *o, FILE *out, char **err) {
    return tta_report_threshold(db, f, o->thresholds, o->n_thresholds, o->format, out, err);
}
static int run_profile(sqlite3 *db, const tta_filter *f, const tta_report_options *o, FILE *out, char **err) {
    (void)f;
    return tta_report_profile(db, o->profile_id, o, o->memory_svg, out, err);
}
static int run_html(sqlite3 *db, const tta_filter *f, const tta_report_options *o, FILE *out, char **err);

static int comm_section(const page_ctx *c, buf *page, char **err) { return tta_comm_html_section(c->db, c->f, page, err); }
static int energy_section(const page_ctx *c, buf *page, char **err) {
    return tta_energy_html_section(c->db, c->f, page, err);
}
static int trend_section(const page_ctx *c, buf *page, char **err) {
    return tta_trend_html_section(c->db, c->f, page, err);
}
static int profile_section(const page_ctx *c, buf *page, char **err) { return tta_profile_html_section(c->db, page, err); }
static int verify_section(const page_ctx *c, buf *page, char **err) {
    return tta_verify_html_section(c->db, c->f, page, err);
}
static int run_verify(sqlite3 *db, const tta_filter *f, const tta_report_options *o, FILE *out, char **err) {
    return tta_report_verify(db, f, o->format, out, err);
}
/* The leaderboard, inserted at the page's top (above the results tables, which go there before it). */
static int leaderboard_section(const page_ctx *c, buf *page, char **err) {
    buf section = {0};
    int rc = tta_leaderboard_html_section(c->db, c->f, &section, err);
    if (rc == 0 && section.len) {
        buf rest = {0};
        buf_append(&rest, page->data + c->top, page->len - c->top);
        page->len = c->top;
        buf_append(page, section.data, section.len);
        buf_append(page, rest.data, rest.len);
        buf_free(&rest);
    }
    buf_free(&section);
    return rc;
}
static int summary_section(const page_ctx *c, buf *page, char **err) {
    return tta_summary_html_section(c->db, c->f, page, c->top, err);
}

/* The kinds, in the order `tta report --help` lists them. */
static const report_kind kinds[] = {
    {.name = "variance",
     .help = "  variance   per entry: official score (min), CV of TTA with a 95% bootstrap CI, epochs to target and\n"
             "             time per epoch (mean, std), cv_ratio = CV(epochs)/CV(time per epoch), and the share of\n"
             "             Var(log TTA) that comes from the number of epochs\n",
     .table = tta_variance_table, .finish = tta_variance_energy, .plot = tta_variance_plot,
     .place = 1, .heading = "Stability of TTA and where its variance comes from",
     .caption = "TTA of every successful run per entry", .anchor = "entry"}, /* a row per entry: link targets */
    {.name = "speedup",
     .help = "  speedup    pairs of entries of one submitter and benchmark: throughput speedup (time per epoch)\n"
             "             against TTA speedup (score), and their ratio, the gap\n",
     .table = tta_speedup_table, .finish = tta_speedup_explain, .plot = tta_speedup_plot,
     .place = 3, .heading = "Throughput speedup against TTA speedup",
     .caption = "Speedup of each entry over the base of its pair", .pairs_only = 1},
    {.name = "scaling",
     .help = "  scaling    per series of systems of one submitter and benchmark: speedup over the smallest and\n"
             "             efficiency against linear scaling, for time per epoch and for TTA\n",
     .table = tta_scaling_table, .finish = tta_scaling_explain, .plot = tta_scaling_plot,
     .place = 4, .heading = "Scaling with accelerators",
     .caption = "Speedup over each series' smallest system; the grey line is linear scaling", .pairs_only = 1},
    {.name = "curves",
     .help = "  curves [--x progress|time]   per entry and progress value (the benchmark's unit: epochs,\n"
             "             Msamples, Mtokens, steps): mean time, mean and std of the evaluation quality across runs\n"
             "             (accuracies in percent); --x time: the plot against time (min)\n",
     .with_curves = 1, .table = tta_curves_table, .plot = tta_curves_plot,
     .place = 2, .heading = "Quality curves", .caption = "Mean quality against progress with a ± std band, and the target"},
    {.name = "comm",
     .help = "  comm       per replayed entry (tta replay; published logs have no time breakdown): workers K,\n"
             "             runs, epochs, time per epoch (training + evaluation) and its shares: exposed\n"
             "             communication, all communication (overlapped or not), compute, data loading,\n"
             "             evaluation; the spread of the ranks' communication time (max/min)\n",
     .run = tta_report_comm, .place = 5, .section = comm_section},
    {.name = "energy",
     .help = "  energy [--runs]   per entry with power logs (results/<system>/<benchmark>/power/): energy to\n"
             "             train as MLCommons' summarizer scores it (J, kWh), average power, nodes' and switches'\n"
             "             parts, the scaling factor; --runs: per run (JSON always nests the runs)\n",
     .run = tta_report_energy, .place = 6, .section = energy_section},
    {.name = "summary",
     .help = "  summary    one round's results table as MLCommons publishes it: a row per system (submitter,\n"
             "             system, accelerator and count, processor, framework, division, availability), a column\n"
             "             per benchmark with the official score in minutes (x scaling.json); JSON/CSV give each\n"
             "             cell's entry id (<benchmark>_entry); CSV has the result summarizer's columns, rows and\n"
             "             number format, tta's columns after them; needs --round when the database has several\n",
     .run = tta_report_summary, .place = 9, .section = summary_section, .at_top = 1},
    {.name = "leaderboard",
     .help = "  leaderboard   per round, division and benchmark: the best score (MLPerf: published; DAWNBench:\n"
             "             time to the threshold), its entry, accelerators, accelerator-minutes, energy where\n"
             "             logged, cost (cost per hour x time, DAWNBench: also the best by cost) and the speedup\n"
             "             over the previous round's best, saying where the target changed\n",
     .run = tta_report_leaderboard, .place = 11, .section = leaderboard_section, .at_top = 1},
    {.name = "trend",
     .help = "  trend      per benchmark across rounds (time order; closed division unless --division): the best\n"
             "             published score with its entry id, submitter, system and accelerators, the best in each\n"
             "             band of 1-8, 9-64, 65-512 and 513+ accelerators, the median, the speedup over the\n"
             "             previous round's best and the ratio of accelerators; a changed target is marked\n",
     .run = tta_report_trend, .place = 7, .section = trend_section},
    {.name = "verify",
     .help = "  verify     each claim beside the stored runs that replay it (tta verify, tta replay ENTRY), as they\n"
             "             ran: runs reaching the threshold, epochs to it, TTA, s/epoch, validation accuracy at the\n"
             "             compared epoch, unseen and shifted accuracy, gap, Welch's test, and a verdict\n",
     .run = run_verify, .place = 10, .section = verify_section},
    {.name = "compare", .operands = 2,
     .help = "  compare A B   two entries of one benchmark (ids from `tta ls entries`, or round/division/\n"
             "             submitter/system/benchmark): ratio of the successful runs' mean TTAs with a bootstrap CI,\n"
             "             Welch's t, Mann-Whitney U, runs needed to tell a 5% difference; notes where rulesets,\n"
             "             metrics, targets or divisions differ\n",
     .run_status = run_compare},
    {.name = "rcp",
     .help = "  rcp --rcp-dir DIR   MLCommons' RCP checker's verdict per entry: DIR is a training_X.Y.Z folder of\n"
             "             rcps_<name>.json, or a folder of them (../shared/rcp: each round its own rules); verdict,\n"
             "             the checker's message, reference and submission means, normalization\n",
     .run = run_rcp},
    {.name = "threshold",
     .help = "  threshold --at LIST   each run's TTA and progress at other thresholds: LIST is 0.70,0.75 or\n"
             "             FROM:TO:STEP, accuracies as fractions (DAWNBench's too), BLEU in points, else as logged\n",
     .run = run_threshold},
    {.name = "profile",
     .help = "  profile [--profile ID] [--memory-svg FILE]   a profile stored by `tta profile` (ID, else the latest)\n"
             "             and its batch sweep: step time, samples/s, GFLOP/s against the host's SGEMM peak, the\n"
             "             step's phases, memory; per layer FLOPs, bytes, time, GFLOP/s, operational intensity and\n"
             "             the roofline's attainable GFLOP/s (tta profile --peaks); --svg FILE: the roofline\n",
     .run = run_profile, .place = 8, .section = profile_section},
    {.name = "html", .operands = 1,
     .help = "  html OUT.html   one self-contained page with the results table of each MLPerf round (sortable),\n"
             "             the tables and plots of variance, curves, speedup and scaling for the selection (and\n"
             "             comm for replayed entries, energy for entries with power logs), trend over every\n"
             "             round of the database, and verify's comparisons of stored replays with their claims\n",
     .run = run_html},
};
#define N_KINDS (sizeof kinds / sizeof kinds[0])

static const report_kind *kind_named(const char *name) {
    for (size_t k = 0; name && k < N_KINDS; k++)
        if (!strcmp(kinds[k].name, name)) return &kinds[k];
    return NULL;
}

void tta_report_help(FILE *out) {
    for (size_t k = 0; k < N_KINDS; k++) fputs(kinds[k].help, out);
}

int tta_report_operands(const char *name) {
    const report_kind *k = kind_named(name);
    return k ? k->operands : -1;
}

int tta_report_check(const char *kind, const tta_report_options *o, tta_error *err) {
    assert(o);
    const report_kind *k = kind_named(kind);
    if (!k) {
        buf names = {0};
        for (size_t j = 0; j < N_KINDS; j++) buf_printf(&names, "%s%s", j ? ", " : "", kinds[j].name);
        int rc = kind ? tta_fail(err, TTA_EUSAGE, "no report called '%s'", kind)
                      : tta_fail(err, TTA_EUSAGE, "say which report (%s)", buf_str(&names));
        buf_free(&names);
        return rc;
    }
    if (o->runs && strcmp(kind, "energy") != 0) return tta_fail(err, TTA_EUSAGE, "--runs goes with energy");
    if (o->x_time && strcmp(kind, "curves") != 0 && k->run != run_html)
        return tta_fail(err, TTA_EUSAGE, "--x goes with curves (and html)");
    if (k->run == run_html && o->n_operands != 1)
        return tta_fail(err, TTA_EUSAGE, "html needs the output file: html OUT.html");
    if (k->run_status == run_compare && o->n_operands != 2)
        return tta_fail(err, TTA_EUSAGE, "compare needs two entries: A B");
    if (k->run == run_rcp && !o->rcp_dir)
        return tta_fail(err, TTA_EUSAGE,
                        "rcp needs --rcp-dir DIR (a training_X.Y.Z folder of rcps_<name>.json, or a folder of them)");
    if (k->run == run_threshold && o->n_thresholds == 0) return tta_fail(err, TTA_EUSAGE, "threshold needs --at LIST");
    return TTA_OK;
}

/* A table kind as a command: loads the entries of f, builds, finishes and writes the table, and
 * the plot per benchmark when asked. 0, or 1 with *err. */
static int run_table_kind(sqlite3 *db, const report_kind *k, const tta_filter *f, const tta_report_options *o,
                          FILE *out, char **err) {
    tta_entry_data *e;
    size_t n;
    const char *svg_path = o->svg_path;
    if (tta_entries_load(db, f, k->with_curves, &e, &n, err)) return 1;
    tta_table *t = k->table(e, n);
    int rc = k->finish ? k->finish(db, e, n, t, o->format, err) : 0;
    if (rc == 0) tta_table_write(t, (tta_out_format)o->format, out);
    tta_table_free(t);
    if (rc == 0 && svg_path && k->plot) {
        /* One plot per benchmark: their scales differ by orders of magnitude. */
        const char **benches = mallocCheck((n ? n : 1) * sizeof *benches);
        size_t nb = distinct_benchmarks(e, n, benches);
        for (size_t b = 0; b < nb && rc == 0; b++) {
            size_t m;
            tta_entry_data *sub = entries_of(e, n, benches[b], &m);
            char *path = plot_path(svg_path, benches[b], nb > 1);
            buf svg = {0};
            k->plot(sub, m, o, &svg);
            rc = tta_write_file(path, &svg, err);
            if (rc == 0 && nb > 1) fprintf(stderr, "tta report: wrote %s\n", path);
            buf_free(&svg);
            free(path);
            free(sub);
        }
        if (nb == 0) {
            buf svg = {0};
            k->plot(e, 0, o, &svg);
            rc = tta_write_file(svg_path, &svg, err);
            buf_free(&svg);
        }
        free(benches);
    }
    tta_entries_free(e, n);
    return rc;
}

int tta_report_run(sqlite3 *db, const char *kind, const tta_filter *f, const tta_report_options *o, FILE *out,
                   tta_error *err) {
    static const tta_filter all = {0};
    int rc = tta_report_check(kind, o, err);
    if (rc != TTA_OK) return rc;
    const report_kind *k = kind_named(kind);
    if (k->run_status) return k->run_status(db, f ? f : &all, o, out, err);
    char *why = NULL;
    if (k->table) rc = run_table_kind(db, k, f ? f : &all, o, out, &why);
    else rc = k->run(db, f ? f : &all, o, out, &why);
    if (rc == 0) return TTA_OK;
    rc = tta_fail(err, TTA_EINPUT, "%s", why ? why : "failed");
    free(why);
    return rc;
}

/* Progress counts the table sections one by one, then the sections after them (comm, energy,
 * profile, ...) as one step, so that adding a section changes no count. */
#define HTML_LATER_STEPS 1

/* Counts one more section of total done and tells progress (if any). */
static void section_done(tta_report_progress_fn progress, void *ctx, size_t *done, size_t total) {
    ++*done;
    assert(*done <= total);
    if (progress) progress(ctx, *done, total);
}

/* A table kind's section: its heading, a figure per benchmark (plotted with o), its table. */
static void table_section(const report_kind *k, const tta_entry_data *e, size_t n, const tta_report_options *o,
                          buf *page, buf *svg) {
    tta_html_heading(page, k->heading);
    tta_table *t = k->table(e, n);
    if (tta_table_rows(t) > 0) {
        /* a figure per benchmark: their scales differ by orders of magnitude */
        const char **benches = mallocCheck((n ? n : 1) * sizeof *benches);
        size_t nb = distinct_benchmarks(e, n, benches);
        for (size_t b = 0; b < nb; b++) {
            size_t m;
            tta_entry_data *sub = entries_of(e, n, benches[b], &m);
            /* Pairs and series exist only for some benchmarks: no empty plots. */
            tta_table *st = k->pairs_only ? k->table(sub, m) : NULL;
            if (!st || tta_table_rows(st) > 0) {
                buf_clear(svg);
                k->plot(sub, m, o, svg);
                buf cap = {0};
                buf_printf(&cap, "%s: %s", benches[b], k->caption);
                tta_html_figure(page, buf_str(svg), buf_str(&cap));
                buf_free(&cap);
            }
            if (st) tta_table_free(st);
            free(sub);
        }
        free(benches);
    }
    if (k->anchor) tta_html_table_anchored(page, t, NULL, k->anchor, "entry-");
    else tta_html_table(page, t, NULL);
    tta_table_free(t);
}

/* `tta report html OUT.html`: one self-contained page (no script, no URL) with the section of
 * every kind that has a place on it, in the order of their places: the results tables on top,
 * then variance, curves, speedup and scaling for the selection, comm when an entry has a time
 * breakdown, energy when one has power logs, trend over every round, the latest profile when one
 * is stored. o->generated_at is printed on the page (the page never reads the clock); o->progress
 * is told (0, total) once the entries are loaded, (k, total) as the k-th table section is done,
 * and (total, total) when the sections after them are too. */
static int run_html(sqlite3 *db, const tta_filter *f, const tta_report_options *o, FILE *out, char **err) {
    (void)out;
    const char *path = o->operand[0];
    assert(path);
    tta_entry_data *e;
    size_t n;
    if (tta_entries_load(db, f, 1, &e, &n, err)) return 1;
    buf page = {0}, svg = {0};
    tta_html_begin(&page, "Time to accuracy", o->generated_at ? o->generated_at : "");
    buf intro = {0};
    size_t runs = 0;
    for (size_t i = 0; i < n; i++) runs += e[i].n_runs;
    buf_printf(&intro, "%zu entries, %zu runs. Scores are the official MLPerf olympic means in minutes; "
                       "CV is the population standard deviation of the successful runs' TTA over their mean. "
                       "docs/statistics.md gives every formula.", n, runs);
    tta_html_paragraph(&page, buf_str(&intro));
    buf_free(&intro);
    page_ctx ctx = {db, f, e, n, page.len}; /* the sections at the top go here, above what they link to */

    /* the kinds on the page in the order of their places */
    const report_kind *order[N_KINDS];
    size_t n_order = 0, n_tables = 0;
    for (int place = 1; place <= (int)N_KINDS; place++)
        for (size_t k = 0; k < N_KINDS; k++)
            if (kinds[k].place == place) {
                order[n_order++] = &kinds[k];
                n_tables += kinds[k].table != NULL;
            }
    size_t n_steps = n_tables + HTML_LATER_STEPS, done = 0;
    if (o->progress) o->progress(o->progress_ctx, 0, n_steps);
    int rc = 0;
    for (size_t k = 0; k < n_order && rc == 0; k++) {
        if (!order[k]->table) continue;
        table_section(order[k], e, n, o, &page, &svg);
        section_done(o->progress, o->progress_ctx, &done, n_steps);
    }
    for (size_t k = 0; k < n_order && rc == 0; k++)
        if (!order[k]->table && !order[k]->at_top) rc = order[k]->section(&ctx, &page, err);
    section_done(o->progress, o->progress_ctx, &done, n_steps);
    assert(done == n_steps);
    for (size_t k = 0; k < n_order && rc == 0; k++)
        if (order[k]->at_top) rc = order[k]->section(&ctx, &page, err);
    tta_html_end(&page);
    if (rc == 0) rc = tta_write_file(path, &page, err);
    buf_free(&page);
    buf_free(&svg);
    tta_entries_free(e, n);
    return rc;
}
