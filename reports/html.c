/* html.c: the HTML table and the self-contained HTML page (see render.h).
 *
 * A report page must open anywhere, offline, years later, and show the same thing: all style is
 * inline, its one script (sorting and filtering tables; page_script) is inline and optional, nothing
 * is fetched, and a Content-Security-Policy forbids fetching anything at all and running any other
 * script (so that even text from a log cannot make the page reach out). Its links are to
 * its own sections (#id), to files written beside it (a long table's CSV, a round's page) and, from
 * an entry's system, to where its logs and system description are published (a table's
 * TTA_COL_URL columns, built from the rules: never text from a log); following one is the reader's
 * choice, nothing is fetched by opening the page. Tables use the
 * text table's display (tta_table_display), so a number reads the same in every format.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "reports/render.h"

/* The phone's layout (see the stylesheet): a window this narrow shows tables as cards. */
#define PHONE_MEDIA "@media (max-width:600px)"

static const char stylesheet[] =
    ":root{color-scheme:light}\n"
    "body{margin:0;background:#f3f4f6;color:#1a1a1a;"
    "font:15px/1.55 \"DejaVu Sans\",\"Liberation Sans\",Arial,Helvetica,sans-serif}\n"
    "main{box-sizing:border-box;max-width:1260px;min-height:100vh;margin:0 auto;padding:32px 28px 56px;"
    "background:#fff;box-shadow:0 0 0 1px #e3e5e8}\n"
    "@media (max-width:700px){main{padding:16px 10px 40px}h1{font-size:21px}body{font-size:14px}}\n"
    "h2,h3{scroll-margin-top:8px}\n"
    "h3{font-size:16px;margin:26px 0 8px}\n"
    "nav.toc{margin:14px 0 8px;padding:8px 14px;background:#f8f9fb;border:1px solid #e3e5e8}\n"
    "nav.toc h2{margin:4px 0 6px;border:0;font-size:16px}\n"
    "nav.toc ol{margin:0;padding-left:22px;columns:16em;column-gap:24px}\n"
    "nav.toc li{break-inside:avoid}\n"
    "details{margin:10px 0 18px}\n"
    "summary{cursor:pointer;color:#234;font-size:13.5px}\n"
    "th.sorts{cursor:pointer}input.filter{display:block;margin:10px 0 0;padding:3px 6px;font:inherit;font-size:13px;max-width:100%}\n"
    "header{border-bottom:2px solid #1a1a1a;padding-bottom:12px;margin-bottom:8px}\n"
    "h1{font-size:26px;line-height:1.25;margin:0 0 6px;letter-spacing:-0.01em}\n"
    ".meta{margin:0;color:#666;font-size:13px}\n"
    "h2{font-size:19px;margin:38px 0 10px;padding-bottom:5px;border-bottom:1px solid #dcdfe3}\n"
    "p{margin:10px 0;max-width:82ch}\n"
    ".table-wrap{overflow-x:auto;margin:14px 0 4px}\n"
    "table{border-collapse:collapse;font-size:13.5px;font-variant-numeric:tabular-nums}\n"
    "table.dense{font-size:12.5px}\n"
    "table.dense th,table.dense td{padding:4px 7px}\n"
    "caption{caption-side:top;text-align:left;font-weight:bold;padding:0 0 8px}\n"
    "th,td{padding:5px 10px;text-align:left;vertical-align:top}\n"
    "th{border-bottom:2px solid #3a3a3a;font-weight:bold;vertical-align:bottom}\n"
    "td{border-bottom:1px solid #e6e8eb}\n"
    "tbody tr:nth-child(even){background:#f8f9fb}\n"
    "td{overflow-wrap:break-word}\n"
    "td a{color:#1f4e8c}td a.more{font-size:11px;white-space:nowrap}\n"
    ".num{text-align:right}\n"
    "td.num{white-space:nowrap}\n"
    /* a table's numeric columns by position (class rK: column K), not a class on each of its many cells;
     * right-aligned, and their cells on one line */
    ":is(td,th):is(.r1 :nth-child(1),.r2 :nth-child(2),.r3 :nth-child(3),.r4 :nth-child(4),"
    ".r5 :nth-child(5),.r6 :nth-child(6),.r7 :nth-child(7),.r8 :nth-child(8),.r9 :nth-child(9),"
    ".r10 :nth-child(10),.r11 :nth-child(11),.r12 :nth-child(12),.r13 :nth-child(13),.r14 :nth-child(14),"
    ".r15 :nth-child(15),.r16 :nth-child(16),.r17 :nth-child(17),.r18 :nth-child(18),.r19 :nth-child(19),"
    ".r20 :nth-child(20),.r21 :nth-child(21),.r22 :nth-child(22),.r23 :nth-child(23),.r24 :nth-child(24)){text-align:right}\n"
    "td:is(.r1 :nth-child(1),.r2 :nth-child(2),.r3 :nth-child(3),.r4 :nth-child(4),.r5 :nth-child(5),"
    ".r6 :nth-child(6),.r7 :nth-child(7),.r8 :nth-child(8),.r9 :nth-child(9),.r10 :nth-child(10),"
    ".r11 :nth-child(11),.r12 :nth-child(12),.r13 :nth-child(13),.r14 :nth-child(14),.r15 :nth-child(15),"
    ".r16 :nth-child(16),.r17 :nth-child(17),.r18 :nth-child(18),.r19 :nth-child(19),.r20 :nth-child(20),"
    ".r21 :nth-child(21),.r22 :nth-child(22),.r23 :nth-child(23),.r24 :nth-child(24)){white-space:nowrap}\n"
    ".na{color:#8a8a8a}\n"
    ".empty{color:#8a8a8a;font-style:italic}\n"
    ".notes{list-style:none;margin:6px 0 22px;padding:0;font-size:12.5px;color:#555}\n"
    ".notes li{margin:2px 0}\n"
    "figure{margin:22px 0}\n"
    "figure svg{display:block;box-sizing:border-box;max-width:100%;height:auto;border:1px solid #e6e8eb;background:#fff}\n"
    "figure.wide{overflow-x:auto}\n"
    "figure.wide svg{max-width:none}\n"
    "figcaption{margin-top:6px;font-size:13px;color:#555;max-width:82ch}\n"
    /* tables sortable without script (results_table.c): a heading links to a hidden target whose
     * :target orders the grid's cells by the row's --kN (its rank by column N) */
    ".sortable>span{display:none}\n"
    ".sortable table{display:grid}\n"
    ".sortable thead,.sortable tbody,.sortable tr{display:contents}\n"
    ".sortable th a{color:inherit;text-decoration:underline dotted}\n"
    /* a number's heading (a benchmark's name) may break inside a word ("cosmoflow models/min"), so
     * that a table of many columns (a round of HPC: four a weak-scaling benchmark; class wide) fits the page */
    ".sortable .wide th.n{overflow-wrap:anywhere}\n"
    ".sortable .id,.sortable td a{display:block;font-size:11px;color:#777}\n"
    ".sortable td.clip{max-width:10em;min-width:7em;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}\n"
    ".sortable table.dense{font-size:12px}\n"
    ".sortable table.dense th,.sortable table.dense td{padding:4px 5px}\n"
    ".sortable table.wide{font-size:11.5px}.sortable table.wide th,.sortable table.wide td{padding:3px 3px}\n"
    ".sortable>.k1:target~.table-wrap td{order:var(--k1)}.sortable>.k2:target~.table-wrap td{order:var(--k2)}\n"
    ".sortable>.k3:target~.table-wrap td{order:var(--k3)}.sortable>.k4:target~.table-wrap td{order:var(--k4)}\n"
    ".sortable>.k5:target~.table-wrap td{order:var(--k5)}.sortable>.k6:target~.table-wrap td{order:var(--k6)}\n"
    ".sortable>.k7:target~.table-wrap td{order:var(--k7)}.sortable>.k8:target~.table-wrap td{order:var(--k8)}\n"
    ".sortable>.k9:target~.table-wrap td{order:var(--k9)}.sortable>.k10:target~.table-wrap td{order:var(--k10)}\n"
    ".sortable>.k11:target~.table-wrap td{order:var(--k11)}.sortable>.k12:target~.table-wrap td{order:var(--k12)}\n"
    ".sortable>.k13:target~.table-wrap td{order:var(--k13)}.sortable>.k14:target~.table-wrap td{order:var(--k14)}\n"
    ".sortable>.k15:target~.table-wrap td{order:var(--k15)}.sortable>.k16:target~.table-wrap td{order:var(--k16)}\n"
    ".sortable>.k17:target~.table-wrap td{order:var(--k17)}.sortable>.k18:target~.table-wrap td{order:var(--k18)}\n"
    ".sortable>.k19:target~.table-wrap td{order:var(--k19)}.sortable>.k20:target~.table-wrap td{order:var(--k20)}\n"
    ".sortable>.k21:target~.table-wrap td{order:var(--k21)}.sortable>.k22:target~.table-wrap td{order:var(--k22)}\n"
    ".sortable>.k23:target~.table-wrap td{order:var(--k23)}.sortable>.k24:target~.table-wrap td{order:var(--k24)}\n"
    /* A phone (PHONE_MEDIA): nothing scrolls sideways, neither the page nor a frame in it. Each
     * table's row is a card, its cells one under another, each after its column's name (the
     * table's rules from tta_html_cell_labels); a heading row is a wrapped line of sort links
     * (the results tables' without script, the others' with the page's script; without it, none).
     * The results tables stay sorted by their hidden targets: a one-column grid whose cells of one
     * row share their order. A wide plot is scaled to the width (a phone zooms it). */
    PHONE_MEDIA "{main{overflow-wrap:anywhere}\n"
    ".table-wrap{overflow:visible}\n"
    ".table-wrap :is(table,thead,tbody,tr,td,caption){display:block}\n"
    ".table-wrap thead tr{display:flex;flex-wrap:wrap;gap:0 12px;margin:0 0 6px;font-size:12.5px}\n"
    ".table-wrap thead tr:has(:is(.sorts,a))::before{content:\"Sort by:\";color:#666}\n"
    ".table-wrap table th{display:block;border:0;padding:0;text-align:left!important}\n"
    ".table-wrap th:not(.sorts),.sortable .table-wrap th:not(:has(a)){display:none}\n"
    ".sortable .table-wrap th:has(a){display:block}\n"
    /* a card: its first cell a line of its own, the others side by side as they fit */
    ".table-wrap tbody tr{display:flex;flex-wrap:wrap;gap:0 16px;margin:0 0 8px;padding:5px 9px;"
    "border:1px solid #dcdfe3;border-radius:4px}\n"
    ".table-wrap tr[hidden],.table-wrap td:empty{display:none}\n"
    ".table-wrap table td{border:0;padding:1px 0;min-width:0;text-align:left!important;"
    "white-space:normal!important;overflow-wrap:anywhere}\n"
    ".table-wrap td::before{color:#666;font-size:12px;margin-right:.4em}.table-wrap td.empty::before{content:none!important}\n"
    ".table-wrap td:first-child{flex-basis:100%;font-weight:bold}\n"
    /* the results table: a grid of two columns, a row's first cell across both */
    ".sortable table{display:grid;grid-template-columns:repeat(2,minmax(0,1fr))!important;gap:0 12px}\n"
    ".sortable thead,.sortable td:first-child{grid-column:1/-1}\n"
    ".sortable .table-wrap tbody,.sortable .table-wrap tbody tr{display:contents}\n"
    ".sortable td:first-child{margin-top:10px;padding-top:5px!important;border-top:2px solid #3a3a3a!important}\n"
    ".sortable td.clip{max-width:none;min-width:0;overflow:visible}\n"
    ".sortable td a,.sortable td .id{display:inline;margin-left:.4em}\n"
    "figure.wide{overflow:visible}figure.wide svg{max-width:100%}}\n"
    "@media print{body{background:#fff}main{max-width:none;padding:0;box-shadow:none}"
    "figure,table{break-inside:avoid}}\n";

