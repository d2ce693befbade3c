/* test_html.c: the HTML table and page (reports/render.h): exact HTML of a table (same cells as
 * the text table, footnotes, tooltips), a whole page (escaping, no URL, no script, the caller's
 * timestamp), and the page opened in headless chromium: loads without a console message, and the
 * DOM it builds has every table row and figure. With TTA_HTML_OUT=DIR the page and a screenshot
 * are kept in DIR. Skips (77) after the in-process checks when chromium is not installed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "reports/render.h"
#include "tta_test.h"

static int count(const char *s, const char *needle) {
    int n = 0;
    for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    buf b = {0};
    char chunk[8192];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) buf_append(&b, chunk, n);
    fclose(f);
    return buf_take(&b);
}

static const tta_column cols[] = {
    {"entry", "entry", TTA_COL_TEXT, 0, 0},
    {"file", "file", TTA_COL_PATH, 0, 0},
    {"tta_s", "tta (min)", TTA_COL_MINUTES, 1, 0},
    {"cv", "cv (%)", TTA_COL_PERCENT, 1, 0},
    {"seed", "seed", TTA_COL_INT, 0, TTA_FOR_SCRIPTS},
};

static tta_table *small_table(void) {
    tta_table *t = tta_table_new(cols, 5);
    size_t r = tta_table_add_row(t);
    tta_table_set_text(t, r, 0, "NVIDIA <dgx> & co");
    tta_table_set_text(t, r, 1, "results/dgx/resnet/result_0.txt");
    tta_table_set_number(t, r, 2, 1710);
    tta_table_set_number(t, r, 3, 0.031);
    tta_table_set_number(t, r, 4, 42);
    r = tta_table_add_row(t);
    tta_table_set_text(t, r, 0, "Google");
    tta_table_set_text(t, r, 1, "result_1.txt");
    tta_table_set_missing(t, r, 2, "did not reach the target");
    tta_table_set_missing(t, r, 3, "too few runs (need 5)");
    tta_table_add_note(t, r, "aborted \"early\"");
    return t;
}

TEST(table_exact_html) {
    tta_table *t = small_table();
    buf b = {0};
    tta_table_html(t, &b);
    CHECK_STR(buf_str(&b),
              "<div class=\"table-wrap\">\n<table class=\"r3 r4\">\n<thead>\n"
              "<tr><th>entry<th>file<th>tta (min)<th>cv (%)\n" /* end tags left out, as HTML allows */
              "</thead>\n<tbody>\n"
              "<tr><td>NVIDIA &lt;dgx&gt; &amp; co"
              "<td title=\"results/dgx/resnet/result_0.txt\">result_<wbr>0.txt"
              "<td>28.5<td>3.1\n"
              "<tr><td>Google³<td>result_<wbr>1.txt"
              "<td class=\"na\">n/a¹" /* the reason: its footnote */
              "<td class=\"na\">n/a²\n"
              "</tbody>\n</table>\n</div>\n"
              "<ul class=\"notes\">\n<li>¹ did not reach the target</li>\n<li>² too few runs (need 5)</li>\n"
              "<li>³ aborted &quot;early&quot;</li>\n</ul>\n");
    buf_free(&b);
    tta_table_free(t);
    /* No rows: one cell across the table says so. */
    t = tta_table_new(cols, 5);
    tta_table_html(t, &b);
    CHECK(strstr(buf_str(&b), "<tr><td class=\"empty\" colspan=\"4\">(no rows)</td></tr>\n") != NULL);
    CHECK(strstr(buf_str(&b), "<table class=\"r3 r4\">") != NULL);
    buf_free(&b);
    tta_table_free(t);
    /* Many columns are set tighter. */
    tta_column many[10];
    static const char *const keys[10] = {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"};
    for (int j = 0; j < 10; j++) many[j] = (tta_column){keys[j], keys[j], TTA_COL_INT, 0, 0};
    t = tta_table_new(many, 10);
    tta_table_html(t, &b);
    CHECK(strstr(buf_str(&b), "<table class=\"dense r1 r2 r3 r4 r5 r6 r7 r8 r9 r10\">") != NULL);
    buf_free(&b);
    tta_table_free(t);
}

