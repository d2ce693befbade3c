/* cmd_report.c: `tta report KIND [filters] [--format F]` */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/progress.h"

static const char report_help[] =
    "usage: tta report KIND [filters] [--format table|csv|json|markdown]\n"
    "\n"
    "kinds:\n"
    "  variance   per entry: official score (min), CV of TTA with a 95% bootstrap CI, epochs to target and\n"
    "             time per epoch (mean, std), cv_ratio = CV(epochs)/CV(time per epoch), and the share of\n"
    "             Var(log TTA) that comes from the number of epochs\n"
    "  speedup    pairs of entries of one submitter and benchmark: throughput speedup (time per epoch)\n"
    "             against TTA speedup (score), and their ratio, the gap\n"
    "  scaling    per series of systems of one submitter and benchmark: speedup over the smallest and\n"
    "             efficiency against linear scaling, for time per epoch and for TTA\n"
    "  curves     per entry and epoch: mean and std of the evaluation quality across runs\n"
    "  comm       per replayed entry (tta replay; published logs have no time breakdown): workers K,\n"
    "             runs, epochs, time per epoch (training + evaluation) and its shares: exposed\n"
    "             communication, all communication (overlapped or not), compute, data loading,\n"
    "             evaluation; the spread of the ranks' communication time (max/min)\n"
    "  energy [--runs]   per entry with power logs (results/<system>/<benchmark>/power/): energy to\n"
    "             train as MLCommons' summarizer scores it (J, kWh), average power, nodes' and switches'\n"
    "             parts, the scaling factor; --runs: per run (JSON always nests the runs)\n"
    "  summary    one round's results table as MLCommons publishes it: a row per system (submitter,\n"
    "             system, accelerator and count, processor, framework, division, availability), a column\n"
    "             per benchmark with the official score in minutes (x scaling.json); JSON/CSV give each\n"
    "             cell's entry id (<benchmark>_entry); CSV has the result summarizer's columns, rows and\n"
    "             number format, tta's columns after them; needs --round when the database has several\n"
    "  trend      per benchmark across rounds (time order; closed division unless --division): the best\n"
    "             published score with its entry id, submitter, system and accelerators, the best in each\n"
    "             band of 1-8, 9-64, 65-512 and 513+ accelerators, the median, the speedup over the\n"
    "             previous round's best and the ratio of accelerators; a changed target is marked\n"
    "  compare A B   two entries (ids from `tta ls entries`, or round/division/submitter/system/\n"
    "             benchmark): ratio of mean TTAs with a bootstrap CI, Welch's t, Mann-Whitney U, runs\n"
    "             needed to tell a 5% difference\n"
    "  rcp --rcp-dir DIR   MLCommons' RCP checker's verdict per entry: DIR is a training_X.Y.Z folder of\n"
    "             rcps_<name>.json, or a folder of them (../shared/rcp: each round its own rules); verdict,\n"
    "             the checker's message, reference and submission means, normalization\n"
    "  threshold --at LIST   each run's TTA and epochs at other thresholds: LIST is 0.70,0.75 or\n"
    "             FROM:TO:STEP, in the stored scale (fractions; BLEU points; DAWNBench percent)\n"
    "  profile [--profile ID] [--memory-svg FILE]   a profile stored by `tta profile` (ID, else the latest)\n"
    "             and its batch sweep: step time, samples/s, GFLOP/s against the host's SGEMM peak, the\n"
    "             step's phases, memory; per layer FLOPs, bytes, time, GFLOP/s, operational intensity and\n"
    "             the roofline's attainable GFLOP/s (tta profile --peaks); --svg FILE: the roofline\n"
    "  html OUT.html   one self-contained page with the results table of each MLPerf round (sortable),\n"
    "             the tables and plots of variance, curves, speedup and scaling for the selection (and\n"
    "             comm for replayed entries, energy for entries with power logs), and trend over every\n"
    "             round of the database\n"
    "\n"
    "--svg FILE   with variance (TTA per run), curves (quality ± std and target), speedup (bars),\n"
    "             scaling (speedup vs accelerators with the ideal line), comm (stacked bars of the epoch\n"
    "             time per entry), energy (energy against TTA per run) and trend (score on a log axis\n"
    "             against the round, per benchmark): also write the plot as SVG\n"
    "\n"
    "filters: --round R --division D --submitter S --system Y --benchmark B --entry ID\n"
    "         a value written /RE/ is a regular expression (PCRE2, case-insensitive, found anywhere in the\n"
    "         value unless anchored): --system '/^dgxa100/', --benchmark '/^(bert|resnet)$/'\n"
    "--quiet      no progress line (html shows one on a terminal when it takes over a second)\n"
    "Tables show minutes and percentages; CSV and JSON carry seconds and fractions (score_min: minutes).\n"
    "docs/statistics.md gives every formula.\n";

