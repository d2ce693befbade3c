/* test_table.c: the table model and its writers (reports/render.h): exact text, Markdown, CSV and
 * JSON output of small tables, units per column kind, "n/a" with numbered footnotes, fitting 100
 * columns (text shortened first in its middle, never making two values alike; then headers wrapped;
 * numbers never cut), the terminal's width from COLUMNS, UTF-8 widths, RFC 4180
 * quoting, JSON read back with cJSON, columns for people or scripts only. */
#include <math.h>
#include <string.h>

#include "cJSON.h"
#include "common/buf.h"
#include "reports/render.h"
#include "tta_test.h"

static char *render(const tta_table *t, tta_out_format fmt, const tta_text_options *o) {
    buf b = {0};
    tta_table_render(t, fmt, o, &b);
    return buf_take(&b);
}

/* Widest line of s in code points. */
static size_t widest_line(const char *s) {
    size_t best = 0;
    while (*s) {
        const char *end = strchr(s, '\n');
        if (!end) end = s + strlen(s);
        char *line = strndup(s, (size_t)(end - s));
        size_t w = tta_utf8_width(line);
        if (w > best) best = w;
        free(line);
        s = *end ? end + 1 : end;
    }
    return best;
}

static int count_of(const char *s, const char *needle) {
    int n = 0;
    for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

enum { E_NAME, E_RUNS, E_SCORE, E_CV, E_REACHED, E_COUNT };
static const tta_column entry_cols[E_COUNT] = {
    [E_NAME] = {"entry", "entry", TTA_COL_TEXT, 0, 0},
    [E_RUNS] = {"runs", "runs", TTA_COL_INT, 0, 0},
    [E_SCORE] = {"score_s", "score (min)", TTA_COL_MINUTES, 2, 0},
    [E_CV] = {"cv", "cv (%)", TTA_COL_PERCENT, 1, 0},
    [E_REACHED] = {"reached", "reached", TTA_COL_BOOL, 0, 0},
};

/* Three entries: complete; two values missing for one reason; two missing, one without reason. */
static tta_table *entry_table(void) {
    tta_table *t = tta_table_new(entry_cols, E_COUNT);
    size_t r = tta_table_add_row(t);
    tta_table_set_text(t, r, E_NAME, "v0.7/NVIDIA/resnet");
    tta_table_set_number(t, r, E_RUNS, 5);
    tta_table_set_number(t, r, E_SCORE, 1698.6);
    tta_table_set_number(t, r, E_CV, 0.0123);
    tta_table_set_bool(t, r, E_REACHED, 1);
    r = tta_table_add_row(t);
    tta_table_set_text(t, r, E_NAME, "v0.7/Google/bert");
    tta_table_set_number(t, r, E_RUNS, 3);
    tta_table_set_missing(t, r, E_SCORE, "too few runs (need 5)");
    tta_table_set_missing(t, r, E_CV, "too few runs (need 5)");
    tta_table_set_bool(t, r, E_REACHED, 0);
    r = tta_table_add_row(t);
    tta_table_set_text(t, r, E_NAME, "v0.6/Intel/minigo");
    tta_table_set_number(t, r, E_RUNS, 10);
    tta_table_set_number(t, r, E_SCORE, 3600);
    tta_table_set_missing(t, r, E_CV, "no successful run");
    tta_table_set_bool(t, r, E_REACHED, -1);
    return t;
}

TEST(text_units_alignment_footnotes) {
    tta_table *t = entry_table();
    char *s = render(t, TTA_OUT_TABLE, NULL);
    CHECK_STR(s, "entry               runs  score (min)  cv (%)  reached\n"
                 "──────────────────  ────  ───────────  ──────  ───────\n"
                 "v0.7/NVIDIA/resnet     5        28.31     1.2  yes\n"
                 "v0.7/Google/bert       3         n/a¹    n/a¹  no\n"
                 "v0.6/Intel/minigo     10        60.00    n/a²  n/a\n"
                 "¹ too few runs (need 5)\n"
                 "² no successful run\n");
    free(s);
    tta_table_free(t);
}

TEST(text_color_only_when_asked) {
    tta_table *t = entry_table();
    tta_text_options o = {.max_width = 100, .color = 1};
    char *s = render(t, TTA_OUT_TABLE, &o);
    CHECK(strstr(s, "\033[1mentry\033[0m") != NULL);
    CHECK(strstr(s, "\033[2mn/a¹\033[0m") != NULL);
    free(s);
    s = render(t, TTA_OUT_TABLE, NULL);
    CHECK(strchr(s, '\033') == NULL);
    free(s);
    tta_table_free(t);
}

TEST(markdown_same_cells_escaped) {
    tta_table *t = entry_table();
    tta_table_set_text(t, 0, E_NAME, "a|b *c* dgx_a100 _x_");
    char *s = render(t, TTA_OUT_MARKDOWN, NULL);
    CHECK_STR(s, "| entry                     | runs | score (min) | cv (%) | reached |\n"
                 "| ------------------------- | ---: | ----------: | -----: | ------- |\n"
                 "| a\\|b \\*c\\* dgx_a100 \\_x\\_ |    5 |       28.31 |    1.2 | yes     |\n"
                 "| v0.7/Google/bert          |    3 |        n/a¹ |   n/a¹ | no      |\n"
                 "| v0.6/Intel/minigo         |   10 |       60.00 |   n/a² | n/a     |\n"
                 "\n"
                 "¹ too few runs (need 5)\\\n"
                 "² no successful run\n");
    free(s);
    tta_table_free(t);
}

TEST(csv_rfc4180_and_notes) {
    tta_table *t = entry_table();
    tta_table_set_text(t, 0, E_NAME, "comma, \"quote\"\nnewline");
    char *s = render(t, TTA_OUT_CSV, NULL);
    CHECK_STR(s, "entry,runs,score_s,cv,reached,note\r\n"
                 "\"comma, \"\"quote\"\"\nnewline\",5,1698.6,0.0123,true,\r\n"
                 "v0.7/Google/bert,3,,,false,too few runs (need 5)\r\n"
                 "v0.6/Intel/minigo,10,3600,,,no successful run\r\n");
    free(s);
    tta_table_free(t);
}

TEST(json_parses_back_with_nulls_and_notes) {
    tta_table *t = entry_table();
    tta_table_set_text(t, 2, E_NAME, "tab\there \"q\" \\ é");
    tta_table_add_note(t, 2, "one run aborted");
    char *s = render(t, TTA_OUT_JSON, NULL);
    CHECK_STR(s, "[\n"
                 " {\"entry\": \"v0.7/NVIDIA/resnet\", \"runs\": 5, \"score_s\": 1698.6, \"cv\": 0.0123, \"reached\": true},\n"
                 " {\"entry\": \"v0.7/Google/bert\", \"runs\": 3, \"score_s\": null, \"cv\": null, \"reached\": false, "
                 "\"note\": \"too few runs (need 5)\"},\n"
                 " {\"entry\": \"tab\\there \\\"q\\\" \\\\ é\", \"runs\": 10, \"score_s\": 3600, \"cv\": null, \"reached\": null, "
                 "\"note\": \"no successful run; one run aborted\"}\n"
                 "]\n");
    cJSON *root = cJSON_Parse(s);
    CHECK(cJSON_IsArray(root));
    CHECK(cJSON_GetArraySize(root) == 3);
    cJSON *row0 = cJSON_GetArrayItem(root, 0), *row1 = cJSON_GetArrayItem(root, 1), *row2 = cJSON_GetArrayItem(root, 2);
    CHECK_NEAR(cJSON_GetObjectItem(row0, "score_s")->valuedouble, 1698.6, 0);
    CHECK_NEAR(cJSON_GetObjectItem(row0, "cv")->valuedouble, 0.0123, 0);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(row0, "reached")));
    CHECK(cJSON_GetObjectItem(row0, "note") == NULL);
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(row1, "score_s")));
    CHECK_STR(cJSON_GetObjectItem(row1, "note")->valuestring, "too few runs (need 5)");
    CHECK_STR(cJSON_GetObjectItem(row2, "entry")->valuestring, "tab\there \"q\" \\ é");
    cJSON_Delete(root);
    free(s);
    /* The row note is a footnote for people too, marked on the row's first cell. */
    s = render(t, TTA_OUT_TABLE, NULL);
    CHECK(strstr(s, "\ntab here \"q\" \\ é³  ") != NULL);
    CHECK(strstr(s, "\n³ one run aborted\n") != NULL);
    free(s);
    tta_table_free(t);
}

