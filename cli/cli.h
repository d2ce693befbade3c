/* cli.h: the command-line layer: global options and one function per command.
 * Commands return the process exit status: 0 success, 1 failure (some input failed),
 * 2 usage error. Results go to stdout; progress and diagnostics to stderr. */
#ifndef TTA_CLI_H
#define TTA_CLI_H

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

#endif
