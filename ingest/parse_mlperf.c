/* parse_mlperf.c: MLPerf Training result logs of every round, and power logs.
 *
 * The file is scanned for markers (":::MLPv0.5.0 ", ":::MLL ", ":::MLLOG ", "MLPerf: ")
 * anywhere on a line (ranks prefix "0: "), skipping whatever lies between. Each record
 * becomes an event; what the records mean for the run (start, stop, status, evaluations,
 * epochs, hyperparameters, identity) is derived as they stream by. A record whose JSON is
 * broken is skipped (and remembered for the error message); a file with no usable record or
 * without run_start fails.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/buf.h"
#include "common/check.h"
#include "ingest/benchmarks.h"
#include "ingest/jsonscan.h"
#include "ingest/parsers.h"

typedef struct {
    tta_parsed_file *f;
    const tta_path_meta *pm;
    const char *data;
    size_t cap_events, cap_evals, cap_epochs, cap_hparams, cap_power;
    const char *benchmark;  /* canonical, once known */
    int has_run_stop;       /* a run_stop with a status was seen */
    int has_run_start;
    unsigned first_bad_line; /* first record that could not be read */
    const char *first_bad_reason;
    /* Quality values can arrive before the benchmark name; normalised at the end. */
} log_builder;

/* ---- small helpers ---- */

static tta_str span_str(json_span s) { return (tta_str){s.p, (uint32_t)s.n}; }

static int str_eq(tta_str s, const char *lit) {
    size_t n = strlen(lit);
    return s.n == n && memcmp(s.p, lit, n) == 0;
}

static int str_prefix(tta_str s, const char *lit) {
    size_t n = strlen(lit);
    return s.n >= n && memcmp(s.p, lit, n) == 0;
}

/* Exact count of '\n' in [p, end): eight bytes at a time. */
static unsigned count_newlines(const char *p, const char *end) {
    unsigned n = 0;
    while (p < end && ((uintptr_t)p & 7)) n += *p++ == '\n';
    const uint64_t nl = 0x0a0a0a0a0a0a0a0aULL, lo7 = 0x7f7f7f7f7f7f7f7fULL;
    while (end - p >= 8) {
        uint64_t x;
        memcpy(&x, p, 8);
        uint64_t y = x ^ nl;                       /* zero bytes where '\n' */
        uint64_t t = (((y & lo7) + lo7) | y) & ~lo7; /* high bit set where the byte is non-zero */
        n += 8 - (unsigned)__builtin_popcountll(t);
        p += 8;
    }
    while (p < end) n += *p++ == '\n';
    return n;
}

unsigned tta_line_of(const char *data, const char *pos) { return count_newlines(data, pos) + 1; }

void tta_parse_fail(tta_parsed_file *f, unsigned line, const char *fmt, ...) {
    if (f->failed) return;
    buf b = {0};
    buf_printf(&b, "%s:%u: ", f->path, line);
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&b, fmt, ap);
    va_end(ap);
    f->failed = 1;
    f->error = tta_arena_strdup(&f->arena, buf_str(&b));
    buf_free(&b);
}

static void note_bad(log_builder *b, unsigned line, const char *reason) {
    if (!b->first_bad_line) {
        b->first_bad_line = line;
        b->first_bad_reason = reason;
    }
}

static char *arena_span(log_builder *b, json_span s) { return tta_arena_strndup(&b->f->arena, s.p, s.n); }

/* Contents of a JSON string value as a NUL-terminated arena string (escapes kept); NULL if
 * the value is not a string. */
static char *string_value(log_builder *b, json_span v) {
    json_span s;
    if (!json_string_raw(v, &s)) return NULL;
    return arena_span(b, s);
}

/* ---- run semantics ---- */