TEST(empty_tables) {
    tta_table *t = tta_table_new(entry_cols, E_COUNT);
    char *s = render(t, TTA_OUT_JSON, NULL);
    CHECK_STR(s, "[]\n");
    cJSON *root = cJSON_Parse(s);
    CHECK(cJSON_IsArray(root) && cJSON_GetArraySize(root) == 0);
    cJSON_Delete(root);
    free(s);
    s = render(t, TTA_OUT_CSV, NULL);
    CHECK_STR(s, "entry,runs,score_s,cv,reached,note\r\n");
    free(s);
    s = render(t, TTA_OUT_TABLE, NULL);
    CHECK_STR(s, "entry  runs  score (min)  cv (%)  reached\n"
                 "─────  ────  ───────────  ──────  ───────\n"
                 "(no rows)\n");
    free(s);
    tta_table_free(t);
}

/* Long text is shortened (paths in the middle) so that the table fits 100 columns; numbers are whole. */
TEST(text_fits_100_columns) {
    static const tta_column cols[] = {
        {"system", "system", TTA_COL_TEXT, 0, 0},
        {"file", "file", TTA_COL_PATH, 0, 0},
        {"tta_s", "tta (min)", TTA_COL_MINUTES, 2, 0},
        {"samples_per_s", "throughput (samples/s)", TTA_COL_NUMBER, 1, 0},
    };
    tta_table *t = tta_table_new(cols, 4);
    size_t r = tta_table_add_row(t);
    tta_table_set_text(t, r, 0,
                       "dgxa100_ngc20.06_mxnet_with_a_description_that_goes_on_and_on_past_any_terminal_width_"
                       "at_all_really");
    tta_table_set_text(t, r, 1, "results/dgxa100/resnet/result_a_very_long_log_file_name_that_keeps_going_0.txt");
    tta_table_set_number(t, r, 2, 123456.0);
    tta_table_set_number(t, r, 3, 31234.56);
    r = tta_table_add_row(t);
    tta_table_set_text(t, r, 0, "tpu-v3-8");
    tta_table_set_text(t, r, 1, "result_1.txt");
    tta_table_set_number(t, r, 2, 60);
    tta_table_set_number(t, r, 3, 1.25);
    char *s = render(t, TTA_OUT_TABLE, NULL);
    CHECK(widest_line(s) == 100);
    /* Both text columns give way, the widest first, keeping their start and their end (the cut
     * moved off the middle so as to hide none of "long", where the file names part). */
    CHECK_STR(s, "system                           file                              tta (min)  throughput (samples/s)\n"
                 "───────────────────────────────  ────────────────────────────────  ─────────  ──────────────────────\n"
                 "dgxa100_ngc20.0…h_at_all_really  result_a_very_l…eeps_going_0.txt    2057.60                 31234.6\n"
                 "tpu-v3-8                         result_1.txt                           1.00                     1.2\n");
    free(s);
    /* Narrower still: headers of numeric columns wrap at spaces, bottom-aligned; the two files
     * differ only near their end, so their cut keeps more of it (not "resu…txt" twice). */
    tta_text_options o = {.max_width = 40};
    s = render(t, TTA_OUT_TABLE, &o);
    CHECK(widest_line(s) <= 40);
    CHECK_STR(s, "                        tta   throughput\n"
                 "system    file        (min)  (samples/s)\n"
                 "────────  ────────  ───────  ───────────\n"
                 "dgx…ally  re…0.txt  2057.60      31234.6\n"
                 "tpu-v3-8  re…1.txt     1.00          1.2\n");
    free(s);
    tta_table_free(t);
}