/* "0.7,0.75" or "0.70:0.76:0.02" (inclusive) into v; 0 on success. */
static int parse_thresholds(const char *s, double *v, size_t *n, size_t max) {
    char *end;
    double from = strtod(s, &end);
    if (end == s) return -1;
    if (*end == ':') {
        double to = strtod(end + 1, &end);
        if (*end != ':') return -1;
        double step = strtod(end + 1, &end);
        if (*end || !(step > 0) || to < from) return -1;
        for (double x = from; x <= to + step * 1e-9 && *n < max; x += step) v[(*n)++] = x;
        return 0;
    }
    v[(*n)++] = from;
    while (*end == ',') {
        const char *p = end + 1;
        double x = strtod(p, &end);
        if (end == p || *n >= max) return -1;
        v[(*n)++] = x;
    }
    return *end ? -1 : 0;
}

typedef int (*report_fn)(sqlite3 *, const tta_filter *, const tta_report_options *, FILE *, char **);

static const struct {
    const char *name;
    report_fn run;
} reports[] = {
    {"variance", tta_report_variance},
    {"speedup", tta_report_speedup},
    {"scaling", tta_report_scaling},
    {"curves", tta_report_curves},
    {"comm", tta_report_comm},
    {"energy", tta_report_energy},
    {"summary", tta_report_summary},
    {"trend", tta_report_trend},
};

/* The HTML page's progress on the live line: "report html: 3/5 sections". */
static void show_html_progress(void *ctx, size_t done, size_t total) {
    cli_progress_update(ctx, done == total, "report html: %zu/%zu sections", done, total);
}