/* The page's one script: a click on a table's heading sorts its rows by that column (numbers by
 * value, a missing value last), and a table of more than 10 rows gets a box that filters its rows
 * by text. The results tables keep their own sorting without script. Nothing is fetched, and the
 * page reads whole without it (a browser with scripts off sees every row in the page's order).
 * Its SHA-256 is PAGE_SCRIPT_SHA256, base64, which the page's Content-Security-Policy names: the
 * browser runs this script and no other. Change both together (tests/cli/reports.sh checks them):
 *   python3 -c 'import base64,hashlib,sys; print(base64.b64encode(hashlib.sha256(sys.stdin.read().encode()).digest()).decode())' */
static const char page_script[] = "(function(){document.querySelectorAll(\".table-wrap\").forEach(function(w){if(w.closest(\".sortable\"))return;var t=w.querySelector(\"table\"),b=t&&t.tBodies[0];if(!b)return;var rows=[].slice.call(b.rows);function v(r,k){var s=r.cells[k]?r.cells[k].textContent:\"\",n=parseFloat(s.replace(/[^0-9.eE+-]/g,\"\"));return[isNaN(n)?null:n,s.toLowerCase()]}t.querySelectorAll(\"thead th\").forEach(function(h,k){h.className+=\" sorts\";h.title=\"sort by this column\";h.addEventListener(\"click\",function(){var d=h.getAttribute(\"data-d\")===\"1\"?-1:1;h.setAttribute(\"data-d\",d);rows.sort(function(a,c){var x=v(a,k),y=v(c,k);if(x[0]!==null&&y[0]!==null&&x[0]!==y[0])return d*(x[0]-y[0]);if((x[0]===null)!==(y[0]===null))return x[0]===null?1:-1;return d*(x[1]<y[1]?-1:x[1]>y[1]?1:0)});rows.forEach(function(r){b.appendChild(r)})})});if(rows.length>10){var i=document.createElement(\"input\");i.type=\"search\";i.placeholder=\"filter these rows\";i.className=\"filter\";i.addEventListener(\"input\",function(){var q=i.value.toLowerCase();rows.forEach(function(r){r.hidden=q!==\"\"&&r.textContent.toLowerCase().indexOf(q)<0})});w.parentNode.insertBefore(i,w)}})})();";
#define PAGE_SCRIPT_SHA256 "ekeDa6yGuZRNpJWUUWyBo+kHB/LmRIL33EqvQFG67qw="

