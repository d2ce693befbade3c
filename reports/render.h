/* render.h: the rendering layer of the reports (internal to reports/): rows and series that are
 * already computed go in, text comes out. Nothing here queries the database, computes a statistic or
 * reads the clock: the same input gives the same bytes. docs/output-formats.md describes the outputs.
 *
 *   tables (table.c): a tta_table (columns with a kind, rows of cells) written for people (a text
 *                     table that fits the terminal, Markdown, an HTML <table> from html.c) and for
 *                     scripts (CSV, JSON): people see minutes, percent and "n/a¹" with footnotes,
 *                     scripts get plain SI numbers, fractions, empty/null and a `note` with reasons;
 *   plots  (svg.c):   standalone SVG 1.1 documents: x-y plots (lines, ± bands, points, linear / log2 /
 *                     log10 axes), strip plots, grouped and stacked bar charts;
 *   pages  (html.c):  one self-contained HTML page (inline CSS, one optional inline script that
 *                     sorts and filters tables, links only to the published results) of headings,
 *                     paragraphs, tables and inline SVG figures.
 *
 * Ownership: a tta_table copies every string it is given; tta_table_free releases it all. A
 * tta_table_display owns its strings until tta_table_display_free. Plot descriptions (tta_xy_plot,
 * ...) only borrow their arrays and strings for the duration of the call. Writers append to a
 * caller-owned buf (common/buf.h) and cannot fail: bad arguments are programming errors (assert),
 * running out of memory exits (common/check.h), and what cannot be shown (a missing value, a point
 * that is not positive on a log axis) is shown as such, never dropped silently.
 */
#ifndef TTA_REPORTS_RENDER_H
#define TTA_REPORTS_RENDER_H

#include <stddef.h>
#include <stdio.h>

#include "common/buf.h"

/* ---- Tables ---------------------------------------------------------------------------------- */

typedef enum {
    TTA_COL_TEXT,    /* left-aligned; shortened in the middle with "…" when the text table is narrow
                        (keeping the end that tells dgxa100_n8_ngc20.06_mxnet from ..._pytorch) */
    TTA_COL_INT,     /* a count, shown rounded to an integer */
    TTA_COL_NUMBER,  /* shown with .decimals */
    TTA_COL_SECONDS, /* stored in seconds, shown as seconds with .decimals */
    TTA_COL_MINUTES, /* stored in seconds, shown in minutes with .decimals */
    TTA_COL_PERCENT, /* stored as a fraction, shown as percent with .decimals */
    TTA_COL_BOOL,    /* shown as yes/no; CSV and JSON true/false */
    TTA_COL_PATH,    /* a file path: people see its last component (shortened in the middle when
                        narrow), scripts all of it */
    TTA_COL_URL,     /* a web address (key "<what>_url"), for scripts only (CSV, JSON); its header is
                        the key of the column whose cell links to it on the HTML page (the first
                        such address wraps the cell's text, a later one follows it as a small link
                        named <what>) */
} tta_col_kind;

/* Who sees a column: everyone, only people (table, Markdown, HTML) or only scripts (CSV, JSON). */
typedef enum { TTA_FOR_ALL = 0, TTA_FOR_PEOPLE, TTA_FOR_SCRIPTS } tta_audience;

typedef struct {
    const char *key;    /* CSV / JSON name, unique, not "note"; say the SI unit: "tta_s" */
    const char *header; /* for people, with the unit the kind shows: "score (min)", "cv (%)" */
    tta_col_kind kind;
    int decimals;       /* digits after the point for NUMBER, SECONDS, MINUTES and PERCENT */
    tta_audience audience;
} tta_column;

typedef enum { TTA_OUT_TABLE, TTA_OUT_CSV, TTA_OUT_JSON, TTA_OUT_MARKDOWN } tta_out_format;

/* Appends s as one CSV field, quoted (quotes doubled) when it holds a comma, a quote, CR or LF:
 * RFC 4180, and also what Python's csv module writes for pandas (QUOTE_MINIMAL), so that the
 * results table's CSV can be diffed with the summarizer's. */
void tta_csv_field(buf *out, const char *s);

/* Parses "table", "csv", "json", "markdown" (or "md"); returns -1 for anything else. */
int tta_out_format_parse(const char *s);

typedef struct tta_table tta_table;