/* One row too wide for the page is shown as "header  value" lines: nothing is cut. */
TEST(one_wide_row_as_record) {
    tta_table *t = tta_table_new(entry_cols, E_COUNT);
    size_t r = tta_table_add_row(t);
    tta_table_set_text(t, r, E_NAME, "NVIDIA DGX A100 with eight A100 SXM4 GPUs, NGC 20.06 MXNet, ResNet-50 v1.5");
    tta_table_set_number(t, r, E_RUNS, 3);
    tta_table_set_missing(t, r, E_SCORE, "too few runs (need 5)");
    tta_table_set_missing(t, r, E_CV, "too few runs (need 5)");
    tta_table_set_bool(t, r, E_REACHED, 1);
    tta_text_options o = {.max_width = 50};
    char *s = render(t, TTA_OUT_TABLE, &o);
    CHECK_STR(s, "entry        NVIDIA DGX A100 with eight A100 SXM4\n"
                 "             GPUs, NGC 20.06 MXNet, ResNet-50 v1.5\n"
                 "runs         3\n"
                 "score (min)  n/a¹\n"
                 "cv (%)       n/a¹\n"
                 "reached      yes\n"
                 "¹ too few runs (need 5)\n");
    free(s);
    /* When it fits, one row is an ordinary table. */
    tta_table_set_text(t, r, E_NAME, "v0.7/NVIDIA/resnet");
    s = render(t, TTA_OUT_TABLE, NULL);
    CHECK(strncmp(s, "entry               runs  score (min)  cv (%)  reached\n", 55) == 0);
    free(s);
    tta_table_free(t);
}

