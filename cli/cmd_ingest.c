/* cmd_ingest.c: `tta ingest [--jobs N] [--format text|json] PATH...` */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/progress.h"
#include "ingest/ingest.h"

static const char ingest_help[] =
    "usage: tta ingest [--jobs N] [--format text|json] [--quiet] [--verbose] PATH...\n"
    "\n"
    "Reads every MLPerf Training log (:::MLPv0.5.0, :::MLL, :::MLLOG), DAWNBench entry (JSON + TSV),\n"
    "system description and power log under each PATH (files or folders, recursively) into the\n"
    "database. Files are recognised by content; anything else is skipped. In a results tree, only\n"
    "what the official tools read is read: logs under <submitter>/benchmarks/ (sample logs), in\n"
    "subfolders of a results/<system>/<benchmark>/ folder other than power/ (raw_logs/: copies)\n"
    "and, from v1.0 on, logs there not named result_*.txt are skipped and counted (a file given as\n"
    "a PATH is always read). Unchanged files (same\n"
    "content hash) are skipped; changed files replace what they gave before. Each file is stored\n"
    "whole or not at all. A malformed file is reported as <path>:<line>: <reason> and recorded. Files\n"
    "skipped are counted by reason (empty, binary, text without a log's records, where they lie); a\n"
    "file given itself, and with --verbose every file, gets <path>: skipped: <reason>. Files an\n"
    "earlier ingest stored under a folder given that are no longer there lose their runs.\n"
    "\n"
    "  --jobs N        parser threads (default: the number of CPUs)\n"
    "  --format text   summary on stderr (default); json: one object on stdout with files,\n"
    "                  ingested, unchanged, failed, skipped, not_results (code_folder, subfolder,\n"
    "                  not_result, removed), not_logs (empty, binary, text), vanished, runs,\n"
    "                  events, bytes, seconds\n"
    "  --quiet         no per-file error lines and no progress line\n"
    "  --verbose       name every file skipped and every file removed, with the reason\n"
    "\n"
    "On a terminal, one line on stderr shows the progress (files done/walked, MB, runs, MB/s) and is\n"
    "erased before the summary; not when stderr is not a terminal, NO_COLOR is set or with --quiet.\n"
    "\n"
    "Exit status: 0 no file failed, 1 some failed (the others are stored), 2 usage error.\n";

/* The ingest's progress on the live line (progress.h): "ingest: 312/1023 files, 120.4 MB, 85 runs,
 * 240 MB/s"; erased before a diagnostic line. Called on the writer thread (ingest.h). */
static void show_ingest_progress(void *ctx, const tta_ingest_progress *p, int event) {
    cli_progress *display = ctx;
    if (event == TTA_INGEST_PROGRESS_DIAG) {
        cli_progress_clear(display);
        return;
    }
    if (!cli_progress_due(display, p->files_done == p->files_total)) return;
    double mb = p->bytes / 1e6;
    cli_progress_update(display, 1, "ingest: %zu/%zu files, %.1f MB, %lld runs, %.0f MB/s", p->files_done,
                        p->files_total, mb, (long long)p->runs, p->seconds > 0 ? mb / p->seconds : 0.0);
}

int cmd_ingest(const tta_cli *cli, int argc, char **argv) {
    tta_ingest_options opts = {0};
    int json = 0;
    const char **paths = calloc((size_t)argc, sizeof *paths);
    int n_paths = 0;
    if (!paths) return 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(ingest_help, stdout);
            free(paths);
            return 0;
        } else if (strcmp(a, "--jobs") == 0 || strcmp(a, "-j") == 0) {
            long v = i + 1 < argc ? cli_parse_positive(argv[i + 1]) : -1;
            if (v < 0) {
                free(paths);
                return cli_usage_error("ingest", "--jobs needs a positive number");
            }
            opts.jobs = (int)v;
            i++;
        } else if (strcmp(a, "--format") == 0) {
            const char *f = i + 1 < argc ? argv[++i] : "";
            if (strcmp(f, "json") == 0)
                json = 1;
            else if (strcmp(f, "text") == 0)
                json = 0;
            else {
                free(paths);
                return cli_usage_error("ingest", "--format must be text or json, not '%s'", f);
            }
        } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            opts.quiet = 1;
        } else if (strcmp(a, "--verbose") == 0 || strcmp(a, "-v") == 0) {
            opts.verbose = 1;
        } else if (strcmp(a, "--") == 0) {
            for (i++; i < argc; i++) paths[n_paths++] = argv[i];
        } else if (a[0] == '-' && a[1]) {
            free(paths);
            return cli_usage_error("ingest", "unknown option '%s'", a);
        } else {
            paths[n_paths++] = a;
        }
    }
    if (n_paths == 0) {
        free(paths);
        return cli_usage_error("ingest", "no PATH given");
    }
    /* A file's bytes and what it parses into (hundreds of KB, allocated by a parser thread, freed
     * by the writer) would each be a fresh mmap under glibc's defaults, faulted in and zeroed
     * page by page; kept on the heap they are reused. What is in flight stays bounded by the
     * parsers' queue (ingest.c), so the heap does too. */
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    sqlite3 *db = NULL;
    tta_error err;
    if (tta_db_open(cli->db_path, &db, &err) != TTA_OK) {
        fprintf(stderr, "tta ingest: %s\n", err.text);
        free(paths);
        return 1;
    }
    /* A live line while it works, on a terminal only (progress.h), erased before the summary. */
    cli_progress display;
    cli_progress_start(&display, stderr, opts.quiet, 0);
    if (display.enabled) {
        opts.progress = show_ingest_progress;
        opts.progress_ctx = &display;
    }
    tta_ingest_stats st;
    int rc = tta_ingest_paths(db, paths, n_paths, &opts, &st, stderr, &err);
    cli_progress_finish(&display);
    free(paths);
    tta_db_close(db);
    /* The database failed: the ingest stopped. Any other problem (on stderr already, file by
     * file) left the rest stored: the summary, then exit status 1. */
    if (rc == TTA_EDB) {
        fprintf(stderr, "tta ingest: %s\n", err.text);
        return tta_exit_status(rc);
    }
    tta_ingest_write_summary(&st, json, stdout, stderr);
    return tta_exit_status(rc);
}
