/* cmd_check.c: `tta check [--ruleset X.Y.Z] [--failing] [--rcp-dir DIR] [--folders|--package] [--jobs N] PATH...` */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "cli/cli.h"
#include "common/file.h"
#include "reports/reports.h"

static const char check_help[] =
    "usage: tta check [--ruleset X.Y.Z] [--as-published] [--rules FILE] [--failing] [--rcp-dir DIR] [--rcp-bypass]\n"
    "                 [--folders|--package] [--logs-only|--no-package] [--jobs N] [--format table|csv|json|markdown] PATH...\n"
    "\n"
    "MLCommons' compliance checks (the compliance checker the result summarizer runs before it scores a\n"
    "run) on MLPerf Training result logs: PATH is a log, or a folder whose result_*.txt are all checked\n"
    "(a benchmark, a system, an organisation, a round). One row per log: its verdict (pass, fail,\n"
    "cannot evaluate), the number of failed rules and the first, with the log's line and what the rule\n"
    "wants. The rules are tta's copy of the checker's YAML (schemas/compliance_rules.json; docs/compliance.md).\n"
    "Then one row per benchmark folder (results/<system>/<benchmark>/): its runs, the runs the summarizer\n"
    "drops (a log that fails these checks, a run that did not succeed) and why, the score it publishes\n"
    "(olympic mean x scaling.json, minutes; or why none), and the RCP checker's verdict and message.\n"
    "Then, for organisation folders (<org>/results, <org>/systems) and round folders of them, the package\n"
    "checks, one row per check of a file or folder: the layout, the system descriptions, the result files\n"
    "each benchmark needs, the logs' compliance under olympic scoring, the seeds, scaling.json\n"
    "(schemas/package_rules.json).\n"
    "\n"
    "--ruleset X.Y.Z  the rules' version (default: from the round folder in each log's path, v5.1 -> 5.1.0)\n"
    "--as-published   the rules as they were when the round was published, where they changed since (v2.1 BERT)\n"
    "--rules FILE     rules from FILE (the form of schemas/compliance_rules.json) instead of tta's own\n"
    "--failing        list only the logs that do not pass, the folders without a score or failing RCP, and\n"
    "                 the package checks that do not pass\n"
    "--rcp-dir DIR    reference convergence points for the RCP verdict (a training_X.Y.Z folder, or a folder\n"
    "                 of them such as ../shared/rcp); without it the verdict is \"none\"\n"
    "--rcp-bypass     the package checker's: a failed \"RCP found\", \"RCP Interpolation\" or \"Missing RCP\" passes\n"
    "                 (\"... passed using rcp_bypass\"), as a package_checker_params file saying rcp-bypass does\n"
    "--folders        CSV and JSON: the folders' rows instead of the logs' (a table shows all)\n"
    "--package        CSV and JSON: the package checks' rows instead of the logs'\n"
    "--logs-only      the logs' checks only: no folder rows, scores, RCP verdicts or package checks\n"
    "--no-package     no package checks\n"
    "--jobs N         worker threads (default: one per CPU)\n"
    "Exit status: 0 every log passes, every folder gets a score and, in the closed division, passes the\n"
    "RCP check or is bypassed (as MLCommons' package checker requires), and every package check passes\n"
    "(or warns); 1 a log fails or cannot be evaluated or read, a folder gets no score, a closed-division\n"
    "folder fails the RCP check, or a package check fails or cannot be evaluated; 2 usage.\n";

