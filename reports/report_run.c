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
#include "common/replay_log.h"
#include "common/rules.h"
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
    int round_page; /* one round's page of several, under an index that has the trend */
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
    int plot_beside;     /* table kind: its plot is a file beside the page, linked, not on it: the
                            heaviest (curves: a series per entry, 28% of every round's pages; scaling:
                            a series per submitter, 13%), so that the pages of every round stay small */
    const char *anchor;  /* table kind: the column whose value N makes a row's id "entry-N" */
    const char *summary; /* table kind: a long table's rows shown on the page, the first by this order
                            (as --sort; NULL: none, the plot is its summary); all are in its CSV */
    const char *summary_what; /* what that order puts first, for people ("the largest TTA speedups") */
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
/* 1 when f selects something (any name or the entry id), 0 when it selects everything. */
static int filter_selects(const tta_filter *f) {
    return f->round || f->division || f->submitter || f->system || f->benchmark || f->entry_id;
}

/* profile: a profile of `tta profile` (--profile ID, else the latest), or with an entry filter the
 * profiles the selected replays logged while training; --profile, --svg and --memory-svg are about
 * the first and are refused with a filter (TTA_EUSAGE). */
static int run_profile(sqlite3 *db, const tta_filter *f, const tta_report_options *o, FILE *out, tta_error *err) {
    char *why = NULL;
    int rc;
    if (filter_selects(f)) {
        if (o->profile_id || o->svg_path || o->memory_svg)
            return tta_fail(err, TTA_EUSAGE, "%s is about a profile of `tta profile`; a filter selects the replays' "
                            "profiles: give one or the other", o->profile_id ? "--profile" : o->svg_path ? "--svg"
                                                                                                  : "--memory-svg");
        rc = tta_report_replay_profile(db, f, o->format, out, &why);
    } else {
        rc = tta_report_profile(db, o->profile_id, o, o->memory_svg, out, &why);
    }
    if (rc == 0) return TTA_OK;
    rc = tta_fail(err, TTA_EINPUT, "%s", why ? why : "failed");
    free(why);
    return rc;
}
static int run_html(sqlite3 *db, const tta_filter *f, const tta_report_options *o, FILE *out, char **err);

static int comm_section(const page_ctx *c, buf *page, char **err) { return tta_comm_html_section(c->db, c->f, page, err); }
static int energy_section(const page_ctx *c, buf *page, char **err) {
    return tta_energy_html_section(c->db, c->f, page, err);
}
static int trend_section(const page_ctx *c, buf *page, char **err) {
    if (c->round_page) return 0; /* the index has it */
    return tta_trend_html_section(c->db, c->f, page, err);
}
/* The latest profile of this machine, on a page that shows replays (round local) or no entry at
 * all (a database of profiles): a page of published rounds has nothing measured here. */
