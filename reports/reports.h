/* reports.h: the reports module's contract: what `tta ls` and `tta report` print, computed
 * from the database (stats/ does the arithmetic, render.h the writing).
 *
 * Every function reads the database given (through db/'s queries: no SQL here), writes results
 * to out in the requested format and returns 0, or 1 with *err set (malloc'd; the caller frees)
 * when the database cannot be read or the request cannot be met (e.g. an unknown entry, a filter
 * whose regular expression does not compile). A filter's text field may be a regular expression
 * written /PATTERN/ (db.h, tta_filter).
 */
#ifndef TTA_REPORTS_H
#define TTA_REPORTS_H

#include <stdint.h>
#include <stdio.h>

#include "common/error.h"
#include "db/db.h" /* the database handle and the selection of entries, tta_filter */

/* Output formats (render.h's tta_out_format values). */
enum { TTA_FORMAT_TABLE = 0, TTA_FORMAT_CSV = 1, TTA_FORMAT_JSON = 2, TTA_FORMAT_MARKDOWN = 3 };

/* Told that done of total steps of a long report are done (done from 0 to total). Called on the
 * thread that runs the report, between steps; it must be quick (a display rate-limits itself). */
typedef void (*tta_report_progress_fn)(void *ctx, size_t done, size_t total);

/* How a report is written: the table's format, optionally its plot as an SVG file, and what the
 * kinds that need more are given (unused fields: 0 / NULL). */
typedef struct {
    int format;
    const char *svg_path; /* NULL: no plot */
    int runs;             /* energy: the table of runs instead of entries (--runs) */
    const char *operand[2]; /* compare: the two entries; html: the page's path */
    int n_operands;
    const char *rcp_dir;                 /* rcp: --rcp-dir */
    const double *thresholds;            /* threshold: --at, in the stored quality scale */
    size_t n_thresholds;
    int64_t profile_id;                  /* profile: --profile (0: the latest) */
    const char *memory_svg;              /* profile: --memory-svg (NULL: none) */
    const char *generated_at;            /* html: the timestamp printed on the page (it never reads the clock) */
    tta_report_progress_fn progress;     /* html: told how far the page is (NULL: nobody) */
    void *progress_ctx;
} tta_report_options;

/* `tta report KIND`: the reports tta knows, one table of kinds (report_run.c) that both the
 * command and the HTML page read. */

/* Writes the kinds with their help, the "kinds:" block of `tta report --help`. */
void tta_report_help(FILE *out);
/* Operands that follow the kind's name on the command line (compare: 2, html: 1, else 0); -1 when
 * no kind is called name. */
int tta_report_operands(const char *name);
/* Checks that kind exists and that o gives what it needs (its operands, rcp's --rcp-dir,
 * threshold's --at, --runs only with energy), before any database is opened. TTA_OK, else
 * TTA_EUSAGE with err saying what is missing. */
int tta_report_check(const char *kind, const tta_report_options *o, tta_error *err);
/* Runs report kind over the entries of f (NULL: all) in the database: results to out in
 * o->format (html: the page to o->operand[0], nothing to out), plots to o->svg_path, notes on stderr. TTA_OK;
 * TTA_EUSAGE as tta_report_check; else a code with err saying why the database could not be read
 * or the request met (an unknown entry, an unwritable file). */
int tta_report_run(sqlite3 *db, const char *kind, const tta_filter *f, const tta_report_options *o, FILE *out,
                   tta_error *err);

/* `tta ls runs|entries|systems`: one row per run (round, division, submitter, system,
 * benchmark, file, status, reached, tta_s, epochs, accelerators, global_batch_size), per entry
 * (with runs, reached, accelerators, target) or per system description. */
int tta_report_ls(sqlite3 *db, const char *what, const tta_filter *f, int format, FILE *out, char **err);

#endif