/* Numbers are never cut: a table of numbers that cannot fit is printed wider, whole. */
TEST(numbers_never_cut) {
    tta_column cols[14];
    char keys[14][16];
    for (int j = 0; j < 14; j++) {
        snprintf(keys[j], sizeof keys[j], "k%d", j);
        cols[j] = (tta_column){keys[j], "throughput (samples/s)", TTA_COL_NUMBER, 1, 0};
    }
    tta_table *t = tta_table_new(cols, 14);
    for (int i = 0; i < 2; i++) {
        size_t r = tta_table_add_row(t);
        for (int j = 0; j < 14; j++) tta_table_set_number(t, r, (size_t)j, 1234567.25 + i);
    }
    char *s = render(t, TTA_OUT_TABLE, NULL);
    /* headers wrapped to their longest word, (samples/s) = 11, the width of every value; one space
     * between columns once nothing else can give */
    CHECK(widest_line(s) == 14 * 11 + 13);
    CHECK(count_of(s, "  1234567.2") == 14 && count_of(s, "  1234568.2") == 14);
    CHECK(strstr(s, "…") == NULL);
    CHECK(strncmp(s, " throughput", 11) == 0);
    free(s);
    tta_table_free(t);
}

/* Code points, not bytes, measure width; a cut never splits a character. */
TEST(utf8_width_and_cut) {
    CHECK(tta_utf8_width("Überlänge…") == 10);
    static const tta_column cols[] = {{"name", "name", TTA_COL_TEXT, 0, 0}, {"x", "x", TTA_COL_NUMBER, 0, 0}};
    tta_table *t = tta_table_new(cols, 2);
    size_t r = tta_table_add_row(t);
    tta_table_set_text(t, r, 0, "äöüäöüäöüäöüäöüäöü");
    tta_table_set_number(t, r, 1, 12345);
    r = tta_table_add_row(t);
    tta_table_set_text(t, r, 0, "ab");
    tta_table_set_number(t, r, 1, 1);
    tta_text_options o = {.max_width = 20};
    char *s = render(t, TTA_OUT_TABLE, &o);
    CHECK_STR(s, "name               x\n"
                 "─────────────  ─────\n"
                 "äöüäöü…äöüäöü  12345\n"
                 "ab                 1\n");
    free(s);
    tta_table_free(t);
}