/* A table with copies of the n_cols column definitions and no rows. */
tta_table *tta_table_new(const tta_column *cols, size_t n_cols);
void tta_table_free(tta_table *t);
/* Appends an empty row (every cell missing, no reason) and returns its index. */
size_t tta_table_add_row(tta_table *t);
size_t tta_table_rows(const tta_table *t);
/* The index of t's column keyed key (keys are unique), or -1 when t has none. */
long tta_table_column(const tta_table *t, const char *key);
/* Cell setters; each replaces the cell's previous value. Numbers go in numeric columns (INT,
 * NUMBER, SECONDS, MINUTES, PERCENT), texts in TEXT and PATH columns, booleans in BOOL columns. */
void tta_table_set_number(tta_table *t, size_t row, size_t col, double v); /* NaN, ±inf = missing */
void tta_table_set_text(tta_table *t, size_t row, size_t col, const char *s); /* NULL = missing; TEXT, PATH, URL */
/* The address in row's cell of URL column col, NULL when missing. */
const char *tta_table_url(const tta_table *t, size_t row, size_t col);
size_t tta_table_n_columns(const tta_table *t);
const tta_column *tta_table_column_def(const tta_table *t, size_t col);
void tta_table_set_bool(tta_table *t, size_t row, size_t col, int v);         /* < 0 = missing */
/* Marks a cell missing for a reason ("too few runs (need 5)"; NULL: no reason), shown as "n/a¹"
 * with a footnote and carried in the row's note. */
void tta_table_set_missing(tta_table *t, size_t row, size_t col, const char *reason);
/* Sets a number, or (when v is NaN) marks the cell missing for why ("not computable" if NULL). */
void tta_table_set_number_or(tta_table *t, size_t row, size_t col, double v, const char *why);
/* How a narrow terminal table treats column col (tta_table_render, table format): whole: a TEXT
 * column people must read whole ("0.1–1.4", a range of numbers) is never shortened, like a
 * number; drop_rank 0: always shown; k > 0: the column may be left out when the table cannot fit
 * its width with its text at 8 code points or more, the highest rank first and every column of a
 * rank together (a value and its unit), before names are shortened further. Default: 0, 0. */
void tta_table_set_fit(tta_table *t, size_t col, int whole, int drop_rank);
/* Adds a reason to the row's note without touching a cell; people see it as a footnote marked on
 * the row's first cell. */
void tta_table_add_note(tta_table *t, size_t row, const char *reason);

typedef struct {
    int max_width; /* text table: terminal columns; 0 = 100 */
    int color;     /* text table: bold header, dim "n/a" (ANSI); the CLI decides (isatty, NO_COLOR) */
    int wide;      /* text table: never shorten a value, however wide the table gets (--wide, and
                      any output that is not a terminal); footnotes still wrap at max_width */
} tta_text_options;

/* The text table's width for a terminal: COLUMNS when it is a positive integer, else the
 * terminal's own width (tty_columns, from TIOCGWINSZ; <= 0 unknown), else 100. */
int tta_text_width(const char *columns, int tty_columns);
/* How tta_table_write lays out a table for the stream: a terminal gets its width
 * (tta_text_width of $COLUMNS and its size), colour unless NO_COLOR is set, and shortened values
 * unless TTA_WIDE is set (not empty, not "0": what --wide sets); anything else (a pipe, a file)
 * gets every value whole, footnotes wrapped at 100 columns and no colour. */
tta_text_options tta_text_options_for(FILE *out);

/* Appends the table in the format (o may be NULL: 100 columns, no colour):
 *  table     for people: columns whose text is the same on every row said once above ("round:
 *            v0.7"), header, a rule, right-aligned numbers, "n/a¹" marks, "(no rows)" when empty,
 *            then one line per footnote ("¹ too few runs (need 5)"). Fits max_width code points:
 *            text columns are shortened first (their middle elided with "…", down to 8), then
 *            headers wrap at spaces, then one space parts the columns; if it still does not fit,
 *            columns with a drop_rank are left out (highest first, and a last line counts and names
 *            them: "3 columns hidden at 80 columns: cv ratio, unit, progress (--wide shows every
 *            column)")
 *            and only then is text shortened further (down to 5); numbers and whole text are
 *            never cut, so a table of numbers that cannot fit is printed wider. A shortened
 *            value keeps the words that tell it from the column's other values (each cell's cut
 *            falls where it hides least of them, "modelarts_128…open" beside
 *            "modelarts_1024…pen"), and a shortened column never makes two different values read
 *            the same: else the cut moves off the middle, or the column widens, until they differ. o->wide: nothing is shortened or
 *            left out.
 *  csv       RFC 4180: CRLF line ends, a header row of keys plus "note", fields quoted when they
 *            hold a comma, quote, CR or LF; numbers are plain SI values (the shortest form that
 *            reads back exactly), booleans true/false, missing values empty; "note" holds the
 *            row's distinct reasons joined by "; ".
 *  json      an array of one object per row and line: keys in column order, SI numbers,
 *            true/false, null for missing, and "note" when the row has reasons; "[]" when empty.
 *  markdown  a GitHub table with the cells of the text table (nothing shortened or hoisted),
 *            numbers right-aligned, Markdown punctuation escaped, then the footnotes. */
