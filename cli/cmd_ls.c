/* cmd_ls.c: `tta ls runs|entries|systems [filters] [--format F]` */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static const char ls_help[] =
    "usage: tta ls runs|entries|systems [filters] [--format table|csv|json|markdown] [--wide]\n"
    "\n"
    "  runs      one row per run: round, division, submitter, system, benchmark, file, status,\n"
    "            reached (the last evaluation meets the target), tta_s (from run_start to run_stop; DAWNBench:\n"
    "            time of the first epoch at the threshold), epochs (at the first evaluation meeting the\n"
    "            target), accelerators, global_batch_size\n"
    "  entries   one row per entry (submitter's system on a benchmark in a round and division)\n"
    "  systems   one row per system description\n"
    "\n"
    "filters: --round R --division D --submitter S --system Y --benchmark B --entry ID\n"
    "         --accelerator MODEL --framework F --availability A (the system description's)\n"
    "         --accelerators MIN:MAX (MIN: or :MAX: one bound)\n"
    "         a value written /RE/ is a regular expression (PCRE2, case-insensitive, found anywhere in the\n"
    "         value unless anchored): --system '/^dgxa100/', --benchmark '/^(bert|resnet)$/'\n"
    "         a value no entry has is an error naming the nearest ones the database holds\n"
    "--wide   tables print every value whole (else they fit the terminal)\n"
    "--sort COL[,COL]  order every table by these column keys (CSV/JSON names; -COL descending)\n"
    "--top N      then keep its first N rows (every format)\n"
    "Tables show minutes; CSV and JSON carry seconds.\n";

int cmd_ls(const tta_cli *cli, int argc, char **argv) {
    tta_filter f = {0};
    int format = TTA_FORMAT_TABLE;
    const char *what = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(ls_help, stdout);
            return 0;
        }
        tta_error opt_err;
        int r = cli_filter_option(argc, argv, &i, &f, &opt_err);
        if (r == 0) r = cli_format_option(argc, argv, &i, &format, &opt_err);
        if (r < 0) return cli_usage_error("ls", "%s", opt_err.text);
        if (r > 0) continue;
        if (argv[i][0] == '-') return cli_usage_error("ls", "unknown option '%s'", argv[i]);
        if (what) return cli_usage_error("ls", "one of runs, entries or systems, not '%s' too", argv[i]);
        what = argv[i];
    }
    if (!what) return cli_usage_error("ls", "say what to list: runs, entries or systems");
    if (strcmp(what, "runs") && strcmp(what, "entries") && strcmp(what, "systems"))
        return cli_usage_error("ls", "cannot list '%s' (runs, entries, systems)", what);
    sqlite3 *db;
    if (cli_open_db_filtered(cli, "ls", &f, 1, &db)) return 1;
    tta_error err;
    int rc = tta_report_ls(db, what, &f, format, stdout, &err);
    if (rc != TTA_OK) fprintf(stderr, "tta ls: %s\n", err.text);
    tta_db_close(db);
    return tta_exit_status(rc);
}
