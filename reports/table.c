/* table.c: the table model, how people see it (tta_table_display), and the text, CSV, JSON and
 * Markdown writers (see render.h). The HTML table is html.c's; it uses the same display.
 *
 * Cells keep SI values; units are applied only when a cell is displayed, so that the scripts'
 * formats and the people's formats cannot disagree about a value.
 */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "common/check.h"
#include "reports/render.h"

#define DEFAULT_WIDTH 100
#define ELLIPSIS "\xE2\x80\xA6"        /* … */
#define RULE "\xE2\x94\x80"            /* ─ */
#define REPLACEMENT "\xEF\xBF\xBD"     /* U+FFFD */
#define ANSI_BOLD "\033[1m"
#define ANSI_DIM "\033[2m"
#define ANSI_RESET "\033[0m"

typedef enum { CELL_MISSING = 0, CELL_NUMBER, CELL_TEXT, CELL_BOOL } cell_type;

typedef struct {
    cell_type type;
    double number; /* CELL_NUMBER: the SI value; CELL_BOOL: 1 or 0 */
    char *text;    /* CELL_TEXT: the text; CELL_MISSING: the reason, or NULL */
} cell;

typedef struct {
    char **reason;
    size_t n, cap;
} note_list;

struct tta_table {
    tta_column *cols; /* key and header owned */
    size_t n_cols;
    cell *cells;      /* n_rows * n_cols, row-major */
    size_t n_rows, cap_rows;
    note_list *notes; /* n_rows: reasons given by tta_table_add_note */
    int *whole, *drop_rank; /* n_cols: tta_table_set_fit */
};

/* ---- text helpers ---------------------------------------------------------------------------- */

/* Decodes the UTF-8 sequence at s (n bytes available) into *cp; returns its length, or 0 when the
 * bytes are not valid UTF-8 (overlong, surrogate, beyond U+10FFFF, truncated). */
static size_t utf8_decode(const unsigned char *s, size_t n, unsigned *cp) {
    unsigned c = s[0], min, v;
    size_t len;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if ((c & 0xE0) == 0xC0) { len = 2; v = c & 0x1F; min = 0x80; }
    else if ((c & 0xF0) == 0xE0) { len = 3; v = c & 0x0F; min = 0x800; }
    else if ((c & 0xF8) == 0xF0) { len = 4; v = c & 0x07; min = 0x10000; }
    else return 0;
    if (len > n) return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
    *cp = v;
    return len;
}

