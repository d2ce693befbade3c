/* test_parse_summary.c: summary.json, the MLCommons result summarizer's JSON output, as
 * entry_files rows (ingest/parse_summary.c). The records are real: excerpts of what the
 * summarizer (mlcommons/logging 7bbf792) wrote for fixtures/mlperf/v0.7/NVIDIA, in its detailed
 * form (summary.json, fixtures/summary/v0.7/NVIDIA) and its strong-scaling form (the .json beside
 * --csv); the malformed files are those records broken one way each, with the line named. */
#include <math.h>
#include <string.h>

#include "ingest/parse.h"
#include "ingest/pathmeta.h"
#include "tta_test.h"

#define PATH "results/v0.7/summary.json"
#define FIXTURE "fixtures/summary/v0.7/NVIDIA/summary.json"

/* The strong-scaling form (--csv nv07.csv wrote nv07.json), its first record less a few columns. */
static const char strong[] =
    "[\n"
    "  {\n"
    "    \"division\": \"closed\",\n"
    "    \"availability\": \"onprem\",\n"
    "    \"submitter\": \"NVIDIA\",\n"
    "    \"system\": \"dgxa100_n2_ngc20.06_mxnet\",\n"
    "    \"number_of_nodes\": \"2\",\n"
    "    \"accelerators_count\": 16,\n"
    "    \"notes\": \"\",\n"
    "    \"bert\": null,\n"
    "    \"minigo\": null,\n"
    "    \"resnet\": 23.7532888889,\n"
    "    \"ssd\": null,\n"
    "    \"details_url\": \"https://github.com/mlcommons/training_results_v0.7/blob/main/NVIDIA/systems/"
    "dgxa100_n2_ngc20.06_mxnet.json\",\n"
    "    \"code_url\": \"https://github.com/mlcommons/training_results_v0.7/blob/master/NVIDIA/benchmarks\"\n"
    "  }\n"
    "]";

static tta_parsed_file parse(const char *text) {
    tta_parsed_file f = {0};
    CHECK(tta_parse_buffer(PATH, text, strlen(text), &f) == 0);
    CHECK(f.format == TTA_FMT_SUMMARY);
    return f;
}

/* The error of text, without its path. */
static void check_error(const char *text, const char *expected) {
    tta_parsed_file f = parse(text);
    CHECK(f.failed && f.error && f.n_entry_files == 0);
    const char *e = f.error && !strncmp(f.error, PATH ":", sizeof PATH) ? f.error + sizeof PATH - 1 : "";
    CHECK_STR(e, expected);
    tta_parsed_free(&f);
}

TEST(detected_by_name) {
    CHECK(tta_detect_format("v0.7/summary.json", "[]", 2) == TTA_FMT_SUMMARY);
    CHECK(tta_detect_format("v3.1/NVIDIA/summary.json", "[", 1) == TTA_FMT_SUMMARY);
    CHECK(tta_detect_format("v0.7/out.json", "[]", 2) == TTA_FMT_UNKNOWN);
    CHECK_STR(tta_format_name(TTA_FMT_SUMMARY), "summary");
    /* Read wherever the summarizer writes it: the round's folder, an organisation's, a results tree. */
    static const char *const paths[] = {"v0.7/summary.json", "v0.7/NVIDIA/summary.json",
                                        "training_results_v3.1/Lenovo/results/summary.json"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        tta_arena a = {0};
        tta_path_meta m;
        tta_path_meta_read(paths[i], &a, &m);
        CHECK(tta_path_skip(paths[i], &m, TTA_FMT_SUMMARY) == TTA_SKIP_NONE);
        tta_arena_free(&a);
    }
}

TEST(detailed_form_fixture) {
    tta_parsed_file f = {0};
    CHECK(tta_parse_file(FIXTURE, &f) == 0);
    CHECK(f.format == TTA_FMT_SUMMARY && !f.failed);
    /* Three records; only the two resnet scores are numbers (the pytorch system's single runs
     * have none). */
    CHECK(f.n_entry_files == 2);
    if (f.n_entry_files == 2) {
        const tta_entry_file_record *e = &f.entry_files[0];
        CHECK_STR(e->kind, "summary");
        CHECK_STR(e->round, "v0.7");
        CHECK_STR(e->submitter, "NVIDIA");
        CHECK_STR(e->system, "dgxa100_n2_ngc20.06_mxnet");
        CHECK_STR(e->benchmark, "resnet");
        CHECK(e->score_min == 23.7532888889 && isnan(e->scaling_factor));
        CHECK(e->content.n > 0 && e->content.p[0] == '{' && e->content.p[e->content.n - 1] == '}');
        CHECK(memmem(e->content.p, e->content.n, "\"resnet:rcp_scaling_factor\": 1.0", 32) != NULL);
        CHECK_STR(f.entry_files[1].system, "dgxa100_ngc20.06_mxnet");
        CHECK(f.entry_files[1].score_min == 39.7796611111);
    }
    tta_parsed_free(&f);
}