void tta_html_begin(buf *out, const char *title, const char *generated_at) {
    assert(title && generated_at);
    buf_puts(out,
             "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
             "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
             "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
             "script-src 'sha256-" PAGE_SCRIPT_SHA256 "'\">\n"
             "<title>");
    tta_xml_escape(out, title);
    buf_puts(out, "</title>\n<style>\n");
    buf_puts(out, stylesheet);
    buf_puts(out, "</style>\n</head>\n<body>\n<main>\n<header>\n<h1>");
    tta_xml_escape(out, title);
    buf_puts(out, "</h1>\n<p class=\"meta\">Generated ");
    tta_xml_escape(out, generated_at);
    buf_puts(out, " by tta</p>\n</header>\n");
}

/* Appends text's anchor: ASCII letters and digits lowercased, every other run of characters one
 * '-', none at either end ("Results table: v0.7" -> "results-table-v0-7"); "section" when empty. */
static void slug(buf *out, const char *text) {
    size_t start = out->len;
    int dash = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        int alnum = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9');
        if (!alnum) {
            dash = out->len > start;
            continue;
        }
        if (dash) buf_putc(out, '-');
        dash = 0;
        buf_putc(out, (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p));
    }
    if (out->len == start) buf_puts(out, "section");
}

void tta_html_heading(buf *out, const char *text) {
    buf id = {0};
    slug(&id, text);
    tta_html_heading_id(out, buf_str(&id), text);
    buf_free(&id);
}