/* Control characters cannot reach the terminal; invalid UTF-8 is replaced. */
TEST(text_is_cleaned) {
    buf b = {0};
    tta_text_clean(&b, "a\tb\nc\033[31md\x80");
    CHECK_STR(buf_str(&b), "a b c\xEF\xBF\xBD[31md\xEF\xBF\xBD");
    buf_clear(&b);
    tta_xml_escape(&b, "<a href='x'>&\"\x01</a>");
    CHECK_STR(buf_str(&b), "&lt;a href=&#39;x&#39;&gt;&amp;&quot;\xEF\xBF\xBD&lt;/a&gt;");
    buf_clear(&b);
    tta_superscript(&b, 1);
    tta_superscript(&b, 20);
    CHECK_STR(buf_str(&b), "¹²⁰");
    buf_free(&b);
}

/* Text that is the same on every row is said once above the table (not in Markdown). */
TEST(constant_columns_said_once) {
    static const tta_column cols[] = {{"round", "round", TTA_COL_TEXT, 0, 0},
                                      {"benchmark", "benchmark", TTA_COL_TEXT, 0, 0},
                                      {"tta_s", "tta (min)", TTA_COL_MINUTES, 1, 0}};
    tta_table *t = tta_table_new(cols, 3);
    for (int i = 0; i < 2; i++) {
        size_t r = tta_table_add_row(t);
        tta_table_set_text(t, r, 0, "v0.7");
        tta_table_set_text(t, r, 1, i ? "bert" : "resnet");
        tta_table_set_number(t, r, 2, 600 * (i + 1));
    }
    char *s = render(t, TTA_OUT_TABLE, NULL);
    CHECK_STR(s, "round: v0.7\n"
                 "\n"
                 "benchmark  tta (min)\n"
                 "─────────  ─────────\n"
                 "resnet          10.0\n"
                 "bert            20.0\n");
    free(s);
    s = render(t, TTA_OUT_MARKDOWN, NULL);
    CHECK(strstr(s, "| round | benchmark | tta (min) |\n") == s);
    free(s);
    tta_table_free(t);
}

/* Columns for scripts only are not shown to people and the other way round; rounding to zero
 * shows no sign; integers are whole in every format. */
TEST(audiences_and_number_forms) {
    static const tta_column cols[] = {{"name", "name", TTA_COL_TEXT, 0, 0},
                                      {"ci", "95% CI (%)", TTA_COL_TEXT, 0, TTA_FOR_PEOPLE},
                                      {"ci_low", "low (%)", TTA_COL_PERCENT, 1, TTA_FOR_SCRIPTS},
                                      {"delta_s", "delta (s)", TTA_COL_SECONDS, 1, 0},
                                      {"n", "n", TTA_COL_INT, 0, 0}};
    tta_table *t = tta_table_new(cols, 5);
    size_t r = tta_table_add_row(t);
    tta_table_set_text(t, r, 0, "x");
    tta_table_set_text(t, r, 1, "1.0–2.0");
    tta_table_set_number(t, r, 2, 0.01);
    tta_table_set_number(t, r, 3, -0.04);
    tta_table_set_number(t, r, 4, 1e6);
    char *s = render(t, TTA_OUT_TABLE, NULL);
    CHECK_STR(s, "name  95% CI (%)  delta (s)        n\n"
                 "────  ──────────  ─────────  ───────\n"
                 "x     1.0–2.0           0.0  1000000\n");
    free(s);
    s = render(t, TTA_OUT_CSV, NULL);
    CHECK_STR(s, "name,ci_low,delta_s,n,note\r\nx,0.01,-0.04,1000000,\r\n");
    free(s);
    tta_table_free(t);
    CHECK(tta_out_format_parse("md") == TTA_OUT_MARKDOWN);
    CHECK(tta_out_format_parse("csv") == TTA_OUT_CSV);
    CHECK(tta_out_format_parse("xml") == -1);
}

