/* energy.h: energy to train of the entries with power logs, shared by `tta report energy`, the
 * HTML page and the variance report (internal to reports/; the arithmetic is stats/energy.c).
 *
 * Ownership: tta_energy_load allocates everything in *d; tta_energy_free releases it.
 */
#ifndef TTA_REPORTS_ENERGY_H
#define TTA_REPORTS_ENERGY_H

#include <stddef.h>

#include "common/buf.h"
#include "reports/dataset.h"
#include "stats/stats.h"

typedef struct {
    const tta_run_data *run;
    size_t files;          /* power logs found for it (node_*.txt and sw_*.txt of power/<result>/) */
    tta_run_energy energy; /* its energy; status NO_NODE_LOG without a node log */
    int succeeded;         /* counts for the score (tta_run_succeeded) */
    int used;              /* averaged by the energy score */
    char *note;            /* malloc'd reasons beyond energy.why ("node_3.txt: no
                              power_measurement_stop ..."); NULL when none */
} tta_energy_run;

typedef struct {
    const tta_entry_data *entry;
    tta_energy_run *runs;          /* entry->n_runs, in the entry's run order */
    tta_energy_score score;        /* energy score (the summarizer's, J) */
    double scaling_factor;         /* scaling.json's (the loader's), 1 when the folder has none */
    double interconnect_measured_j; /* the same mean of the switches' own readings (not in the score);
                                       NAN when a run averaged has none */
} tta_energy_entry;

typedef struct {
    tta_entry_data *entries;  /* the selection, as loaded by tta_entries_load */
    size_t n_entries;
    tta_energy_entry *rows;   /* the entries with power logs, in the loader's order */
    size_t n_rows;
    long *row_of;             /* n_entries: the row of entries[i], -1 when it has no power log */
} tta_energy_data;

/* Loads the entries of f and, for those with power logs, every run's energy and the energy score.
 * A run's logs are found as the summarizer finds them: <folder of result_N.txt>/power/result_N/
 * node_*.txt and sw_*.txt. Returns 0, or 1 with *err (malloc'd) on a database error. */
int tta_energy_load(sqlite3 *db, const tta_filter *f, tta_energy_data *d, char **err);
void tta_energy_free(tta_energy_data *d);

/* The same for entries already loaded (e[0..n) stay the caller's; d->entries is NULL). */
int tta_energy_load_for(sqlite3 *db, const tta_entry_data *e, size_t n, tta_energy_data *d, char **err);

/* The energy section of the HTML page (heading, plot, table) when an entry of f has power logs;
 * nothing otherwise. 0, or 1 with *err. */
int tta_energy_html_section(sqlite3 *db, const tta_filter *f, buf *page, char **err);

#endif