void tta_html_heading_id(buf *out, const char *id, const char *text) {
    assert(id && text);
    buf_puts(out, "<h2 id=\"");
    tta_xml_escape(out, id);
    buf_puts(out, "\">");
    tta_xml_escape(out, text);
    buf_puts(out, "</h2>\n");
}

void tta_html_subheading(buf *out, const char *text) {
    buf_puts(out, "<h3>");
    tta_xml_escape(out, text);
    buf_puts(out, "</h3>\n");
}

void tta_html_details_begin(buf *out, const char *summary) {
    buf_puts(out, "<details>\n<summary>");
    tta_xml_escape(out, summary);
    buf_puts(out, "</summary>\n");
}

void tta_html_details_end(buf *out) { buf_puts(out, "</details>\n"); }

void tta_html_link_paragraph(buf *out, const char *before, const char *href, const char *text, const char *after) {
    assert(href && text);
    buf_puts(out, "<p>");
    if (before) tta_xml_escape(out, before);
    buf_puts(out, "<a href=\"");
    tta_xml_escape(out, href);
    buf_puts(out, "\">");
    tta_xml_escape(out, text);
    buf_puts(out, "</a>");
    if (after) tta_xml_escape(out, after);
    buf_puts(out, "</p>\n");
}

void tta_html_toc(buf *page, size_t at) {
    assert(at <= page->len);
    buf nav = {0};
    buf_puts(&nav, "<nav class=\"toc\">\n<h2 id=\"contents\">Contents</h2>\n<ol>\n");
    size_t n = 0;
    const char *p = buf_str(page) + at;
    while ((p = strstr(p, "<h2 id=\""))) {
        const char *id = p + 8, *id_end = strchr(id, '"');
        const char *text = id_end ? strchr(id_end, '>') : NULL;
        const char *text_end = text ? strstr(text, "</h2>") : NULL;
        if (!text_end) break;
        text++;
        /* the id and the text are escaped already: copied as they are */
        buf_puts(&nav, "<li><a href=\"#");
        buf_append(&nav, id, (size_t)(id_end - id));
        buf_puts(&nav, "\">");
        buf_append(&nav, text, (size_t)(text_end - text));
        buf_puts(&nav, "</a></li>\n");
        n++;
        p = text_end;
    }
    buf_puts(&nav, "</ol>\n</nav>\n");
    if (n >= 2) {
        buf rest = {0};
        buf_append(&rest, page->data + at, page->len - at);
        page->len = at;
        buf_append(page, nav.data, nav.len);
        buf_append(page, rest.data, rest.len);
        buf_free(&rest);
    }
    buf_free(&nav);
}

