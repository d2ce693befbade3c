/* parse_dawnbench.c: a DAWNBench entry: per-epoch TSV (columns found by header name, in any
 * order, with or without a byte-order mark) and its sibling JSON description. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/buf.h"
#include "common/check.h"
#include "ingest/benchmarks.h"
#include "ingest/parsers.h"

/* The quality column and threshold of each DAWNBench task (percent). */
typedef struct {
    const char *benchmark, *column;
    double threshold;
} dawn_task;

static const dawn_task tasks[] = {
    {"cifar10", "top1Accuracy", 94.0},
    {"imagenet", "top5Accuracy", 93.0},
    {"squad", "f1Score", 75.0},
    {"fashion-mnist", "top1Accuracy", 88.0}, /* tta's choice: no official threshold */
};

/* Reads the sibling description (same stem, .json) into a cJSON tree, or NULL. */
static cJSON *read_sibling_json(const char *path) {
    size_t n = strlen(path);
    if (n < 4) return NULL;
    buf p = {0};
    buf_append(&p, path, n - 4);
    buf_puts(&p, ".json");
    FILE *fp = fopen(buf_str(&p), "rb");
    buf_free(&p);
    if (!fp) return NULL;
    buf content = {0};
    char chunk[8192];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, fp)) > 0 && content.len < (4u << 20)) buf_append(&content, chunk, got);
    fclose(fp);
    char *text = tta_lenient_json(buf_str(&content), content.len);
    buf_free(&content);
    cJSON *root = cJSON_Parse(text);
    free(text);
    if (root && !cJSON_IsObject(root)) {
        cJSON_Delete(root);
        root = NULL;
    }
    return root;
}

/* Benchmark of an entry from its description ("dataset": "Fashion-MNIST: ..."). */
static const char *benchmark_from_description(const cJSON *root) {
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(root, "dataset");
    if (!cJSON_IsString(d)) return NULL;
    const char *s = d->valuestring;
    size_t n = strcspn(s, ": (");
    return tta_benchmark_canonical(s, n);
}

/* Splits one line at tabs into at most max fields; returns the count. */
static int split_tabs(char *line, char **fields, int max) {
    int n = 0;
    char *p = line;
    while (n < max) {
        fields[n++] = p;
        char *t = strchr(p, '\t');
        if (!t) break;
        *t = '\0';
        p = t + 1;
    }
    return n;
}

static int parse_double(const char *s, double *out) {
    while (*s == ' ') s++;
    if (!*s) return 0;
    char *e;
    double v = strtod(s, &e);
    while (*e == ' ' || *e == '%') e++;
    if (e == s || *e) return 0;
    *out = v;
    return 1;
}

