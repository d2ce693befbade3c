/* parse_dawnbench.c: a DAWNBench per-epoch TSV and its sibling JSON description.
 *
 * The TSV gives the run: one row per epoch with the hours since the start and the task's
 * quality columns, found by header name (the order varies; one file starts with a byte-order
 * mark). The sibling <stem>.json gives the identity (author, hardware) and the hyperparameters
 * (its "misc" block; the dispatcher finds and reads it: parse.h). Its TTA, DAWNBench's rule (the
 * time of the first row at the task's threshold), is the writer's to work out from the rules, as
 * every run's facts are (db/facts.c; docs/ingest.md).
 */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/check.h"
#include "ingest/benchmarks.h"
#include "ingest/parse_common.h"
#include "ingest/parsers.h"

#define MAX_COLUMNS 32

/* The task a DAWNBench description names in "dataset" ("Fashion-MNIST: train = ..."). */
static const char *task_of_description(const cJSON *d) {
    const cJSON *ds = cJSON_GetObjectItemCaseSensitive(d, "dataset");
    if (!cJSON_IsString(ds)) return NULL;
    const char *s = ds->valuestring;
    size_t n = 0;
    while (s[n] && (isalnum((unsigned char)s[n]) || s[n] == '-' || s[n] == '_')) n++;
    return tta_benchmark_canonical(s, n, NULL);
}

/* The task a file name suggests: a word of the stem that names one ("fmnist_mlp_seed0"). */
static const char *task_of_stem(const char *stem) {
    const char *p = stem;
    while (*p) {
        size_t n = 0;
        while (p[n] && p[n] != '_' && p[n] != '.') n++;
        const char *b = tta_benchmark_canonical(p, n, NULL);
        if (tta_benchmark_is_dawnbench(b)) return b;
        p += n;
        while (*p == '_' || *p == '.') p++;
    }
    return NULL;
}

/* A JSON value as strict JSON text in the arena. */
static tta_str json_text(tta_parsed_file *f, const cJSON *v) {
    char *s = cJSON_PrintUnformatted(v);
    if (!s) return (tta_str){"null", 4};
    tta_str out = tta_parsed_keep(f, s, strlen(s));
    cJSON_free(s);
    return out;
}

/* Splits a TSV line into at most MAX_COLUMNS trimmed cells; returns how many. */
static int split_cells(const char *p, const char *end, const char **cell, size_t *len) {
    int n = 0;
    for (;;) {
        const char *tab = memchr(p, '\t', (size_t)(end - p));
        const char *e = tab ? tab : end;
        const char *s = p;
        while (s < e && (*s == ' ' || *s == '\r')) s++;
        const char *t = e;
        while (t > s && (t[-1] == ' ' || t[-1] == '\r')) t--;
        if (n < MAX_COLUMNS) {
            cell[n] = s;
            len[n] = (size_t)(t - s);
            n++;
        }
        if (!tab) return n;
        p = tab + 1;
    }
}

static int find_column(const char **cell, const size_t *len, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (strlen(name) == len[i] && strncasecmp(cell[i], name, len[i]) == 0) return i;
    return -1;
}