void tta_html_paragraph(buf *out, const char *text) {
    buf_puts(out, "<p>");
    tta_xml_escape(out, text);
    buf_puts(out, "</p>\n");
}

/* Tables with more columns than this are set tighter. */
#define DENSE_COLUMNS 9

void tta_html_escape_breakable(buf *out, const char *s) {
    buf e = {0};
    tta_xml_escape(&e, s);
    for (const char *p = buf_str(&e); *p; p++) {
        buf_putc(out, *p);
        if ((*p == '_' || *p == '/') && p[1]) buf_puts(out, "<wbr>");
    }
    buf_free(&e);
}

void tta_html_cell_labels(buf *out, const char *const *headers, size_t n, char cls[14]) {
    assert(headers || n == 0);
    /* FNV-1a over the headings, each ended by a NUL */
    unsigned long long h = 14695981039346656037ull;
    for (size_t k = 0; k < n; k++)
        for (const unsigned char *p = (const unsigned char *)headers[k];; p++) {
            h = (h ^ *p) * 1099511628211ull;
            if (!*p) break;
        }
    snprintf(cls, 14, "c%012llx", h & 0xffffffffffffull);
    char first[64];
    snprintf(first, sizeof first, "<style>" PHONE_MEDIA "{.%s ", cls);
    if (n == 0 || (out->len && memmem(out->data, out->len, first, strlen(first)))) return; /* none, or on the page */
    buf_puts(out, "<style>");
    for (size_t k = 0; k < n; k++) {
        buf_printf(out, "%s.%s td:nth-child(%zu)::before{content:\"", k ? "" : PHONE_MEDIA "{", cls, k + 1);
        buf text = {0};
        tta_text_clean(&text, headers[k]);
        /* a CSS string inside <style>: no '"' or '\\' ends it, no "</style" ends the element */
        for (const char *p = buf_str(&text); *p; p++) {
            if (*p == '"' || *p == '\\') buf_putc(out, '\\');
            if (*p == '<') buf_puts(out, "\\3c ");
            else buf_putc(out, *p);
        }
        buf_free(&text);
        buf_puts(out, ":\"}");
    }
    buf_puts(out, "}</style>\n");
}

/* Numeric columns up to this position are right-aligned by the table's class (the stylesheet's
 * .rK rules), later ones by a class on each cell. */
#define NUM_BY_POSITION 24

/* The addresses (TTA_COL_URL columns) of t's row that link from the cell of the column keyed key:
 * the first opens a link around the cell's text (links_open), each later one follows it as a
 * small link named by its column's key without "_url" (links_close). */
static const char *first_link(const tta_table *t, size_t row, const char *key, size_t *col) {
    for (size_t u = 0; u < tta_table_n_columns(t); u++) {
        const tta_column *c = tta_table_column_def(t, u);
        if (c->kind == TTA_COL_URL && !strcmp(c->header, key) && tta_table_url(t, row, u)) {
            *col = u;
            return tta_table_url(t, row, u);
        }
    }
    return NULL;
}

static void links_open(buf *out, const tta_table *t, size_t row, const char *key) {
    size_t u;
    const char *href = first_link(t, row, key, &u);
    if (!href) return;
    buf_puts(out, "<a href=\"");
    tta_xml_escape(out, href);
    buf_puts(out, "\">");
}