static int profile_section(const page_ctx *c, buf *page, char **err) {
    int here = c->n == 0;
    for (size_t i = 0; i < c->n && !here; i++) here = !strcmp(c->e[i].round, TTA_REPLAY_ROUND);
    return here ? tta_profile_html_section(c->db, page, err) : 0;
}
static int verify_section(const page_ctx *c, buf *page, char **err) {
    return tta_verify_html_section(c->db, c->f, page, err);
}
static int run_verify(sqlite3 *db, const tta_filter *f, const tta_report_options *o, FILE *out, char **err) {
    return tta_report_verify(db, f, o->format, out, err);
}
/* section at the page's top (c->top): a section built after those it links to, and above them. */
static void insert_at_top(const page_ctx *c, buf *page, const buf *section) {
    buf rest = {0};
    buf_append(&rest, page->data + c->top, page->len - c->top);
    page->len = c->top;
    buf_append(page, section->data, section->len);
    buf_append(page, rest.data, rest.len);
    buf_free(&rest);
}
/* The leaderboard, inserted at the page's top (above the results tables, which go there before it). */
static int leaderboard_section(const page_ctx *c, buf *page, char **err) {
    buf section = {0};
    int rc = tta_leaderboard_html_section(c->db, c->f, &section, err);
    if (rc == 0 && section.len) insert_at_top(c, page, &section);
    buf_free(&section);
    return rc;
}
/* AlgoPerf's leaderboards (the benchmark scores: what its round's page is read for), at the page's top. */
static int algoperf_section(const page_ctx *c, buf *page, char **err) {
    buf section = {0};
    int rc = tta_algoperf_html_section(c->db, c->f, &section, err);
    if (rc == 0 && section.len) insert_at_top(c, page, &section);
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
     .caption = "TTA of every successful run per entry (a run whose time a flag distrusts is left out, as the table says)", .anchor = "entry"}, /* a row per entry: link targets */
    {.name = "speedup",
     .help = "  speedup    pairs of entries of one submitter and benchmark: throughput speedup (time per epoch)\n"
             "             against TTA speedup (score), and their ratio, the gap\n",
     .table = tta_speedup_table, .finish = tta_speedup_explain, .plot = tta_speedup_plot,
     .place = 3, .heading = "Throughput speedup against TTA speedup",
     .caption = "Speedup of each entry over the base of its pair", .pairs_only = 1,
     .summary = "gap", .summary_what = "the smallest gaps (TTA speedup / throughput speedup)"},
    {.name = "scaling",
     .help = "  scaling    per series of systems of one submitter and benchmark: speedup over the smallest and\n"
             "             efficiency against linear scaling, for time per epoch and for TTA\n",
     .table = tta_scaling_table, .finish = tta_scaling_explain, .plot = tta_scaling_plot,
     .place = 4, .heading = "Scaling with accelerators",
     .caption = "Speedup over each series' smallest system, a series in one colour: TTA solid, time per unit of "
                "progress dashed; the grey line is linear scaling", .pairs_only = 1,
     .summary = "-accelerators,efficiency_tta", .summary_what = "the largest systems", .plot_beside = 1},
    {.name = "curves",
     .help = "  curves [--x progress|time]   per entry and progress value (the benchmark's unit: epochs,\n"
             "             Msamples, Mtokens, steps): mean time, mean and std of the evaluation quality across runs\n"
             "             (accuracies in percent); --x time: the plot against time (min)\n",
     .with_curves = 1, .table = tta_curves_table, .plot = tta_curves_plot,
     .place = 2, .heading = "Quality curves", .caption = "Mean quality against progress with a ± std band, and the target",
     .plot_beside = 1},
    {.name = "pareto",
     .help = "  pareto     per entry with a score: accelerators, score, accelerator-minutes, cost, and whether no\n"
             "             entry of its round, division and benchmark is as fast with as few accelerators (as\n"
             "             cheap): the Pareto frontier; --svg: time against accelerators (or cost), the frontier\n",
     .table = tta_pareto_table, .plot = tta_pareto_plot,
     .place = 12, .heading = "Time against accelerators or cost: the Pareto frontier",
     .caption = "A point per entry; the line joins the entries no other beats on both time and resources",
     .summary = "-frontier_accelerators,score_s", .summary_what = "the frontier's entries, fastest first"},
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
    {.name = "algoperf",
     .help = "  algoperf [--runs]   AlgoPerf leaderboards (--round algoperf-v0.5, --division self_tuning ...):\n"
             "             each submission's benchmark score as the official scoring code computes it (area under\n"
             "             the performance profile, tau 1 to 4), ranked; --runs: per workload the time to target\n"
             "             (median over studies), the time after the held-out and 4x rules, the ratio to the best;\n"
             "             --svg FILE: the performance profiles\n",
     .run = tta_report_algoperf, .place = 13, .section = algoperf_section, .at_top = 1},
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
             "             the roofline's attainable GFLOP/s (tta profile --peaks); --svg FILE: the roofline.\n"
             "             With a filter (--entry ID, --system ...): what each selected replay logged while it\n"
             "             trained: memory by category, and per layer FLOPs, bytes, time per step, GFLOP/s\n",
     .run_status = run_profile, .place = 8, .section = profile_section},
    {.name = "html", .operands = 1,
     .help = "  html OUT.html   self-contained pages: under a table of contents, the leaderboard, each MLPerf\n"
             "             round's results table (sortable), then a section per benchmark with the plots and\n"
             "             tables of variance, curves, speedup, scaling and pareto (a long table in\n"
             "             OUT-<kind>.csv beside the page, its first rows shown; the curves and scaling plots\n"
             "             in OUT-<kind>-<benchmark>.svg beside it, linked), comm, energy, trend, verify; each\n"
             "             entry's system linked to its published logs; a selection of several\n"
             "             rounds: OUT.html is an index (leaderboard, trend) of OUT-<round>.html pages\n",
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

const char *tta_report_kind(size_t i) { return i < N_KINDS ? kinds[i].name : NULL; }

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
    if (o->runs && strcmp(kind, "energy") != 0 && strcmp(kind, "algoperf") != 0)
        return tta_fail(err, TTA_EUSAGE, "--runs goes with energy and algoperf");
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

/* A table of at most this many rows is shown whole on the page; a longer one goes to a CSV file
 * beside the page, which the page links to, and the page shows its first HTML_SUMMARY_ROWS rows in
 * the kind's summary order (if it has one). A kind whose rows are link targets (variance: the
 * results tables link to its rows) is always shown whole. */
#define HTML_WHOLE_ROWS 10
#define HTML_SUMMARY_ROWS 6

/* A file beside the page at page_path: "<page stem>-<kind>.<ext>", or "<page stem>-<kind>-<bench>.<ext>"
 * when bench is not NULL (its characters other than letters, digits, '.', '_' and '-' as '-'):
 * its path (path) and its name as the page links to it (href); each malloc'd. */
static void file_beside(const char *page_path, const char *kind, const char *bench, const char *ext, char **path,
                        char **href) {
    buf b = {0};
    const char *dot = strrchr(page_path, '.'), *slash = strrchr(page_path, '/');
    size_t stem = dot && (!slash || dot > slash) ? (size_t)(dot - page_path) : strlen(page_path);
    buf_append(&b, page_path, stem);
    buf_printf(&b, "-%s", kind);
    if (bench) {
        buf_putc(&b, '-');
        for (const char *p = bench; *p; p++)
            buf_putc(&b, (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                                 *p == '.' || *p == '_' || *p == '-'
                             ? *p
                             : '-');
    }
    buf_printf(&b, ".%s", ext);
    *path = buf_take(&b);
    const char *base = strrchr(*path, '/');
    *href = strdupCheck(base ? base + 1 : *path);
}

/* A table kind's part of one benchmark's section (entries sub[0..m) of benchmark bench): its
 * subheading, its figure (plotted with o; for pairs and series only when the benchmark has some;
 * a kind's plot_beside: written beside the page at page_path, and a line linking to it), and its table: whole, or, when long, a line linking to the kind's CSV beside the page (*csv_used
 * is set then) and its first rows in the kind's summary order. Nothing when the kind has no row
 * for the benchmark. */
static int kind_block(const report_kind *k, const tta_entry_data *sub, size_t m, const tta_report_options *o,
                      const char *page_path, const char *csv_href, int *csv_used, buf *out, buf *svg, char **err) {
    tta_table *t = k->table(sub, m);
    size_t rows = tta_table_rows(t);
    if (rows == 0) {
        tta_table_free(t);
        return 0;
    }
    tta_html_subheading(out, k->heading);
    buf_clear(svg);
    k->plot(sub, m, o, svg);
    if (k->plot_beside) {
        char *svg_path, *svg_href;
        file_beside(page_path, k->name, sub[0].benchmark, "svg", &svg_path, &svg_href);
        int rc = tta_write_file(svg_path, svg, err);
        buf before = {0}, after = {0};
        buf_printf(&before, "%s: ", k->caption);
        buf_printf(&after, " (tta report %s --benchmark %s --svg FILE).", k->name, sub[0].benchmark);
        tta_html_link_paragraph(out, buf_str(&before), svg_href, svg_href, buf_str(&after));
        buf_free(&before);
        buf_free(&after);
        free(svg_path);
        free(svg_href);
        if (rc) {
            tta_table_free(t);
            return rc;
        }
    } else {
        tta_html_figure(out, buf_str(svg), k->caption);
    }
    /* the section names the benchmark, the page its round: their columns are left out where
     * every row holds the one value */
    static const tta_column section_fixed[] = {TTA_ROUND_COLUMN, TTA_BENCHMARK_COLUMN};
    const char *const fixed[] = {section_fixed[0].key, section_fixed[1].key, NULL};
    buf b = {0};
    if (k->anchor) {
        tta_html_table_in_section(out, t, k->anchor, "entry-", fixed);
    } else if (rows <= HTML_WHOLE_ROWS) {
        tta_html_table_in_section(out, t, NULL, NULL, fixed);
    } else {
        buf_printf(&b, "All %zu rows of %s: ", rows, sub[0].benchmark);
        buf after = {0}, why = {0};
        buf_printf(&after, " (with the other benchmarks'; tta report %s --benchmark %s%s%s)%s", k->name, sub[0].benchmark,
                   k->summary ? " --sort " : "", k->summary ? k->summary : "", k->summary ? "; here the first " : ".");
        if (k->summary) buf_printf(&after, "%d, %s:", HTML_SUMMARY_ROWS, k->summary_what);
        tta_html_link_paragraph(out, buf_str(&b), csv_href, csv_href, buf_str(&after));
        tta_table *first = k->summary ? tta_table_ordered(t, k->summary, HTML_SUMMARY_ROWS, &why) : NULL;
        assert(!k->summary || first); /* the registry's summary names the kind's own columns */
        if (first) tta_html_table_in_section(out, first, NULL, NULL, fixed);
        tta_table_free(first);
        buf_free(&after);
        buf_free(&why);
        *csv_used = 1;
    }
    buf_free(&b);
    tta_table_free(t);
    return 0;
}

/* qsort order of benchmark names. */
static int compare_names(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* `tta report html OUT.html`: one self-contained page (no script needed; no address but where entries are
 * published) with, under a table of
 * contents: the leaderboard and the results table of each MLPerf round on top, then a section per
 * benchmark (in name order) with the table kinds' subsections (variance, curves, speedup, scaling:
 * each its plot and its table; a long table written to OUT-<kind>.csv beside the page, linked, its
 * first rows shown), then comm when an entry has a time breakdown, energy when one has power logs, trend
 * over every round, verify's comparisons, the latest profile when the selection has replays.
 * o->generated_at is printed on the page (the page never reads the clock); o->progress is told
 * (0, total) once the entries are loaded, (k, total) as the k-th table kind is done for every
 * benchmark, and (total, total) when the sections after them are too.
 * This is one page, at path, for the entries of f, with title on top; index (NULL: none) makes it
 * one round's page of several: it links to the index page, named so beside it, which has the trend.
 * 0, or 1 with *err. */
static int html_page(sqlite3 *db, const tta_filter *f, const tta_report_options *o, const char *path,
                     const char *title, const char *index, char **err) {
    int round_page = index != NULL;
    tta_entry_data *e;
    size_t n;
    if (tta_entries_load(db, f, 1, &e, &n, err)) return 1;
    buf page = {0}, svg = {0};
    tta_html_begin(&page, title, o->generated_at ? o->generated_at : "");
    if (round_page) {
        buf_puts(&page, "<p><a href=\"");
        tta_xml_escape(&page, index);
        buf_puts(&page, "\">Every round</a> (the index: leaderboard and trend across rounds)</p>\n");
    }
    buf intro = {0};
    size_t runs = 0;
    for (size_t i = 0; i < n; i++) runs += e[i].n_runs;
    size_t mlperf = 0; /* entries of MLPerf rounds have an official score; DAWNBench's and replays' their mean TTA */
    for (size_t i = 0; i < n; i++) mlperf += tta_rules_is_mlperf_round(tta_rules_builtin(), e[i].round);
    buf_printf(&intro, "%zu entries, %zu runs. Scores are %s in minutes; "
                       "CV is the population standard deviation of the successful runs' TTA over their mean. "
                       "docs/statistics.md gives every formula.", n, runs,
               mlperf == n   ? "the official MLPerf olympic means"
               : mlperf == 0 ? "the mean TTA of the successful runs (no official score: DAWNBench, replays)"
                             : "the official MLPerf olympic means (DAWNBench's and replays': the mean TTA)");
    tta_html_paragraph(&page, buf_str(&intro));
    buf_free(&intro);
    page_ctx ctx = {db, f, e, n, page.len, round_page}; /* the sections at the top go here, above what they
                                                           link to */

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
    /* a section per benchmark, its parts built kind by kind */
    const char **benches = mallocCheck((n ? n : 1) * sizeof *benches);
    size_t nb = distinct_benchmarks(e, n, benches);
    qsort(benches, nb, sizeof *benches, compare_names);
    buf *parts = callocCheck(nb ? nb : 1, sizeof *parts);
    int rc = 0;
    for (size_t k = 0; k < n_order; k++) {
        if (!order[k]->table) continue;
        char *csv_path, *csv_href;
        file_beside(path, order[k]->name, NULL, "csv", &csv_path, &csv_href);
        int csv_used = 0;
        for (size_t b = 0; b < nb && rc == 0; b++) {
            size_t m;
            tta_entry_data *sub = entries_of(e, n, benches[b], &m);
            rc = kind_block(order[k], sub, m, o, path, csv_href, &csv_used, &parts[b], &svg, err);
            free(sub);
        }
        if (csv_used && rc == 0) { /* the whole selection's table, as `tta report KIND --format csv` */
            tta_table *t = order[k]->table(e, n);
            buf csv = {0};
            tta_table_render(t, TTA_OUT_CSV, NULL, &csv);
            rc = tta_write_file(csv_path, &csv, err);
            buf_free(&csv);
            tta_table_free(t);
        }
        free(csv_path);
        free(csv_href);
        section_done(o->progress, o->progress_ctx, &done, n_steps);
    }
    for (size_t b = 0; b < nb; b++) {
        if (parts[b].len) {
            buf id = {0}, text = {0};
            buf_printf(&id, "bench-%s", benches[b]);
            size_t entries = 0, bench_runs = 0;
            for (size_t i = 0; i < n; i++)
                if (!strcmp(e[i].benchmark, benches[b])) {
                    entries++;
                    bench_runs += e[i].n_runs;
                }
            tta_html_heading_id(&page, buf_str(&id), benches[b]);
            buf_printf(&text, "%s: %zu entries, %zu runs.", benches[b], entries, bench_runs);
            tta_html_paragraph(&page, buf_str(&text));
            buf_append(&page, parts[b].data, parts[b].len);
            buf_free(&id);
            buf_free(&text);
        }
        buf_free(&parts[b]);
    }
    free(parts);
    free(benches);
    for (size_t k = 0; k < n_order && rc == 0; k++)
        if (!order[k]->table && !order[k]->at_top) rc = order[k]->section(&ctx, &page, err);
    section_done(o->progress, o->progress_ctx, &done, n_steps);
    assert(done == n_steps);
    for (size_t k = 0; k < n_order && rc == 0; k++)
        if (order[k]->at_top) rc = order[k]->section(&ctx, &page, err);
    tta_html_toc(&page, ctx.top);
    tta_html_end(&page);
    if (rc == 0) rc = tta_write_file(path, &page, err);
    buf_free(&page);
    buf_free(&svg);
    tta_entries_free(e, n);
    return rc;
}

/* "<stem>-<round>.html" beside the index page at path (malloc'd). */
static char *round_page_path(const char *path, const char *round) {
    buf b = {0};
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    size_t stem = dot && (!slash || dot > slash) ? (size_t)(dot - path) : strlen(path);
    buf_append(&b, path, stem);
    buf_printf(&b, "-%s.html", round);
    return buf_take(&b);
}

/* The name of round's page beside the index page at path (ctx), as the index links to it (malloc'd). */
static char *round_page_href(const char *round, void *ctx) {
    char *p = round_page_path(ctx, round);
    const char *base = strrchr(p, '/');
    char *href = strdupCheck(base ? base + 1 : p);
    free(p);
    return href;
}

/* The index of several rounds' pages at path: the leaderboard of every round, a link per round
 * (its entries and runs), the trend across rounds, a line per AlgoPerf leaderboard linking to its
 * round's page. 0, or 1 with *err. */
static int html_index(sqlite3 *db, const tta_filter *f, const tta_report_options *o, const char *path,
                      char **rounds, const size_t *entries, const size_t *runs, size_t n_rounds, char **err) {
    buf page = {0};
    tta_html_begin(&page, "Time to accuracy: every round", o->generated_at ? o->generated_at : "");
    tta_html_paragraph(&page, "A page per round (below), each with its leaderboard, results table and a section per "
                              "benchmark; here the leaderboard of every round and the trend across them.");
    size_t top = page.len;
    tta_html_heading_id(&page, "rounds", "Rounds");
    buf_puts(&page, "<ul>\n");
    for (size_t r = 0; r < n_rounds; r++) {
        char *p = round_page_path(path, rounds[r]);
        const char *base = strrchr(p, '/');
        buf_puts(&page, "<li><a href=\"");
        tta_xml_escape(&page, base ? base + 1 : p);
        buf_puts(&page, "\">");
        tta_xml_escape(&page, rounds[r]);
        buf_printf(&page, "</a>: %zu entries, %zu runs</li>\n", entries[r], runs[r]);
        free(p);
    }
    buf_puts(&page, "</ul>\n");
    int rc = tta_leaderboard_html_section(db, f, &page, err);
    if (rc == 0) rc = tta_trend_html_section(db, f, &page, err);
    /* AlgoPerf's leaderboards: a line each, linking to its round's page, which has them whole */
    if (rc == 0) rc = tta_algoperf_html_index(db, f, round_page_href, (void *)path, &page, err);
    tta_html_toc(&page, top);
    tta_html_end(&page);
    if (rc == 0) rc = tta_write_file(path, &page, err);
    buf_free(&page);
    return rc;
}

/* `tta report html OUT.html`: one page (html_page) when the selection holds one round; else an
 * index at OUT.html (html_index) and a page per round beside it, OUT-<round>.html, in the rounds'
 * time order; o->progress is told of the last round's page only. */
static int run_html(sqlite3 *db, const tta_filter *f, const tta_report_options *o, FILE *out, char **err) {
    (void)out;
    const char *path = o->operand[0];
    assert(path);
    tta_entry_data *e;
    size_t n;
    if (tta_entries_load(db, f, 0, &e, &n, err)) return 1;
    char **rounds = mallocCheck((n ? n : 1) * sizeof *rounds);
    size_t *entries = callocCheck(n ? n : 1, sizeof *entries), *runs = callocCheck(n ? n : 1, sizeof *runs);
    size_t n_rounds = 0;
    for (size_t i = 0; i < n; i++) {
        size_t r = 0;
        while (r < n_rounds && strcmp(rounds[r], e[i].round)) r++;
        if (r == n_rounds) rounds[n_rounds++] = strdupCheck(e[i].round);
        entries[r]++;
        runs[r] += e[i].n_runs;
    }
    tta_entries_free(e, n);
    int rc = 0;
    if (n_rounds <= 1) {
        rc = html_page(db, f, o, path, "Time to accuracy", NULL, err);
    } else {
        /* rounds in time order (the rules'), unknown ones after by name */
        tta_round_order *ord;
        size_t n_ord;
        tta_error db_err;
        if (tta_db_round_orders(db, &ord, &n_ord, &db_err) != TTA_OK) {
            rc = tta_report_fail(&db_err, err);
        } else {
            size_t placed = 0;
            for (size_t k = 0; k <= n_ord; k++)
                for (size_t r = placed; r < n_rounds; r++)
                    if (k == n_ord || !strcmp(rounds[r], ord[k].round)) {
                        char *t = rounds[r];
                        size_t te = entries[r], tr = runs[r];
                        memmove(rounds + placed + 1, rounds + placed, (r - placed) * sizeof *rounds);
                        memmove(entries + placed + 1, entries + placed, (r - placed) * sizeof *entries);
                        memmove(runs + placed + 1, runs + placed, (r - placed) * sizeof *runs);
                        rounds[placed] = t;
                        entries[placed] = te;
                        runs[placed] = tr;
                        placed++;
                    }
            tta_round_orders_free(ord, n_ord);
            rc = html_index(db, f, o, path, rounds, entries, runs, n_rounds, err);
            tta_report_options ro = *o;
            const char *index = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
            for (size_t r = 0; r < n_rounds && rc == 0; r++) {
                tta_filter g = f ? *f : (tta_filter){0};
                g.round = rounds[r];
                char *p = round_page_path(path, rounds[r]);
                buf title = {0};
                buf_printf(&title, "Time to accuracy: %s", rounds[r]);
                ro.progress = r + 1 == n_rounds ? o->progress : NULL;
                /* no line of its own: the command's progress line is live; the index lists them */
                rc = html_page(db, &g, &ro, p, buf_str(&title), index, err);
                buf_free(&title);
                free(p);
            }
        }
    }
    for (size_t r = 0; r < n_rounds; r++) free(rounds[r]);
    free(rounds);
    free(entries);
    free(runs);
    return rc;
}