/* The display model the HTML writer shares: footnotes numbered in row-major order of first use. */
TEST(display_numbers_reasons_in_order) {
    tta_table *t = entry_table();
    tta_table_display d;
    tta_table_display_init(&d, t);
    CHECK(d.n_cols == E_COUNT && d.n_rows == 3 && d.n_notes == 2);
    CHECK_STR(d.note[0], "too few runs (need 5)");
    CHECK(d.note_of[1 * E_COUNT + E_SCORE] == 1);
    CHECK(d.note_of[2 * E_COUNT + E_CV] == 2);
    CHECK(d.note_of[2 * E_COUNT + E_REACHED] == -1);
    CHECK(d.note_of[0] == 0);
    CHECK_STR(d.header[E_SCORE], "score (min)");
    CHECK_STR(d.cell[2 * E_COUNT + E_SCORE], "60.00");
    tta_table_display_free(&d);
    tta_table_free(t);
}

/* Shortening elides the middle: the end that tells systems apart stays. */
TEST(elide_middle) {
    buf b = {0};
    tta_text_elide(&b, "dgxa100_n8_ngc20.06_mxnet", 12);
    CHECK_STR(buf_str(&b), "dgxa10…mxnet");
    buf_clear(&b);
    tta_text_elide(&b, "dgxa100_n8_ngc20.06_mxnet", 25);
    CHECK_STR(buf_str(&b), "dgxa100_n8_ngc20.06_mxnet");
    buf_clear(&b);
    tta_text_elide(&b, "äöüäöü", 4);
    CHECK_STR(buf_str(&b), "äö…ü");
    CHECK(tta_utf8_width(buf_str(&b)) == 4);
    buf_clear(&b);
    tta_text_elide(&b, "abc", 0);
    CHECK_STR(buf_str(&b), "");
    buf_free(&b);
}

/* Number of lines of s that start with prefix. */
static int lines_starting(const char *s, const char *prefix) {
    int n = 0;
    for (const char *p = s; *p;) {
        n += strncmp(p, prefix, strlen(prefix)) == 0;
        const char *end = strchr(p, '\n');
        p = end ? end + 1 : p + strlen(p);
    }
    return n;
}

/* A narrow table never shows two different values alike: the cut moves off the middle to where
 * they differ, or the column widens until they do; wide shortens nothing. */
TEST(cut_keeps_rows_apart) {
    static const tta_column cols[] = {{"system", "system", TTA_COL_TEXT, 0, 0},
                                      {"benchmark", "benchmark", TTA_COL_TEXT, 0, 0},
                                      {"x", "score (min)", TTA_COL_NUMBER, 2, 0}};
    static const char *const systems[] = {"dgxa100_n8_ngc20.06_mxnet", "dgxa100_n8_ngc20.06_pytorch",
                                          "dgxa100_n1_ngc20.06_mxnet", "dgxa100_n8_ngc20.06_mxnet_ssd"};
    tta_table *t = tta_table_new(cols, 3);
    for (size_t i = 0; i < 4; i++) {
        size_t r = tta_table_add_row(t);
        tta_table_set_text(t, r, 0, systems[i]);
        tta_table_set_text(t, r, 1, i % 2 ? "resnet" : "maskrcnn");
        tta_table_set_number(t, r, 2, 10.0 + (double)i);
    }
    for (int width = 20; width <= 60; width += 2) {
        tta_text_options o = {.max_width = width};
        char *s = render(t, TTA_OUT_TABLE, &o);
        /* four data rows, each system's shortened cell different from the others' */
        const char *p = strstr(s, "\n") + 1;
        p = strstr(p, "\n") + 1; /* past header and rule */
        char *cells[4];
        for (int i = 0; i < 4; i++) {
            const char *end = strchr(p, ' ');
            CHECK(end != NULL);
            cells[i] = strndup(p, (size_t)(end - p));
            p = strchr(p, '\n') + 1;
        }
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < i; j++) CHECK(strcmp(cells[i], cells[j]) != 0);
        for (int i = 0; i < 4; i++) free(cells[i]);
        free(s);
    }
    /* at 30 columns the middle cut would read "dgxa10…mxnet" twice (n8, n1): the split moves to
     * where they differ */
    tta_text_options o = {.max_width = 30};
    char *s = render(t, TTA_OUT_TABLE, &o);
    CHECK(count_of(s, "dgxa10…mxnet") <= 1);
    CHECK(count_of(s, "…") >= 3);
    free(s);
    o.wide = 1;
    s = render(t, TTA_OUT_TABLE, &o);
    CHECK(strstr(s, "…") == NULL);
    CHECK(lines_starting(s, "dgxa100_n8_ngc20.06_mxnet_ssd  resnet") == 1);
    free(s);
    tta_table_free(t);
}