static void links_close(buf *out, const tta_table *t, size_t row, const char *key) {
    size_t first;
    if (!first_link(t, row, key, &first)) return;
    buf_puts(out, "</a>");
    for (size_t u = first + 1; u < tta_table_n_columns(t); u++) {
        const tta_column *c = tta_table_column_def(t, u);
        const char *href = c->kind == TTA_COL_URL && !strcmp(c->header, key) ? tta_table_url(t, row, u) : NULL;
        if (!href) continue;
        buf_puts(out, " <a class=\"more\" href=\"");
        tta_xml_escape(out, href);
        buf_puts(out, "\">");
        const char *end = strstr(c->key, "_url");
        buf_append(out, c->key, end ? (size_t)(end - c->key) : strlen(c->key)); /* a key: plain letters */
        buf_puts(out, "</a>");
    }
}

/* 1 when column j of d holds one value on every row (and there are rows). */
static int one_value(const tta_table_display *d, size_t j) {
    for (size_t i = 1; i < d->n_rows; i++)
        if (strcmp(d->cell[i * d->n_cols + j], d->cell[j]) || d->note_of[i * d->n_cols + j] != d->note_of[j]) return 0;
    return d->n_rows > 0;
}

/* The table, with an optional <caption>, then its footnotes; rows anchored by the column keyed
 * anchor_key (NULL: none) as "<prefix>N"; columns empty on every row, without a reason, left out,
 * and so are the columns keyed as one of fixed (NULL-terminated; NULL: none) that hold one value
 * on every row (what the section's heading says). */
static void table_html(const tta_table *t, const char *caption, const char *anchor_key, const char *prefix,
                       const char *const *fixed, int labels, buf *out) {
    tta_table_display d;
    tta_table_display_init(&d, t);
    size_t anchor = d.n_cols;
    for (size_t j = 0; anchor_key && j < d.n_cols; j++)
        if (!strcmp(d.col[j]->key, anchor_key)) anchor = j;
    assert(!anchor_key || anchor < d.n_cols);
    /* a column without a value or a reason on any row (the cost of MLPerf entries) is left out */
    int *shown = mallocCheck((d.n_cols ? d.n_cols : 1) * sizeof *shown);
    size_t n_shown = 0;
    for (size_t j = 0; j < d.n_cols; j++) {
        shown[j] = d.n_rows == 0 || j == anchor;
        for (size_t i = 0; i < d.n_rows && !shown[j]; i++) shown[j] = d.note_of[i * d.n_cols + j] != -1;
        for (size_t k = 0; fixed && fixed[k] && shown[j] && j != anchor; k++)
            if (!strcmp(d.col[j]->key, fixed[k]) && one_value(&d, j)) shown[j] = 0;
        n_shown += shown[j];
    }
    /* numeric columns right-aligned by the table's class (rK: the Kth shown column), up to
     * NUM_BY_POSITION; a later one by a class on each cell */
    buf cls = {0};
    if (labels) { /* a page's table: its columns' names for the phone's cards */
        const char **names = mallocCheck((n_shown ? n_shown : 1) * sizeof *names);
        for (size_t j = 0, k = 0; j < d.n_cols; j++)
            if (shown[j]) names[k++] = d.header[j];
        char label_cls[14];
        tta_html_cell_labels(out, names, n_shown, label_cls);
        buf_puts(&cls, label_cls);
        free(names);
    }
    if (n_shown > DENSE_COLUMNS) buf_printf(&cls, "%sdense", cls.len ? " " : "");
    for (size_t j = 0, k = 0; j < d.n_cols; j++) {
        if (!shown[j]) continue;
        k++;
        if (k <= NUM_BY_POSITION && tta_col_kind_is_numeric(d.col[j]->kind))
            buf_printf(&cls, "%sr%zu", cls.len ? " " : "", k);
    }
    if (cls.len) buf_printf(out, "<div class=\"table-wrap\">\n<table class=\"%s\">\n", buf_str(&cls));
    else buf_puts(out, "<div class=\"table-wrap\">\n<table>\n");
    buf_free(&cls);
    if (caption) {
        buf_puts(out, "<caption>");
        tta_xml_escape(out, caption);
        buf_puts(out, "</caption>\n");
    }
    buf_puts(out, "<thead>\n<tr>");
    for (size_t j = 0, k = 0; j < d.n_cols; j++) {
        if (!shown[j]) continue;
        k++;
        buf_puts(out, tta_col_kind_is_numeric(d.col[j]->kind) && k > NUM_BY_POSITION ? "<th class=\"num\">" : "<th>");
        tta_xml_escape(out, d.header[j]);
    }
    /* a cell's and a row's end tags are left out, as HTML allows (the next cell, row or the
     * table's end closes them): a round's pages hold 60,000 cells */
    buf_puts(out, "\n</thead>\n<tbody>\n");
    for (size_t i = 0; i < d.n_rows; i++) {
        if (anchor < d.n_cols && d.note_of[i * d.n_cols + anchor] == 0) {
            buf_puts(out, "<tr id=\"");
            tta_xml_escape(out, prefix);
            tta_xml_escape(out, d.cell[i * d.n_cols + anchor]);
            buf_puts(out, "\">");
        } else {
            buf_puts(out, "<tr>");
        }
        int first = 1; /* the row's own note marks go on its first shown cell */
        size_t cell = 0; /* where the last cell's content starts */
        for (size_t j = 0, k = 0; j < d.n_cols; j++) {
            if (!shown[j]) continue;
            k++;
            size_t at = i * d.n_cols + j;
            int numeric = tta_col_kind_is_numeric(d.col[j]->kind), note = d.note_of[at];
            /* a cell whose column's class aligns it is a plain <td> (the page's cells are many: each
             * byte counts) */
            if (numeric && k > NUM_BY_POSITION) buf_printf(out, "<td class=\"num%s\"", note ? " na" : "");
            else if (note) buf_printf(out, "<td class=\"%sna\"", numeric ? "" : "text ");
            else buf_puts(out, "<td");
            /* a missing value's reason is its footnote (the mark in the cell); a tooltip repeating it
             * on each such cell made a tenth of a round's page */
            const char *tip = note > 0 ? NULL : d.title[at];
            if (tip) {
                buf_puts(out, " title=\"");
                tta_xml_escape(out, tip);
                buf_putc(out, '"');
            }
            buf_putc(out, '>');
            cell = out->len;
            links_open(out, t, i, d.col[j]->key);
            if (numeric) tta_xml_escape(out, d.cell[at]);
            else tta_html_escape_breakable(out, d.cell[at]);
            links_close(out, t, i, d.col[j]->key);
            if (first) tta_xml_escape(out, d.row_mark[i]);
            first = 0;
        }
        /* an empty last cell is closed before the line's end, so that it stays :empty (a phone's
         * card leaves it out) */
        if (cell && out->len == cell) buf_puts(out, "</td>");
        buf_putc(out, '\n');
    }
    if (d.n_rows == 0) buf_printf(out, "<tr><td class=\"empty\" colspan=\"%zu\">(no rows)</td></tr>\n", d.n_cols);
    free(shown);
    buf_puts(out, "</tbody>\n</table>\n</div>\n");
    if (d.n_notes) {
        buf_puts(out, "<ul class=\"notes\">\n");
        for (size_t k = 0; k < d.n_notes; k++) {
            buf_puts(out, "<li>");
            tta_superscript(out, (int)k + 1);
            buf_putc(out, ' ');
            tta_xml_escape(out, d.note[k]);
            buf_puts(out, "</li>\n");
        }
        buf_puts(out, "</ul>\n");
    }
    tta_table_display_free(&d);
}

