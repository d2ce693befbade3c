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
#include "stats/rcp_internal.h"
#include "stats/stats.h"

/* Sets *err (when err is not NULL) to a malloc'd message. */
static void set_error(char **err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_error(char **err, const char *fmt, ...) {
    if (!err) return;
    buf e = {0};
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&e, fmt, ap);
    va_end(ap);
    *err = buf_take(&e);
}

/* The whole file as a NUL-terminated string in *text; 0, or errno. */
static int read_file(const char *path, buf *text) {
    FILE *f = fopen(path, "rb");
    if (!f) return errno ? errno : EIO;
    char chunk[65536];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) buf_append(text, chunk, got);
    int failed = ferror(f);
    fclose(f);
    if (failed) return EIO;
    buf_append(text, "", 0); /* data non-NULL even for an empty file */
    return 0;
}

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
static int load_records(const cJSON *root, const char *path, tta_rcp_set *set, char **err) {
    if (!cJSON_IsObject(root)) {
        set_error(err, "%s: not a JSON object of reference points", path);
        return -1;
    }
    size_t cap = 0;
    const cJSON *record;
    cJSON_ArrayForEach(record, root) {
        const char *wrong = add_record(set, &cap, record);
        if (wrong) {
            set_error(err, "%s: record \"%s\": %s", path, record->string ? record->string : "?", wrong);
            return -1;
        }
    }
    if (set->n == 0) {
        set_error(err, "%s: no reference point", path);
        return -1;
    }
    tta_rcp_prune(set);
    return 0;
}

int tta_rcp_load(const char *dir, const char *benchmark, tta_rcp_set *set, char **err) {
    gsl_set_error_handler_off();
    memset(set, 0, sizeof *set);
    if (err) *err = NULL;
    if (!dir || !benchmark || !benchmark[0] || strchr(benchmark, '/') ||
        strlen(benchmark) >= sizeof set->benchmark) {
        set_error(err, "invalid benchmark name for reference convergence points");
        return -1;
    }
    memcpy(set->benchmark, benchmark, strlen(benchmark) + 1);
    buf path = {0}, text = {0};
    buf_printf(&path, "%s/rcps_%s.json", dir, benchmark);
    int status = 0;
    int error = read_file(buf_str(&path), &text);
    if (error == ENOENT) {
        set_error(err, "no reference convergence points for %s in %s", benchmark, dir);
        status = 1;
    } else if (error) {
        set_error(err, "%s: %s", buf_str(&path), strerror(error));
        status = -1;
    } else if ((set->submission_runs = tta_rcp_submission_runs(benchmark)) == 0) {
        /* rcp_checker stops here with a KeyError. */
        set_error(err, "%s: no submission run count known for %s", buf_str(&path), benchmark);
        status = -1;
    } else {
        cJSON *root = cJSON_Parse(buf_str(&text));
        status = load_records(root, buf_str(&path), set, err);
        cJSON_Delete(root);
    }
    if (status != 0) {
        tta_rcp_free(set);
        memcpy(set->benchmark, benchmark, strlen(benchmark) + 1);
    }
    buf_free(&path);
    buf_free(&text);
    return status;
}