int cmd_check(const tta_cli *cli, int argc, char **argv) {
    (void)cli;
    int format = TTA_FORMAT_TABLE, failing = 0, jobs = 0, folders = 0, logs_only = 0, unscored = 0, bypass = 0;
    int package_only = 0, no_package = 0;
    unsigned flags = 0;
    const char *ruleset = NULL, *rules_file = NULL, *rcp_dir = NULL;
    const char **paths = calloc((size_t)argc + 1, sizeof *paths);
    size_t n = 0;
    for (int i = 1; i < argc; i++) {
        tta_error opt_err;
        int r = cli_format_option(argc, argv, &i, &format, &opt_err);
        if (r < 0) return free(paths), cli_usage_error("check", "%s", opt_err.text);
        if (r > 0) continue;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(check_help, stdout);
            free(paths);
            return 0;
        } else if (!strcmp(argv[i], "--failing")) {
            failing = 1;
        } else if (!strcmp(argv[i], "--folders") || !strcmp(argv[i], "--logs-only") || !strcmp(argv[i], "--rcp-bypass")) {
            *(argv[i][2] == 'f' ? &folders : argv[i][2] == 'l' ? &logs_only : &bypass) = 1;
        } else if (!strcmp(argv[i], "--package") || !strcmp(argv[i], "--no-package")) {
            *(argv[i][2] == 'p' ? &package_only : &no_package) = 1;
        } else if (!strcmp(argv[i], "--as-published")) {
            flags |= TTA_CHECK_AS_PUBLISHED;
        } else if (!strcmp(argv[i], "--ruleset") || !strcmp(argv[i], "--jobs") || !strcmp(argv[i], "--rules") ||
                   !strcmp(argv[i], "--rcp-dir")) {
            if (i + 1 >= argc) return free(paths), cli_usage_error("check", "%s needs a value", argv[i]);
            if (!strcmp(argv[i], "--rules")) rules_file = argv[++i];
            else if (!strcmp(argv[i], "--rcp-dir")) rcp_dir = argv[++i];
            else if (argv[i][2] == 'r') ruleset = argv[++i];
            else if ((jobs = atoi(argv[++i])) < 1) return free(paths), cli_usage_error("check", "--jobs needs a count >= 1");
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return free(paths), cli_usage_error("check", "unknown option '%s'", argv[i]);
        } else {
            paths[n++] = argv[i];
        }
    }
    if (n == 0) return free(paths), cli_usage_error("check", "give a result log or a folder of them");
    tta_check_rules *rules;
    tta_error err;
    int lrc;
    if (rules_file) {
        tta_file f;
        lrc = tta_file_load(rules_file, 64 * TTA_FILE_MIB, "a rules file", TTA_FILE_READ, &f, &err);
        if (lrc == TTA_OK) lrc = tta_check_rules_parse(f.data, f.len, rules_file, &rules, &err);
        tta_file_free(&f);
    } else {
        lrc = tta_check_rules_load(&rules, &err);
    }
    if (lrc != TTA_OK) {
        fprintf(stderr, "tta check: %s\n", err.text);
        return free(paths), tta_exit_status(err.code);
    }
    if (ruleset && !tta_check_rules_has(rules, ruleset)) {
        int rc = cli_usage_error("check", "no compliance rules for ruleset %s (tta has %s)", ruleset,
                                 tta_check_rules_rulesets(rules));
        tta_check_rules_free(rules);
        return free(paths), rc;
    }
    if (folders && package_only) return free(paths), cli_usage_error("check", "--folders or --package, not both");
    tta_check_report rep;
    tta_package_report pkg = {0};
    int rc = tta_check_paths(rules, paths, n, ruleset, flags, jobs, &rep, &err);
    if (rc == TTA_OK && !no_package && !logs_only &&
        (rc = tta_check_packages(rules, paths, n, ruleset, flags, &rep, &pkg, &err)) != TTA_OK)
        tta_check_report_free(&rep);
    if (rc != TTA_OK) {
        fprintf(stderr, "tta check: %s\n", err.text);
        tta_check_rules_free(rules);
        return free(paths), tta_exit_status(rc);
    }
    int people = format == TTA_FORMAT_TABLE || format == TTA_FORMAT_MARKDOWN;
    if (people || (!folders && !package_only)) tta_report_compliance(&rep, format, failing, stdout);
    buf line = {0}, per_folder = {0};
    tta_check_summary(&rep, tta_check_rules_source(rules), &line);
    tta_check_folders_options fo = {.rcp_dir = rcp_dir, .rcp_bypass = bypass, .ruleset = ruleset, .jobs = jobs,
                                    .format = format, .failing_only = failing};
    if (!logs_only &&
        (rc = tta_report_check_folders(&rep, paths, n, &fo, people || folders ? stdout : NULL, &per_folder, &unscored, &err)))
        fprintf(stderr, "tta check: %s\n", err.text);
    if (pkg.n && (people || package_only)) {
        if (people) fputc('\n', stdout);
        tta_report_package(&pkg, format, failing, stdout);
    }
    if (pkg.n_orgs) tta_package_summary(&pkg, &line);
    fprintf(people ? stdout : stderr, "%s\n%s%s", buf_str(&line), buf_str(&per_folder), per_folder.len ? "\n" : "");
    buf_free(&line);
    buf_free(&per_folder);
    free(paths);
    int status = rep.n_fail || rep.n_unknown || unscored || rc || pkg.n_fail || pkg.n_unknown ? 1 : 0;
    tta_check_report_free(&rep);
    tta_package_report_free(&pkg);
    tta_check_rules_free(rules);
    return status;
}