void tta_table_html(const tta_table *t, buf *out) { table_html(t, NULL, NULL, NULL, NULL, 0, out); }

void tta_html_table(buf *out, const tta_table *t, const char *caption) {
    table_html(t, caption, NULL, NULL, NULL, 1, out);
}

void tta_html_table_anchored(buf *out, const tta_table *t, const char *caption, const char *anchor_key,
                             const char *prefix) {
    assert(anchor_key && prefix);
    table_html(t, caption, anchor_key, prefix, NULL, 1, out);
}

void tta_html_table_in_section(buf *out, const tta_table *t, const char *anchor_key, const char *prefix,
                               const char *const *fixed) {
    assert(!anchor_key || prefix);
    table_html(t, NULL, anchor_key, prefix, fixed, 1, out);
}

/* Plots wider than this scroll sideways at their own size instead of being scaled down to the
 * page, where their text would become too small to read; narrower ones are scaled to the page's
 * width (1,200 px at a 1280 px window: to 86% at most). */
#define WIDE_FIGURE 1400

void tta_html_figure(buf *out, const char *svg, const char *caption) {
    static const char ns[] = " xmlns=\"http://www.w3.org/2000/svg\"", version[] = " version=\"1.1\"",
                      font_attr[] = " font-family=\"";
    assert(svg && strncmp(svg, "<svg", 4) == 0);
    const char *root_end = strchr(svg, '>'), *width = strstr(svg, " width=\"");
    int wide = width && root_end && width < root_end && atoi(width + 8) > WIDE_FIGURE;
    buf_puts(out, wide ? "<figure class=\"wide\">\n<svg" : "<figure>\n<svg");
    /* Inside HTML the namespace is implied: dropping it leaves no URL in the page. So are the
     * version, the font (the page's, which the plot inherits) and the white background (the
     * stylesheet's figure svg): a page holds a hundred plots. */
    const char *rest = svg + 4;
    if (strncmp(rest, ns, sizeof ns - 1) == 0) rest += sizeof ns - 1;
    if (strncmp(rest, version, sizeof version - 1) == 0) rest += sizeof version - 1;
    const char *font = strstr(rest, font_attr), *body = root_end ? root_end + 1 : NULL;
    const char *font_end = font && root_end && font < root_end ? strchr(font + sizeof font_attr - 1, '"') : NULL;
    if (font_end && font_end < root_end) {
        buf_append(out, rest, (size_t)(font - rest));
        rest = font_end + 1;
    }
    if (body) {
        buf_append(out, rest, (size_t)(body - rest));
        rest = body;
        const char *title_end = strncmp(rest, "\n<title>", 8) == 0 ? strstr(rest, "</title>\n") : NULL;
        const char *bg = title_end ? title_end + 9 : rest + (*rest == '\n');
        static const char rect[] = "<rect x=\"0\" y=\"0\" ";
        if (strncmp(bg, rect, sizeof rect - 1) == 0) {
            const char *bg_end = strstr(bg, "/>\n");
            int white = bg_end && memmem(bg, (size_t)(bg_end - bg), "fill=\"#ffffff\"", 14) != NULL;
            if (white) {
                buf_append(out, rest, (size_t)(bg - rest));
                rest = bg_end + 3;
            }
        }
    }
    size_t n = strlen(rest);
    while (n && rest[n - 1] == '\n') n--;
    buf_append(out, rest, n);
    buf_putc(out, '\n');
    if (caption) {
        buf_puts(out, "<figcaption>");
        tta_xml_escape(out, caption);
        buf_puts(out, "</figcaption>\n");
    }
    buf_puts(out, "</figure>\n");
}

