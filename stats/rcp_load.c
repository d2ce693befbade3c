/* rcp_load.c: reads one MLCommons rcps_<benchmark>.json file into reference points (the only file
 * the statistics module reads). Records: {"<name>": {"Benchmark", "BS", "Hyperparams",
 * "Epochs to converge" | "samples to converge": [runs...]}}. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "common/buf.h"
#include "common/check.h"
#include "common/file.h"
#include "stats/rcp_internal.h"
#include "stats/stats.h"

/* An RCP table is a few dozen records of a few dozen numbers (the largest published is ~20 KiB). */
#define RCP_FILE_LIMIT (16 * TTA_FILE_MIB)

/* rcp_checker's _process_raw_rcp_data reads "samples to converge" for these, epochs otherwise. */
static const cJSON *record_runs(const cJSON *record, const char *benchmark) {
    int samples = !strcmp(benchmark, "llama2_70b_lora") || !strcmp(benchmark, "flux1");
    const char *first = samples ? "samples to converge" : "Epochs to converge";
    const char *second = samples ? "Epochs to converge" : "samples to converge";
    const cJSON *runs = cJSON_GetObjectItemCaseSensitive(record, first);
    return runs ? runs : cJSON_GetObjectItemCaseSensitive(record, second);
}

/* Adds the point of one record to set; NULL, or what is wrong with the record (static). */
static const char *add_record(tta_rcp_set *set, size_t *cap, const cJSON *record) {
    if (!cJSON_IsObject(record)) return "not an object";
    const cJSON *bs = cJSON_GetObjectItemCaseSensitive(record, "BS");
    if (!cJSON_IsNumber(bs) || !(bs->valuedouble > 0)) return "no positive \"BS\"";
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(record, "Benchmark");
    const char *benchmark = cJSON_IsString(name) ? name->valuestring : set->benchmark;
    const cJSON *runs = record_runs(record, benchmark);
    if (!cJSON_IsArray(runs)) return "no \"Epochs to converge\" or \"samples to converge\" list";
    size_t n = (size_t)cJSON_GetArraySize(runs), k = 0, rejected = tta_rcp_rejected(benchmark);
    if (n <= 2 * rejected) return "too few runs for an olympic mean";
    double *v = mallocCheck(n * sizeof *v);
    const cJSON *x;
    cJSON_ArrayForEach(x, runs) {
        if (!cJSON_IsNumber(x)) {
            free(v);
            return "a run's value is not a number";
        }
        v[k++] = x->valuedouble;
    }
    growArray(set->points, cap, set->n + 1);
    set->points[set->n++] = tta_rcp_point_of(bs->valuedouble, v, n, rejected, set->submission_runs);
    free(v);
    return NULL;
}

/* Fills set from the parsed file; 0, or -1 with *err. */
static int load_records(const cJSON *root, const char *path, tta_rcp_set *set, tta_error *err) {
    if (!cJSON_IsObject(root))
        return tta_fail(err, TTA_EINPUT, "%s: not a JSON object of reference points", path);
    size_t cap = 0;
    const cJSON *record;
    cJSON_ArrayForEach(record, root) {
        const char *wrong = add_record(set, &cap, record);
        if (wrong)
            return tta_fail(err, TTA_EINPUT, "%s: record \"%s\": %s", path, record->string ? record->string : "?", wrong);
    }
    if (set->n == 0) return tta_fail(err, TTA_EINPUT, "%s: no reference point", path);
    tta_rcp_prune(set);
    return TTA_OK;
}

int tta_rcp_load(const char *dir, const char *benchmark, tta_rcp_set *set, tta_error *err) {
    gsl_set_error_handler_off();
    memset(set, 0, sizeof *set);
    tta_error_clear(err);
    if (!dir || !benchmark || !benchmark[0] || strchr(benchmark, '/') ||
        strlen(benchmark) >= sizeof set->benchmark)
        return tta_fail(err, TTA_EINPUT, "invalid benchmark name for reference convergence points");
    memcpy(set->benchmark, benchmark, strlen(benchmark) + 1);
    buf path = {0};
    buf_printf(&path, "%s/rcps_%s.json", dir, benchmark);
    tta_file text = {0};
    int status = tta_file_load(buf_str(&path), RCP_FILE_LIMIT, "an RCP file", TTA_FILE_READ, &text, err);
    if (status == TTA_ENOTFOUND) {
        tta_fail(err, TTA_ENOTFOUND, "no reference convergence points for %s in %s", benchmark, dir);
    } else if (status != TTA_OK) {
        /* the loader's "<path>: reason" */
    } else if ((set->submission_runs = tta_rcp_submission_runs(benchmark)) == 0) {
        /* rcp_checker stops here with a KeyError. */
        status = tta_fail(err, TTA_EINPUT, "%s: no submission run count known for %s", buf_str(&path), benchmark);
    } else {
        cJSON *root = cJSON_ParseWithLength(text.data, text.len);
        status = load_records(root, buf_str(&path), set, err);
        cJSON_Delete(root);
    }
    if (status != TTA_OK) {
        tta_rcp_free(set);
        memcpy(set->benchmark, benchmark, strlen(benchmark) + 1);
    }
    buf_free(&path);
    tta_file_free(&text);
    return status;
}
