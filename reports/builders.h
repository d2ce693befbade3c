/* builders.h: each report as a table (and a plot) built from loaded entries, shared by the
 * `tta report KIND` commands and the HTML page (internal to reports/).
 *
 * Ownership: tables come from tta_table_new (free with tta_table_free); plots are appended to
 * the caller's buffer. Entries must have been loaded with curves for the curve builders. */
#ifndef TTA_REPORTS_BUILDERS_H
#define TTA_REPORTS_BUILDERS_H

#include "common/buf.h"
#include "reports/dataset.h"
#include "reports/render.h"

tta_table *tta_variance_table(const tta_entry_data *e, size_t n);
tta_table *tta_speedup_table(const tta_entry_data *e, size_t n);
tta_table *tta_scaling_table(const tta_entry_data *e, size_t n);
tta_table *tta_curves_table(const tta_entry_data *e, size_t n);

/* TTA of every run as a strip plot, one column per entry (minutes). */
void tta_variance_plot(const tta_entry_data *e, size_t n, buf *svg);
/* Throughput speedup against TTA speedup, grouped bars per pair. */
void tta_speedup_plot(const tta_entry_data *e, size_t n, buf *svg);
/* Speedup of time per epoch and of TTA against accelerators (log2 axes) per series, with the
 * ideal (linear) line. */
void tta_scaling_plot(const tta_entry_data *e, size_t n, buf *svg);
/* Quality per epoch: mean with a ± std band per entry, and the target line. */
void tta_curves_plot(const tta_entry_data *e, size_t n, buf *svg);

/* Loads the entries of f (with curves when needed) and runs one of the builders above; the
 * common shape of the table reports. Returns 0, or 1 with *err set. */
typedef tta_table *(*tta_table_builder)(const tta_entry_data *, size_t);
typedef void (*tta_plot_builder)(const tta_entry_data *, size_t, buf *);
int tta_run_table_report(sqlite3 *db, const tta_filter *f, int with_curves, tta_table_builder table,
                         tta_plot_builder plot, int format, FILE *out, const char *svg_path, char **err);
/* The same with finish (NULL: none) called on the built table before it is written, for cells
 * that need the database (the variance report's energy). finish returns 0, or 1 with *err. */
typedef int (*tta_table_finisher)(sqlite3 *, const tta_entry_data *, size_t, tta_table *, char **);
int tta_run_table_report_finished(sqlite3 *db, const tta_filter *f, int with_curves, tta_table_builder table,
                                  tta_table_finisher finish, tta_plot_builder plot, int format, FILE *out,
                                  const char *svg_path, char **err);

/* Writes b to path (replacing it): a plot or a page. 0, or 1 with *err ("PATH: cannot write:
 * reason", malloc'd). */
int tta_write_file(const char *path, const buf *b, char **err);

/* The latest profile's section of the HTML page (heading, roofline, memory plot, tables);
 * nothing when no profile is stored. 0, or 1 with *err. */
int tta_profile_html_section(sqlite3 *db, buf *page, char **err);

/* The trend report's section of the HTML page (heading, a plot per benchmark, the table) over every
 * round of the database: f's round does not apply (trend.c). 0, or 1 with *err. */
int tta_trend_html_section(sqlite3 *db, const tta_filter *f, buf *page, char **err);

/* The comm report's section of the HTML page (heading, stacked bars, table) for the entries of f
 * with a time breakdown (comm.c); nothing when none has one. 0, or 1 with *err. */
int tta_comm_html_section(sqlite3 *db, const tta_filter *f, buf *page, char **err);

/* The results tables of the rounds of f (`tta report summary`, results_table.c), inserted into page
 * at offset at (the page's top, so that it comes first); their entry ids link to the page's
 * id="entry-<id>" anchors where it has them. Nothing when f selects no entry. 0, or 1 with *err. */
int tta_summary_html_section(sqlite3 *db, const tta_filter *f, buf *page, size_t at, char **err);

#endif