/* Drops from the page each of tta_html_cell_labels' <style>s whose class an earlier one has: parts
 * of a page built apart (a round's benchmark sections) each carry their tables' labels, which are
 * the same where the headings are (one class: one rule set). In place, in one pass. */
static void drop_repeated_labels(buf *page) {
    static const char mark[] = "<style>" PHONE_MEDIA "{.c", end_mark[] = "</style>\n";
    enum { CLS = 13 }; /* "c" and 12 hex digits */
    char *seen = NULL;
    size_t n_seen = 0, r = 0, w = 0;
    if (!page->data) return;
    for (;;) {
        char *hit = memmem(page->data + r, page->len - r, mark, sizeof mark - 1);
        size_t at = hit ? (size_t)(hit - page->data) : page->len;
        memmove(page->data + w, page->data + r, at - r);
        w += at - r;
        r = at;
        if (!hit) break;
        const char *cls = hit + sizeof mark - 2;
        char *end = memmem(hit, page->len - at, end_mark, sizeof end_mark - 1);
        assert(end && page->len - at > sizeof mark + CLS);
        size_t block = (size_t)(end - hit) + sizeof end_mark - 1;
        int again = 0;
        for (size_t k = 0; k < n_seen && !again; k++) again = !memcmp(seen + k * CLS, cls, CLS);
        if (!again) {
            seen = reallocCheck(seen, (n_seen + 1) * CLS);
            memcpy(seen + n_seen++ * CLS, cls, CLS);
            memmove(page->data + w, page->data + r, block);
            w += block;
        }
        r += block;
    }
    page->len = w;
    page->data[w] = '\0';
    free(seen);
}

void tta_html_end(buf *out) {
    drop_repeated_labels(out);
    buf_puts(out, "</main>\n<script>");
    buf_puts(out, page_script);
    buf_puts(out, "</script>\n</body>\n</html>\n");
}

int tta_write_file(const char *path, const buf *b, char **err) {
    FILE *f = fopen(path, "wb");
    int ok = f != NULL;
    if (ok) ok = fwrite(b->data ? b->data : "", 1, b->len, f) == b->len;
    if (f && fclose(f) != 0) ok = 0; /* closed once, whether the write failed or not */
    if (ok) return 0;
    buf e = {0};
    buf_printf(&e, "%s: cannot write: %s", path, strerror(errno));
    *err = buf_take(&e);
    return 1;
}