void tta_table_render(const tta_table *t, tta_out_format fmt, const tta_text_options *o, buf *out);
/* A copy of t with its rows ordered by sort (column keys separated by commas, each ascending, or
 * descending written "-key": "tta_mean_s" or "-accelerators,system"; NULL or "" keeps the order):
 * numbers and booleans by value, text case-insensitively, a missing value after all others in
 * either direction, ties in t's order (stable); then only its first top rows (0: all). The caller
 * frees it. NULL with why ("--sort: no column 'x' in this table (its keys: ...)") when a key names
 * no column of t. */
tta_table *tta_table_ordered(const tta_table *t, const char *sort, size_t top, buf *why);
/* tta_table_render with the default options, written to out; ordered first (tta_table_ordered)
 * when TTA_SORT or TTA_TOP is set (what --sort and --top set), in every format; a sort key the
 * table lacks is said on stderr and the table keeps its order. */
void tta_table_write(const tta_table *t, tta_out_format fmt, FILE *out);

/* How people see a table, shared by the text, Markdown and HTML writers: only the columns for
 * people, headers and cells as clean one-line UTF-8, numbers in the units of their kind. Distinct
 * reasons (of the shown missing cells and of row notes) are numbered 1, 2, ... in row-major order
 * of first use; a missing cell reads "n/a¹", or "n/a" when it has no reason. */
typedef struct {
    size_t n_rows, n_cols;
    const tta_column **col; /* n_cols: the table's column definitions */
    int *whole, *drop_rank; /* n_cols: as tta_table_set_fit set them */
    char **header;          /* n_cols */
    char **cell;            /* n_rows * n_cols, never NULL */
    char **title;           /* n_rows * n_cols: the whole text when people see less of it (a
                               PATH's full path), else NULL */
    int *note_of;           /* n_rows * n_cols: 0 present, -1 missing without reason, k footnote k */
    char **row_mark;        /* n_rows: the marks of the row's own notes ("²³"), "" when none */
    char **note;            /* n_notes reasons; footnote k is note[k - 1] */
    size_t n_notes;
    size_t *tells;          /* n_rows * n_cols * 4, for text and path cells: two spans [a, b) of
                               code points, the words of the cell that tell it from the column's
                               other values (where it parts from the value sharing its longest
                               beginning, and from the one sharing its longest end); 0s when none */
} tta_table_display;

void tta_table_display_init(tta_table_display *d, const tta_table *t);
void tta_table_display_free(tta_table_display *d);
/* Numbers are right-aligned: every kind but TEXT, BOOL and PATH. */
int tta_col_kind_is_numeric(tta_col_kind kind);
/* Appends footnote number k (>= 1) in superscript digits: 12 -> "¹²". */
void tta_superscript(buf *out, int k);

/* Appends the table as an HTML <table> with the cells of the text table (html.c), its footnotes
 * below as a list; missing cells and shortened paths carry the whole text as a tooltip; a column
 * missing on every row without a reason (a cost no MLPerf entry has) is left out. */
void tta_table_html(const tta_table *t, buf *out);

/* Text helpers shared by the writers. */
/* Appends s shortened to width code points by eliding its middle: "dgxa1…_mxnet" (whole when it
 * fits). */
void tta_text_elide(buf *out, const char *s, size_t width);
/* Number of code points in the UTF-8 string s: its width in a terminal, for tta's purposes. */
size_t tta_utf8_width(const char *s);
/* Appends s as one line of valid UTF-8: tab, CR and LF become spaces, other control characters,
 * invalid bytes and non-characters become U+FFFD, so that data cannot drive a terminal or break
 * a format. */
void tta_text_clean(buf *out, const char *s);
/* Appends s for XML or HTML text and attribute values: cleaned as by tta_text_clean (XML 1.0
 * allows no control character) with & < > " ' as entities. */
void tta_xml_escape(buf *out, const char *s);
/* Appends s escaped for HTML, with a line-break opportunity (<wbr>) after each '_' and '/': system
 * names such as dgxa100_n2_ngc20.06_mxnet then wrap between their words, not inside them. */
