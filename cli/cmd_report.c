/* cmd_report.c: `tta report KIND [operands] [filters] [--format F]`: parses the options into a
 * tta_report_options and runs the kind from the reports' registry (reports.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/progress.h"

static const char usage_line[] = "usage: tta report KIND [filters] [--format table|csv|json|markdown]\n\nkinds:\n";
static const char options_help[] =
    "\n"
    "--svg FILE   with variance (TTA per run), curves (quality ± std and target), speedup (bars),\n"
    "             scaling (speedup vs accelerators with the ideal line), comm (stacked bars of the epoch\n"
    "             time per entry), energy (energy against TTA per run) and trend (score on a log axis\n"
    "             against the round, per benchmark): also write the plot as SVG\n"
    "\n"
    "filters: --round R --division D --submitter S --system Y --benchmark B --entry ID\n"
    "         --accelerator MODEL --framework F --availability A (the system description's)\n"
    "         --accelerators MIN:MAX (MIN: or :MAX: one bound)\n"
    "         a value written /RE/ is a regular expression (PCRE2, case-insensitive, found anywhere in the\n"
    "         value unless anchored): --system '/^dgxa100/', --benchmark '/^(bert|resnet)$/'\n"
    "--x progress|time   curves (and html's curves): the plot's x axis in the benchmark's progress unit\n"
    "             (default) or in minutes from run_start\n"
    "         a value no entry has is an error naming the nearest ones the database holds\n"
    "--wide       tables print every value whole (else they fit the terminal)\n"
    "--quiet      no progress line (html shows one on a terminal when it takes over a second)\n"
    "--sort COL[,COL]  order every table by these column keys (CSV/JSON names; -COL descending)\n"
    "--top N      then keep its first N rows (every format)\n"
    "Tables show minutes and percentages; CSV and JSON carry seconds and fractions (score_min: minutes).\n"
    "Accuracies are on one scale whatever their source (DAWNBench's percent too): fractions, percent for people.\n"
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

/* A long report's progress on the live line: "report html: 3/5 sections". */
static void show_progress(void *ctx, size_t done, size_t total) {
    cli_progress_update(ctx, done == total, "report html: %zu/%zu sections", done, total);
}

/* The value after option argv[*i] (advancing *i), or NULL when there is none. */
static const char *value_of(int argc, char **argv, int *i) { return *i + 1 < argc ? argv[++*i] : NULL; }

int cmd_report(const tta_cli *cli, int argc, char **argv) {
    tta_filter f = {0};
    tta_report_options o = {.format = TTA_FORMAT_TABLE};
    const char *kind = NULL;
    int quiet = 0;
    double thresholds[256];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--svg") || !strcmp(a, "--memory-svg") || !strcmp(a, "--rcp-dir")) {
            const char *v = value_of(argc, argv, &i);
            if (!v) return cli_usage_error("report", "%s needs a %s", a, strcmp(a, "--rcp-dir") ? "file name" : "folder");
            *(!strcmp(a, "--svg") ? &o.svg_path : !strcmp(a, "--rcp-dir") ? &o.rcp_dir : &o.memory_svg) = v;
        } else if (!strcmp(a, "--x")) {
            const char *v = value_of(argc, argv, &i);
            if (!v || (strcmp(v, "progress") && strcmp(v, "time")))
                return cli_usage_error("report", "--x needs progress or time");
            o.x_time = !strcmp(v, "time");
        } else if (!strcmp(a, "--runs")) {
            o.runs = 1;
        } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
            quiet = 1;
        } else if (!strcmp(a, "--profile")) {
            long id = i + 1 < argc ? cli_parse_positive(argv[++i]) : -1;
            if (id < 0) return cli_usage_error("report", "--profile needs a profile id");
            o.profile_id = id;
        } else if (!strcmp(a, "--at")) {
            const char *v = value_of(argc, argv, &i);
            if (!v || parse_thresholds(v, thresholds, &o.n_thresholds, 256) != 0)
                return cli_usage_error("report", "--at needs a list like 0.70,0.75 or a range FROM:TO:STEP");
            o.thresholds = thresholds;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage_line, stdout);
            tta_report_help(stdout);
            fputs(options_help, stdout);
            return 0;
        } else {
            tta_error opt_err;
            int r = cli_filter_option(argc, argv, &i, &f, &opt_err);
            if (r == 0) r = cli_format_option(argc, argv, &i, &o.format, &opt_err);
            if (r < 0) return cli_usage_error("report", "%s", opt_err.text);
            if (r > 0) continue;
            if (a[0] == '-') return cli_usage_error("report", "unknown option '%s'", a);
            if (kind && o.n_operands < tta_report_operands(kind)) o.operand[o.n_operands++] = a;
            else if (kind) return cli_usage_error("report", "one report at a time, not '%s' too", a);
            else kind = a;
        }
    }
    tta_error err;
    if (tta_report_check(kind, &o, &err) != TTA_OK) return cli_usage_error("report", "%s", err.text);
    sqlite3 *db;
    if (cli_open_db_filtered(cli, "report", &f, 0, &db)) return 1;
    char stamp[64];
    time_t now = time(NULL);
    strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    o.generated_at = stamp;
    /* A report that takes seconds (html over a whole round) shows a live line past 1 s (progress.h). */
    cli_progress display;
    cli_progress_start(&display, stderr, quiet, 1000);
    o.progress = display.enabled ? show_progress : NULL;
    o.progress_ctx = &display;
    int rc = tta_report_run(db, kind, &f, &o, stdout, &err);
    cli_progress_finish(&display);
    if (rc != TTA_OK) fprintf(stderr, "tta report %s: %s\n", kind, err.text);
    else if (o.n_operands == 1) fprintf(stderr, "tta report %s: wrote %s\n", kind, o.operand[0]); /* html's page */
    tta_db_close(db);
    return tta_exit_status(rc);
}
