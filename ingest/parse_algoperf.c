/* parse_algoperf.c: an AlgoPerf leaderboard's files (docs/algoperf.md).
 *
 * A trial folder, logs/<ruleset>/<submission>/study_<N>/<workload>_<framework>/trial_<N>/, holds
 * eval_measurements.csv (a header of column names, then one row of numbers per evaluation, as
 * pandas writes them: empty or "nan" for a missing value), hparams.json, meta_data_0.json and
 * flags_0.json (JSON objects, kept as written). The path gives the trial's place; the leaderboard is
 * "algoperf-v0.5" from a path component algoperf-v0.5 or algoperf_v05 above logs/ (not "v0.5": MLPerf
 * Training has a round of that name). A benchmark version's
 * targets file (workload_targets_v05.json) lists its base and held-out workloads and each workload's
 * metric, target and step hint; whether a metric is minimised is the scoring code's metric registry
 * (scoring/performance_profile.py: MIN_EVAL_METRICS, MAX_EVAL_METRICS), kept here in one table.
 */
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/buf.h"
#include "common/check.h"
#include "ingest/jsonscan.h"
#include "ingest/parse_common.h"
#include "ingest/parsers.h"

/* The metrics AlgoPerf's scoring code knows, and which way is better. */
static const struct {
    const char *name;
    int minimize;
} metric_directions[] = {
    {"ce_loss", 1}, {"error_rate", 1}, {"ctc_loss", 1}, {"wer", 1}, {"l1_loss", 1}, {"loss", 1}, {"ppl", 1},
    {"mean_average_precision", 0}, {"ssim", 0}, {"accuracy", 0}, {"bleu", 0},
};

/* The CSV columns stored as an evaluation's fields (the validation/ columns go to its values). */
enum { COL_STEP, COL_SCORE, COL_SUBMISSION, COL_EVAL, COL_TOTAL, N_COLS };
static const char *const eval_columns[N_COLS] = {"global_step", "score", "accumulated_submission_time",
                                                 "accumulated_eval_time", "total_duration"};

#define MAX_COMPONENTS 8

/* The last n components of path (the file name last) in c[0..n): c[n-1] is the file name. Returns
 * how many there are (at most n). */
static size_t last_components(const char *path, tta_str *c, size_t n) {
    size_t k = 0;
    const char *end = path + strlen(path);
    while (k < n && end > path) {
        const char *s = end;
        while (s > path && s[-1] != '/') s--;
        if (end > s) c[n - 1 - k++] = (tta_str){s, (uint32_t)(end - s)};
        end = s > path ? s - 1 : path;
    }
    memmove(c, c + (n - k), k * sizeof *c);
    return k;
}

/* N of "<prefix><N>" (digits only), or -1. */
static int numbered(tta_str s, const char *prefix) {
    size_t m = strlen(prefix);
    if (s.n <= m || s.n > m + 9 || strncmp(s.p, prefix, m) != 0) return -1;
    int v = 0;
    for (size_t i = m; i < s.n; i++) {
        if (!isdigit((unsigned char)s.p[i])) return -1;
        v = v * 10 + (s.p[i] - '0');
    }
    return v;
}

static int span_is(tta_str s, const char *lit) { return s.n == strlen(lit) && !memcmp(s.p, lit, s.n); }

/* "algoperf-v0.5" from a folder named algoperf-v0.5, algoperf_v05 (or with the version as X.Y or XY), else NULL. */
static char *leaderboard_name(tta_parsed_file *f, tta_str s) {
    if (s.n < 11 || strncasecmp(s.p, "algoperf", 8) != 0 || (s.p[8] != '-' && s.p[8] != '_') ||
        tolower((unsigned char)s.p[9]) != 'v')
        return NULL;
    const char *v = s.p + 10, *end = s.p + s.n;
    buf b = {0};
    if (end - v == 2 && isdigit((unsigned char)v[0]) && isdigit((unsigned char)v[1])) {
        buf_printf(&b, "algoperf-v%c.%c", v[0], v[1]);
    } else {
        for (const char *c = v; c < end; c++)
            if (!isdigit((unsigned char)*c) && *c != '.') return NULL;
        buf_printf(&b, "algoperf-v%.*s", (int)(end - v), v);
    }
    char *out = tta_arena_strdup(&f->arena, buf_str(&b));
    buf_free(&b);
    return out;
}