void tta_html_escape_breakable(buf *out, const char *s);

/* ---- SVG plots --------------------------------------------------------------------------------
 * Each plot function appends one standalone SVG 1.1 document: an <svg> root in the SVG namespace
 * (no XML declaration: UTF-8 is XML's default) of a fixed size (width x height pixels; 0 for
 * 760 x 440, widened for bar charts and strip plots with many categories), with no external
 * resource, no stylesheet and no id (presentation attributes only, so that plots inlined in one
 * HTML page cannot interfere). The layout is title, legend, plot area, axes with "nice" ticks
 * (1, 2, 5 x 10^k; powers of 2 or 10 on log axes), and a note line counting what could not be
 * drawn. Plots draw exactly the numbers they are given: convert to the unit the axis label names
 * before. Marks carry a class saying what they show: point, line, band, hline, bar, segment,
 * mean, value, label. Struct fields keep their order (callers may initialise them by position). */

typedef enum { TTA_AXIS_LINEAR = 0, TTA_AXIS_LOG2, TTA_AXIS_LOG10 } tta_axis_scale;

typedef struct {
    const char *label;    /* with its unit: "time to accuracy (min)" */
    tta_axis_scale scale; /* log axes cannot show values <= 0: such points are counted in a note */
    double min, max;      /* a fixed range when min < max (marks outside are clipped); else the
                             data's range widened to round ticks */
    int include_zero;     /* linear range from the data: stretch it to 0 */
} tta_axis;

/* A horizontal reference line across the plot area, labelled at its right end ("target 75.9"). */
typedef struct {
    double y;
    const char *label; /* NULL: none */
} tta_hline;

typedef enum {
    TTA_MARK_LINE = 0,   /* connect the points in order (a NaN breaks the line) */
    TTA_MARK_POINTS,     /* a dot per point */
    TTA_MARK_LINE_POINTS, /* both; the dots only while points are 8 px apart on average */
} tta_marks;

typedef struct {
    const char *name;          /* legend entry; NULL: none */
    const double *x, *y;       /* n points; a NaN coordinate leaves the point out */
    size_t n;
    const double *err;         /* NULL, or a ± half-width per point, drawn as a shaded band */
    const char *const *labels; /* NULL, or a label per point (NULL entries: none), e.g. layers */
    tta_marks marks;
    int reference;             /* 1: grey and thinner, for ideal lines and roofs */
    int dashed;
    int same_color;            /* 1: the colour of the series before it (another line of one thing) */
} tta_series;

/* Lines and points over two numeric axes. Quality curves: x epochs, y quality, a series per entry
 * (mean with err = std) and the target as an hline. Scaling: log2 axes, accelerators vs speedup,
 * the ideal line as a reference series. Roofline: log10 axes, a reference series per roof
 * (memory bandwidth slope, compute peak) and a POINTS series with a label per layer. */
typedef struct {
    const char *title;
    int width, height;
    tta_axis x, y;
    const tta_series *series;
    size_t n_series;
    const tta_hline *hlines;
    size_t n_hlines;
} tta_xy_plot;

/* Bars per category, one per series side by side (grouped) or stacked: throughput speedup vs TTA
 * speedup per entry, memory by kind per layer. The value axis (y) is linear and includes 0. */
typedef struct {
    const char *title;
    int width, height;
    tta_axis y;
    const char *x_label;             /* NULL: none */
    const char *const *categories;   /* n_categories names along the x axis */
    size_t n_categories;
    const char *const *series_names; /* n_series legend entries */
    size_t n_series;
    const double *values;            /* values[c * n_series + s]; NaN: missing, shown "n/a";
                                        stacked values must be >= 0 */
    int stacked;
    int label_values;                /* write each value (grouped) or each total (stacked) */
    int value_decimals;
    const char *value_suffix;        /* after labelled values, e.g. "×"; NULL: none */
    const tta_hline *hlines;         /* e.g. 1× = no speedup */
    size_t n_hlines;
} tta_bar_plot;

/* A column of dots per category, one per value, jittered sideways deterministically so that equal
 * values stay visible, with the mean marked by a bar: TTA of every run per entry. */
typedef struct {
    const char *name;
    const double *values; /* n values; NaN ones are counted in a note, not drawn */
    size_t n;
} tta_strip_group;