static void add_hparam(log_builder *b, tta_str key, tta_str value) {
    tta_run_record *r = &b->f->run;
    for (size_t i = 0; i < r->n_hparams; i++)
        if (r->hparams[i].key.n == key.n && memcmp(r->hparams[i].key.p, key.p, key.n) == 0) return;
    growArray(r->hparams, &b->cap_hparams, r->n_hparams + 1);
    r->hparams[r->n_hparams++] = (tta_kv){key, value};
}

static int is_hparam_key(tta_str k) {
    static const char *const prefixes[] = {"opt_", "lr_", "model_", "global_batch_size", "train_batch_size",
                                           "input_batch_size", "gradient_accumulation", "num_warmup", "warmup",
                                           "max_sequence_length", "sgd_", "batch_size", "seed",
                                           "run_set_random_seed", "dropout", "weight_decay"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (str_prefix(k, prefixes[i])) return 1;
    return 0;
}

/* Quality from an eval value: a number, a numeric string, {"BBOX": x, "SEGM": y},
 * {"accuracy": {...}}, or v0.5's {"epoch": e, "value": v} (then *epoch0 = e). */
static int eval_quality(json_span v, double *q, double *q2, double *epoch0, int depth) {
    if (depth > 3) return 0;
    if (json_number(v, q)) return 1;
    if (!v.n || v.p[0] != '{') return 0;
    json_span bbox = json_object_get(v, "BBOX");
    if (bbox.n) {
        if (!json_number(bbox, q)) return 0;
        json_span segm = json_object_get(v, "SEGM");
        if (segm.n) json_number(segm, q2);
        return 1;
    }
    json_span acc = json_object_get(v, "accuracy");
    if (acc.n) return eval_quality(acc, q, q2, epoch0, depth + 1);
    json_span inner = json_object_get(v, "value");
    if (inner.n) {
        json_span e = json_object_get(v, "epoch");
        if (e.n) json_number(e, epoch0);
        return eval_quality(inner, q, q2, epoch0, depth + 1);
    }
    return 0;
}

static tta_run_status status_from(const char *s) {
    if (!s) return TTA_RUN_UNKNOWN;
    if (!strcmp(s, "success") || !strcmp(s, "true") || !strcmp(s, "True")) return TTA_RUN_SUCCESS;
    if (!strncmp(s, "abort", 5) || !strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "failure") ||
        !strcmp(s, "failed"))
        return TTA_RUN_ABORTED;
    return TTA_RUN_UNKNOWN;
}

/* The status a run_stop record carries: metadata.status (v0.6 on), or v0.5's value
 * {"success": true|false|"true"}. */
static tta_run_status run_stop_status(log_builder *b, json_span value, json_span meta) {
    json_span st = meta.n ? json_object_get(meta, "status") : (json_span){0};
    if (st.n) return status_from(string_value(b, st));
    if (value.n && value.p[0] == '{') {
        json_span s = json_object_get(value, "success");
        if (s.n) {
            if (json_raw_equals(s, "true")) return TTA_RUN_SUCCESS;
            if (json_raw_equals(s, "false")) return TTA_RUN_ABORTED;
            return status_from(string_value(b, s));
        }
        st = json_object_get(value, "status");
        if (st.n) return status_from(string_value(b, st));
    }
    return TTA_RUN_UNKNOWN;
}

/* epoch_start / epoch_stop marks, deduplicated across ranks. */
static void epoch_mark(log_builder *b, double epoch, double time, int is_start) {
    tta_run_record *r = &b->f->run;
    if (isnan(epoch)) return;
    for (size_t i = r->n_epochs; i-- > 0;) {
        tta_epoch_mark *m = &r->epochs[i];
        if (m->epoch != epoch) continue;
        if (is_start && isnan(m->start_s)) m->start_s = time;
        if (!is_start && isnan(m->stop_s)) m->stop_s = time;
        return;
    }
    growArray(r->epochs, &b->cap_epochs, r->n_epochs + 1);
    r->epochs[r->n_epochs++] = (tta_epoch_mark){epoch, is_start ? time : NAN, is_start ? NAN : time};
}

