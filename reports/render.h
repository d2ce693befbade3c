/* render.h: tables of results and how they are written (internal to reports/).
 *
 * A report builds a tta_table (columns with a kind, rows of cells) and writes it in one of
 * four formats: a table for people (fits 100 columns, units in headers, seconds shown as
 * minutes and fractions as percent where the column says so, "n/a" with numbered reasons),
 * CSV and JSON for scripts (plain SI numbers and fractions, missing = empty / null, a `note`
 * carrying the reasons), and Markdown.
 *
 * Ownership: the table copies every string it is given; tta_table_free releases it all.
 */
#ifndef TTA_REPORTS_RENDER_H
#define TTA_REPORTS_RENDER_H

#include <stddef.h>
#include <stdio.h>

#include "common/buf.h"

typedef enum {
    TTA_COL_TEXT,
    TTA_COL_INT,
    TTA_COL_NUMBER,          /* shown with .decimals */
    TTA_COL_SECONDS,         /* stored in seconds, shown as seconds with .decimals */
    TTA_COL_MINUTES,         /* stored in seconds, shown in minutes with .decimals */
    TTA_COL_PERCENT,         /* stored as a fraction, shown as percent with .decimals */
    TTA_COL_BOOL,            /* shown as yes/no; JSON true/false */
    TTA_COL_PATH,            /* a file path: people see its last component, scripts all of it */
} tta_col_kind;

/* Who sees a column: everyone, only people (table, Markdown, HTML) or only scripts (CSV, JSON). */
typedef enum { TTA_FOR_ALL = 0, TTA_FOR_PEOPLE, TTA_FOR_SCRIPTS } tta_audience;

typedef struct {
    const char *key;    /* CSV / JSON name */
    const char *header; /* for people, with the unit: "score (min)" */
    tta_col_kind kind;
    int decimals;
    tta_audience audience;
} tta_column;

typedef enum { TTA_OUT_TABLE, TTA_OUT_CSV, TTA_OUT_JSON, TTA_OUT_MARKDOWN } tta_out_format;

/* Parses "table", "csv", "json", "markdown"; returns -1 for anything else. */
int tta_out_format_parse(const char *s);

typedef struct tta_table tta_table;

tta_table *tta_table_new(const tta_column *cols, size_t n_cols);
void tta_table_free(tta_table *t);
/* Appends an empty row (every cell missing, no reason) and returns its index. */
size_t tta_table_add_row(tta_table *t);
size_t tta_table_rows(const tta_table *t);
/* Cell setters; a NaN number is stored as missing. */
void tta_table_set_number(tta_table *t, size_t row, size_t col, double v);
void tta_table_set_text(tta_table *t, size_t row, size_t col, const char *s); /* NULL = missing */
void tta_table_set_bool(tta_table *t, size_t row, size_t col, int v);         /* < 0 = missing */
/* Marks a cell missing for a reason ("too few runs (need 5)"), shown as n/a with a footnote
 * and carried in the row's note. */
void tta_table_set_missing(tta_table *t, size_t row, size_t col, const char *reason);
/* Adds a reason to the row's note without touching a cell. */
void tta_table_add_note(tta_table *t, size_t row, const char *reason);

/* Writes the table in the format to out. */
void tta_table_write(const tta_table *t, tta_out_format fmt, FILE *out);
/* Appends the table as an HTML <table> (same display rules as the people table). */
void tta_table_html(const tta_table *t, buf *out);
/* Appends s with HTML/XML special characters escaped. */
void tta_xml_escape(buf *out, const char *s);

#endif
