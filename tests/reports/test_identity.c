/* test_identity.c: the identity columns (reports/builders.h): their keys and headers, and
 * tta_table_set_identity filling them by key in a table that starts with all six, in one that
 * orders them otherwise and leaves one out, and in one without the entry's id; NULL fields missing. */
#include <math.h>
#include <string.h>

#include "common/buf.h"
#include "reports/builders.h"
#include "reports/render.h"
#include "tta_test.h"

static char *render(const tta_table *t, tta_out_format fmt) {
    buf b = {0};
    tta_text_options o = {.max_width = 200, .wide = 1};
    tta_table_render(t, fmt, &o, &b);
    return buf_take(&b);
}

static const tta_identity resnet = {7, "v0.7", "closed", "NVIDIA", "dgxa100_n8", "resnet"};

/* All six first: the keys scripts read and the headers people read. */
TEST(six_first) {
    enum { RUNS = TTA_IDENTITY_COUNT, COUNT };
    static const tta_column cols[COUNT] = {TTA_IDENTITY_COLUMNS, [RUNS] = {"runs", "runs", TTA_COL_INT, 0, 0}};
    tta_table *t = tta_table_new(cols, COUNT);
    size_t row = tta_table_add_row(t);
    tta_table_set_identity(t, row, &resnet);
    tta_table_set_number(t, row, RUNS, 5);
    char *s = render(t, TTA_OUT_CSV);
    CHECK(strcmp(s, "entry,round,division,submitter,system,benchmark,runs,note\r\n"
                    "7,v0.7,closed,NVIDIA,dgxa100_n8,resnet,5,\r\n") == 0);
    free(s);
    s = render(t, TTA_OUT_MARKDOWN);
    CHECK(strstr(s, "|  id | round | div    | submitter | system     | bench  | runs |\n") == s);
    free(s);
    tta_table_free(t);
}

/* Another order, without the division (as comm), with a column of the report's own between. */
TEST(by_key_wherever_they_stand) {
    static const tta_column cols[] = {
        TTA_BENCHMARK_COLUMN, {"band", "band", TTA_COL_TEXT, 0, 0}, TTA_ROUND_COLUMN,
        TTA_SYSTEM_COLUMN,    TTA_ENTRY_COLUMN,                      TTA_SUBMITTER_COLUMN,
    };
    tta_table *t = tta_table_new(cols, sizeof cols / sizeof cols[0]);
    CHECK(tta_table_column(t, "round") == 2);
    CHECK(tta_table_column(t, "entry") == 4);
    CHECK(tta_table_column(t, "division") == -1);
    size_t row = tta_table_add_row(t);
    tta_table_set_text(t, row, 1, "all");
    tta_table_set_identity(t, row, &resnet);
    char *s = render(t, TTA_OUT_CSV);
    CHECK(strcmp(s, "benchmark,band,round,system,entry,submitter,note\r\n"
                    "resnet,all,v0.7,dgxa100_n8,7,NVIDIA,\r\n") == 0);
    free(s);
    tta_table_free(t);
}

/* No entry column (ls systems): the id is left out; a NULL field is a missing cell. */
TEST(no_entry_and_null_fields) {
    static const tta_column cols[] = {TTA_ROUND_COLUMN, TTA_SUBMITTER_COLUMN, TTA_SYSTEM_COLUMN, TTA_DIVISION_COLUMN};
    tta_table *t = tta_table_new(cols, sizeof cols / sizeof cols[0]);
    size_t row = tta_table_add_row(t);
    tta_identity id = {.round = "v0.6", .submitter = "Google", .system = "tpu-v3-32"};
    tta_table_set_identity(t, row, &id);
    char *s = render(t, TTA_OUT_JSON);
    CHECK(strcmp(s, "[\n {\"round\": \"v0.6\", \"submitter\": \"Google\", \"system\": \"tpu-v3-32\", "
                    "\"division\": null}\n]\n") == 0);
    free(s);
    tta_table_free(t);
}

/* tta_entry_identity borrows the entry's fields. */
TEST(entry_identity) {
    tta_entry_data e = {.id = 12, .round = "v0.5", .division = "open", .submitter = "Intel", .system = "clx",
                        .benchmark = "minigo"};
    tta_identity id = tta_entry_identity(&e);
    CHECK(id.id == 12 && id.round == e.round && id.division == e.division && id.submitter == e.submitter &&
          id.system == e.system && id.benchmark == e.benchmark);
}

int main(void) {
    RUN(six_first);
    RUN(by_key_wherever_they_stand);
    RUN(no_entry_and_null_fields);
    RUN(entry_identity);
    return test_summary();
}