TEST(strong_form) {
    tta_parsed_file f = parse(strong);
    CHECK(!f.failed && f.n_entry_files == 1);
    if (f.n_entry_files == 1) {
        CHECK_STR(f.entry_files[0].benchmark, "resnet");
        CHECK_STR(f.entry_files[0].system, "dgxa100_n2_ngc20.06_mxnet");
        CHECK(f.entry_files[0].score_min == 23.7532888889);
        CHECK(f.entry_files[0].content.n == sizeof strong - 1 - 6); /* the record: "[\n  " and "\n]" left out */
    }
    tta_parsed_free(&f);
}

TEST(system_folder_from_details_url) {
    /* The summarizer's system column is the description's system_name; details_url names the
     * folder (the entry's system). Without details_url, the system column. */
    tta_parsed_file f = parse("[{\"submitter\": \"Google\", \"system\": \"TPU v3 (pretty)\", \"ssd\": 1.5,\n"
                              " \"details_url\": \"https://x/blob/main/Google/systems/tpu-v3-128.json\"},\n"
                              " {\"submitter\": \"Google\", \"system\": \"tpu-v3-32\", \"ssd:time_to_train\": 2.5,"
                              " \"ssd:rcp_scaling_factor\": 1.0, \"ssd:RCP\": \"\"}]");
    CHECK(!f.failed && f.n_entry_files == 2);
    if (f.n_entry_files == 2) {
        CHECK_STR(f.entry_files[0].system, "tpu-v3-128");
        CHECK_STR(f.entry_files[1].system, "tpu-v3-32");
        CHECK(f.entry_files[1].score_min == 2.5);
    }
    tta_parsed_free(&f);
    /* Columns that are no benchmark, and other detailed columns, make no row. */
    f = parse("[{\"submitter\": \"X\", \"system\": \"y\", \"private_id\": 3, \"resnet:GBS\": 3264,"
              " \"resnet:samples_to_converge\": 41.0, \"resnet:Energy\": 7.5}]");
    CHECK(!f.failed && f.n_entry_files == 0);
    tta_parsed_free(&f);
    /* An empty array: no rows, no failure. */
    f = parse("\xEF\xBB\xBF[]\n");
    CHECK(!f.failed && f.n_entry_files == 0);
    tta_parsed_free(&f);
}

TEST(malformed) {
    check_error("", ":1: empty summary.json: expected a JSON array of records");
    check_error("\n\n{\"resnet\": 1}", ":3: an object, not a JSON array of records (the result summarizer's summary.json)");
    check_error("[\n  {\"submitter\": \"NVIDIA\",\n   \"resnet\": 23.75,\n", ":4: not valid JSON");
    check_error("[]\n]", ":2: text after the JSON value");
    check_error("[\n  {\"submitter\": \"NVIDIA\", \"system\": \"a\"},\n  [1]\n]", ":3: record 2 is an array, not an object");
    check_error("[\n  {\"system\": \"a\",\n   \"resnet\": 23.75}\n]", ":2: record 1: submitter must be a string, not nothing");
    check_error("[\n  {\"submitter\": null, \"system\": \"a\"}\n]", ":2: record 1: submitter must be a string, not null");
    check_error("[\n  {\"submitter\": \"NVIDIA\",\n   \"system\": 7}\n]",
                ":3: record 1: no system (a string system, or a details_url ending in /systems/<name>.json)");
    check_error("[\n  {\"submitter\": \"NVIDIA\", \"system\": \"a\",\n   \"bert\": null,\n   \"resnet\": \"23.75\"}\n]",
                ":4: record 1: score resnet must be a number of minutes or null, not a string");
    check_error("[\n  {\"submitter\": \"NVIDIA\", \"system\": \"a\",\n   \"resnet:time_to_train\": -1}\n]",
                ":3: record 1: score resnet:time_to_train must be a positive number of minutes, not -1");
    check_error("[{\"submitter\": \"NVIDIA\", \"system\": \"a\", \"resnet\": 1},\n"
                " {\"submitter\": \"NVIDIA\", \"system\": \"b\", \"ssd\": NaN}]",
                ":2: not valid JSON");
}

int main(void) {
    RUN(detected_by_name);
    RUN(detailed_form_fixture);
    RUN(strong_form);
    RUN(system_folder_from_details_url);
    RUN(malformed);
    return test_summary();
}