/* The trial's place from f->path; fails f when the path is not a trial folder's. */
static int read_place(tta_parsed_file *f, tta_algoperf_record *a) {
    tta_str c[MAX_COMPONENTS];
    size_t n = last_components(f->path, c, MAX_COMPONENTS);
    const char *layout = "expected logs/<ruleset>/<submission>/study_<N>/<workload>_<framework>/trial_<N>/<file>";
    if (n < 6) {
        tta_parse_fail(f, 0, "not in an AlgoPerf trial folder: %s", layout);
        return -1;
    }
    tta_str trial = c[n - 2], workload = c[n - 3], study = c[n - 4], submission = c[n - 5], ruleset = c[n - 6];
    a->trial = numbered(trial, "trial_");
    a->study = numbered(study, "study_");
    if (a->trial < 0 || a->study < 0) {
        tta_parse_fail(f, 0, "not in an AlgoPerf trial folder (%.*s/%.*s): %s", (int)study.n, study.p, (int)trial.n,
                       trial.p, layout);
        return -1;
    }
    if (!span_is(ruleset, "external_tuning") && !span_is(ruleset, "self_tuning")) {
        tta_parse_fail(f, 0, "unknown AlgoPerf ruleset folder '%.*s' (external_tuning or self_tuning): %s",
                       (int)ruleset.n, ruleset.p, layout);
        return -1;
    }
    a->ruleset = tta_arena_strndup(&f->arena, ruleset.p, ruleset.n);
    a->submission = tta_arena_strndup(&f->arena, submission.p, submission.n);
    /* The scoring code strips _jax or _pytorch at the end of the folder's name. */
    static const char *const frameworks[] = {"jax", "pytorch"};
    size_t wn = workload.n;
    for (size_t i = 0; i < 2; i++) {
        size_t m = strlen(frameworks[i]);
        if (workload.n > m + 1 && workload.p[workload.n - m - 1] == '_' &&
            !memcmp(workload.p + workload.n - m, frameworks[i], m)) {
            wn = workload.n - m - 1;
            a->framework = (char *)frameworks[i];
        }
    }
    a->workload = tta_arena_strndup(&f->arena, workload.p, wn);
    for (size_t i = 0; i + 6 < n && !a->leaderboard; i++) a->leaderboard = leaderboard_name(f, c[i]);
    return 0;
}

/* A cell as the scoring code's pandas reads it: a number, "nan"/empty as NAN. 0, or -1 when the
 * cell is not a number. */
static int cell_number(const char *p, size_t n, double *out) {
    while (n && (p[n - 1] == '\r' || p[n - 1] == ' ')) n--;
    while (n && *p == ' ') p++, n--;
    if (n == 0 || (n == 3 && !strncasecmp(p, "nan", 3))) {
        *out = NAN;
        return 0;
    }
    char tmp[64];
    if (n >= sizeof tmp) return -1;
    memcpy(tmp, p, n);
    tmp[n] = 0;
    char *end;
    errno = 0;
    double v = strtod(tmp, &end);
    if (end != tmp + n || (!isfinite(v) && errno == ERANGE)) return -1;
    *out = v;
    return 0;
}

/* The n cells of one CSV line [p, end) into cell[]: returns how many there are (more than n: n + 1). */
static size_t split_line(const char *p, const char *end, tta_str *cell, size_t n) {
    size_t k = 0;
    for (;;) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        const char *ce = comma ? comma : end;
        if (k < n) cell[k] = (tta_str){p, (uint32_t)(ce - p)};
        k++;
        if (!comma || k > n) return k;
        p = comma + 1;
    }
}