int tta_parse_dawnbench_tsv(tta_parsed_file *f, const char *data, size_t len, const tta_path_meta *pm) {
    tta_run_record *r = &f->run;
    r->run_start_s = 0;
    r->run_stop_s = r->target = r->target2 = r->global_batch_size = r->train_samples = r->eval_samples = NAN;
    r->tta_s = NAN;
    r->run_index = -1;
    r->round = "dawnbench";
    r->division = "open";
    r->system = (char *)pm->stem;
    r->status = TTA_RUN_SUCCESS;
    const char *bench = pm->benchmark;

    cJSON *desc = read_sibling_json(f->path);
    if (desc) {
        const cJSON *author = cJSON_GetObjectItemCaseSensitive(desc, "author");
        if (cJSON_IsString(author) && *author->valuestring) r->submitter = tta_arena_strdup(&f->arena, author->valuestring);
        const char *b = benchmark_from_description(desc);
        if (b) bench = b;
        const cJSON *misc = cJSON_GetObjectItemCaseSensitive(desc, "misc");
        const cJSON *item;
        size_t cap = 0;
        cJSON_ArrayForEach(item, misc) {
            if (!item->string) continue;
            char *v = cJSON_PrintUnformatted(item);
            if (!v) continue;
            growArray(r->hparams, &cap, r->n_hparams + 1);
            const char *k = tta_arena_strdup(&f->arena, item->string);
            const char *vv = tta_arena_strdup(&f->arena, v);
            r->hparams[r->n_hparams++] = (tta_kv){{k, (uint32_t)strlen(k)}, {vv, (uint32_t)strlen(vv)}};
            if (!strcmp(item->string, "batchSize") && cJSON_IsNumber(item)) r->global_batch_size = item->valuedouble;
            if (!strcmp(item->string, "seed") && cJSON_IsNumber(item)) {
                r->has_seed = 1;
                r->seed = (int64_t)item->valuedouble;
            }
            free(v);
        }
        cJSON_Delete(desc);
    }
    if (!r->submitter) r->submitter = (char *)pm->stem;
    r->benchmark = (char *)bench;
    const dawn_task *task = NULL;
    for (size_t i = 0; bench && i < sizeof tasks / sizeof tasks[0]; i++)
        if (!strcmp(tasks[i].benchmark, bench)) task = &tasks[i];

    /* Work on a private copy: lines are split in place. */
    char *text = tta_arena_strndup(&f->arena, data, len);
    char *p = text;
    if ((unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF) p += 3;
    int col_epoch = -1, col_hours = -1, col_quality = -1;
    unsigned line = 0;
    size_t cap_evals = 0, cap_epochs = 0;
    int rows = 0;
    double first_epoch = NAN;
    while (p && *p) {
        char *nl = strchr(p, '\n');
        if (nl) *nl = '\0';
        line++;
        size_t l = strlen(p);
        if (l && p[l - 1] == '\r') p[--l] = '\0';
        char *fields[32];
        if (l == 0) {
            p = nl ? nl + 1 : NULL;
            continue;
        }
        int n = split_tabs(p, fields, 32);
        if (col_hours < 0) {
            for (int i = 0; i < n; i++) {
                if (!strcasecmp(fields[i], "epoch")) col_epoch = i;
                else if (!strcasecmp(fields[i], "hours")) col_hours = i;
                else if (task && !strcasecmp(fields[i], task->column)) col_quality = i;
            }
            if (col_quality < 0) /* an unknown task: the first accuracy-like column */
                for (int i = 0; i < n; i++)
                    if (i != col_epoch && i != col_hours && (strcasestr(fields[i], "accuracy") || strcasestr(fields[i], "f1")))
                        col_quality = i;
            if (col_hours < 0 || col_epoch < 0) {
                tta_parse_fail(f, line, "DAWNBench TSV header has no %s column", col_hours < 0 ? "hours" : "epoch");
                return 0;
            }
            if (col_quality < 0) {
                tta_parse_fail(f, line, "DAWNBench TSV header has no quality column%s%s", task ? " " : "",
                               task ? task->column : "");
                return 0;
            }
        } else {
            double epoch, hours, q;
            int need = col_epoch > col_hours ? col_epoch : col_hours;
            if (col_quality > need) need = col_quality;
            if (n <= need || !parse_double(fields[col_epoch], &epoch) || !parse_double(fields[col_hours], &hours) ||
                !parse_double(fields[col_quality], &q)) {
                tta_parse_fail(f, line, "DAWNBench TSV row is not numbers in epoch, hours and quality");
                return 0;
            }
            if (isnan(first_epoch)) first_epoch = epoch;
            /* Epochs count from 1; a TSV counting from 0 is shifted. */
            double e1 = first_epoch == 0 ? epoch + 1 : epoch;
            growArray(r->evals, &cap_evals, r->n_evals + 1);
            r->evals[r->n_evals++] = (tta_eval){hours * 3600.0, e1, NAN, q, NAN, line};
            growArray(r->epochs, &cap_epochs, r->n_epochs + 1);
            double prev = r->n_epochs ? r->epochs[r->n_epochs - 1].stop_s : 0;
            r->epochs[r->n_epochs++] = (tta_epoch_mark){e1, prev, hours * 3600.0};
            r->run_stop_s = hours * 3600.0;
            rows++;
        }
        p = nl ? nl + 1 : NULL;
    }
    if (rows == 0) {
        tta_parse_fail(f, line ? line : 1, "DAWNBench TSV has no data rows");
        return 0;
    }
    /* Qualities are percent; a column written as fractions is scaled. */
    int fractions = 1;
    for (size_t i = 0; i < r->n_evals; i++)
        if (r->evals[i].quality > 1.0) fractions = 0;
    if (fractions)
        for (size_t i = 0; i < r->n_evals; i++) r->evals[i].quality *= 100.0;
    if (task) {
        for (size_t i = 0; i < r->n_evals; i++)
            if (r->evals[i].quality >= task->threshold * (1 - 1e-6)) {
                r->tta_s = r->evals[i].time_s;
                break;
            }
    }
    return 0;
}