int tta_parse_dawnbench_tsv(tta_parsed_file *f, const char *data, size_t len, const tta_path_meta *pm,
                            const char *desc_text, size_t desc_len) {
    tta_run_record *r = &f->run;
    char *entry = tta_dawnbench_entry_name(pm->stem, &f->arena, &r->run_index);
    r->run_start_s = r->run_stop_s = r->target = r->target2 = NAN;
    r->init_start_s = r->init_stop_s = NAN; /* DAWNBench logs no initialisation */
    r->log_nodes = r->log_accelerators_per_node = -1;
    r->global_batch_size = r->train_samples = r->eval_samples = NAN;

    cJSON *desc = desc_text ? tta_parse_description_json(desc_text, desc_len, 0) : NULL;
    if (desc && !cJSON_IsObject(desc)) {
        cJSON_Delete(desc);
        desc = NULL;
    }

    /* Identity. */
    r->round = "dawnbench";
    r->division = "open";
    r->system = entry;
    r->submitter = entry;
    const char *task = desc ? task_of_description(desc) : NULL;
    if (!task) task = pm->benchmark;
    if (!task) task = task_of_stem(pm->stem);
    r->benchmark = (char *)task;
    if (desc) {
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(desc, "author");
        if (cJSON_IsString(a) && a->valuestring[0]) r->submitter = tta_arena_strdup(&f->arena, a->valuestring);
        const cJSON *hw = cJSON_GetObjectItemCaseSensitive(desc, "hardware");
        if (cJSON_IsString(hw) && hw->valuestring[0]) r->platform = tta_arena_strdup(&f->arena, hw->valuestring);
        const cJSON *misc = cJSON_GetObjectItemCaseSensitive(desc, "misc");
        size_t cap = 0;
        const cJSON *m;
        cJSON_ArrayForEach(m, misc) {
            if (!m->string) continue;
            growArray(r->hparams, &cap, r->n_hparams + 1);
            r->hparams[r->n_hparams++] = (tta_kv){tta_parsed_keep(f, m->string, strlen(m->string)), json_text(f, m)};
            if (!strcmp(m->string, "seed") && cJSON_IsNumber(m) && m->valuedouble == floor(m->valuedouble)) {
                r->has_seed = 1;
                r->seed = (int64_t)m->valuedouble;
            }
        }
        cJSON_Delete(desc);
    }

    /* Header. */
    const char *p = data, *end = data + len;
    if (len >= 3 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF) p += 3;
    uint32_t line = 1;
    while (p < end && (*p == '\n' || *p == '\r')) line += *p++ == '\n';
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol) eol = end;
    const char *cell[MAX_COLUMNS];
    size_t clen[MAX_COLUMNS];
    int ncol = split_cells(p, eol, cell, clen);
    int c_epoch = find_column(cell, clen, ncol, "epoch");
    int c_hours = find_column(cell, clen, ncol, "hours");
    const char *primary = tta_dawnbench_metric_column(task);
    int c_q = primary ? find_column(cell, clen, ncol, primary) : -1;
    static const char *const metric_columns[] = {"top1Accuracy", "top5Accuracy", "f1Score"};
    for (size_t i = 0; c_q < 0 && i < 3; i++) c_q = find_column(cell, clen, ncol, metric_columns[i]);
    /* ImageNet's second metric: top-1 beside the primary top-5. */
    int c_q2 = c_q >= 0 && strncasecmp(cell[c_q], "top5Accuracy", clen[c_q]) == 0
                   ? find_column(cell, clen, ncol, "top1Accuracy")
                   : -1;
    if (c_hours < 0 || c_q < 0) {
        tta_parse_fail(f, line, "TSV header has no %s column", c_hours < 0 ? "hours" : "quality (top1Accuracy, top5Accuracy, f1Score)");
        return 0;
    }
    uint32_t header_line = line;

    /* Rows. */
    size_t cap_evals = 0, cap_epochs = 0;
    uint32_t bad_line = 0;
    int all_fraction = 1, all_fraction2 = 1;
    p = eol < end ? eol + 1 : end;
    line++;
    for (; p < end; line++) {
        eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol) eol = end;
        const char *s = p;
        p = eol < end ? eol + 1 : end;
        int blank = 1;
        for (const char *q = s; q < eol && blank; q++) blank = *q == ' ' || *q == '\t' || *q == '\r';
        if (blank) continue;
        int n = split_cells(s, eol, cell, clen);
        double hours, q, q2 = NAN, epoch = NAN;
        if (c_hours >= n || c_q >= n || !tta_json_parse_number(cell[c_hours], clen[c_hours], &hours) ||
            !tta_json_parse_number(cell[c_q], clen[c_q], &q) ||
            (c_epoch >= 0 && (c_epoch >= n || !tta_json_parse_number(cell[c_epoch], clen[c_epoch], &epoch))) ||
            !isfinite(hours)) {
            if (!bad_line) bad_line = line;
            continue;
        }
        if (c_q2 >= 0 && c_q2 < n && !tta_json_parse_number(cell[c_q2], clen[c_q2], &q2)) q2 = NAN;
        if (c_epoch < 0) epoch = (double)(r->n_evals + 1);
        double t = hours * 3600.0;
        if (q > 1.0) all_fraction = 0;
        if (!isnan(q2) && q2 > 1.0) all_fraction2 = 0;
        growArray(r->evals, &cap_evals, r->n_evals + 1);
        r->evals[r->n_evals++] = (tta_eval){t, epoch, NAN, q, q2, line};
        growArray(r->epochs, &cap_epochs, r->n_epochs + 1);
        double start = r->n_epochs ? r->epochs[r->n_epochs - 1].stop_s : 0.0;
        r->epochs[r->n_epochs++] = (tta_epoch_mark){epoch, start, t};
    }
    if (r->n_evals == 0) {
        tta_parse_fail(f, bad_line ? bad_line : header_line, "%s", bad_line ? "TSV row is not numbers (and no data row)" : "TSV has no data row");
        return 0;
    }
    /* Qualities in percent: a column that is all at or below 1 was written as fractions. (The
     * time to the threshold is the writer's to work out, from the rules: db/facts.c.) */
    for (size_t i = 0; i < r->n_evals; i++) {
        tta_eval *e = &r->evals[i];
        if (all_fraction) e->quality *= 100.0;
        if (all_fraction2 && !isnan(e->quality2)) e->quality2 *= 100.0;
    }
    r->run_start_s = 0.0;
    r->run_stop_s = r->evals[r->n_evals - 1].time_s;
    r->status = TTA_RUN_SUCCESS;
    return 0;
}