/* What one record means for the run. epoch_base is 1 when the format's epoch numbers count
 * from 0 (v0.5, the Alibaba text form). */
static void interpret(log_builder *b, const tta_event *e, json_span value, json_span meta, int epoch_base) {
    tta_run_record *r = &b->f->run;
    tta_str k = e->key;
    if (str_eq(k, "run_start")) {
        if (!b->has_run_start) {
            r->run_start_s = e->time_s;
            b->has_run_start = 1;
        }
    } else if (str_eq(k, "run_stop")) {
        tta_run_status s = run_stop_status(b, value, meta);
        if (!b->has_run_stop) {
            r->run_stop_s = e->time_s;
            r->status = s;
            if (s != TTA_RUN_UNKNOWN) b->has_run_stop = 1;
        }
    } else if (str_eq(k, "eval_accuracy")) {
        double q = NAN, q2 = NAN, epoch0 = NAN;
        if (!eval_quality(value, &q, &q2, &epoch0, 0)) return;
        double epoch = NAN;
        if (!isnan(epoch0))
            epoch = epoch0 + epoch_base;
        else if (!isnan(e->epoch_num))
            epoch = e->epoch_num + epoch_base;
        /* The same evaluation printed by several ranks: keep the first. */
        if (r->n_evals) {
            tta_eval *last = &r->evals[r->n_evals - 1];
            if (last->quality == q && (last->epoch == epoch || (isnan(last->epoch) && isnan(epoch)))) return;
        }
        growArray(r->evals, &b->cap_evals, r->n_evals + 1);
        r->evals[r->n_evals++] = (tta_eval){e->time_s, epoch, e->samples, q, q2, e->line};
    } else if (str_eq(k, "eval_target")) {
        double t = NAN, t2 = NAN, unused = NAN;
        if (isnan(r->target) && eval_quality(value, &t, &t2, &unused, 0)) {
            r->target = t;
            r->target2 = t2;
        }
    } else if (str_eq(k, "epoch_start") || str_eq(k, "epoch_stop")) {
        epoch_mark(b, isnan(e->epoch_num) ? NAN : e->epoch_num + epoch_base, e->time_s, str_eq(k, "epoch_start"));
    } else if (str_eq(k, "train_epoch")) { /* v0.5: value = 0-based epoch starting */
        double ep;
        if (json_number(value, &ep)) epoch_mark(b, ep + epoch_base, e->time_s, 1);
    } else if (str_eq(k, "submission_benchmark")) {
        char *s = string_value(b, value);
        const char *c = s ? tta_benchmark_canonical(s, strlen(s)) : NULL;
        if (c) b->benchmark = c;
    } else if (str_eq(k, "submission_division")) {
        if (!r->division) r->division = string_value(b, value);
    } else if (str_eq(k, "submission_org")) {
        if (!r->submitter) r->submitter = string_value(b, value);
    } else if (str_eq(k, "submission_platform")) {
        if (!r->platform) r->platform = string_value(b, value);
    } else if (str_eq(k, "global_batch_size")) {
        double v;
        if (json_number(value, &v)) r->global_batch_size = v;
    } else if (str_eq(k, "input_batch_size") || str_eq(k, "train_batch_size")) {
        /* Older rounds log only these; a later global_batch_size wins. */
        double v;
        if (isnan(r->global_batch_size) && json_number(value, &v)) r->global_batch_size = v;
    } else if (str_eq(k, "train_samples") || str_eq(k, "preproc_num_train_examples")) {
        double v;
        if (json_number(value, &v)) r->train_samples = v;
    } else if (str_eq(k, "eval_samples") || str_eq(k, "preproc_num_eval_examples")) {
        double v;
        if (json_number(value, &v)) r->eval_samples = v;
    }
    if (str_eq(k, "seed") || str_eq(k, "run_set_random_seed")) {
        double v;
        if (!r->has_seed && json_number(value, &v)) {
            r->has_seed = 1;
            r->seed = (int64_t)v;
        }
    }
    if (is_hparam_key(k)) add_hparam(b, k, e->value);
}