/* A report page as a report command would build it. */
static char *sample_page(void) {
    buf page = {0}, svg = {0};
    tta_html_begin(&page, "TTA variance — MLPerf Training v0.7 <closed>", "2024-05-01 12:00 UTC");
    tta_html_paragraph(&page, "How stable is the time to accuracy? Each entry's runs, their mean and spread. "
                              "Text from logs is data: <script>alert('x')</script> stays text.");
    tta_html_heading(&page, "Runs per entry");
    tta_table *t = small_table();
    tta_html_table(&page, t, "Table 1. Time to accuracy per entry");
    tta_table_free(t);
    double a[] = {28.1, 28.9, 27.6, 29.4, 28.3}, b[] = {75.2, 80.1, 77.7, 79.0, 81.5};
    tta_strip_group groups[] = {{"v0.7/NVIDIA/dgxa100_ngc20.06_mxnet/resnet", a, 5},
                                {"v0.7/Google/tpu-v3-32/resnet", b, 5}};
    tta_strip_plot strip = {.title = "Time to accuracy of each run",
                            .y = {.label = "time to accuracy (min)", .include_zero = 1},
                            .value_name = "run",
                            .groups = groups,
                            .n_groups = 2};
    tta_svg_strip(&svg, &strip);
    tta_html_figure(&page, buf_str(&svg), "Figure 1. One dot per run; the bar is the mean.");
    buf_clear(&svg);
    const char *cats[] = {"resnet", "bert"}, *names[] = {"throughput speedup", "TTA speedup"};
    double v[] = {3.1, 2.4, 4.0, 3.6};
    tta_bar_plot bars = {.title = "Speedups",
                         .y = {.label = "speedup (×)"},
                         .categories = cats,
                         .n_categories = 2,
                         .series_names = names,
                         .n_series = 2,
                         .values = v,
                         .label_values = 1,
                         .value_decimals = 1,
                         .value_suffix = "×"};
    tta_svg_bars(&svg, &bars);
    tta_html_heading(&page, "Speedups");
    tta_html_figure(&page, buf_str(&svg), NULL);
    tta_html_end(&page);
    buf_free(&svg);
    return buf_take(&page);
}