static int parse_evals(tta_parsed_file *f, tta_algoperf_record *a, const char *data, size_t len) {
    const char *end = data + len, *p = data;
    if (len >= 3 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF) p += 3;
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    const char *he = eol ? eol : end;
    if (he == p) {
        tta_parse_fail(f, 1, "empty eval_measurements.csv: expected a header of column names");
        return -1;
    }
    if (memchr(p, '"', (size_t)(he - p))) {
        tta_parse_fail(f, 1, "quoted column names: AlgoPerf's harness writes plain ones");
        return -1;
    }
    size_t n_cols = 1;
    for (const char *c = p; c < he; c++) n_cols += *c == ',';
    tta_str *head = mallocCheck(n_cols * sizeof *head), *cell = mallocCheck(n_cols * sizeof *cell);
    int *role = mallocCheck(n_cols * sizeof *role); /* 0..N_COLS-1, N_COLS: validation/, -1: other */
    split_line(p, he, head, n_cols);
    int have[N_COLS] = {0};
    size_t n_validation = 0;
    for (size_t j = 0; j < n_cols; j++) {
        tta_str h = head[j];
        while (h.n && (h.p[h.n - 1] == '\r' || h.p[h.n - 1] == ' ')) h.n--;
        head[j] = h;
        role[j] = -1;
        for (int k = 0; k < N_COLS; k++)
            if (span_is(h, eval_columns[k])) role[j] = k, have[k] = 1;
        if (h.n > 11 && !memcmp(h.p, "validation/", 11)) role[j] = N_COLS, n_validation++;
    }
    int rc = 0;
    if (!have[COL_SCORE]) {
        tta_parse_fail(f, 1, "no score column: the scoring code times a trial by it");
        rc = -1;
    }
    size_t cap = 0, vcap = 0;
    uint32_t line = 1;
    for (p = eol ? eol + 1 : end; rc == 0 && p < end; p = eol ? eol + 1 : end) {
        line++;
        eol = memchr(p, '\n', (size_t)(end - p));
        const char *le = eol ? eol : end;
        if (le == p || (le - p == 1 && *p == '\r')) continue; /* a blank line: pandas skips it */
        size_t k = split_line(p, le, cell, n_cols);
        if (k != n_cols) {
            if (k > n_cols) tta_parse_fail(f, line, "more cells than the header's %zu columns", n_cols);
            else tta_parse_fail(f, line, "%zu cells where the header names %zu columns", k, n_cols);
            rc = -1;
            break;
        }
        if (a->n_evals == cap) {
            cap = cap ? 2 * cap : 64;
            a->evals = reallocCheck(a->evals, cap * sizeof *a->evals);
        }
        tta_algoperf_eval *e = &a->evals[a->n_evals];
        double *field[N_COLS] = {&e->global_step, &e->score, &e->submission_time, &e->eval_time, &e->total_duration};
        for (int q = 0; q < N_COLS; q++) *field[q] = NAN;
        for (size_t j = 0; j < n_cols && rc == 0; j++) {
            if (role[j] < 0) continue;
            double v;
            if (cell_number(cell[j].p, cell[j].n, &v) != 0) {
                tta_parse_fail(f, line, "column %.*s: '%.*s' is not a number", (int)head[j].n, head[j].p,
                               cell[j].n > 40 ? 40 : (int)cell[j].n, cell[j].p);
                rc = -1;
            } else if (role[j] < N_COLS) {
                *field[role[j]] = v;
            } else {
                if (a->n_values == vcap) {
                    vcap = vcap ? 2 * vcap : 128;
                    a->values = reallocCheck(a->values, vcap * sizeof *a->values);
                }
                a->values[a->n_values++] = (tta_algoperf_value){(uint32_t)a->n_evals, head[j], v};
            }
        }
        a->n_evals++;
    }
    free(head);
    free(cell);
    free(role);
    return rc;
}

