/* dataset.h: the entries and runs of a selection as the reports use them (internal to reports/).
 * db/ loads them (db.h: tta_entry_data, tta_db_entries); this adds the reports' conveniences.
 *
 * Ownership: tta_entries_load's entries are freed with tta_entries_free (db.h).
 */
#ifndef TTA_REPORTS_DATASET_H
#define TTA_REPORTS_DATASET_H

#include <stddef.h>
#include <stdint.h>

#include "db/reader.h"
#include "reports/reports.h"
#include "stats/stats.h"

/* tta_db_entries with the reports' error convention: 0, or 1 with *err set (malloc'd). */
int tta_entries_load(sqlite3 *db, const tta_filter *f, int with_curves, tta_entry_data **out, size_t *n,
                     char **err);

/* Sets *err (when err is not NULL) to a malloc'd copy of e's text; returns 1, a report's failure. */
int tta_report_fail(const tta_error *e, char **err);


#endif