int cmd_report(const tta_cli *cli, int argc, char **argv) {
    tta_filter f = {0};
    int format = TTA_FORMAT_TABLE;
    const char *kind = NULL, *operands[2] = {NULL, NULL};
    int n_operands = 0;
    const char *rcp_dir = NULL, *svg_path = NULL, *memory_svg = NULL;
    int per_run = 0, quiet = 0;
    long profile_id = 0;
    double thresholds[256];
    size_t n_thresholds = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--svg")) {
            if (i + 1 >= argc) return cli_usage_error("report", "--svg needs a file name");
            svg_path = argv[++i];
            continue;
        }
        if (!strcmp(argv[i], "--runs")) {
            per_run = 1;
            continue;
        }
        if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q")) {
            quiet = 1;
            continue;
        }
        if (!strcmp(argv[i], "--memory-svg")) {
            if (i + 1 >= argc) return cli_usage_error("report", "--memory-svg needs a file name");
            memory_svg = argv[++i];
            continue;
        }
        if (!strcmp(argv[i], "--profile")) {
            profile_id = i + 1 < argc ? cli_parse_positive(argv[++i]) : -1;
            if (profile_id < 0) return cli_usage_error("report", "--profile needs a profile id");
            continue;
        }
        if (!strcmp(argv[i], "--rcp-dir")) {
            if (i + 1 >= argc) return cli_usage_error("report", "--rcp-dir needs a folder");
            rcp_dir = argv[++i];
            continue;
        }
        if (!strcmp(argv[i], "--at")) {
            if (i + 1 >= argc || parse_thresholds(argv[++i], thresholds, &n_thresholds, 256) != 0)
                return cli_usage_error("report", "--at needs a list like 0.70,0.75 or a range FROM:TO:STEP");
            continue;
        }
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(report_help, stdout);
            return 0;
        }
        tta_error filter_err = {0};
        int r = cli_filter_option(argc, argv, &i, &f, &filter_err);
        if (r == 0) r = cli_format_option(argc, argv, &i, &format);
        if (r < 0 && filter_err.code != TTA_OK) return cli_usage_error("report", "%s", filter_err.text);
        if (r < 0) return cli_usage_error("report", "option '%s' needs a valid value", argv[i]);
        if (r > 0) continue;
        if (argv[i][0] == '-') return cli_usage_error("report", "unknown option '%s'", argv[i]);
        if (kind && (!strcmp(kind, "compare") || !strcmp(kind, "html")) && n_operands < 2) {
            operands[n_operands++] = argv[i];
            continue;
        }
        if (kind) return cli_usage_error("report", "one report at a time, not '%s' too", argv[i]);
        kind = argv[i];
    }
    if (!kind) return cli_usage_error("report", "say which report (variance, speedup, scaling, curves, comm, energy, trend, summary, compare, rcp, threshold, profile, html)");
    if (per_run && strcmp(kind, "energy") != 0) return cli_usage_error("report", "--runs goes with energy");
    if (!strcmp(kind, "html")) {
        if (n_operands != 1) return cli_usage_error("report", "html needs the output file: html OUT.html");
        sqlite3 *db;
        if (cli_open_db_readonly(cli, "report", &db)) return 1;
        char *err = NULL, stamp[64];
        time_t now = time(NULL);
        strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M UTC", gmtime(&now));
        /* Over a whole round the page takes seconds: past 1 s, a live line (progress.h). */
        cli_progress display;
        cli_progress_start(&display, stderr, quiet, 1000);
        int rc = tta_report_html_progress(db, &f, operands[0], stamp, display.enabled ? show_html_progress : NULL,
                                          &display, &err);
        cli_progress_finish(&display);
        if (rc) {
            fprintf(stderr, "tta report html: %s\n", err ? err : "failed");
            free(err);
        } else {
            fprintf(stderr, "tta report html: wrote %s\n", operands[0]);
        }
        tta_db_close(db);
        return rc;
    }
    if (!strcmp(kind, "compare")) {
        if (n_operands != 2) return cli_usage_error("report", "compare needs two entries: A B");
        sqlite3 *db;
        if (cli_open_db_readonly(cli, "report", &db)) return 1;
        char *err = NULL;
        int rc = tta_report_compare(db, operands[0], operands[1], format, stdout, &err);
        if (rc) {
            fprintf(stderr, "tta report compare: %s\n", err ? err : "failed");
            free(err);
        }
        tta_db_close(db);
        return rc;
    }
    if (!strcmp(kind, "profile")) {
        sqlite3 *db;
        if (cli_open_db_readonly(cli, "report", &db)) return 1;
        char *err = NULL;
        tta_report_options o = {format, svg_path, 0};
        int rc = tta_report_profile(db, profile_id, &o, memory_svg, stdout, &err);
        if (rc) {
            fprintf(stderr, "tta report profile: %s\n", err ? err : "failed");
            free(err);
        }
        tta_db_close(db);
        return rc;
    }
    if (!strcmp(kind, "rcp")) {
        if (!rcp_dir) return cli_usage_error("report", "rcp needs --rcp-dir DIR (a training_X.Y.Z folder of rcps_<name>.json, or a folder of them)");
        sqlite3 *db;
        if (cli_open_db_readonly(cli, "report", &db)) return 1;
        char *err = NULL;
        int rc = tta_report_rcp(db, &f, rcp_dir, format, stdout, &err);
        if (rc) {
            fprintf(stderr, "tta report rcp: %s\n", err ? err : "failed");
            free(err);
        }
        tta_db_close(db);
        return rc;
    }
    if (!strcmp(kind, "threshold")) {
        if (n_thresholds == 0) return cli_usage_error("report", "threshold needs --at LIST");
        sqlite3 *db;
        if (cli_open_db_readonly(cli, "report", &db)) return 1;
        char *err = NULL;
        int rc = tta_report_threshold(db, &f, thresholds, n_thresholds, format, stdout, &err);
        if (rc) {
            fprintf(stderr, "tta report threshold: %s\n", err ? err : "failed");
            free(err);
        }
        tta_db_close(db);
        return rc;
    }
    for (size_t k = 0; k < sizeof reports / sizeof reports[0]; k++) {
        if (strcmp(kind, reports[k].name)) continue;
        sqlite3 *db;
        if (cli_open_db_readonly(cli, "report", &db)) return 1;
        char *err = NULL;
        tta_report_options o = {format, svg_path, per_run};
        int rc = reports[k].run(db, &f, &o, stdout, &err);
        if (rc) {
            fprintf(stderr, "tta report %s: %s\n", kind, err ? err : "failed");
            free(err);
        }
        tta_db_close(db);
        return rc;
    }
    return cli_usage_error("report", "no report called '%s'", kind);
}
