/* table.c: the table model and its writers (see render.h). */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "reports/render.h"

enum { CELL_MISSING, CELL_NUMBER, CELL_TEXT, CELL_BOOL };

typedef struct {
    int type;
    double number;
    char *text;   /* CELL_TEXT */
    int reason;   /* 1-based index into the table's reasons; 0 none */
} cell;

struct tta_table {
    tta_column *cols;
    size_t n_cols;
    cell *cells; /* n_rows * n_cols */
    size_t n_rows, cap_rows;
    char **notes; /* per row, "; "-joined reasons, NULL when none */
    char **reasons; /* distinct reasons, numbered for footnotes */
    size_t n_reasons, cap_reasons;
};

#define TABLE_WIDTH 100

int tta_out_format_parse(const char *s) {
    if (!s) return -1;
    if (!strcmp(s, "table")) return TTA_OUT_TABLE;
    if (!strcmp(s, "csv")) return TTA_OUT_CSV;
    if (!strcmp(s, "json")) return TTA_OUT_JSON;
    if (!strcmp(s, "markdown") || !strcmp(s, "md")) return TTA_OUT_MARKDOWN;
    return -1;
}

tta_table *tta_table_new(const tta_column *cols, size_t n_cols) {
    tta_table *t = callocCheck(1, sizeof *t);
    t->cols = mallocCheck(n_cols * sizeof *t->cols);
    memcpy(t->cols, cols, n_cols * sizeof *cols);
    t->n_cols = n_cols;
    return t;
}

void tta_table_free(tta_table *t) {
    if (!t) return;
    for (size_t i = 0; i < t->n_rows * t->n_cols; i++) free(t->cells[i].text);
    for (size_t i = 0; i < t->n_rows; i++) free(t->notes[i]);
    for (size_t i = 0; i < t->n_reasons; i++) free(t->reasons[i]);
    free(t->cells);
    free(t->notes);
    free(t->reasons);
    free(t->cols);
    free(t);
}

size_t tta_table_add_row(tta_table *t) {
    if (t->n_rows == t->cap_rows) {
        size_t cap = t->cap_rows ? t->cap_rows * 2 : 16;
        t->cells = reallocCheck(t->cells, cap * t->n_cols * sizeof *t->cells);
        t->notes = reallocCheck(t->notes, cap * sizeof *t->notes);
        t->cap_rows = cap;
    }
    memset(&t->cells[t->n_rows * t->n_cols], 0, t->n_cols * sizeof *t->cells);
    t->notes[t->n_rows] = NULL;
    return t->n_rows++;
}

size_t tta_table_rows(const tta_table *t) { return t->n_rows; }

static cell *at(tta_table *t, size_t row, size_t col) {
    assert(row < t->n_rows && col < t->n_cols);
    cell *c = &t->cells[row * t->n_cols + col];
    free(c->text);
    memset(c, 0, sizeof *c);
    return c;
}

void tta_table_set_number(tta_table *t, size_t row, size_t col, double v) {
    cell *c = at(t, row, col);
    if (isfinite(v)) {
        c->type = CELL_NUMBER;
        c->number = v;
    }
}

void tta_table_set_text(tta_table *t, size_t row, size_t col, const char *s) {
    cell *c = at(t, row, col);
    if (s) {
        c->type = CELL_TEXT;
        c->text = strdupCheck(s);
    }
}

void tta_table_set_bool(tta_table *t, size_t row, size_t col, int v) {
    cell *c = at(t, row, col);
    if (v >= 0) {
        c->type = CELL_BOOL;
        c->number = v != 0;
    }
}

static int reason_index(tta_table *t, const char *reason) {
    for (size_t i = 0; i < t->n_reasons; i++)
        if (!strcmp(t->reasons[i], reason)) return (int)i + 1;
    growArray(t->reasons, &t->cap_reasons, t->n_reasons + 1);
    t->reasons[t->n_reasons++] = strdupCheck(reason);
    return (int)t->n_reasons;
}

void tta_table_add_note(tta_table *t, size_t row, const char *reason) {
    assert(row < t->n_rows);
    char *old = t->notes[row];
    if (old && strstr(old, reason)) return;
    buf b = {0};
    if (old) {
        buf_puts(&b, old);
        buf_puts(&b, "; ");
    }
    buf_puts(&b, reason);
    free(old);
    t->notes[row] = buf_take(&b);
}

void tta_table_set_missing(tta_table *t, size_t row, size_t col, const char *reason) {
    cell *c = at(t, row, col);
    if (reason) {
        c->reason = reason_index(t, reason);
        tta_table_add_note(t, row, reason);
    }
}