size_t tta_utf8_width(const char *s) {
    size_t w = 0;
    for (; *s; s++) w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

void tta_text_clean(buf *out, const char *s) {
    const unsigned char *u = (const unsigned char *)s;
    size_t n = strlen(s), i = 0;
    buf_append(out, "", 0); /* NUL-terminated even when s is empty (buf_reserve alone does not) */
    while (i < n) {
        unsigned cp;
        size_t len = utf8_decode(u + i, n - i, &cp);
        if (len == 0) {
            buf_puts(out, REPLACEMENT);
            i++;
            continue;
        }
        if (cp == '\t' || cp == '\n' || cp == '\r') buf_putc(out, ' ');
        else if (cp < 0x20 || (cp >= 0x7F && cp < 0xA0) || cp == 0xFFFE || cp == 0xFFFF) buf_puts(out, REPLACEMENT);
        else buf_append(out, s + i, len);
        i += len;
    }
}

void tta_xml_escape(buf *out, const char *s) {
    buf clean = {0};
    tta_text_clean(&clean, s);
    for (const char *p = buf_str(&clean); *p; p++) {
        switch (*p) {
        case '<': buf_puts(out, "&lt;"); break;
        case '>': buf_puts(out, "&gt;"); break;
        case '&': buf_puts(out, "&amp;"); break;
        case '"': buf_puts(out, "&quot;"); break;
        case '\'': buf_puts(out, "&#39;"); break;
        default: buf_putc(out, *p);
        }
    }
    buf_free(&clean);
}

void tta_superscript(buf *out, int k) {
    static const char *const digit[10] = {"\xE2\x81\xB0", "\xC2\xB9",     "\xC2\xB2",     "\xC2\xB3",
                                          "\xE2\x81\xB4", "\xE2\x81\xB5", "\xE2\x81\xB6", "\xE2\x81\xB7",
                                          "\xE2\x81\xB8", "\xE2\x81\xB9"};
    assert(k >= 1);
    char dec[24];
    snprintf(dec, sizeof dec, "%d", k);
    for (const char *p = dec; *p; p++) buf_puts(out, digit[*p - '0']);
}

/* Byte offset of code point k of s (or of its end). */
static size_t cp_offset(const char *s, size_t k) {
    const char *p = s;
    while (*p && k > 0) {
        p++;
        while (((unsigned char)*p & 0xC0) == 0x80) p++;
        k--;
    }
    return (size_t)(p - s);
}

/* Appends s shortened to width code points: whole when it fits, else its first code points, "…"
 * and its last tail ones (tail = SIZE_MAX: half of what is kept, rounded down; 0: cut at the end). */
static void put_cut(buf *out, const char *s, size_t width, size_t tail_pref) {
    size_t w = tta_utf8_width(s);
    if (w <= width) {
        buf_puts(out, s);
        return;
    }
    if (width == 0) return;
    size_t keep = width - 1, tail = tail_pref == SIZE_MAX ? keep / 2 : tail_pref < keep ? tail_pref : keep;
    size_t head_bytes = cp_offset(s, keep - tail);
    while (head_bytes && s[head_bytes - 1] == ' ') head_bytes--; /* "Chen…", not "Chen …" */
    buf_append(out, s, head_bytes);
    buf_puts(out, ELLIPSIS);
    if (tail) buf_puts(out, s + cp_offset(s, w - tail));
}

void tta_text_elide(buf *out, const char *s, size_t width) {
    buf_append(out, "", 0);
    put_cut(out, s, width, SIZE_MAX);
}

/* Appends n spaces. */
static void pad(buf *out, size_t n) {
    for (size_t k = 0; k < n; k++) buf_putc(out, ' ');
}

/* Splits s into lines of at most width code points at spaces. A word longer than width is cut
 * with "…" (cut_long) or broken across lines. Returns the number of lines; *lines is malloc'd,
 * every line too. */
static size_t wrap_words(const char *s, size_t width, int cut_long, char ***lines) {
    size_t n = 0, cap = 0;
    *lines = NULL;
    buf line = {0};
    size_t line_w = 0;
    const char *p = s;
    if (width == 0) width = 1;
    for (;;) {
        while (*p == ' ') p++;
        if (!*p) break;
        const char *end = strchr(p, ' ');
        if (!end) end = p + strlen(p);
        char *word = strndupCheck(p, (size_t)(end - p));
        size_t ww = tta_utf8_width(word);
        if (line_w && line_w + 1 + ww > width) {
            growArray(*lines, &cap, n + 1);
            (*lines)[n++] = buf_take(&line);
            line_w = 0;
        }
        if (ww <= width - (line_w ? line_w + 1 : 0)) {
            if (line_w) buf_putc(&line, ' ');
            buf_puts(&line, word);
            line_w += (line_w ? 1 : 0) + ww;
        } else if (cut_long) {
            put_cut(&line, word, width, 0);
            line_w = width;
        } else {
            const char *w = word;
            while (tta_utf8_width(w) > width) {
                size_t off = cp_offset(w, width);
                buf_append(&line, w, off);
                growArray(*lines, &cap, n + 1);
                (*lines)[n++] = buf_take(&line);
                w += off;
            }
            buf_puts(&line, w);
            line_w = tta_utf8_width(w);
        }
        free(word);
        p = end;
    }
    if (line_w || n == 0) {
        growArray(*lines, &cap, n + 1);
        (*lines)[n++] = buf_take(&line);
    }
    buf_free(&line);
    return n;
}

/* Frees what wrap_words returned. */
static void free_lines(char **lines, size_t n) {
    for (size_t i = 0; i < n; i++) free(lines[i]);
    free(lines);
}

/* ---- the model ------------------------------------------------------------------------------- */

int tta_out_format_parse(const char *s) {
    if (!s) return -1;
    if (!strcmp(s, "table")) return TTA_OUT_TABLE;
    if (!strcmp(s, "csv")) return TTA_OUT_CSV;
    if (!strcmp(s, "json")) return TTA_OUT_JSON;
    if (!strcmp(s, "markdown") || !strcmp(s, "md")) return TTA_OUT_MARKDOWN;
    return -1;
}

int tta_col_kind_is_numeric(tta_col_kind kind) {
    return kind != TTA_COL_TEXT && kind != TTA_COL_BOOL && kind != TTA_COL_PATH && kind != TTA_COL_URL;
}

const char *tta_table_url(const tta_table *t, size_t row, size_t col) {
    assert(row < t->n_rows && col < t->n_cols && t->cols[col].kind == TTA_COL_URL);
    const cell *c = &t->cells[row * t->n_cols + col];
    return c->type == CELL_TEXT ? c->text : NULL;
}

size_t tta_table_n_columns(const tta_table *t) { return t->n_cols; }

const tta_column *tta_table_column_def(const tta_table *t, size_t col) {
    assert(col < t->n_cols);
    return &t->cols[col];
}

tta_table *tta_table_new(const tta_column *cols, size_t n_cols) {
    tta_table *t = callocCheck(1, sizeof *t);
    t->cols = callocCheck(n_cols ? n_cols : 1, sizeof *t->cols);
    t->n_cols = n_cols;
    t->whole = callocCheck(n_cols ? n_cols : 1, sizeof *t->whole);
    t->drop_rank = callocCheck(n_cols ? n_cols : 1, sizeof *t->drop_rank);
    for (size_t j = 0; j < n_cols; j++) {
        assert(cols[j].key && cols[j].header);
        assert(strcmp(cols[j].key, "note") != 0); /* the scripts' formats add their own note */
        for (size_t k = 0; k < j; k++) assert(strcmp(cols[j].key, cols[k].key) != 0);
        t->cols[j] = cols[j];
        t->cols[j].key = strdupCheck(cols[j].key);
        t->cols[j].header = strdupCheck(cols[j].header);
    }
    return t;
}

void tta_table_free(tta_table *t) {
    if (!t) return;
    for (size_t i = 0; i < t->n_rows * t->n_cols; i++) free(t->cells[i].text);
    for (size_t i = 0; i < t->n_rows; i++) {
        for (size_t k = 0; k < t->notes[i].n; k++) free(t->notes[i].reason[k]);
        free(t->notes[i].reason);
    }
    for (size_t j = 0; j < t->n_cols; j++) {
        free((char *)t->cols[j].key);
        free((char *)t->cols[j].header);
    }
    free(t->cells);
    free(t->notes);
    free(t->cols);
    free(t->whole);
    free(t->drop_rank);
    free(t);
}

void tta_table_set_fit(tta_table *t, size_t col, int whole, int drop_rank) {
    assert(col < t->n_cols && drop_rank >= 0);
    assert(!whole || t->cols[col].kind == TTA_COL_TEXT);
    t->whole[col] = whole != 0;
    t->drop_rank[col] = drop_rank;
}

size_t tta_table_add_row(tta_table *t) {
    if (t->n_rows == t->cap_rows) {
        size_t cap = t->cap_rows ? t->cap_rows * 2 : 16;
        t->cells = reallocCheck(t->cells, cap * (t->n_cols ? t->n_cols : 1) * sizeof *t->cells);
        t->notes = reallocCheck(t->notes, cap * sizeof *t->notes);
        t->cap_rows = cap;
    }
    memset(&t->cells[t->n_rows * t->n_cols], 0, t->n_cols * sizeof *t->cells);
    memset(&t->notes[t->n_rows], 0, sizeof *t->notes);
    return t->n_rows++;
}

size_t tta_table_rows(const tta_table *t) { return t->n_rows; }

long tta_table_column(const tta_table *t, const char *key) {
    assert(key);
    for (size_t j = 0; j < t->n_cols; j++)
        if (!strcmp(t->cols[j].key, key)) return (long)j;
    return -1;
}

/* The cell at (row, col), emptied (missing, no reason) for a setter. */
static cell *reset_cell(tta_table *t, size_t row, size_t col) {
    assert(row < t->n_rows && col < t->n_cols);
    cell *c = &t->cells[row * t->n_cols + col];
    free(c->text);
    memset(c, 0, sizeof *c);
    return c;
}

void tta_table_set_number(tta_table *t, size_t row, size_t col, double v) {
    cell *c = reset_cell(t, row, col);
    assert(tta_col_kind_is_numeric(t->cols[col].kind));
    if (isfinite(v)) {
        c->type = CELL_NUMBER;
        c->number = v;
    }
}

void tta_table_set_text(tta_table *t, size_t row, size_t col, const char *s) {
    cell *c = reset_cell(t, row, col);
    assert(t->cols[col].kind == TTA_COL_TEXT || t->cols[col].kind == TTA_COL_PATH || t->cols[col].kind == TTA_COL_URL);
    if (s) {
        c->type = CELL_TEXT;
        c->text = strdupCheck(s);
    }
}

void tta_table_set_bool(tta_table *t, size_t row, size_t col, int v) {
    cell *c = reset_cell(t, row, col);
    assert(t->cols[col].kind == TTA_COL_BOOL);
    if (v >= 0) {
        c->type = CELL_BOOL;
        c->number = v != 0;
    }
}

void tta_table_set_number_or(tta_table *t, size_t row, size_t col, double v, const char *why) {
    if (isnan(v))
        tta_table_set_missing(t, row, col, why ? why : "not computable");
    else
        tta_table_set_number(t, row, col, v);
}

void tta_table_set_missing(tta_table *t, size_t row, size_t col, const char *reason) {
    cell *c = reset_cell(t, row, col);
    if (reason) c->text = strdupCheck(reason);
}

void tta_table_add_note(tta_table *t, size_t row, const char *reason) {
    assert(row < t->n_rows && reason);
    note_list *l = &t->notes[row];
    for (size_t k = 0; k < l->n; k++)
        if (!strcmp(l->reason[k], reason)) return;
    growArray(l->reason, &l->cap, l->n + 1);
    l->reason[l->n++] = strdupCheck(reason);
}

static const cell *cell_at(const tta_table *t, size_t row, size_t col) { return &t->cells[row * t->n_cols + col]; }

/* ---- display --------------------------------------------------------------------------------- */

/* Appends v as people read it in a column of this kind (minutes, percent, decimals). */
static void format_number(buf *out, const tta_column *c, double v) {
    int decimals = c->decimals > 0 ? c->decimals : 0;
    if (c->kind == TTA_COL_INT) decimals = 0;
    if (c->kind == TTA_COL_MINUTES) v /= 60.0;
    if (c->kind == TTA_COL_PERCENT) v *= 100.0;
    size_t start = out->len;
    buf_printf(out, "%.*f", decimals, v);
    /* A small negative value rounds to "-0.0": it reads as zero. */
    const char *s = out->data + start;
    if (s[0] == '-' && strspn(s + 1, "0.") == strlen(s + 1)) {
        memmove(out->data + start, s + 1, strlen(s + 1) + 1);
        out->len--;
    }
}

/* Index of reason in the display's footnotes (1-based), adding it when new. */
static int footnote(tta_table_display *d, size_t *cap, const char *reason) {
    for (size_t k = 0; k < d->n_notes; k++)
        if (!strcmp(d->note[k], reason)) return (int)k + 1;
    growArray(d->note, cap, d->n_notes + 1);
    buf b = {0};
    tta_text_clean(&b, reason);
    d->note[d->n_notes++] = buf_take(&b);
    return (int)d->n_notes;
}

/* ---- the words that tell a value apart ------------------------------------------------------- */

/* Separators of a name's words: dgxa100_n8_ngc20.06_mxnet, tpu-v3-8, a path. */
static int is_word_sep(char c) { return c == '_' || c == '-' || c == '.' || c == ' ' || c == '/'; }

/* Code points in the first n bytes of s. */
static size_t cp_count(const char *s, size_t n) {
    size_t k = 0;
    for (size_t i = 0; i < n && s[i]; i++) k += ((unsigned char)s[i] & 0xC0) != 0x80;
    return k;
}

/* The word of s (len bytes) around byte p, as code points [*a, *b). */
static void word_around(const char *s, size_t len, size_t p, size_t *a, size_t *b) {
    size_t lo = p, hi = p;
    while (lo > 0 && !is_word_sep(s[lo - 1])) lo--;
    while (hi < len && !is_word_sep(s[hi])) hi++;
    if (hi == lo && hi < len) hi++;
    *a = cp_count(s, lo);
    *b = cp_count(s, hi);
}

/* A cell of the column being read for its telling words: its text and row. */
typedef struct {
    const char *s;
    size_t row;
    int reversed; /* compare from the end */
} tell_key;

/* Bytes s and t share at their start (or, reversed, at their end). */
static size_t shared_bytes(const char *s, const char *t, int reversed) {
    size_t ls = strlen(s), lt = strlen(t), k = 0;
    if (!reversed)
        while (s[k] && s[k] == t[k]) k++;
    else
        while (k < ls && k < lt && s[ls - 1 - k] == t[lt - 1 - k]) k++;
    return k;
}

/* Orders cells by their text bytewise, from the start or (reversed) from the end. */
static int cmp_tell_key(const void *pa, const void *pb) {
    const tell_key *a = pa, *b = pb;
    if (!a->reversed) return strcmp(a->s, b->s);
    size_t la = strlen(a->s), lb = strlen(b->s);
    for (size_t k = 0; k < la && k < lb; k++) {
        unsigned char x = (unsigned char)a->s[la - 1 - k], y = (unsigned char)b->s[lb - 1 - k];
        if (x != y) return x < y ? -1 : 1;
    }
    return (la > lb) - (la < lb);
}

/* d->tells of text column j: sorted from the start (then from the end), the value sharing a
 * cell's longest beginning (end) is a neighbour in that order; the word where they part is the
 * span that tells it apart. */
static void find_tells(tta_table_display *d, size_t j) {
    size_t nr = d->n_rows, nc = d->n_cols;
    tell_key *k = callocCheck(nr + 1, sizeof *k);
    for (int rev = 0; rev < 2; rev++) {
        for (size_t i = 0; i < nr; i++) k[i] = (tell_key){d->cell[i * nc + j], i, rev};
        qsort(k, nr, sizeof *k, cmp_tell_key);
        /* a run of equal values [g, e) has the same nearest different values on both sides: g - 1, e */
        for (size_t g = 0, e; g < nr; g = e) {
            for (e = g + 1; e < nr && strcmp(k[e].s, k[g].s) == 0;) e++;
            const char *s = k[g].s;
            size_t len = strlen(s), best = 0;
            int found = g > 0 || e < nr;
            if (g > 0) best = shared_bytes(s, k[g - 1].s, rev);
            if (e < nr && shared_bytes(s, k[e].s, rev) > best) best = shared_bytes(s, k[e].s, rev);
            if (!found || best >= len) continue;
            size_t a, b;
            word_around(s, len, rev ? len - 1 - best : best, &a, &b);
            for (size_t i = g; i < e; i++) {
                size_t *t = &d->tells[(k[i].row * nc + j) * 4 + (size_t)rev * 2];
                t[0] = a;
                t[1] = b;
            }
        }
    }
    free(k);
}

void tta_table_display_init(tta_table_display *d, const tta_table *t) {
    memset(d, 0, sizeof *d);
    size_t *src = callocCheck(t->n_cols + 1, sizeof *src); /* shown column -> table column */
    for (size_t j = 0; j < t->n_cols; j++)
        if (t->cols[j].audience != TTA_FOR_SCRIPTS) src[d->n_cols++] = j;
    size_t nr = t->n_rows, nc = d->n_cols, cap_notes = 0;
    d->n_rows = nr;
    d->col = callocCheck(nc + 1, sizeof *d->col);
    d->whole = callocCheck(nc + 1, sizeof *d->whole);
    d->drop_rank = callocCheck(nc + 1, sizeof *d->drop_rank);
    d->header = callocCheck(nc + 1, sizeof *d->header);
    d->cell = callocCheck(nr * nc + 1, sizeof *d->cell);
    d->title = callocCheck(nr * nc + 1, sizeof *d->title);
    d->note_of = callocCheck(nr * nc + 1, sizeof *d->note_of);
    d->row_mark = callocCheck(nr + 1, sizeof *d->row_mark);
    buf b = {0};
    for (size_t j = 0; j < nc; j++) {
        d->col[j] = &t->cols[src[j]];
        d->whole[j] = t->whole[src[j]];
        d->drop_rank[j] = t->drop_rank[src[j]];
        tta_text_clean(&b, d->col[j]->header);
        d->header[j] = buf_take(&b);
    }
    for (size_t i = 0; i < nr; i++) {
        for (size_t j = 0; j < nc; j++) {
            const tta_column *col = d->col[j];
            const cell *c = cell_at(t, i, src[j]);
            size_t at = i * nc + j;
            switch (c->type) {
            case CELL_MISSING:
                buf_puts(&b, "n/a");
                d->note_of[at] = -1;
                if (c->text) {
                    d->note_of[at] = footnote(d, &cap_notes, c->text);
                    tta_superscript(&b, d->note_of[at]);
                }
                break;
            case CELL_NUMBER: format_number(&b, col, c->number); break;
            case CELL_BOOL: buf_puts(&b, c->number != 0 ? "yes" : "no"); break;
            case CELL_TEXT: {
                const char *slash = col->kind == TTA_COL_PATH ? strrchr(c->text, '/') : NULL;
                if (slash && slash[1]) {
                    tta_text_clean(&b, slash + 1);
                    buf full = {0};
                    tta_text_clean(&full, c->text);
                    d->title[at] = buf_take(&full);
                } else {
                    tta_text_clean(&b, c->text);
                }
                break;
            }
            }
            d->cell[at] = buf_take(&b);
        }
        for (size_t k = 0; k < t->notes[i].n; k++) {
            if (k) buf_putc(&b, ',');
            tta_superscript(&b, footnote(d, &cap_notes, t->notes[i].reason[k]));
        }
        d->row_mark[i] = buf_take(&b);
    }
    buf_free(&b);
    free(src);
    d->tells = callocCheck(nr * nc * 4 + 1, sizeof *d->tells);
    for (size_t j = 0; j < nc; j++)
        if ((d->col[j]->kind == TTA_COL_TEXT || d->col[j]->kind == TTA_COL_PATH) && nr > 1) find_tells(d, j);
}

void tta_table_display_free(tta_table_display *d) {
    for (size_t j = 0; j < d->n_cols; j++) free(d->header[j]);
    for (size_t i = 0; i < d->n_rows * d->n_cols; i++) {
        free(d->cell[i]);
        free(d->title[i]);
    }
    for (size_t i = 0; i < d->n_rows; i++) free(d->row_mark[i]);
    for (size_t k = 0; k < d->n_notes; k++) free(d->note[k]);
    free(d->col);
    free(d->whole);
    free(d->drop_rank);
    free(d->header);
    free(d->cell);
    free(d->title);
    free(d->note_of);
    free(d->row_mark);
    free(d->note);
    free(d->tells);
    memset(d, 0, sizeof *d);
}

/* ---- the text table for people --------------------------------------------------------------- */

/* A column that can be shortened: text and paths (numbers, booleans, n/a marks and whole text
 * never are). */
static int is_cuttable(const tta_table_display *d, size_t j) {
    return (d->col[j]->kind == TTA_COL_TEXT || d->col[j]->kind == TTA_COL_PATH) && !d->whole[j];
}

/* 1 when column j is text that reads the same on every row (of two or more): said once above. */
static int column_is_constant(const tta_table_display *d, size_t j) {
    if (d->n_rows < 2 || tta_col_kind_is_numeric(d->col[j]->kind)) return 0;
    for (size_t i = 1; i < d->n_rows; i++)
        if (strcmp(d->cell[i * d->n_cols + j], d->cell[j]) != 0) return 0;
    return 1;
}

/* Width of the longest word of s. */
static size_t longest_word(const char *s) {
    size_t best = 0;
    const char *p = s;
    while (*p) {
        while (*p == ' ') p++;
        const char *end = strchr(p, ' ');
        if (!end) end = p + strlen(p);
        char *w = strndupCheck(p, (size_t)(end - p));
        size_t ww = tta_utf8_width(w);
        if (ww > best) best = ww;
        free(w);
        p = end;
    }
    return best;
}

/* Narrows the widest column that is eligible and above its floor, one code point at a time,
 * until the row (widths plus gap spaces between columns) fits max_width or nothing can give. */
static void shrink(size_t *width, const size_t *floor, const int *eligible, size_t n, size_t gap, size_t max_width) {
    for (;;) {
        size_t total = n ? gap * (n - 1) : 0;
        for (size_t j = 0; j < n; j++) total += width[j];
        if (total <= max_width) return;
        size_t widest = n;
        for (size_t j = 0; j < n; j++)
            if (eligible[j] && width[j] > floor[j] && (widest == n || width[j] > width[widest])) widest = j;
        if (widest == n) return;
        width[widest]--;
    }
}

/* Appends "¹ reason" lines, wrapped to max_width with a hanging indent. */
static void write_footnotes(const tta_table_display *d, size_t max_width, buf *out) {
    for (size_t k = 0; k < d->n_notes; k++) {
        buf mark = {0};
        tta_superscript(&mark, (int)k + 1);
        size_t indent = tta_utf8_width(buf_str(&mark)) + 1;
        char **lines;
        size_t n = wrap_words(d->note[k], max_width > indent + 10 ? max_width - indent : 10, 0, &lines);
        for (size_t l = 0; l < n; l++) {
            if (l == 0) {
                buf_puts(out, buf_str(&mark));
                buf_putc(out, ' ');
            } else {
                pad(out, indent);
            }
            buf_puts(out, lines[l]);
            buf_putc(out, '\n');
        }
        free_lines(lines, n);
        buf_free(&mark);
    }
}

/* The display's only row as one "header  value" line per column, values wrapped to max_width
 * under themselves, then the footnotes. */
static void write_record(const tta_table_display *d, size_t max_width, int color, buf *out) {
    assert(d->n_rows == 1);
    size_t hw = 0;
    for (size_t j = 0; j < d->n_cols; j++)
        if (tta_utf8_width(d->header[j]) > hw) hw = tta_utf8_width(d->header[j]);
    size_t room = max_width > hw + 2 + 20 ? max_width - hw - 2 : 20;
    for (size_t j = 0; j < d->n_cols; j++) {
        buf value = {0};
        buf_puts(&value, d->cell[j]);
        if (j == 0) buf_puts(&value, d->row_mark[0]);
        char **lines;
        size_t n = wrap_words(buf_str(&value), room, 0, &lines);
        int dim = color && d->note_of[j] != 0;
        if (color) buf_puts(out, ANSI_BOLD);
        buf_puts(out, d->header[j]);
        if (color) buf_puts(out, ANSI_RESET);
        for (size_t l = 0; l < n; l++) {
            pad(out, l ? hw + 2 : hw + 2 - tta_utf8_width(d->header[j]));
            if (dim) buf_puts(out, ANSI_DIM);
            buf_puts(out, lines[l]);
            if (dim) buf_puts(out, ANSI_RESET);
            buf_putc(out, '\n');
        }
        free_lines(lines, n);
        buf_free(&value);
    }
    write_footnotes(d, max_width, out);
}

/* Width of column j of the display: its header or its widest cell (with row marks when first). */
static size_t natural_width(const tta_table_display *d, size_t j, int first, size_t *cells_w) {
    size_t w = 0;
    for (size_t i = 0; i < d->n_rows; i++) {
        size_t cw = tta_utf8_width(d->cell[i * d->n_cols + j]) + (first ? tta_utf8_width(d->row_mark[i]) : 0);
        if (cw > w) w = cw;
    }
    if (cells_w) *cells_w = w;
    size_t hw = tta_utf8_width(d->header[j]);
    return w > hw ? w : hw;
}

/* tail for cut_cell: each cell's own, the one that hides least of the words telling it apart. */
#define TAIL_PER_CELL (SIZE_MAX - 1)

/* Code points of [a, b) hidden by removing [h, h + r). */
static size_t hidden(size_t h, size_t r, size_t a, size_t b) {
    size_t lo = h > a ? h : a, hi = h + r < b ? h + r : b;
    return hi > lo ? hi - lo : 0;
}

/* The tail (code points kept after "…") of a cell of w code points cut to room: the cut that hides
 * the fewest code points of its telling words (tells: two spans; *lost gets how many), the nearest
 * the middle among those. */
static size_t telling_tail(const size_t *tells, size_t w, size_t room, size_t *lost_out) {
    size_t keep = room > 0 ? room - 1 : 0, r = w - keep, best = SIZE_MAX, tail = keep - keep / 2;
    for (size_t h = 0; h <= keep; h++) {
        size_t lost = hidden(h, r, tells[0], tells[1]) + hidden(h, r, tells[2], tells[3]);
        size_t off = h > keep / 2 ? h - keep / 2 : keep / 2 - h, best_off = keep - tail;
        best_off = best_off > keep / 2 ? best_off - keep / 2 : keep / 2 - best_off;
        if (lost < best || (lost == best && off < best_off)) {
            best = lost;
            tail = keep - h;
        }
    }
    *lost_out = best;
    return tail;
}

/* Appends code points [from, from + n) of s between two "…": the middle of a value whose telling
 * words neither end can keep. */
static void put_window(buf *out, const char *s, size_t from, size_t n) {
    size_t a = cp_offset(s, from), b = cp_offset(s, from + n);
    buf_puts(out, ELLIPSIS);
    buf_append(out, s + a, b - a);
    buf_puts(out, ELLIPSIS);
}

/* The text of row i's cell in shown column j as the grid writes it in width code points (without
 * the row's marks, which take room from the first column), keeping tail code points after "…"
 * (TAIL_PER_CELL: the cell's telling_tail). */
static void cut_cell(const tta_table_display *d, size_t i, size_t j, int first, size_t width, size_t tail, buf *out) {
    size_t mark_w = first ? tta_utf8_width(d->row_mark[i]) : 0, room = width > mark_w ? width - mark_w : 0;
    const char *s = d->cell[i * d->n_cols + j];
    if (tail == TAIL_PER_CELL) {
        size_t w = tta_utf8_width(s), lost = 0;
        const size_t *t = &d->tells[(i * d->n_cols + j) * 4];
        tail = w > room && room > 1 ? telling_tail(t, w, room, &lost) : SIZE_MAX;
        if (lost > 0 && room > 3) {
            /* one "…" hides a telling word: show the middle that holds them, "…" at both ends */
            size_t a = t[1] > t[0] ? t[0] : t[2], b = t[1] > t[0] ? t[1] : t[3];
            if (t[3] > t[2] && t[2] < a) a = t[2];
            if (t[3] > t[2] && t[3] > b) b = t[3];
            size_t n = room - 2;
            if (b - a <= n && a > 0 && b < w) {
                size_t from = a - ((n - (b - a)) / 2 < a ? (n - (b - a)) / 2 : a);
                if (from + n > w - 1) from = w - 1 - n;
                if (from >= 1) {
                    put_window(out, s, from, n);
                    return;
                }
            }
        }
    }
    put_cut(out, s, room, tail);
}

typedef struct {
    const char *full;
    char *cut;
} cut_pair;

static int cmp_cut_pair(const void *a, const void *b) {
    const cut_pair *x = a, *y = b;
    int c = strcmp(x->cut, y->cut);
    return c ? c : strcmp(x->full, y->full);
}

/* 1 when no two different cells of shown column j read the same once cut to width with tail. */
static int cuts_keep_apart(const tta_table_display *d, size_t j, int first, size_t width, size_t tail) {
    cut_pair *p = callocCheck(d->n_rows + 1, sizeof *p);
    buf b = {0};
    for (size_t i = 0; i < d->n_rows; i++) {
        buf_clear(&b);
        buf_append(&b, "", 0);
        cut_cell(d, i, j, first, width, tail, &b);
        p[i].full = d->cell[i * d->n_cols + j];
        p[i].cut = strdupCheck(buf_str(&b));
    }
    buf_free(&b);
    qsort(p, d->n_rows, sizeof *p, cmp_cut_pair);
    int apart = 1;
    for (size_t i = 1; i < d->n_rows && apart; i++)
        apart = strcmp(p[i].cut, p[i - 1].cut) != 0 || strcmp(p[i].full, p[i - 1].full) == 0;
    for (size_t i = 0; i < d->n_rows; i++) free(p[i].cut);
    free(p);
    return apart;
}

/* For a text column cut to *width: the number of code points kept after "…" so that different
 * values still read differently: half of what is kept when that does it, else the split nearest
 * to the middle that does, else the column is widened one code point at a time (up to natural,
 * where nothing is cut). At the width found, each cell's own cut keeping its telling words
 * (TAIL_PER_CELL) is taken instead when it keeps the values apart too. Returns the tail
 * (TAIL_PER_CELL, SIZE_MAX: half), *width possibly widened. */
static size_t keep_apart(const tta_table_display *d, size_t j, int first, size_t *width, size_t natural) {
    size_t tail = SIZE_MAX;
    int found = 0;
    for (; *width < natural && !found; (*width)++) {
        if (cuts_keep_apart(d, j, first, *width, SIZE_MAX)) {
            found = 1;
            break;
        }
        size_t keep = *width > 1 ? *width - 1 : 0, half = keep / 2;
        for (size_t off = 1; off <= keep && !found; off++) {
            if (half + off <= keep && cuts_keep_apart(d, j, first, *width, half + off)) tail = half + off, found = 1;
            else if (off <= half && cuts_keep_apart(d, j, first, *width, half - off)) tail = half - off, found = 1;
        }
        if (found) break;
    }
    if (*width < natural && cuts_keep_apart(d, j, first, *width, TAIL_PER_CELL)) return TAIL_PER_CELL;
    return tail;
}

/* Sum of the widths of k columns and the gaps between them. */
static size_t grid_width(const size_t *width, size_t k, size_t gap) {
    size_t total = k ? gap * (k - 1) : 0;
    for (size_t c = 0; c < k; c++) total += width[c];
    return total;
}

/* Widths of the shown columns col[0..k) fitted to fit (SIZE_MAX: natural widths), with the tail
 * each shortened text column keeps after "…" (SIZE_MAX: half) and the gap between columns (2, or
 * 1 when 2 does not fit). deep: text may go down to 5 code points, else 8 (or its header's longest
 * word). Returns the grid's total width, which exceeds fit when numbers and the floors cannot fit. */
static size_t fit_grid(const tta_table_display *d, const size_t *col, size_t k, size_t fit, int deep, size_t *width,
                       size_t *tail, size_t *gap_out) {
    size_t *cells_w = callocCheck(k + 1, sizeof *cells_w), *natural = callocCheck(k + 1, sizeof *natural);
    size_t *text_floor = callocCheck(k + 1, sizeof *text_floor), *head_floor = callocCheck(k + 1, sizeof *head_floor);
    int *is_text = callocCheck(k + 1, sizeof *is_text), *is_other = callocCheck(k + 1, sizeof *is_other);
    int *widened = callocCheck(k + 1, sizeof *widened);
    for (size_t c = 0; c < k; c++) {
        natural[c] = width[c] = natural_width(d, col[c], c == 0, &cells_w[c]);
        tail[c] = SIZE_MAX;
        size_t lw = longest_word(d->header[col[c]]), eight = lw > 8 ? lw : 8;
        is_text[c] = is_cuttable(d, col[c]);
        is_other[c] = !is_text[c];
        text_floor[c] = natural[c] < eight ? natural[c] : eight; /* 1. text down to 8 (its header's word) */
        head_floor[c] = cells_w[c] > lw ? cells_w[c] : lw;       /* 2. headers wrap down to their cells */
    }
    size_t gap = 2;
    shrink(width, text_floor, is_text, k, gap, fit);
    shrink(width, head_floor, is_other, k, gap, fit);
    if (grid_width(width, k, gap) > fit) gap = 1; /* 3. one space between columns */
    /* 4. (deep) text columns again, down to 5 with headers cut too. Numbers are never cut. */
    if (deep)
        for (size_t c = 0; c < k; c++) text_floor[c] = natural[c] < 5 ? natural[c] : 5;
    shrink(width, text_floor, is_text, k, gap, fit);
    /* 5. a shortened text column keeps different values apart, widened if it must be; the room is
     * given back by headers, then the gap, then the other text columns (checked again). */
    for (int pass = 0; pass < 4; pass++) {
        int changed = 0;
        for (size_t c = 0; c < k; c++) {
            if (!is_text[c] || width[c] >= natural[c]) continue;
            size_t before = width[c];
            tail[c] = keep_apart(d, col[c], c == 0, &width[c], natural[c]);
            if (width[c] > before) widened[c] = changed = 1;
        }
        if (!changed) break;
        shrink(width, head_floor, is_other, k, gap, fit);
        if (grid_width(width, k, gap) > fit) gap = 1;
        int *give = callocCheck(k + 1, sizeof *give);
        for (size_t c = 0; c < k; c++) give[c] = is_text[c] && !widened[c];
        shrink(width, text_floor, give, k, gap, fit);
        free(give);
    }
    for (size_t c = 0; c < k; c++) /* after the last give-back */
        if (is_text[c] && width[c] < natural[c]) tail[c] = keep_apart(d, col[c], c == 0, &width[c], natural[c]);
    free(widened);
    free(is_other);
    free(is_text);
    free(head_floor);
    free(text_floor);
    free(natural);
    free(cells_w);
    *gap_out = gap;
    return grid_width(width, k, gap);
}

/* The grid of the shown columns col[0..k): fitted to max_width, header, rule, rows, footnotes. With wide,
 * text is never shortened (the grid is as wide as its longest values). */
static void write_grid(const tta_table_display *d, const size_t *col, size_t k, size_t max_width, int color,
                       int wide, buf *out) {
    size_t nc = d->n_cols, gap;
    size_t *width = callocCheck(k + 1, sizeof *width), *tail = callocCheck(k + 1, sizeof *tail);
    size_t fit = wide ? SIZE_MAX : max_width; /* wide: nothing gives way */
    /* Text at 8 or more when that fits; else down to 5. */
    if (fit_grid(d, col, k, fit, 0, width, tail, &gap) > fit) fit_grid(d, col, k, fit, 1, width, tail, &gap);
    const char *sep = gap == 2 ? "  " : " ";

    /* Header lines, bottom-aligned so that units line up above the rule. */
    char ***hlines = callocCheck(k + 1, sizeof *hlines);
    size_t *n_hlines = callocCheck(k + 1, sizeof *n_hlines), header_rows = 0;
    for (size_t c = 0; c < k; c++) {
        n_hlines[c] = wrap_words(d->header[col[c]], width[c], 1, &hlines[c]);
        if (n_hlines[c] > header_rows) header_rows = n_hlines[c];
    }
    buf line = {0};
    for (size_t r = 0; r < header_rows; r++) {
        buf_clear(&line);
        for (size_t c = 0; c < k; c++) {
            size_t first = header_rows - n_hlines[c];
            const char *s = r >= first ? hlines[c][r - first] : "";
            size_t w = tta_utf8_width(s);
            int right = tta_col_kind_is_numeric(d->col[col[c]]->kind);
            if (c) buf_puts(&line, sep);
            if (right) pad(&line, width[c] - w);
            if (color && w) buf_puts(&line, ANSI_BOLD);
            buf_puts(&line, s);
            if (color && w) buf_puts(&line, ANSI_RESET);
            if (!right) pad(&line, width[c] - w);
        }
        while (line.len && line.data[line.len - 1] == ' ') line.data[--line.len] = '\0';
        buf_puts(out, buf_str(&line));
        buf_putc(out, '\n');
    }
    if (color) buf_puts(out, ANSI_DIM);
    for (size_t c = 0; c < k; c++) {
        if (c) buf_puts(out, sep);
        for (size_t x = 0; x < width[c]; x++) buf_puts(out, RULE);
    }
    if (color) buf_puts(out, ANSI_RESET);
    buf_putc(out, '\n');

    for (size_t i = 0; i < d->n_rows; i++) {
        buf_clear(&line);
        for (size_t c = 0; c < k; c++) {
            size_t j = col[c], at = i * nc + j;
            buf text = {0};
            buf_append(&text, "", 0);
            cut_cell(d, i, j, c == 0, width[c], tail[c], &text);
            buf_puts(&text, c == 0 ? d->row_mark[i] : "");
            size_t w = tta_utf8_width(buf_str(&text));
            int right = tta_col_kind_is_numeric(d->col[j]->kind);
            int dim = color && d->note_of[at] != 0;
            if (c) buf_puts(&line, sep);
            if (right && w < width[c]) pad(&line, width[c] - w);
            if (dim) buf_puts(&line, ANSI_DIM);
            buf_puts(&line, buf_str(&text));
            if (dim) buf_puts(&line, ANSI_RESET);
            if (!right && w < width[c]) pad(&line, width[c] - w);
            buf_free(&text);
        }
        while (line.len && line.data[line.len - 1] == ' ') line.data[--line.len] = '\0';
        buf_puts(out, buf_str(&line));
        buf_putc(out, '\n');
    }
    if (d->n_rows == 0) buf_puts(out, "(no rows)\n");
    write_footnotes(d, max_width, out);

    buf_free(&line);
    for (size_t c = 0; c < k; c++) free_lines(hlines[c], n_hlines[c]);
    free(hlines);
    free(n_hlines);
    free(tail);
    free(width);
}

/* Leaves columns with a drop_rank out of col[0..*k) (the highest rank first, a rank at a time)
 * while the grid cannot fit max_width with its text at 8 code points or more; names them in
 * left_out ("cv ratio, unit"). */
static void drop_columns(const tta_table_display *d, size_t *col, size_t *k, size_t max_width, buf *left_out) {
    size_t *width = callocCheck(*k + 1, sizeof *width), *tail = callocCheck(*k + 1, sizeof *tail), gap;
    for (;;) {
        int rank = 0;
        for (size_t c = 0; c < *k; c++)
            if (d->drop_rank[col[c]] > rank) rank = d->drop_rank[col[c]];
        if (rank == 0 || fit_grid(d, col, *k, max_width, 0, width, tail, &gap) <= max_width) break;
        size_t kept = 0;
        for (size_t c = 0; c < *k; c++) {
            if (d->drop_rank[col[c]] != rank) {
                col[kept++] = col[c];
                continue;
            }
            if (left_out->len) buf_puts(left_out, ", ");
            buf_puts(left_out, d->header[col[c]]);
        }
        assert(kept < *k);
        *k = kept;
    }
    free(width);
    free(tail);
}

/* The table for people: constant text said once above, then a record (one wide row) or a grid. */
static void write_text(const tta_table *t, const tta_text_options *o, buf *out) {
    size_t max_width = o && o->max_width > 0 ? (size_t)o->max_width : DEFAULT_WIDTH;
    int color = o && o->color;
    tta_table_display d;
    tta_table_display_init(&d, t);
    size_t nc = d.n_cols;

    /* Text that is the same on every row is said once, above; at least one column stays. */
    int *hoisted = callocCheck(nc + 1, sizeof *hoisted);
    size_t n_hoisted = 0;
    for (size_t j = 0; j < nc; j++) n_hoisted += hoisted[j] = column_is_constant(&d, j);
    if (n_hoisted == nc) {
        memset(hoisted, 0, nc * sizeof *hoisted);
        n_hoisted = 0;
    }
    if (n_hoisted) {
        size_t line_w = 0;
        for (size_t j = 0; j < nc; j++) {
            if (!hoisted[j]) continue;
            buf item = {0};
            buf_printf(&item, "%s: %s", d.header[j], d.cell[j]);
            size_t w = tta_utf8_width(buf_str(&item));
            if (line_w && line_w + 2 + w > max_width) {
                buf_putc(out, '\n');
                line_w = 0;
            } else if (line_w) {
                buf_puts(out, "  ");
                line_w += 2;
            }
            buf_puts(out, buf_str(&item));
            line_w += w;
            buf_free(&item);
        }
        buf_puts(out, "\n\n");
    }
    size_t *col = callocCheck(nc + 1, sizeof *col), k = 0, total = 0;
    for (size_t j = 0; j < nc; j++)
        if (!hoisted[j]) {
            total += (k ? 2 : 0) + natural_width(&d, j, k == 0, NULL);
            col[k++] = j;
        }
    int wide = o && o->wide;
    /* One record too wide for the page: "header  value" lines keep every character. */
    if (d.n_rows == 1 && total > max_width) {
        write_record(&d, max_width, color, out);
    } else {
        buf left_out = {0};
        size_t shown = k;
        if (!wide) drop_columns(&d, col, &k, max_width, &left_out);
        size_t nc_hidden = shown - k;
        write_grid(&d, col, k, max_width, color, wide, out);
        if (left_out.len) { /* wrapped as footnotes are */
            buf say = {0};
            buf_printf(&say, "%zu column%s hidden at %zu columns: %s (--wide shows every column)", nc_hidden,
                       nc_hidden == 1 ? "" : "s", max_width, buf_str(&left_out));
            char **lines;
            size_t n = wrap_words(buf_str(&say), max_width > 20 ? max_width - 2 : 20, 0, &lines);
            for (size_t l = 0; l < n; l++) buf_printf(out, "%s%s\n", l ? "  " : "", lines[l]);
            free_lines(lines, n);
            buf_free(&say);
        }
        buf_free(&left_out);
    }
    free(col);
    free(hoisted);
    tta_table_display_free(&d);
}

/* ---- Markdown -------------------------------------------------------------------------------- */

static int is_word_char(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* Appends s with the punctuation that would make Markdown syntax backslash-escaped. An underscore
 * between two letters or digits cannot start emphasis in GitHub Markdown, so it is left as is:
 * system names such as dgxa100_ngc20.06_mxnet stay readable in the source. */
static void markdown_escape(buf *out, const char *s) {
    for (const char *p = s; *p; p++) {
        int escape = strchr("\\|*`<>[]~", *p) != NULL;
        if (*p == '_') escape = !(p > s && is_word_char(p[-1]) && is_word_char(p[1]));
        if (escape) buf_putc(out, '\\');
        buf_putc(out, *p);
    }
}

/* A GitHub Markdown table of the display's cells, padded so that the source reads as a table too. */
static void write_markdown(const tta_table *t, buf *out) {
    tta_table_display d;
    tta_table_display_init(&d, t);
    size_t nc = d.n_cols, nr = d.n_rows;
    char **text = callocCheck((nr + 1) * nc + 1, sizeof *text); /* row 0: the header */
    size_t *width = callocCheck(nc + 1, sizeof *width);
    buf b = {0};
    for (size_t j = 0; j < nc; j++) {
        markdown_escape(&b, d.header[j]);
        text[j] = buf_take(&b);
        for (size_t i = 0; i < nr; i++) {
            markdown_escape(&b, d.cell[i * nc + j]);
            if (j == 0) buf_puts(&b, d.row_mark[i]);
            text[(i + 1) * nc + j] = buf_take(&b);
        }
        width[j] = 3;
        for (size_t i = 0; i <= nr; i++) {
            size_t w = tta_utf8_width(text[i * nc + j]);
            if (w > width[j]) width[j] = w;
        }
    }
    for (size_t i = 0; i <= nr; i++) {
        buf_putc(out, '|');
        for (size_t j = 0; j < nc; j++) {
            const char *s = text[i * nc + j];
            size_t w = tta_utf8_width(s);
            int right = tta_col_kind_is_numeric(d.col[j]->kind);
            buf_putc(out, ' ');
            if (right) pad(out, width[j] - w);
            buf_puts(out, s);
            if (!right) pad(out, width[j] - w);
            buf_puts(out, " |");
        }
        buf_putc(out, '\n');
        if (i == 0) {
            buf_putc(out, '|');
            for (size_t j = 0; j < nc; j++) {
                int right = tta_col_kind_is_numeric(d.col[j]->kind);
                buf_putc(out, ' ');
                for (size_t x = 0; x + right < width[j]; x++) buf_putc(out, '-');
                if (right) buf_putc(out, ':');
                buf_puts(out, " |");
            }
            buf_putc(out, '\n');
        }
    }
    /* Footnotes as lines of one paragraph, joined by hard line breaks (a backslash at the end). */
    for (size_t k = 0; k < d.n_notes; k++) {
        buf_puts(out, k == 0 ? "\n" : "\\\n");
        tta_superscript(out, (int)k + 1);
        buf_putc(out, ' ');
        markdown_escape(out, d.note[k]);
    }
    if (d.n_notes) buf_putc(out, '\n');
    for (size_t i = 0; i < (nr + 1) * nc; i++) free(text[i]);
    free(text);
    free(width);
    buf_free(&b);
    tta_table_display_free(&d);
}

/* ---- CSV and JSON ---------------------------------------------------------------------------- */

/* The row's distinct reasons for scripts (missing cells they see, then row notes), "; "-joined;
 * empty when there are none. */
static void row_note(const tta_table *t, size_t row, buf *out) {
    const char **seen = callocCheck(t->n_cols + t->notes[row].n + 1, sizeof *seen);
    size_t n = 0;
    for (size_t j = 0; j < t->n_cols + t->notes[row].n; j++) {
        const char *r;
        if (j < t->n_cols) {
            const cell *c = cell_at(t, row, j);
            if (t->cols[j].audience == TTA_FOR_PEOPLE || c->type != CELL_MISSING || !c->text) continue;
            r = c->text;
        } else {
            r = t->notes[row].reason[j - t->n_cols];
        }
        size_t k = 0;
        while (k < n && strcmp(seen[k], r) != 0) k++;
        if (k < n) continue;
        seen[n++] = r;
        if (n > 1) buf_puts(out, "; ");
        buf_puts(out, r);
    }
    free(seen);
}

/* Contract in render.h. */
void tta_csv_field(buf *out, const char *s) {
    if (!strpbrk(s, ",\"\r\n")) {
        buf_puts(out, s);
        return;
    }
    buf_putc(out, '"');
    for (const char *p = s; *p; p++) {
        if (*p == '"') buf_putc(out, '"');
        buf_putc(out, *p);
    }
    buf_putc(out, '"');
}

/* The columns for scripts as RFC 4180 CSV with a trailing note column. */
static void write_csv(const tta_table *t, buf *out) {
    for (size_t j = 0; j < t->n_cols; j++) {
        if (t->cols[j].audience == TTA_FOR_PEOPLE) continue;
        tta_csv_field(out, t->cols[j].key);
        buf_putc(out, ',');
    }
    buf_puts(out, "note\r\n");
    buf b = {0};
    for (size_t i = 0; i < t->n_rows; i++) {
        for (size_t j = 0; j < t->n_cols; j++) {
            if (t->cols[j].audience == TTA_FOR_PEOPLE) continue;
            const cell *c = cell_at(t, i, j);
            if (c->type == CELL_NUMBER) buf_json_number(out, c->number);
            else if (c->type == CELL_BOOL) buf_puts(out, c->number != 0 ? "true" : "false");
            else if (c->type == CELL_TEXT) tta_csv_field(out, c->text);
            buf_putc(out, ',');
        }
        buf_clear(&b);
        row_note(t, i, &b);
        tta_csv_field(out, buf_str(&b));
        buf_puts(out, "\r\n");
    }
    buf_free(&b);
}

/* The columns for scripts as a JSON array of objects, one per line. */
static void write_json(const tta_table *t, buf *out) {
    buf note = {0};
    buf_putc(out, '[');
    for (size_t i = 0; i < t->n_rows; i++) {
        buf_puts(out, i ? ",\n {" : "\n {");
        int first = 1;
        for (size_t j = 0; j < t->n_cols; j++) {
            if (t->cols[j].audience == TTA_FOR_PEOPLE) continue;
            const cell *c = cell_at(t, i, j);
            if (!first) buf_puts(out, ", ");
            first = 0;
            buf_json_string(out, t->cols[j].key, strlen(t->cols[j].key));
            buf_puts(out, ": ");
            if (c->type == CELL_NUMBER) buf_json_number(out, c->number);
            else if (c->type == CELL_BOOL) buf_puts(out, c->number != 0 ? "true" : "false");
            else if (c->type == CELL_TEXT) buf_json_string(out, c->text, strlen(c->text));
            else buf_puts(out, "null");
        }
        buf_clear(&note);
        row_note(t, i, &note);
        if (note.len) {
            buf_puts(out, first ? "\"note\": " : ", \"note\": ");
            buf_json_string(out, note.data, note.len);
        }
        buf_putc(out, '}');
    }
    buf_puts(out, t->n_rows ? "\n]\n" : "]\n");
    buf_free(&note);
}

void tta_table_render(const tta_table *t, tta_out_format fmt, const tta_text_options *o, buf *out) {
    switch (fmt) {
    case TTA_OUT_TABLE: write_text(t, o, out); return;
    case TTA_OUT_CSV: write_csv(t, out); return;
    case TTA_OUT_JSON: write_json(t, out); return;
    case TTA_OUT_MARKDOWN: write_markdown(t, out); return;
    }
    assert(!"unknown output format");
}

int tta_text_width(const char *columns, int tty_columns) {
    if (columns) {
        char *end;
        long v = strtol(columns, &end, 10);
        if (end != columns && *end == '\0' && v > 0 && v <= 100000) return (int)v;
    }
    return tty_columns > 0 ? tty_columns : DEFAULT_WIDTH;
}

tta_text_options tta_text_options_for(FILE *out) {
    int fd = fileno(out), tty = fd >= 0 && isatty(fd);
    const char *no_color = getenv("NO_COLOR"), *wide = getenv("TTA_WIDE");
    tta_text_options o = {.max_width = DEFAULT_WIDTH, .color = tty && !(no_color && *no_color),
                          .wide = !tty || (wide && *wide && strcmp(wide, "0") != 0)};
    if (tty) {
        struct winsize ws;
        int cols = ioctl(fd, TIOCGWINSZ, &ws) == 0 ? ws.ws_col : 0;
        o.max_width = tta_text_width(getenv("COLUMNS"), cols);
    }
    return o;
}

/* ---- order: --sort and --top ----------------------------------------------------------------- */

/* The sort keys of one ordering: columns and their directions. */
typedef struct {
    const tta_table *t;
    const long *col;
    const int *desc;
    size_t n;
} order_keys;

/* Rows a and b (indexes) by the keys: a missing value after every value whichever the direction,
 * numbers and booleans by value, text case-insensitively (then bytewise); ties keep the rows'
 * order (stable). */
static int cmp_rows(const void *a, const void *b, void *ctx) {
    const order_keys *k = ctx;
    size_t ra = *(const size_t *)a, rb = *(const size_t *)b;
    for (size_t i = 0; i < k->n; i++) {
        const cell *x = cell_at(k->t, ra, (size_t)k->col[i]), *y = cell_at(k->t, rb, (size_t)k->col[i]);
        int mx = x->type == CELL_MISSING, my = y->type == CELL_MISSING, c = 0;
        if (mx || my) {
            if (mx != my) return mx ? 1 : -1;
            continue;
        }
        if (x->type == CELL_TEXT && y->type == CELL_TEXT) {
            c = strcasecmp(x->text, y->text);
            if (!c) c = strcmp(x->text, y->text);
        } else {
            c = (x->number > y->number) - (x->number < y->number);
        }
        if (c) return k->desc[i] ? -c : c;
    }
    return (ra > rb) - (ra < rb);
}

tta_table *tta_table_ordered(const tta_table *t, const char *sort, size_t top, buf *why) {
    assert(t && why);
    size_t n_keys = 0, cap = 1;
    for (const char *p = sort ? sort : ""; *p; p++) cap += *p == ',';
    long *col = callocCheck(cap, sizeof *col);
    int *desc = callocCheck(cap, sizeof *desc);
    int ok = 1;
    for (const char *p = sort ? sort : ""; *p && ok;) {
        const char *end = strchr(p, ',');
        if (!end) end = p + strlen(p);
        int d = *p == '-';
        char *key = strndupCheck(p + d, (size_t)(end - p - d));
        long j = *key ? tta_table_column(t, key) : -1;
        if (j < 0) {
            buf_printf(why, "--sort: no column '%s' in this table (its keys:", key);
            for (size_t c = 0; c < t->n_cols; c++) buf_printf(why, "%s %s", c ? "," : "", t->cols[c].key);
            buf_puts(why, ")");
            ok = 0;
        } else {
            col[n_keys] = j;
            desc[n_keys++] = d;
        }
        free(key);
        p = *end ? end + 1 : end;
    }
    tta_table *o = NULL;
    if (ok) {
        size_t *rows = callocCheck(t->n_rows + 1, sizeof *rows);
        for (size_t i = 0; i < t->n_rows; i++) rows[i] = i;
        order_keys k = {t, col, desc, n_keys};
        if (n_keys) qsort_r(rows, t->n_rows, sizeof *rows, cmp_rows, &k);
        size_t n = top && top < t->n_rows ? top : t->n_rows;
        o = tta_table_new(t->cols, t->n_cols);
        memcpy(o->whole, t->whole, t->n_cols * sizeof *o->whole);
        memcpy(o->drop_rank, t->drop_rank, t->n_cols * sizeof *o->drop_rank);
        for (size_t i = 0; i < n; i++) {
            size_t r = tta_table_add_row(o);
            for (size_t j = 0; j < t->n_cols; j++) {
                cell *c = &o->cells[r * o->n_cols + j];
                *c = *cell_at(t, rows[i], j);
                if (c->text) c->text = strdupCheck(c->text);
            }
            for (size_t m = 0; m < t->notes[rows[i]].n; m++) tta_table_add_note(o, r, t->notes[rows[i]].reason[m]);
        }
        free(rows);
    }
    free(col);
    free(desc);
    return o;
}

void tta_table_write(const tta_table *t, tta_out_format fmt, FILE *out) {
    buf b = {0}, why = {0};
    tta_text_options o = tta_text_options_for(out);
    const char *sort = getenv("TTA_SORT"), *top_text = getenv("TTA_TOP");
    long top = top_text ? strtol(top_text, NULL, 10) : 0;
    tta_table *ordered = NULL;
    if ((sort && *sort) || top > 0) {
        ordered = tta_table_ordered(t, sort, top > 0 ? (size_t)top : 0, &why);
        if (!ordered) { /* said, and the table keeps its order (cut to --top all the same) */
            fprintf(stderr, "tta: %s; the table keeps its order\n", buf_str(&why));
            ordered = tta_table_ordered(t, NULL, top > 0 ? (size_t)top : 0, &why);
        }
    }
    tta_table_render(ordered ? ordered : t, fmt, &o, &b);
    fwrite(buf_str(&b), 1, b.len, out);
    tta_table_free(ordered);
    buf_free(&why);
    buf_free(&b);
}
