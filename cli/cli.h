/* cli.h: the command-line layer: global options and one function per command.
 * Commands return the process exit status: 0 success, 1 failure (some input failed),
 * 2 usage error. Results go to stdout; progress and diagnostics to stderr. */
#ifndef TTA_CLI_H
#define TTA_CLI_H

#include "db/reader.h"
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
int cmd_check(const tta_cli *cli, int argc, char **argv);

/* Prints "tta <cmd>: <message>" and the hint to use --help on stderr; returns 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parses a positive integer option value; returns -1 when it is not one. */
long cli_parse_positive(const char *s);
/* Parses --threads's value: a positive integer (*auto_threads = 0), or "auto": this machine's CPU
 * count, *auto_threads = 1 (threads chosen by the load, docs/replay.md). -1 when it is neither. */
long cli_parse_threads(const char *s, int *auto_threads);

/* Parses an accuracy given as a fraction (0.88) or a percentage above 1 (88): the fraction, or
 * NAN when s is not a number in (0, 100]. */
double cli_parse_accuracy(const char *s);

/* If argv[*i] is a filter option (--round, --division, --submitter, --system, --benchmark,
 * --accelerator MODEL, --framework F, --availability A, --accelerators MIN:MAX (either side may be
 * left out: "64:", ":8"), --entry ID), stores it in f, advances *i past its value and returns 1; returns 0 when it
 * is not one, -1 when its value is missing or invalid, with err saying so ("--entry needs an entry id ..."; a text
 * value written /PATTERN/ is a regular expression (db.h, tta_filter): one PCRE2 cannot compile gives "--OPTION:
 * bad regular expression /PATTERN/: <PCRE2's message> at offset N"). *i is not advanced on -1. */
int cli_filter_option(int argc, char **argv, int *i, tta_filter *f, tta_error *err);

/* Likewise for --format table|csv|json|markdown ("--format 'xml': not table, csv, json or
 * markdown" on -1), for --wide (tables on a terminal print every value whole, however wide: sets
 * TTA_WIDE=1 in the environment, read by tta_table_write), --sort COL[,COL] (column keys, "-COL"
 * descending: sets TTA_SORT) and --top N (sets TTA_TOP): tta_table_write orders every table by
 * them and keeps its first N rows, in every format. */
int cli_format_option(int argc, char **argv, int *i, int *format, tta_error *err);

/* Ingests the runs of a batch (their logs and the system description beside them) under round
 * TTA_REPLAY_ROUND, submitter TTA_REPLAY_SUBMITTER (common/replay_log.h; replay_store.c): 0, or 1 with the reason printed as "tta <cmd>: ...". */
int cli_store_replays(const tta_cli *cli, const char *cmd, const tta_replay_batch *b);

/* Ingests a DAWNBench entry file (and its .tsv beside it) and builds a replay SPEC from the
 * entry's description; model (or NULL) replaces its model, data (or NULL) is the data folder
 * (replay_store.c): 0, or 1 with the reason printed as "tta replay: ...". */
int cli_spec_from_entry_file(const tta_cli *cli, const char *path, const char *model, const char *data,
                             tta_replay_spec *spec);

/* Stores one JSON document of `tta profile` in the database: what "peaks" (tta_store_peaks) or
 * "profile" (tta_store_profile, in sweep; *id gets its id, and stderr a line saying it)
 * (replay_store.c): 0, or 1 after a message "tta profile: storing the <what> in <db>: ...". */
int cli_store_profile_json(const tta_cli *cli, const char *what, const char *json, int64_t sweep, int64_t *id);

/* "32,64,128" into b (at most max positive integers up to 2^20): the count, or -1 (options.c). */
int cli_parse_int_list(const char *s, int *b, int max);

/* A replay SPEC from the description of an ingested DAWNBench entry (entry_spec.c): db's
 * lookups into replay's recipe. TTA_OK, or a code with err ("entry N: ...") and nothing in *spec
 * to free. */
int cli_spec_from_entry(sqlite3 *db, int64_t entry, const char *data_dir, tta_replay_spec *spec, tta_error *err);

/* Opens the database read-only for a report, printing the reason on failure (returns 1). */
int cli_open_db_readonly(const tta_cli *cli, const char *cmd, sqlite3 **db);

/* cli_open_db_readonly, then tta_filter_validate of f: a value no entry has is an error printed
 * as "tta <cmd>: no benchmark 'resent'; did you mean resnet?" (returns 1, nothing open); a
 * pattern matching nothing is a note on stderr when say_unmatched (`ls`; the reports say "no
 * entry matches the filters" themselves) and returns 0 with *db open. */
int cli_open_db_filtered(const tta_cli *cli, const char *cmd, const tta_filter *f, int say_unmatched, sqlite3 **db);

#endif