/* The array of strings member key of obj as arena strings in *out (n of them); -1 and f failed when
 * it is missing or not an array of strings. */
static int string_list(tta_parsed_file *f, const char *data, tta_json_span obj, const char *key, char ***out, size_t *n) {
    tta_json_span arr, s;
    *n = 0;
    if (!tta_json_find(obj, key, &arr) || arr.type != TTA_JSON_ARRAY) {
        tta_parse_fail(f, tta_line_at(data, obj.p), "no %s array of workload names", key);
        return -1;
    }
    tta_json_iter it;
    tta_json_iter_init(&it, arr);
    size_t cap = 0;
    *out = NULL;
    while (tta_json_array_next(&it, &s)) {
        if (s.type != TTA_JSON_STRING) {
            tta_parse_fail(f, tta_line_at(data, s.p), "%s: %s where a workload name belongs", key,
                           tta_json_type_names[s.type]);
            return -1;
        }
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            char **grown = tta_arena_alloc(&f->arena, cap * sizeof *grown);
            if (*n) memcpy(grown, *out, *n * sizeof *grown);
            *out = grown;
        }
        (*out)[(*n)++] = tta_parsed_string(f, s);
    }
    return 0;
}

/* One workload's object of the targets file into t; -1 and f failed when a member is wrong. */
static int read_target(tta_parsed_file *f, const char *data, tta_json_span name, tta_json_span spec,
                       tta_algoperf_target *t) {
    t->workload = tta_parsed_string(f, name);
    tta_json_span metric, target, hint;
    if (spec.type != TTA_JSON_OBJECT || !tta_json_find(spec, "target_metric_name", &metric) ||
        metric.type != TTA_JSON_STRING || !tta_json_find(spec, "validation_target_value", &target) ||
        target.type != TTA_JSON_NUMBER) {
        tta_parse_fail(f, tta_line_at(data, spec.p),
                       "workload %s: expected {\"target_metric_name\": <string>, \"validation_target_value\": <number>}",
                       t->workload);
        return -1;
    }
    t->metric = tta_parsed_string(f, metric);
    if (!tta_json_parse_number(target.p, target.n, &t->target) || !isfinite(t->target)) {
        tta_parse_fail(f, tta_line_at(data, target.p), "workload %s: validation_target_value is not a finite number",
                       t->workload);
        return -1;
    }
    double h;
    t->step_hint = tta_json_find(spec, "step_hint", &hint) && hint.type == TTA_JSON_NUMBER &&
                           tta_json_parse_number(hint.p, hint.n, &h) && h >= 0 && h < 9e15
                       ? (int64_t)h
                       : -1;
    t->minimize = -1;
    for (size_t i = 0; i < sizeof metric_directions / sizeof metric_directions[0]; i++)
        if (!strcmp(metric_directions[i].name, t->metric)) t->minimize = metric_directions[i].minimize;
    if (t->minimize < 0) {
        tta_parse_fail(f, tta_line_at(data, metric.p),
                       "workload %s: metric '%s' is not one AlgoPerf's scoring code knows (it cannot tell whether "
                       "lower is better)", t->workload, t->metric);
        return -1;
    }
    return 0;
}