/* ---- display ---- */

/* The cell as people read it (units per the column kind); writes into out. */
static void display(const tta_column *col, const cell *c, buf *out) {
    switch (c->type) {
    case CELL_MISSING:
        buf_puts(out, "n/a");
        if (c->reason) buf_printf(out, "[%d]", c->reason);
        return;
    case CELL_TEXT:
        if (col->kind == TTA_COL_PATH && strrchr(c->text, '/')) buf_puts(out, strrchr(c->text, '/') + 1);
        else buf_puts(out, c->text);
        return;
    case CELL_BOOL:
        buf_puts(out, c->number ? "yes" : "no");
        return;
    }
    double v = c->number;
    switch (col->kind) {
    case TTA_COL_INT: buf_printf(out, "%.0f", v); break;
    case TTA_COL_MINUTES: buf_printf(out, "%.*f", col->decimals, v / 60.0); break;
    case TTA_COL_PERCENT: buf_printf(out, "%.*f", col->decimals, v * 100.0); break;
    default: buf_printf(out, "%.*f", col->decimals, v); break;
    }
}

/* Display width in code points (UTF-8 continuation bytes do not count). */
static size_t text_width(const char *s) {
    size_t w = 0;
    for (; *s; s++) w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

/* Appends s cut to width code points, with "…" when cut. */
static void put_cut(buf *out, const char *s, size_t width) {
    size_t w = text_width(s);
    if (w <= width) {
        buf_puts(out, s);
        return;
    }
    size_t keep = width ? width - 1 : 0, n = 0;
    const char *p = s;
    while (*p && n < keep) {
        p++;
        while (((unsigned char)*p & 0xC0) == 0x80) p++;
        n++;
    }
    buf_append(out, s, (size_t)(p - s));
    if (width) buf_puts(out, "\xE2\x80\xA6");
}

static int right_aligned(const tta_column *c) {
    return c->kind != TTA_COL_TEXT && c->kind != TTA_COL_BOOL && c->kind != TTA_COL_PATH;
}

/* 1 when every row shows the same text in text column j (it is then said once, above). */
static int column_is_constant(const tta_table *t, char **text, size_t j) {
    if (t->n_rows < 2 || right_aligned(&t->cols[j])) return 0;
    for (size_t i = 1; i < t->n_rows; i++)
        if (strcmp(text[i * t->n_cols + j], text[j]) != 0) return 0;
    return 1;
}

static void pad(buf *line, size_t n) {
    for (size_t k = 0; k < n; k++) buf_putc(line, ' ');
}

/* One cell of a people table: aligned, cut to width, separated from the previous one. */
static void put_cell(buf *line, const tta_column *col, const char *s, size_t width, int first, int last,
                     int markdown) {
    size_t w = text_width(s) < width ? text_width(s) : width;
    if (markdown) buf_putc(line, ' ');
    else if (!first) buf_puts(line, "  ");
    if (right_aligned(col)) pad(line, width - w);
    put_cut(line, s, width);
    if (!right_aligned(col) && (markdown || !last)) pad(line, width - w);
    if (markdown) buf_puts(line, " |");
}

static void write_people(const tta_table *t, FILE *out, int markdown) {
    size_t nc = t->n_cols;
    char **text = callocCheck(t->n_rows * nc + 1, sizeof *text);
    size_t *width = callocCheck(nc, sizeof *width);
    int *shown = callocCheck(nc, sizeof *shown);
    for (size_t i = 0; i < t->n_rows; i++)
        for (size_t j = 0; j < nc; j++) {
            buf b = {0};
            display(&t->cols[j], &t->cells[i * nc + j], &b);
            text[i * nc + j] = buf_take(&b);
        }
    /* Columns with one value in every row are said once above the table. */
    buf line = {0};
    for (size_t j = 0; j < nc; j++) {
        shown[j] = t->cols[j].audience != TTA_FOR_SCRIPTS && (markdown || !column_is_constant(t, text, j));
        if (!shown[j] && t->cols[j].audience != TTA_FOR_SCRIPTS)
            buf_printf(&line, "%s%s: %s", line.len ? "  " : "", t->cols[j].header, text[j]);
    }
    if (line.len) fprintf(out, "%s\n\n", buf_str(&line));
    size_t first = nc, last = 0;
    for (size_t j = 0; j < nc; j++) {
        if (!shown[j]) continue;
        if (first == nc) first = j;
        last = j;
        width[j] = text_width(t->cols[j].header);
        for (size_t i = 0; i < t->n_rows; i++) {
            size_t w = text_width(text[i * nc + j]);
            if (w > width[j]) width[j] = w;
        }
    }
    if (!markdown && t->n_rows == 1) {
        /* One row too wide for the page: show it as "header  value" lines instead. */
        size_t total = 0, hw = 0;
        for (size_t j = 0; j < nc; j++)
            if (shown[j]) {
                total += width[j] + (j != first ? 2 : 0);
                if (text_width(t->cols[j].header) > hw) hw = text_width(t->cols[j].header);
            }
        if (total > TABLE_WIDTH) {
            for (size_t j = 0; j < nc; j++) {
                if (t->cols[j].audience == TTA_FOR_SCRIPTS) continue;
                fprintf(out, "%s", t->cols[j].header);
                for (size_t k = text_width(t->cols[j].header); k < hw + 2; k++) fputc(' ', out);
                fprintf(out, "%s\n", text[j]);
            }
            if (t->notes[0]) fprintf(out, "%-*s%s\n", (int)hw + 2, "note", t->notes[0]);
            for (size_t r = 0; r < t->n_reasons; r++) fprintf(out, "%s[%zu] %s\n", r ? "" : "\n", r + 1, t->reasons[r]);
            buf_free(&line);
            for (size_t i = 0; i < t->n_rows * nc; i++) free(text[i]);
            free(text);
            free(width);
            free(shown);
            return;
        }
    }
    if (!markdown) {
        /* Fit the page: narrow the widest text column, one character at a time, never below 8. */
        for (;;) {
            size_t total = 0;
            for (size_t j = 0; j < nc; j++)
                if (shown[j]) total += width[j] + (j != first ? 2 : 0);
            if (total <= TABLE_WIDTH) break;
            size_t widest = nc;
            for (size_t j = 0; j < nc; j++)
                if (shown[j] && !right_aligned(&t->cols[j]) && width[j] > 8 &&
                    (widest == nc || width[j] > width[widest]))
                    widest = j;
            if (widest == nc) break; /* only numbers left: they are never cut */
            width[widest]--;
        }
    }
    buf_clear(&line);
    if (markdown) buf_puts(&line, "|");
    for (size_t j = 0; j < nc; j++)
        if (shown[j]) put_cell(&line, &t->cols[j], t->cols[j].header, width[j], j == first, j == last, markdown);
    fprintf(out, "%s\n", buf_str(&line));
    buf_clear(&line);
    if (markdown) buf_puts(&line, "|");
    for (size_t j = 0; j < nc; j++) {
        if (!shown[j]) continue;
        if (markdown) {
            buf_putc(&line, ' ');
            for (size_t k = 0; k + 1 < width[j]; k++) buf_putc(&line, '-');
            buf_puts(&line, right_aligned(&t->cols[j]) ? ": |" : "- |");
        } else {
            if (j != first) buf_puts(&line, "  ");
            for (size_t k = 0; k < width[j]; k++) buf_putc(&line, '-');
        }
    }
    fprintf(out, "%s\n", buf_str(&line));
    for (size_t i = 0; i < t->n_rows; i++) {
        buf_clear(&line);
        if (markdown) buf_puts(&line, "|");
        for (size_t j = 0; j < nc; j++)
            if (shown[j]) put_cell(&line, &t->cols[j], text[i * nc + j], width[j], j == first, j == last, markdown);
        while (line.len && line.data[line.len - 1] == ' ') line.data[--line.len] = '\0';
        fprintf(out, "%s\n", buf_str(&line));
    }
    if (t->n_rows == 0) fprintf(out, "(no rows)\n");
    for (size_t r = 0; r < t->n_reasons; r++) fprintf(out, "%s[%zu] %s\n", r ? "" : "\n", r + 1, t->reasons[r]);
    buf_free(&line);
    for (size_t i = 0; i < t->n_rows * nc; i++) free(text[i]);
    free(text);
    free(width);
    free(shown);
}

static void csv_field(FILE *out, const char *s) {
    if (strpbrk(s, ",\"\n\r")) {
        fputc('"', out);
        for (const char *p = s; *p; p++) {
            if (*p == '"') fputc('"', out);
            fputc(*p, out);
        }
        fputc('"', out);
    } else {
        fputs(s, out);
    }
}

/* A cell in SI units (seconds, fractions) for CSV and JSON. */
static void plain_number(const cell *c, buf *out) { buf_json_number(out, c->number); }

static void write_csv(const tta_table *t, FILE *out) {
    for (size_t j = 0; j < t->n_cols; j++) {
        if (t->cols[j].audience == TTA_FOR_PEOPLE) continue;
        csv_field(out, t->cols[j].key);
        fputc(',', out);
    }
    fputs("note\r\n", out);
    buf b = {0};
    for (size_t i = 0; i < t->n_rows; i++) {
        for (size_t j = 0; j < t->n_cols; j++) {
            const cell *c = &t->cells[i * t->n_cols + j];
            if (t->cols[j].audience == TTA_FOR_PEOPLE) continue;
            buf_clear(&b);
            if (c->type == CELL_NUMBER) plain_number(c, &b);
            else if (c->type == CELL_TEXT) buf_puts(&b, c->text);
            else if (c->type == CELL_BOOL) buf_puts(&b, c->number ? "true" : "false");
            csv_field(out, buf_str(&b));
            fputc(',', out);
        }
        csv_field(out, t->notes[i] ? t->notes[i] : "");
        fputs("\r\n", out);
    }
    buf_free(&b);
}

static void write_json(const tta_table *t, FILE *out) {
    buf b = {0};
    buf_putc(&b, '[');
    for (size_t i = 0; i < t->n_rows; i++) {
        buf_puts(&b, i ? ",\n {" : "\n {");
        int first = 1;
        for (size_t j = 0; j < t->n_cols; j++) {
            const cell *c = &t->cells[i * t->n_cols + j];
            if (t->cols[j].audience == TTA_FOR_PEOPLE) continue;
            if (!first) buf_puts(&b, ", ");
            first = 0;
            buf_json_string(&b, t->cols[j].key, strlen(t->cols[j].key));
            buf_puts(&b, ": ");
            if (c->type == CELL_NUMBER) plain_number(c, &b);
            else if (c->type == CELL_TEXT) buf_json_string(&b, c->text, strlen(c->text));
            else if (c->type == CELL_BOOL) buf_puts(&b, c->number ? "true" : "false");
            else buf_puts(&b, "null");
        }
        if (t->notes[i]) {
            buf_puts(&b, ", \"note\": ");
            buf_json_string(&b, t->notes[i], strlen(t->notes[i]));
        }
        buf_putc(&b, '}');
    }
    buf_puts(&b, t->n_rows ? "\n]\n" : "]\n");
    fputs(buf_str(&b), out);
    buf_free(&b);
}

void tta_table_write(const tta_table *t, tta_out_format fmt, FILE *out) {
    switch (fmt) {
    case TTA_OUT_TABLE: write_people(t, out, 0); break;
    case TTA_OUT_MARKDOWN: write_people(t, out, 1); break;
    case TTA_OUT_CSV: write_csv(t, out); break;
    case TTA_OUT_JSON: write_json(t, out); break;
    }
}

void tta_xml_escape(buf *out, const char *s) {
    for (; *s; s++) {
        switch (*s) {
        case '<': buf_puts(out, "&lt;"); break;
        case '>': buf_puts(out, "&gt;"); break;
        case '&': buf_puts(out, "&amp;"); break;
        case '"': buf_puts(out, "&quot;"); break;
        case '\'': buf_puts(out, "&#39;"); break;
        default: buf_putc(out, *s);
        }
    }
}

void tta_table_html(const tta_table *t, buf *out) {
    buf_puts(out, "<table>\n<thead><tr>");
    for (size_t j = 0; j < t->n_cols; j++) {
        if (t->cols[j].audience == TTA_FOR_SCRIPTS) continue;
        buf_puts(out, right_aligned(&t->cols[j]) ? "<th class=\"num\">" : "<th>");
        tta_xml_escape(out, t->cols[j].header);
        buf_puts(out, "</th>");
    }
    buf_puts(out, "</tr></thead>\n<tbody>\n");
    buf cellbuf = {0};
    for (size_t i = 0; i < t->n_rows; i++) {
        buf_puts(out, "<tr>");
        for (size_t j = 0; j < t->n_cols; j++) {
            if (t->cols[j].audience == TTA_FOR_SCRIPTS) continue;
            buf_clear(&cellbuf);
            const cell *c = &t->cells[i * t->n_cols + j];
            display(&t->cols[j], c, &cellbuf);
            buf_puts(out, right_aligned(&t->cols[j]) ? "<td class=\"num\">" : "<td>");
            tta_xml_escape(out, buf_str(&cellbuf));
            buf_puts(out, "</td>");
        }
        buf_puts(out, "</tr>\n");
    }
    buf_puts(out, "</tbody>\n</table>\n");
    if (t->n_reasons) {
        buf_puts(out, "<ol class=\"notes\">");
        for (size_t r = 0; r < t->n_reasons; r++) {
            buf_puts(out, "<li>");
            tta_xml_escape(out, t->reasons[r]);
            buf_puts(out, "</li>");
        }
        buf_puts(out, "</ol>\n");
    }
    buf_free(&cellbuf);
}