static void add_event(log_builder *b, const tta_event *e) {
    tta_parsed_file *f = b->f;
    growArray(f->events, &b->cap_events, f->n_events + 1);
    f->events[f->n_events++] = *e;
}

/* A JSON text made valid from Python's repr of a dict (single quotes), or NULL. */
static json_span repair_single_quotes(log_builder *b, const char *p, const char *end) {
    char *copy = tta_arena_strndup(&b->f->arena, p, (size_t)(end - p));
    for (char *c = copy; *c; c++)
        if (*c == '\'') *c = '"';
    const char *ve = json_skip_value(copy, copy + (end - p));
    if (!ve) return (json_span){0};
    return (json_span){copy, (size_t)(ve - copy)};
}

/* Validates the JSON value at [p, end); returns its span or an empty span. */
static json_span json_at(log_builder *b, const char *p, const char *end, int allow_repair) {
    p = json_skip_ws(p, end);
    const char *ve = json_skip_value(p, end);
    if (ve) return (json_span){p, (size_t)(ve - p)};
    return allow_repair ? repair_single_quotes(b, p, end) : (json_span){0};
}

/* A value given as free text (v0.5, the text form) as JSON: itself when it is JSON, a JSON
 * number for "74.4%", else a JSON string. */
static json_span text_value_as_json(log_builder *b, const char *p, const char *end) {
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    while (end > p && (end[-1] == ' ' || end[-1] == '\t')) end--;
    if (p == end) return (json_span){"null", 4};
    const char *ve = json_skip_value(p, end);
    if (ve && json_skip_ws(ve, end) == end) return (json_span){p, (size_t)(ve - p)};
    /* Percent signs after numbers ({"value": 74.41800%, "epoch": 75}): drop them. */
    buf t = {0};
    for (const char *c = p; c < end; c++) {
        if (*c == '%' && c > p && c[-1] >= '0' && c[-1] <= '9') continue;
        buf_putc(&t, *c);
    }
    const char *tp = buf_str(&t), *tend = tp + t.len;
    ve = json_skip_value(tp, tend);
    json_span out;
    if (ve && json_skip_ws(ve, tend) == tend) {
        char *c = tta_arena_strndup(&b->f->arena, tp, t.len);
        out = (json_span){c, (size_t)(ve - tp)};
    } else {
        buf s = {0};
        buf_json_string(&s, p, (size_t)(end - p));
        char *c = tta_arena_strndup(&b->f->arena, buf_str(&s), s.len);
        out = (json_span){c, s.len};
        buf_free(&s);
    }
    buf_free(&t);
    return out;
}

static double meta_number(json_span meta, const char *key) {
    double v;
    json_span s = meta.n ? json_object_get(meta, key) : (json_span){0};
    return s.n && json_number(s, &v) ? v : NAN;
}

/* ---- per-format record readers: [p, end) is the record after its marker ---- */