static int parse_targets(tta_parsed_file *f, tta_algoperf_record *a, const char *data, size_t len) {
    tta_json_span obj, version, workloads, name, spec;
    if (tta_parse_whole_json(f, data, len, "empty targets file", &obj)) return -1;
    if (obj.type != TTA_JSON_OBJECT) {
        tta_parse_fail(f, tta_line_at(data, obj.p), "not a JSON object");
        return -1;
    }
    if (!tta_json_find(obj, "benchmark_version", &version) || version.type != TTA_JSON_STRING) {
        tta_parse_fail(f, tta_line_at(data, obj.p), "no benchmark_version string");
        return -1;
    }
    buf b = {0};
    buf_puts(&b, "algoperf-v");
    tta_json_string_decode(version, &b);
    a->version = tta_arena_strdup(&f->arena, buf_str(&b));
    buf_free(&b);
    char **base, **held;
    size_t n_base, n_held;
    if (string_list(f, data, obj, "base_workloads", &base, &n_base) ||
        string_list(f, data, obj, "held_out_workloads", &held, &n_held))
        return -1;
    if (!tta_json_find(obj, "workloads", &workloads) || workloads.type != TTA_JSON_OBJECT) {
        tta_parse_fail(f, tta_line_at(data, obj.p), "no workloads object");
        return -1;
    }
    tta_json_iter it;
    tta_json_iter_init(&it, workloads);
    size_t cap = 0;
    while (tta_json_object_next(&it, &name, &spec)) {
        if (a->n_targets == cap) {
            cap = cap ? 2 * cap : 32;
            a->targets = reallocCheck(a->targets, cap * sizeof *a->targets);
        }
        tta_algoperf_target *t = &a->targets[a->n_targets++];
        memset(t, 0, sizeof *t);
        if (read_target(f, data, name, spec, t)) return -1;
        t->role = "other";
        for (size_t i = 0; i < n_base; i++)
            if (!strcmp(base[i], t->workload)) t->role = "base";
        for (size_t i = 0; i < n_held; i++)
            if (!strcmp(held[i], t->workload)) t->role = "held_out";
        /* the scoring code's base_workload_name: the first base workload whose name is in it */
        for (size_t i = 0; !strcmp(t->role, "held_out") && i < n_base && !t->base; i++)
            if (strstr(t->workload, base[i])) t->base = base[i];
        if (!strcmp(t->role, "held_out") && !t->base) {
            tta_parse_fail(f, tta_line_at(data, name.p), "held-out workload %s contains no base workload's name",
                           t->workload);
            return -1;
        }
    }
    char **lists[2] = {base, held};
    size_t counts[2] = {n_base, n_held};
    for (int l = 0; l < 2; l++)
        for (size_t i = 0; i < counts[l]; i++) {
            int found = 0;
            for (size_t j = 0; j < a->n_targets && !found; j++) found = !strcmp(a->targets[j].workload, lists[l][i]);
            if (!found) {
                tta_parse_fail(f, tta_line_at(data, obj.p), "%s workload %s has no entry in workloads",
                               l ? "held-out" : "base", lists[l][i]);
                return -1;
            }
        }
    return 0;
}

int tta_parse_algoperf(tta_parsed_file *f, const char *data, size_t len) {
    assert(f && f->path && (data || len == 0));
    tta_algoperf_record *a = &f->algoperf;
    if (f->format == TTA_FMT_ALGOPERF_TARGETS) {
        a->kind = "targets";
        parse_targets(f, a, data, len);
        return 0;
    }
    const char *b = strrchr(f->path, '/');
    b = b ? b + 1 : f->path;
    a->kind = f->format == TTA_FMT_ALGOPERF_EVALS ? "eval_measurements"
              : !strcmp(b, "hparams.json")        ? "hparams"
              : !strcmp(b, "meta_data_0.json")    ? "meta_data"
                                                  : "flags";
    if (read_place(f, a)) return 0;
    if (f->format == TTA_FMT_ALGOPERF_EVALS) {
        parse_evals(f, a, data, len);
        return 0;
    }
    tta_json_span obj;
    if (tta_parse_whole_json(f, data, len, "empty JSON file: expected an object", &obj)) return 0;
    if (obj.type != TTA_JSON_OBJECT) {
        tta_parse_fail(f, tta_line_at(data, obj.p), "not a JSON object but %s", tta_json_type_names[obj.type]);
        return 0;
    }
    if (obj.n > UINT32_MAX) {
        tta_parse_fail(f, 1, "JSON object too large (%zu bytes)", obj.n);
        return 0;
    }
    a->content = (tta_str){obj.p, (uint32_t)obj.n};
    return 0;
}