/* The terminal's width: COLUMNS when it is a positive number, else the terminal's, else 100. */
/* The SIAT systems of MLPerf v0.7 (results/<system> folders of the round), shortened beside the
 * round's other names: each keeps the words that tell it apart ("128", "1024"; "mindspore" where
 * the number is shared), where a middle cut read "modelarts_12…dspore_open" beside
 * "modelarts_10…sorflow_open". */
TEST(cut_keeps_telling_words) {
    static const char *const names[] = {
        "modelarts_1024_tensorflow_open", "modelarts_128_mindspore_open",   "modelarts_256_mindspore_open",
        "modelarts_512_mindspore_close",  "modelarts_512_tensorflow_close", "modelarts_512_tensorflow_open",
        "dgxa100_n96_ngc20.06_mxnet",     "gx_V100x8_ngc20.06_mxnet",       "tpu-v3-8192-JAX"};
    static const char *const keeps[] = {"1024", "128", "256", "mindspore", NULL, NULL, NULL, NULL, NULL};
    tta_column cols[] = {{"system", "system", TTA_COL_TEXT, 0, 0}, {"n", "n", TTA_COL_INT, 0, 0}};
    tta_table *t = tta_table_new(cols, 2);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        size_t r = tta_table_add_row(t);
        tta_table_set_text(t, r, 0, names[i]);
        tta_table_set_number(t, r, 1, (double)i);
    }
    tta_text_options o = {.max_width = 24};
    char *s = render(t, TTA_OUT_TABLE, &o);
    CHECK(count_of(s, "…") >= 6);
    const char *p = strchr(strchr(s, '\n') + 1, '\n') + 1; /* past header and rule */
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const char *end = strchr(p, '\n');
        char *line = strndup(p, (size_t)(end - p));
        if (keeps[i] && !strstr(line, keeps[i])) printf("row %zu: \"%s\" lost \"%s\"\n", i, line, keeps[i]);
        CHECK(!keeps[i] || strstr(line, keeps[i]) != NULL);
        free(line);
        p = end + 1;
    }
    free(s);
    tta_table_free(t);
}

TEST(width_from_columns) {
    CHECK(tta_text_width("132", 80) == 132);
    CHECK(tta_text_width("100", 0) == 100);
    CHECK(tta_text_width(NULL, 80) == 80);
    CHECK(tta_text_width("", 80) == 80);
    CHECK(tta_text_width("wide", 0) == 100);
    CHECK(tta_text_width("-5", 0) == 100);
    CHECK(tta_text_width("80x", 120) == 120);
    CHECK(tta_text_width(NULL, 0) == 100);
    /* a stream that is not a terminal gets every value whole and no colour */
    FILE *f = tmpfile();
    CHECK(f != NULL);
    tta_text_options o = tta_text_options_for(f);
    CHECK(o.wide == 1 && o.color == 0 && o.max_width == 100);
    fclose(f);
}

int main(void) {
    RUN(text_units_alignment_footnotes);
    RUN(text_color_only_when_asked);
    RUN(markdown_same_cells_escaped);
    RUN(csv_rfc4180_and_notes);
    RUN(json_parses_back_with_nulls_and_notes);
    RUN(empty_tables);
    RUN(text_fits_100_columns);
    RUN(one_wide_row_as_record);
    RUN(numbers_never_cut);
    RUN(utf8_width_and_cut);
    RUN(text_is_cleaned);
    RUN(constant_columns_said_once);
    RUN(audiences_and_number_forms);
    RUN(display_numbers_reasons_in_order);
    RUN(elide_middle);
    RUN(cut_keeps_rows_apart);
    RUN(cut_keeps_telling_words);
    RUN(width_from_columns);
    return test_summary();
}