/* ":::MLLOG {json}" */
static void read_mllog(log_builder *b, const char *p, const char *end, unsigned line) {
    json_span obj = json_at(b, p, end, 0);
    if (!obj.n || obj.p[0] != '{') {
        note_bad(b, line, "broken :::MLLOG JSON");
        return;
    }
    json_span key = json_object_get(obj, "key"), ks;
    if (!json_string_raw(key, &ks)) {
        note_bad(b, line, ":::MLLOG record without a key");
        return;
    }
    tta_event e = {.key = span_str(ks), .line = line, .epoch_num = NAN, .samples = NAN, .time_s = NAN};
    double t;
    if (json_number(json_object_get(obj, "time_ms"), &t))
        e.time_s = t / 1000.0;
    else if (json_number(json_object_get(obj, "time_s"), &t)) /* Alibaba v0.7 */
        e.time_s = t;
    json_span value = json_object_get(obj, "value");
    json_span meta = json_object_get(obj, "metadata");
    e.value = value.n ? span_str(value) : (tta_str){"null", 4};
    if (meta.n && meta.p[0] == '{') e.metadata = span_str(meta);
    else meta = (json_span){0};
    json_span et = json_object_get(obj, "event_type"), ets;
    if (json_string_raw(et, &ets)) {
        if (json_raw_equals(ets, "INTERVAL_START")) e.type = TTA_EV_START;
        else if (json_raw_equals(ets, "INTERVAL_END")) e.type = TTA_EV_END;
    }
    e.epoch_num = meta_number(meta, "epoch_num");
    e.samples = meta_number(meta, "samples_count");
    if (isnan(e.samples)) e.samples = meta_number(meta, "samples");
    add_event(b, &e);
    if (b->f->format == TTA_FMT_POWER) {
        tta_power_record *pw = &b->f->power;
        double v;
        if (str_eq(e.key, "power_reading") || str_prefix(e.key, "power") || str_eq(e.key, "conversion_eff")) {
            growArray(pw->samples, &b->cap_power, pw->n_samples + 1);
            pw->samples[pw->n_samples++] = (tta_power_sample){
                .node = (char *)b->pm->stem, .time_s = e.time_s, .key = e.key,
                .value = json_number(value, &v) ? v : NAN};
        }
        return;
    }
    interpret(b, &e, value, meta, 0);
}

/* ":::MLL <unix time> <key>: <json>" */
static void read_mll(log_builder *b, const char *p, const char *end, unsigned line) {
    char *te;
    double t = strtod(p, &te);
    if (te == p || te > end) {
        note_bad(b, line, "no time after :::MLL");
        return;
    }
    p = te;
    while (p < end && *p == ' ') p++;
    const char *ks = p;
    while (p < end && *p != ':' && *p != ' ') p++;
    if (p == ks) {
        note_bad(b, line, "no key after :::MLL time");
        return;
    }
    tta_event e = {.key = {ks, (uint32_t)(p - ks)}, .line = line, .time_s = t, .epoch_num = NAN, .samples = NAN};
    json_span value = {0}, meta = {0};
    if (p < end && *p == ':') {
        json_span obj = json_at(b, p + 1, end, 1);
        if (!obj.n) {
            note_bad(b, line, "broken :::MLL JSON");
            return;
        }
        if (obj.p[0] == '{') {
            value = json_object_get(obj, "value");
            meta = json_object_get(obj, "metadata");
            if (meta.n && meta.p[0] != '{') meta = (json_span){0};
        } else {
            value = obj;
        }
    }
    e.value = value.n ? span_str(value) : (tta_str){"null", 4};
    if (meta.n) e.metadata = span_str(meta);
    e.epoch_num = meta_number(meta, "epoch_num");
    e.samples = meta_number(meta, "samples_count");
    if (str_eq(e.key, "eval_start") || str_eq(e.key, "eval_stop") || str_eq(e.key, "epoch_start") ||
        str_eq(e.key, "epoch_stop"))
        e.type = str_prefix((tta_str){e.key.p + e.key.n - 5, 5}, "start") ? TTA_EV_START : TTA_EV_END;
    add_event(b, &e);
    interpret(b, &e, value, meta, 0);
}