TEST(page_is_self_contained) {
    char *html = sample_page();
    CHECK(strncmp(html, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n", 62) == 0);
    static const char end[] = "</script>\n</body>\n</html>\n";
    CHECK(strcmp(html + strlen(html) - (sizeof end - 1), end) == 0);
    CHECK(strstr(html, "http:") == NULL && strstr(html, "https:") == NULL && strstr(html, "//") == NULL);
    /* one script, the page's own after </main>, which the policy names by its hash (the text's
     * <script> below is escaped) */
    CHECK(count(html, "<script") == 1 && strstr(html, "</main>\n<script>") != NULL);
    CHECK(strstr(html, "script-src 'sha256-") != NULL && strstr(html, "unsafe-eval") == NULL);
    CHECK(strstr(html, "script-src 'unsafe-inline'") == NULL);
    CHECK(strstr(html, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;") != NULL);
    CHECK(strstr(html, "<title>TTA variance — MLPerf Training v0.7 &lt;closed&gt;</title>") != NULL);
    CHECK(count(html, "2024-05-01 12:00 UTC") == 1);
    CHECK(count(html, "<svg ") == 2 * 2); /* two figures, each with its nested plot-area viewport */
    CHECK(count(html, "<figure>") == 2 && count(html, "<figcaption>") == 1);
    CHECK(count(html, "<caption>Table 1. Time to accuracy per entry</caption>") == 1);
    char *again = sample_page();
    CHECK_STR(again, html); /* no clock, no randomness */
    free(again);
    free(html);
}

/* A plot much wider than the page (over 1400 px) scrolls at its own size; others scale down with
 * the page. Inlined, a plot leaves out what the page gives it: its namespace, version, font and
 * white background; nothing else. */
TEST(wide_figures_scroll) {
    buf page = {0};
    tta_html_figure(&page, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"1500\" height=\"440\"></svg>\n",
                    NULL);
    tta_html_figure(&page,
                    "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"760\" height=\"440\" "
                    "viewBox=\"0 0 760 440\" font-family=\"DejaVu Sans, sans-serif\">\n<title>t</title>\n"
                    "<rect x=\"0\" y=\"0\" width=\"760\" height=\"440\" fill=\"#ffffff\"/>\n"
                    "<rect x=\"0\" y=\"0\" width=\"10\" height=\"10\" fill=\"#ffffff\"/>\n</svg>\n",
                    "small");
    CHECK_STR(buf_str(&page), "<figure class=\"wide\">\n<svg width=\"1500\" height=\"440\"></svg>\n</figure>\n"
                              "<figure>\n<svg width=\"760\" height=\"440\" viewBox=\"0 0 760 440\">\n<title>t</title>\n"
                              "<rect x=\"0\" y=\"0\" width=\"10\" height=\"10\" fill=\"#ffffff\"/>\n</svg>\n"
                              "<figcaption>small</figcaption>\n</figure>\n");
    buf_free(&page);
}

/* A phone's names of a table's columns: one <style> of rules for the phone's width only, a class
 * from the headings (the same headings: the same class, its rules written once), and headings
 * that cannot end the CSS string or the <style> element ('"', '\\', "</style>"). */
TEST(cell_labels) {
    static const char *const a[] = {"system", "tta (min)"}, *const b[] = {"say \"hi\" \\ </style><b>", "x"};
    buf page = {0};
    char c1[14], c2[14], c3[14];
    tta_html_cell_labels(&page, a, 2, c1);
    CHECK(strlen(c1) == 13 && c1[0] == 'c');
    char want[300];
    snprintf(want, sizeof want,
             "<style>@media (max-width:600px){.%s td:nth-child(1)::before{content:\"system:\"}"
             ".%s td:nth-child(2)::before{content:\"tta (min):\"}}</style>\n",
             c1, c1);
    CHECK_STR(buf_str(&page), want);
    size_t len = page.len;
    tta_html_cell_labels(&page, a, 2, c2); /* the same headings: the same class, nothing more written */
    CHECK_STR(c2, c1);
    CHECK(page.len == len);
    tta_html_cell_labels(&page, b, 2, c3);
    CHECK(strcmp(c3, c1) != 0);
    CHECK(strstr(buf_str(&page) + len, "content:\"say \\\"hi\\\" \\\\ \\3c /style>\\3c b>:\"}") != NULL);
    CHECK(count(buf_str(&page), "</style>") == 2);
    buf_free(&page);
    /* parts of a page built apart repeat their labels: the page's end keeps the first of each class */
    buf part1 = {0}, part2 = {0};
    tta_html_begin(&page, "t", "now");
    tta_html_cell_labels(&part1, a, 2, c1);
    buf_puts(&part1, "<p>one</p>\n");
    tta_html_cell_labels(&part2, b, 2, c3);
    tta_html_cell_labels(&part2, a, 2, c2);
    buf_puts(&part2, "<p>two</p>\n");
    buf_append(&page, part1.data, part1.len);
    buf_append(&page, part2.data, part2.len);
    tta_html_end(&page);
    CHECK(count(buf_str(&page), "<style>@media") == 2);
    CHECK(count(buf_str(&page), c1) == 2); /* its two rules */
    CHECK(strstr(buf_str(&page), "<p>one</p>\n<style>@media") && strstr(buf_str(&page), "\"}}</style>\n<p>two</p>"));
    CHECK(strlen(buf_str(&page)) == page.len);
    buf_free(&part1);
    buf_free(&part2);
    buf_free(&page);
}

/* Runs chromium headless on file://path with the given action; returns its exit status, with
 * its stdout in *out and its stderr in *err (malloc'd). */
static int run_chromium(const char *action, const char *path, const char *dir, char **out, char **err) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && timeout 180 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
             "--disable-background-networking --disable-component-update --disable-sync --hide-scrollbars "
             "--user-data-dir='%s/profile' --enable-logging=stderr --v=0 --window-size=1100,2400 %s "
             "'file://%s' >'%s/stdout' 2>'%s/stderr'",
             dir, dir, action, path, dir, dir);
    int rc = system(cmd);
    char p[600];
    snprintf(p, sizeof p, "%s/stdout", dir);
    *out = read_file(p);
    snprintf(p, sizeof p, "%s/stderr", dir);
    *err = read_file(p);
    return rc;
}

/* Lines of chromium's log that say something went wrong with the page: console messages (a
 * blocked load, a script error, a CSP violation) and network errors. */
static int page_complaints(const char *log) {
    int n = 0;
    for (const char *line = log; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char *l = strndup(line, len);
        if (strstr(l, ":CONSOLE") || strstr(l, "net::ERR") || strstr(l, "Content Security Policy")) {
            fprintf(stderr, "chromium: %s\n", l);
            n++;
        }
        free(l);
        line = end ? end + 1 : NULL;
    }
    return n;
}

static int chromium_ran;

TEST(page_opens_in_chromium) {
    if (system("command -v chromium >/dev/null 2>&1") != 0) return;
    char dir[] = "/tmp/tta_test_html_XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(!"mkdtemp");
        return;
    }
    chromium_ran = 1;
    char path[600], png[600];
    snprintf(path, sizeof path, "%s/report.html", dir);
    char *html = sample_page();
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs(html, f);
    fclose(f);

    char *dom = NULL, *log = NULL;
    int rc = run_chromium("--dump-dom", path, dir, &dom, &log);
    CHECK(rc == 0);
    CHECK(dom != NULL && page_complaints(log) == 0);
    if (dom) {
        /* The parser kept the structure: every row, cell and figure is in the DOM. */
        CHECK(count(dom, "<tr>") == count(html, "<tr>"));
        CHECK(count(dom, "<td ") == count(html, "<td "));
        CHECK(count(dom, "<svg ") == count(html, "<svg "));
        CHECK(count(dom, "<circle ") == count(html, "<circle "));
        CHECK(strstr(dom, "<title>TTA variance — MLPerf Training v0.7 &lt;closed&gt;</title>") != NULL);
    }
    free(dom);
    free(log);

    snprintf(png, sizeof png, "%s/report.png", dir);
    char action[700];
    snprintf(action, sizeof action, "--screenshot='%s'", png);
    rc = run_chromium(action, path, dir, &dom, &log);
    CHECK(rc == 0 && page_complaints(log) == 0);
    char *image = read_file(png);
    CHECK(image != NULL && memcmp(image, "\x89PNG", 4) == 0);
    free(image);
    free(dom);
    free(log);

    const char *keep = getenv("TTA_HTML_OUT");
    char cmd[1500];
    if (keep && *keep) {
        snprintf(cmd, sizeof cmd, "cp '%s' '%s' '%s/'", path, png, keep);
        CHECK(system(cmd) == 0);
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
    free(html);
}

int main(void) {
    RUN(table_exact_html);
    RUN(page_is_self_contained);
    RUN(wide_figures_scroll);
    RUN(cell_labels);
    RUN(page_opens_in_chromium);
    int rc = test_summary();
    if (rc == 0 && !chromium_ran) test_skip("chromium not installed (apt-get install chromium): page not opened in a browser");
    return rc;
}
