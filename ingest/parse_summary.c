/* parse_summary.c: summary.json, the MLCommons result summarizer's JSON output
 * (result_summarizer.py, _print_and_write: `summaries.to_json(orient="records")`): a JSON array
 * of records, one per system row, with the system-description columns (division, availability,
 * submitter, system, accelerator and processor counts, framework, ..., details_url) and the
 * scores in minutes: one column per benchmark ("resnet") in the strong-scaling table (what
 * `--csv out.csv` writes beside out.csv as out.json), or "<benchmark>:time_to_train" beside
 * ":rcp_scaling_factor", ":RCP", ... in the detailed table (what a run without --csv leaves in
 * summary.json, written last). A score is null where the system has no result.
 *
 * Read strictly (Python's json.dumps writes strict JSON; a byte-order mark is allowed): the file
 * is one array of objects; each record's submitter is a string, and so is its system or its
 * details_url; a score column holds a number or null. Each numeric score of a benchmark that tta
 * knows (tta_benchmark_canonical with the path's round) becomes one entry_files row keyed as the
 * folder's runs are: the round from the path, the record's submitter, the system folder (the
 * <name> of details_url's ".../systems/<name>.json", which the summarizer builds from the results
 * folder's name; else the record's system, the description's system_name) and the benchmark.
 */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "ingest/benchmarks.h"
#include "ingest/jsonscan.h"
#include "ingest/parse_common.h"
#include "ingest/parsers.h"

/* The system folder a details_url names (".../systems/<name>.json"), in f's arena; NULL when the
 * string has no such tail. */
static char *details_system(tta_parsed_file *f, const char *url) {
    const char *slash = strrchr(url, '/');
    size_t n = slash ? strlen(slash + 1) : 0;
    if (!slash || n <= 5 || strcmp(slash + 1 + n - 5, ".json") != 0) return NULL;
    if (slash - url < 8 || memcmp(slash - 8, "/systems", 8) != 0) return NULL;
    return tta_arena_strndup(&f->arena, slash + 1, n - 5);
}

/* The benchmark a score column names: "<benchmark>" or "<benchmark>:time_to_train", canonical
 * for round; NULL for any other column. */
static const char *score_column(tta_parsed_file *f, tta_json_span key, const char *round) {
    char *name = tta_parsed_string(f, key);
    if (!name) return NULL;
    size_t n = strlen(name);
    const char *colon = strchr(name, ':');
    if (colon) {
        if (strcmp(colon, ":time_to_train") != 0) return NULL;
        n = (size_t)(colon - name);
    }
    return n ? tta_benchmark_canonical(name, n, round) : NULL;
}

/* Appends a row to f's entry files. */
static tta_entry_file_record *add_row(tta_parsed_file *f, size_t *cap) {
    growArray(f->entry_files, cap, f->n_entry_files + 1);
    tta_entry_file_record *e = &f->entry_files[f->n_entry_files++];
    memset(e, 0, sizeof *e);
    return e;
}

/* Reads one record (an object span at rec, the index-th of the array) into rows of f. Returns 1,
 * or 0 when it failed f. */
static int read_record(tta_parsed_file *f, const char *data, tta_json_span rec, size_t index, const tta_path_meta *pm,
                       size_t *cap) {
    if (rec.type != TTA_JSON_OBJECT) {
        tta_parse_fail(f, tta_line_at(data, rec.p), "record %zu is %s, not an object", index + 1, tta_json_type_names[rec.type]);
        return 0;
    }
    if (rec.n > UINT32_MAX) {
        tta_parse_fail(f, tta_line_at(data, rec.p), "record %zu too large (%zu bytes)", index + 1, rec.n);
        return 0;
    }
    tta_json_span submitter = {0}, system = {0}, url = {0}, key, value;
    tta_json_iter it;
    tta_json_iter_init(&it, rec);
    while (tta_json_object_next(&it, &key, &value)) {
        if (TTA_JSON_IS(key, "submitter")) submitter = value;
        else if (TTA_JSON_IS(key, "system")) system = value;
        else if (TTA_JSON_IS(key, "details_url")) url = value;
    }
    if (submitter.type != TTA_JSON_STRING) {
        tta_parse_fail(f, tta_line_at(data, submitter.p ? submitter.p : rec.p), "record %zu: submitter must be a string, not %s",
                       index + 1, tta_json_type_names[submitter.type]);
        return 0;
    }
    char *system_folder = url.type == TTA_JSON_STRING ? details_system(f, tta_parsed_string(f, url)) : NULL;
    if (!system_folder && system.type != TTA_JSON_STRING) {
        tta_parse_fail(f, tta_line_at(data, system.p ? system.p : rec.p),
                       "record %zu: no system (a string system, or a details_url ending in /systems/<name>.json)",
                       index + 1);
        return 0;
    }
    char *sub = tta_parsed_string(f, submitter);
    char *sys = system_folder ? system_folder : tta_parsed_string(f, system);
    tta_json_iter_init(&it, rec);
    while (tta_json_object_next(&it, &key, &value)) {
        const char *bench = score_column(f, key, pm->round);
        if (!bench || value.type == TTA_JSON_NULL) continue;
        double x = NAN;
        if (value.type != TTA_JSON_NUMBER || !tta_json_parse_number(value.p, value.n, &x)) {
            char *k = tta_parsed_string(f, key);
            tta_parse_fail(f, tta_line_at(data, value.p), "record %zu: score %s must be a number of minutes or null, not %s",
                           index + 1, k, tta_json_type_names[value.type]);
            return 0;
        }
        if (!isfinite(x) || x <= 0) {
            char *k = tta_parsed_string(f, key);
            tta_parse_fail(f, tta_line_at(data, value.p), "record %zu: score %s must be a positive number of minutes, not %.*s",
                           index + 1, k, value.n > 40 ? 40 : (int)value.n, value.p);
            return 0;
        }
        tta_entry_file_record *e = add_row(f, cap);
        e->kind = "summary";
        e->round = (char *)pm->round;
        e->submitter = sub;
        e->system = sys;
        e->benchmark = (char *)bench;
        e->scaling_factor = NAN;
        e->score_min = x;
        e->content = (tta_str){rec.p, (uint32_t)rec.n};
    }
    return 1;
}

int tta_parse_summary(tta_parsed_file *f, const char *data, size_t len, const tta_path_meta *pm) {
    assert(f && pm && (data || len == 0));
    tta_json_span arr;
    if (tta_parse_whole_json(f, data, len, "empty summary.json: expected a JSON array of records", &arr)) return 0;
    if (arr.type != TTA_JSON_ARRAY) {
        tta_parse_fail(f, tta_line_at(data, arr.p), "%s, not a JSON array of records (the result summarizer's summary.json)",
                       tta_json_type_names[arr.type]);
        return 0;
    }
    tta_json_iter it;
    tta_json_span rec;
    size_t index = 0, cap = 0;
    tta_json_iter_init(&it, arr);
    while (tta_json_array_next(&it, &rec))
        if (!read_record(f, data, rec, index++, pm, &cap)) {
            free(f->entry_files);
            f->entry_files = NULL;
            f->n_entry_files = 0;
            return 0;
        }
    return 0;
}