/* ":::MLPv0.5.0 <benchmark> <unix time> (<file:line>) <key>[: <value>]" */
static void read_v05(log_builder *b, const char *p, const char *end, unsigned line) {
    const char *bs = p;
    while (p < end && *p != ' ') p++;
    const char *bench = tta_benchmark_canonical(bs, (size_t)(p - bs));
    if (bench && !b->benchmark) b->benchmark = bench;
    while (p < end && *p == ' ') p++;
    char *te;
    double t = strtod(p, &te);
    if (te == p || te > end) {
        note_bad(b, line, "no time in :::MLPv0.5.0 record");
        return;
    }
    p = te;
    while (p < end && *p == ' ') p++;
    if (p < end && *p == '(') {
        const char *close = memchr(p, ')', (size_t)(end - p));
        if (!close) {
            note_bad(b, line, "unclosed (file:line) in :::MLPv0.5.0 record");
            return;
        }
        p = close + 1;
    }
    while (p < end && *p == ' ') p++;
    const char *ks = p;
    while (p < end && *p != ':' && *p != ' ') p++;
    if (p == ks) {
        note_bad(b, line, "no key in :::MLPv0.5.0 record");
        return;
    }
    tta_event e = {.key = {ks, (uint32_t)(p - ks)}, .line = line, .time_s = t, .epoch_num = NAN, .samples = NAN};
    json_span value = {"null", 4};
    if (p < end && *p == ':') value = text_value_as_json(b, p + 1, end);
    e.value = span_str(value);
    if (value.n && value.p[0] == '{') {
        double ep;
        json_span es = json_object_get(value, "epoch");
        if (es.n && json_number(es, &ep)) e.epoch_num = ep;
    }
    add_event(b, &e);
    interpret(b, &e, value, (json_span){0}, 1);
}

/* "MLPerf: <benchmark> [MM/DD/YY HH:MM:SS], <key>[: <value>]" (Alibaba v0.6) */
static void read_text(log_builder *b, const char *p, const char *end, unsigned line) {
    const char *bs = p;
    while (p < end && *p != ' ') p++;
    const char *bench = tta_benchmark_canonical(bs, (size_t)(p - bs));
    if (bench && !b->benchmark) b->benchmark = bench;
    if (end - p < 21 || p[1] != '[') {
        note_bad(b, line, "no [date time] in MLPerf: record");
        return;
    }
    struct tm tm = {0};
    char stamp[18];
    memcpy(stamp, p + 2, 17);
    stamp[17] = '\0';
    if (sscanf(stamp, "%2d/%2d/%2d %2d:%2d:%2d", &tm.tm_mon, &tm.tm_mday, &tm.tm_year, &tm.tm_hour, &tm.tm_min,
               &tm.tm_sec) != 6) {
        note_bad(b, line, "bad [MM/DD/YY HH:MM:SS] in MLPerf: record");
        return;
    }
    tm.tm_mon -= 1;
    tm.tm_year += 100;
    double t = (double)timegm(&tm);
    p += 20;
    if (p < end && *p == ',') p++;
    while (p < end && *p == ' ') p++;
    const char *ks = p;
    while (p < end && *p != ':' && *p != ' ') p++;
    if (p == ks) {
        note_bad(b, line, "no key in MLPerf: record");
        return;
    }
    tta_event e = {.key = {ks, (uint32_t)(p - ks)}, .line = line, .time_s = t, .epoch_num = NAN, .samples = NAN};
    json_span value = {"null", 4};
    if (p < end && *p == ':') value = text_value_as_json(b, p + 1, end);
    e.value = span_str(value);
    add_event(b, &e);
    interpret(b, &e, value, (json_span){0}, 1);
}

/* ---- the scan ---- */

