/* cli.h: the command-line layer: global options and one function per command.
 * Commands return the process exit status: 0 success, 1 failure (some input failed),
 * 2 usage error. Results go to stdout; progress and diagnostics to stderr. */
#ifndef TTA_CLI_H
#define TTA_CLI_H

#include "db/db.h"
#include "ingest/ingest.h"
#include "replay/replay.h"
#include "reports/reports.h"

typedef struct {
    const char *db_path; /* --db, else $TTA_DB, else "tta.db" */
    const char *argv0;
} tta_cli;

int cmd_ingest(const tta_cli *cli, int argc, char **argv);
int cmd_ls(const tta_cli *cli, int argc, char **argv);
int cmd_report(const tta_cli *cli, int argc, char **argv);
int cmd_replay(const tta_cli *cli, int argc, char **argv);
int cmd_verify(const tta_cli *cli, int argc, char **argv);
int cmd_profile(const tta_cli *cli, int argc, char **argv);

/* Prints "tta <cmd>: <message>" and the hint to use --help on stderr; returns 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parses a positive integer option value; returns -1 when it is not one. */
long cli_parse_positive(const char *s);

/* If argv[*i] is a filter option (--round, --division, --submitter, --system, --benchmark,
 * --entry ID), stores it in f, advances *i past its value and returns 1; returns 0 when it is
 * not one, -1 when its value is missing or invalid. A text value written /PATTERN/ is a regular
 * expression (db.h, tta_filter): one PCRE2 cannot compile gives -1 with err set to "--OPTION: bad
 * regular expression /PATTERN/: <PCRE2's message> at offset N" (err untouched otherwise). */
int cli_filter_option(int argc, char **argv, int *i, tta_filter *f, tta_error *err);

/* Likewise for --format table|csv|json|markdown, and for --wide (tables on a terminal print
 * every value whole, however wide: sets TTA_WIDE=1 in the environment, read by tta_table_write). */
int cli_format_option(int argc, char **argv, int *i, int *format);

/* Ingests replay logs (res[0..done)) with their system description under round "local", submitter
 * "replay" (cmd_replay.c): 0, or 1 with the reason printed as "tta <cmd>: ...". */
int cli_store_replays(const tta_cli *cli, const char *cmd, const char *log_dir, const char *system,
                      const char *device, int workers, int threads, const tta_replay_result *res, int done);

/* A replay SPEC from the description of an ingested DAWNBench entry (entry_spec.c): db's
 * lookups into replay's recipe. TTA_OK, or a code with err ("entry N: ...") and nothing in *spec
 * to free. */
int cli_spec_from_entry(sqlite3 *db, int64_t entry, const char *data_dir, tta_replay_spec *spec, tta_error *err);

/* Opens the database read-only for a report, printing the reason on failure (returns 1). */
int cli_open_db_readonly(const tta_cli *cli, const char *cmd, sqlite3 **db);

#endif