typedef struct {
    const char *title;
    int width, height;
    tta_axis y;
    const char *x_label;    /* NULL: none */
    const char *value_name; /* what a dot is, for the legend ("run"); NULL: "value" */
    const tta_strip_group *groups;
    size_t n_groups;
    const tta_hline *hlines;
    size_t n_hlines;
} tta_strip_plot;

void tta_svg_xy(buf *out, const tta_xy_plot *p);
/* tta_svg_xy with a category x axis: category i at x = i, n_categories evenly spaced ticks labelled
 * with these names (each cut to its spacing, whole in a tooltip); p->x gives only the axis label.
 * Rounds in time order against a score. */
void tta_svg_xy_categories(buf *out, const tta_xy_plot *p, const char *const *categories, size_t n_categories);
void tta_svg_bars(buf *out, const tta_bar_plot *p);
void tta_svg_strip(buf *out, const tta_strip_plot *p);

/* ---- HTML page -------------------------------------------------------------------------------
 * A page is appended in order: tta_html_begin, any headings, paragraphs, tables and figures, then
 * tta_html_end. It needs no script (tta_html_end adds one, optional, that sorts and filters tables,
 * allowed by its hash alone) and names no URL but where entries are published (its links are to its
 * own sections, to files beside it and, from tables' TTA_COL_URL columns, to the published results);
 * it prints on paper as it shows on screen. */

/* Doctype, head with the inline stylesheet, <h1>title</h1> and "Generated <generated_at>": the
 * caller's timestamp ("2024-05-01 12:00 UTC"); the page never reads the clock. */
void tta_html_begin(buf *out, const char *title, const char *generated_at);
/* A section heading, <h2>, whose id is the text's anchor (ASCII letters and digits lowercased,
 * other runs of characters '-': "Results table: v0.7" -> id="results-table-v0-7"). */
void tta_html_heading(buf *out, const char *text);
void tta_html_heading_id(buf *out, const char *id, const char *text); /* <h2 id="id"> */
void tta_html_subheading(buf *out, const char *text);                 /* <h3>, inside a section */
/* A folded block (<details>, closed) whose summary line is summary; what follows until
 * tta_html_details_end shows when it is opened (a long table). */
void tta_html_details_begin(buf *out, const char *summary);
void tta_html_details_end(buf *out);
/* A paragraph "<before><a href=HREF>text</a><after>": a link to a file beside the page (a CSV of a
 * long table, a round's page); before and after may be NULL. */
void tta_html_link_paragraph(buf *out, const char *before, const char *href, const char *text, const char *after);
/* Inserts at offset at of the page a table of contents: a link to every <h2 id="..."> after at, in
 * page order; nothing when there are fewer than two. */
void tta_html_toc(buf *page, size_t at);
void tta_html_paragraph(buf *out, const char *text); /* plain text, escaped */
/* The names of a table's columns for a phone, which shows each row as a card of its cells, each
 * after its column's name: appends (unless out holds it already) a <style> whose rules, at a
 * phone's width only, put "headers[K-1]:" before the Kth cell of each row of a table of class cls,
 * and writes cls: "c" and 12 hex digits of the headings' hash (tables of the same headings share
 * one class and one <style>). The page's tables and the results tables call it. */
void tta_html_cell_labels(buf *out, const char *const *headers, size_t n, char cls[14]);
/* tta_table_html with a caption above (NULL: none), and its columns' names for a phone
 * (tta_html_cell_labels). */
void tta_html_table(buf *out, const tta_table *t, const char *caption);
/* tta_html_table whose rows are link targets: a row whose column keyed anchor_key holds a number
 * N gets id="<prefix>N" (the variance table's rows are "entry-N", which the results tables link
 * to). The column must be for people and hold each value once. */
void tta_html_table_anchored(buf *out, const tta_table *t, const char *caption, const char *anchor_key,
                             const char *prefix);
/* A table in a section of the page that fixes some columns' values (one benchmark's section of
 * one round's page): tta_html_table_anchored (anchor_key NULL: tta_html_table) without the columns
 * keyed as one of fixed (NULL-terminated) that hold one value on every row. */
void tta_html_table_in_section(buf *out, const tta_table *t, const char *anchor_key, const char *prefix,
                               const char *const *fixed);
/* An SVG document from a tta_svg_* function in a <figure> with a caption below (NULL: none). */
void tta_html_figure(buf *out, const char *svg, const char *caption);
void tta_html_end(buf *out);

/* Writes b to path (replacing it): a plot or a page. 0, or 1 with *err ("PATH: cannot write:
 * reason", malloc'd). */
int tta_write_file(const char *path, const buf *b, char **err);

#endif