int tta_parse_mlperf_log(tta_parsed_file *f, const char *data, size_t len, const tta_path_meta *pm) {
    log_builder b = {.f = f, .pm = pm, .data = data};
    tta_run_record *r = &f->run;
    r->run_start_s = r->run_stop_s = NAN;
    r->target = r->target2 = r->global_batch_size = r->train_samples = r->eval_samples = r->tta_s = NAN;
    r->run_index = pm->run_index;
    const char *end = data + len, *p = data;
    const char *counted = data; /* newlines are counted up to here */
    unsigned line = 1;
    int text_form = f->format == TTA_FMT_MLPERF_TEXT;
    const char *needle = text_form ? "MLPerf: " : ":::ML";
    size_t needle_len = text_form ? 8 : 5;
    while (p < end) {
        const char *m = memmem(p, (size_t)(end - p), needle, needle_len);
        if (!m) break;
        const char *eol = memchr(m, '\n', (size_t)(end - m));
        if (!eol) eol = end;
        const char *rec_end = eol;
        if (rec_end > m && rec_end[-1] == '\r') rec_end--;
        line += count_newlines(counted, m);
        counted = m;
        if (text_form) {
            read_text(&b, m + 8, rec_end, line);
        } else if (rec_end - m >= 9 && memcmp(m, ":::MLLOG ", 9) == 0) {
            if (f->format == TTA_FMT_MLLOG || f->format == TTA_FMT_POWER) read_mllog(&b, m + 9, rec_end, line);
        } else if (rec_end - m >= 7 && memcmp(m, ":::MLL ", 7) == 0) {
            if (f->format == TTA_FMT_MLPERF_V06) read_mll(&b, m + 7, rec_end, line);
        } else if (rec_end - m >= 13 && memcmp(m, ":::MLPv0.5.0 ", 13) == 0) {
            if (f->format == TTA_FMT_MLPERF_V05) read_v05(&b, m + 13, rec_end, line);
        }
        p = eol;
    }

    /* Identity: the path's layout, else the log's own keys. */
    if (pm->submitter) r->submitter = (char *)pm->submitter;
    if (pm->system) r->system = (char *)pm->system;
    else if (!r->system && r->platform) r->system = r->platform;
    const char *bench = b.benchmark ? b.benchmark : pm->benchmark;
    r->benchmark = (char *)bench;
    r->round = (char *)pm->round;
    if (!r->round) {
        if (f->format == TTA_FMT_MLPERF_V05) r->round = "v0.5";
        else if (f->format == TTA_FMT_MLPERF_V06 || f->format == TTA_FMT_MLPERF_TEXT) r->round = "v0.6";
    }
    if (r->division) {
        for (char *c = r->division; *c; c++)
            if (*c >= 'A' && *c <= 'Z') *c = (char)(*c - 'A' + 'a');
    }
    for (size_t i = 0; i < r->n_evals; i++) {
        r->evals[i].quality = tta_quality_normalize(bench, r->evals[i].quality);
        if (!isnan(r->evals[i].quality2)) r->evals[i].quality2 = tta_quality_normalize(bench, r->evals[i].quality2);
    }
    if (!isnan(r->target)) r->target = tta_quality_normalize(bench, r->target);
    if (!isnan(r->target2)) r->target2 = tta_quality_normalize(bench, r->target2);

    if (f->format == TTA_FMT_POWER) {
        tta_power_record *pw = &f->power;
        pw->round = r->round;
        pw->submitter = r->submitter;
        pw->system = r->system;
        pw->benchmark = (char *)bench;
        pw->run_index = pm->run_index;
        if (f->n_events == 0) tta_parse_fail(f, b.first_bad_line ? b.first_bad_line : 1, "%s",
                                             b.first_bad_reason ? b.first_bad_reason : "no :::MLLOG record");
        return 0;
    }
    if (f->n_events == 0) {
        tta_parse_fail(f, b.first_bad_line ? b.first_bad_line : 1, "%s",
                       b.first_bad_reason ? b.first_bad_reason : "no readable log record");
    } else if (!b.has_run_start) {
        tta_parse_fail(f, b.first_bad_line ? b.first_bad_line : line, "no run_start record%s%s",
                       b.first_bad_reason ? " (first unreadable record: " : "",
                       b.first_bad_reason ? b.first_bad_reason : "");
        if (b.first_bad_reason) {
            /* close the parenthesis of the message */
            size_t n = strlen(f->error);
            char *e = tta_arena_alloc(&f->arena, n + 2);
            memcpy(e, f->error, n);
            e[n] = ')';
            e[n + 1] = '\0';
            f->error = e;
        }
    }
    return 0;
}
