/* parse_run.c: what the records of an MLPerf log mean for its run.
 *
 * The format readers (parse_mlperf.c) hand every record to tta_rb_record as they find it. Each
 * becomes an event; the keys that carry the run's story (run_start, run_stop, eval_accuracy,
 * epoch and block marks, batch size, seed, submission_*) update the run record as they stream
 * by, with the rules of docs/ingest.md ("Run semantics"). Lookups that repeat for every record
 * (hyperparameter keys, epoch marks, repeated evaluations) go through hash tables so a file is
 * read in one pass whatever its length. tta_rb_finish resolves what can only be known at the
 * end: identity, quality scales (the benchmark may be named after the first evaluation), epoch
 * marks, and whether the file counts as failed.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "common/hash.h"
#include "common/replay_log.h"
#include "ingest/benchmarks.h"
#include "ingest/parse_common.h"

/* ---- index map ---- */

#define IMAP_EMPTY UINT32_MAX

static uint64_t mix64(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* The index stored for key, or -1. */
static long imap_get(const tta_index_map *m, uint64_t key) {
    if (!m->cap) return -1;
    size_t mask = m->cap - 1;
    for (size_t i = mix64(key) & mask;; i = (i + 1) & mask) {
        if (m->vals[i] == IMAP_EMPTY) return -1;
        if (m->keys[i] == key) return (long)m->vals[i];
    }
}

static void imap_put(tta_index_map *m, uint64_t key, uint32_t val) {
    assert(val != IMAP_EMPTY);
    if (2 * (m->n + 1) > m->cap) {
        tta_index_map g = {.cap = m->cap ? m->cap * 2 : 64};
        g.keys = mallocCheck(g.cap * sizeof *g.keys);
        g.vals = mallocCheck(g.cap * sizeof *g.vals);
        for (size_t i = 0; i < g.cap; i++) g.vals[i] = IMAP_EMPTY;
        for (size_t i = 0; i < m->cap; i++)
            if (m->vals[i] != IMAP_EMPTY) imap_put(&g, m->keys[i], m->vals[i]);
        free(m->keys);
        free(m->vals);
        *m = g;
    }
    size_t mask = m->cap - 1;
    for (size_t i = mix64(key) & mask;; i = (i + 1) & mask) {
        if (m->vals[i] == IMAP_EMPTY) {
            m->keys[i] = key;
            m->vals[i] = val;
            m->n++;
            return;
        }
        if (m->keys[i] == key) {
            m->vals[i] = val;
            return;
        }
    }
}

static void imap_free(tta_index_map *m) {
    free(m->keys);
    free(m->vals);
    *m = (tta_index_map){0};
}

static uint64_t double_bits(double d) {
    uint64_t u;
    if (d == 0) d = 0; /* -0.0 and 0.0 are the same epoch */
    memcpy(&u, &d, sizeof u);
    return u;
}

/* ---- small helpers ---- */

static int key_is(tta_str k, const char *lit, size_t n) { return k.n == n && memcmp(k.p, lit, n) == 0; }
#define KEY_IS(k, lit) key_is((k), (lit), sizeof(lit) - 1)

static int key_has_prefix(tta_str k, const char *lit, size_t n) { return k.n >= n && memcmp(k.p, lit, n) == 0; }

static tta_str span_str(tta_json_span s) { return (tta_str){s.p, (uint32_t)s.n}; }

/* A number from a span; NAN when it holds none. */
static double span_number(tta_json_span s) {
    double v;
    return tta_json_span_number(s, &v, NULL) ? v : NAN;
}

/* A count as MLCommons' RCP checker reads it: a number (or a string holding one), or a list of
 * exactly one such number ("value": [3872218]), which the checker's NumPy arithmetic takes as
 * that number; NAN otherwise. */
static double span_count(tta_json_span s) {
    if (s.type != TTA_JSON_ARRAY) return span_number(s);
    tta_json_iter it;
    tta_json_span e, more;
    tta_json_iter_init(&it, s);
    if (!tta_json_array_next(&it, &e) || tta_json_array_next(&it, &more) || e.type == TTA_JSON_ARRAY) return NAN;
    return span_number(e);
}

/* Hyperparameters: the optimizer and schedule settings, batch sizes and the like. */
typedef struct {
    const char *text;
    size_t n;
} word;
#define WORD(s) {s, sizeof(s) - 1}

#define STARTS(k, lit) key_has_prefix((k), (lit), sizeof(lit) - 1)

/* 1 when k contains one of the words that mark a hyperparameter (learning_rate, warmup,
 * batch_size, weight_decay, momentum, gradient_accumulation, dropout, smoothing). One pass
 * with a switch on each byte: this runs for every record of a log. */
static int contains_hparam_word(tta_str k) {
    for (uint32_t i = 0; i < k.n; i++) {
        tta_str rest = {k.p + i, k.n - i};
        switch (k.p[i]) {
        case 'b': if (STARTS(rest, "batch_size")) return 1; break;
        case 'd': if (STARTS(rest, "dropout")) return 1; break;
        case 'g': if (STARTS(rest, "gradient_accumulation")) return 1; break;
        case 'l': if (STARTS(rest, "learning_rate")) return 1; break;
        case 'm': if (STARTS(rest, "momentum")) return 1; break;
        case 's': if (STARTS(rest, "smoothing")) return 1; break;
        case 'w': if (STARTS(rest, "warmup") || STARTS(rest, "weight_decay")) return 1; break;
        default: break;
        }
    }
    return 0;
}

static int is_hparam_key(tta_str k) {
    static const word prefixes[] = {WORD("opt_"), WORD("lars_"), WORD("sgd_"), WORD("lamb_"), WORD("adam_"), WORD("lr_")};
    static const word exact[] = {WORD("model_bn_span"), WORD("max_sequence_length"), WORD("max_predictions_per_seq"),
                                 WORD("num_image_candidates"), WORD("max_samples"), WORD("epsilon")};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (key_has_prefix(k, prefixes[i].text, prefixes[i].n)) return 1;
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
        if (key_is(k, exact[i].text, exact[i].n)) return 1;
    return contains_hparam_word(k);
}

/* is_hparam_key through the builder's memo: a slot chosen by the key's length and three of its
 * bytes, checked by comparing the whole key. */
static int is_hparam_key_memo(tta_run_builder *b, tta_str k) {
    if (k.n == 0) return is_hparam_key(k);
    unsigned slot = (k.n * 131u ^ (unsigned char)k.p[0] * 7u ^ (unsigned char)k.p[k.n - 1] * 31u ^
                     (unsigned char)k.p[k.n / 2]) & 63u;
    if (b->hparam_memo[slot].n == k.n && memcmp(b->hparam_memo[slot].p, k.p, k.n) == 0)
        return b->hparam_memo[slot].is_hparam;
    int yes = is_hparam_key(k);
    b->hparam_memo[slot].p = k.p;
    b->hparam_memo[slot].n = k.n;
    b->hparam_memo[slot].is_hparam = yes;
    return yes;
}

void tta_meta_init(tta_meta_fields *m) { *m = (tta_meta_fields){NAN, NAN, NAN, NAN, NAN, NAN, {0}, {0}, {0}}; }

void tta_meta_member(tta_meta_fields *m, tta_json_span k, tta_json_span v) {
    if (!k.plain) return;
    tta_str key = {k.p + 1, (uint32_t)(k.n - 2)};
    switch (key.n) {
    case 4:
        if (KEY_IS(key, "file") && v.type == TTA_JSON_STRING && !m->file.type) m->file = v;
        break;
    case 6:
        if (KEY_IS(key, "status")) m->status = v;
        else if (KEY_IS(key, "metric")) m->metric = v;
        break;
    case 7:
        if (KEY_IS(key, "samples") && isnan(m->samples)) m->samples = span_number(v);
        break;
    case 9:
        if (KEY_IS(key, "epoch_num")) m->epoch_num = span_number(v);
        else if (KEY_IS(key, "timestamp")) m->timestamp = span_number(v);
        break;
    case 8:
        if (KEY_IS(key, "step_num")) m->step_num = span_number(v);
        break;
    case 13:
        if (KEY_IS(key, "samples_count")) m->samples = m->samples_count = span_count(v);
        break;
    case 15:
        if (KEY_IS(key, "first_epoch_num")) m->first_epoch = span_number(v);
        break;
    default:
        break;
    }
}

/* The metadata members the run semantics read, in one pass over a validated object. */
static void read_meta(tta_json_span meta, tta_meta_fields *m) {
    tta_meta_init(m);
    if (meta.type != TTA_JSON_OBJECT) return;
    tta_json_iter it;
    tta_json_span k, v;
    tta_json_iter_init(&it, meta);
    while (tta_json_object_next(&it, &k, &v)) tta_meta_member(m, k, v);
}

/* Quality (and a second metric) from an evaluation's value: a number, a string holding one
 * ("25.59", "74.4%"), [bbox, segm], {"BBOX": x, "SEGM": y}, {"accuracy": {...}} or v0.5's
 * {"epoch": e, "value": v}. A percent sign divides by 100 at once. Returns 1 when found. */
static int quality_of(tta_json_span v, double *q, double *q2, int depth) {
    int pct = 0;
    if (depth > 4) return 0;
    switch (v.type) {
    case TTA_JSON_NUMBER:
    case TTA_JSON_STRING:
        if (!tta_json_span_number(v, q, &pct)) return 0;
        if (pct) *q /= 100.0;
        return 1;
    case TTA_JSON_ARRAY: {
        tta_json_iter it;
        tta_json_span e;
        tta_json_iter_init(&it, v);
        if (!tta_json_array_next(&it, &e) || !quality_of(e, q, q2, depth + 1)) return 0;
        double dummy;
        if (tta_json_array_next(&it, &e)) quality_of(e, q2, &dummy, depth + 1);
        return 1;
    }
    case TTA_JSON_OBJECT: {
        tta_json_span x;
        if (tta_json_find(v, "BBOX", &x) || tta_json_find(v, "bbox", &x)) {
            double dummy;
            if (!quality_of(x, q, &dummy, depth + 1)) return 0;
            if (tta_json_find(v, "SEGM", &x) || tta_json_find(v, "segm", &x)) quality_of(x, q2, &dummy, depth + 1);
            return 1;
        }
        if (tta_json_find(v, "accuracy", &x)) return quality_of(x, q, q2, depth + 1);
        if (tta_json_find(v, "value", &x)) return quality_of(x, q, q2, depth + 1);
        return 0;
    }
    default:
        return 0;
    }
}

/* A status word: success / aborted (abort, failed, false...) / unknown. */
static tta_run_status status_word(tta_parsed_file *f, tta_json_span s) {
    if (s.type == TTA_JSON_TRUE) return TTA_RUN_SUCCESS;
    if (s.type == TTA_JSON_FALSE) return TTA_RUN_ABORTED;
    char *w = tta_parsed_lower(f, tta_parsed_string(f, s));
    if (!w) return TTA_RUN_UNKNOWN;
    if (!strcmp(w, "success") || !strcmp(w, "true") || !strcmp(w, "succeeded")) return TTA_RUN_SUCCESS;
    if (!strncmp(w, "abort", 5) || !strncmp(w, "fail", 4) || !strcmp(w, "false") || !strcmp(w, "error"))
        return TTA_RUN_ABORTED;
    return TTA_RUN_UNKNOWN;
}

/* The status a run_stop carries: metadata status (v0.6 on), or the value's {"success": ...}
 * or {"status": ...} (v0.5), or the value itself when it is a status word. */
static tta_run_status run_stop_status(tta_parsed_file *f, const tta_log_record *r, const tta_meta_fields *m) {
    if (m->status.type) return status_word(f, m->status);
    tta_json_span x;
    if (r->value.type == TTA_JSON_OBJECT) {
        if (tta_json_find(r->value, "success", &x)) return status_word(f, x);
        if (tta_json_find(r->value, "status", &x)) return status_word(f, x);
        return TTA_RUN_UNKNOWN;
    }
    if (r->value.type == TTA_JSON_STRING) return status_word(f, r->value);
    return TTA_RUN_UNKNOWN;
}

/* ---- marks ---- */

/* The mark of epoch in arr (n marks, capacity cap), added when it is not there yet. */
static tta_epoch_mark *mark_for(tta_index_map *index, tta_epoch_mark **arr, size_t *n, size_t *cap, double epoch) {
    uint64_t key = double_bits(epoch);
    long i = imap_get(index, key);
    if (i >= 0) return &(*arr)[i];
    growArray(*arr, cap, *n + 1);
    (*arr)[*n] = (tta_epoch_mark){epoch, NAN, NAN};
    imap_put(index, key, (uint32_t)*n);
    return &(*arr)[(*n)++];
}

/* A start or stop of an epoch (or block); the first of each is kept (ranks repeat them). */
static void mark(tta_run_builder *b, int block, double epoch, double t, int is_start) {
    if (isnan(epoch)) return;
    tta_run_record *r = &b->f->run;
    tta_epoch_mark *m = block ? mark_for(&b->block_index, &b->blocks, &b->n_blocks, &b->cap_blocks, epoch)
                              : mark_for(&b->epoch_index, &r->epochs, &r->n_epochs, &b->cap_epochs, epoch);
    if (is_start && isnan(m->start_s)) m->start_s = t;
    if (!is_start && isnan(m->stop_s)) m->stop_s = t;
}

/* ---- records ---- */

void tta_rb_init(tta_run_builder *b, tta_parsed_file *f, const tta_path_meta *pm) {
    memset(b, 0, sizeof *b);
    b->f = f;
    b->pm = pm;
    b->zero_based_epochs = f->format == TTA_FMT_MLPERF_V05 || f->format == TTA_FMT_MLPERF_TEXT;
    b->bleu_is_fraction = f->format == TTA_FMT_MLLOG;
    b->eval_result_s = NAN;
    b->pending_eval = -1;
    tta_run_record *r = &f->run;
    r->run_index = pm->run_index;
    r->run_start_s = r->run_stop_s = NAN;
    r->init_start_s = r->init_stop_s = NAN;
    r->target = r->target2 = NAN;
    r->global_batch_size = r->train_samples = r->eval_samples = NAN;
    r->status = TTA_RUN_UNKNOWN;
    r->cp_status = TTA_RUN_UNKNOWN;
    r->cp_epoch_num = r->cp_samples_count = r->cp_train_samples = NAN;
    r->cp_first_passing_step = r->cp_first_passing_samples = NAN;
    r->world_size = r->unseen_accuracy = r->shifted_accuracy = r->layer_steps = NAN;
    r->to_schedule_end = -1;
    r->log_nodes = r->log_accelerators_per_node = -1;
    b->cp_now.epoch_num = b->cp_now.samples_count = b->cp_now.train_samples = NAN;
    b->cp_stop = b->cp_now;
}

void tta_rb_bad(tta_run_builder *b, uint32_t line, const char *reason) {
    b->f->run.unreadable_records++;
    if (b->first_bad_line) return;
    b->first_bad_line = line;
    b->f->run.first_unreadable_line = line;
    snprintf(b->first_bad_reason, sizeof b->first_bad_reason, "%s", reason);
}

/* The round the names in this file belong to (for round-dependent benchmark names). */
static const char *effective_round(const tta_run_builder *b) {
    if (b->pm->round) return b->pm->round;
    if (b->f->format == TTA_FMT_MLPERF_V05) return "v0.5";
    if (b->f->format == TTA_FMT_MLPERF_V06 || b->f->format == TTA_FMT_MLPERF_TEXT) return "v0.6";
    return NULL;
}

void tta_rb_benchmark_hint(tta_run_builder *b, const char *name, size_t n) {
    if (b->log_benchmark) return;
    b->log_benchmark = tta_benchmark_canonical(name, n, effective_round(b));
}

static void add_hparam(tta_run_builder *b, const tta_log_record *rec, tta_str value) {
    tta_run_record *r = &b->f->run;
    uint64_t h = tta_hash64(rec->key.p, rec->key.n, 0x68706172616d);
    if (imap_get(&b->hparam_keys, h) >= 0) return;
    imap_put(&b->hparam_keys, h, (uint32_t)r->n_hparams);
    growArray(r->hparams, &b->cap_hparams, r->n_hparams + 1);
    r->hparams[r->n_hparams++] = (tta_kv){rec->key, value};
}

/* A stable_diffusion metric (FID or CLIP, value q) of the step the metadata names: joins that
 * step's evaluation, which the first of its two metrics creates. */
static void add_sd_metric(tta_run_builder *b, const tta_log_record *rec, const tta_meta_fields *m, double q) {
    tta_run_record *r = &b->f->run;
    int clip = TTA_JSON_IS(m->metric, "CLIP");
    double step = !isnan(m->step_num) ? m->step_num : m->samples_count;
    struct tta_sd_point *p = NULL;
    /* A metric printed again for a step (another rank, or a summary at the end that rounds the
     * value differently) replaces the earlier one, as in the RCP checker's per-step table. */
    for (size_t i = b->n_sd; i-- > 0 && !isnan(step);) {
        if (b->sd[i].step == step) {
            p = &b->sd[i];
            break;
        }
    }
    if (!p) {
        growArray(b->sd, &b->cap_sd, b->n_sd + 1);
        p = &b->sd[b->n_sd++];
        *p = (struct tta_sd_point){step, m->samples_count, NAN, NAN, r->n_evals};
        growArray(r->evals, &b->cap_evals, r->n_evals + 1);
        r->evals[r->n_evals++] = (tta_eval){rec->time_s, NAN, m->samples, NAN, NAN, rec->line};
    }
    tta_eval *e = &r->evals[p->eval];
    if (clip) p->clip = e->quality2 = q;
    else p->fid = e->quality = q;
    b->cp_now.n_sd = b->n_sd;
}

static void add_eval(tta_run_builder *b, const tta_log_record *rec, const tta_meta_fields *m, double epoch_logged) {
    tta_run_record *r = &b->f->run;
    double q = NAN, q2 = NAN;
    /* The RCP checker reads these from every evaluation record, whatever its value. */
    b->cp_now.epoch_num = m->epoch_num;
    b->cp_now.samples_count = m->samples_count;
    if (!quality_of(rec->value, &q, &q2, 0)) return;
    double epoch = NAN;
    if (!isnan(epoch_logged)) epoch = b->zero_based_epochs ? epoch_logged + 1 : epoch_logged;
    /* Stable Diffusion logs FID and CLIP as two eval_accuracy records, asynchronously (a step's
     * CLIP may come after the next step's FID, or before its own FID): both join one evaluation
     * per step, FID as its quality and CLIP as its second metric. */
    if (m->metric.type == TTA_JSON_STRING && (TTA_JSON_IS(m->metric, "FID") || TTA_JSON_IS(m->metric, "CLIP"))) {
        add_sd_metric(b, rec, m, q);
        return;
    }
    /* The same evaluation printed again (by another rank, or a log repeated in the file). */
    uint64_t key = tta_hash64(&q, sizeof q, double_bits(epoch) ^ mix64(double_bits(rec->time_s)));
    if (imap_get(&b->eval_seen, key) >= 0) return;
    imap_put(&b->eval_seen, key, (uint32_t)r->n_evals);
    growArray(r->evals, &b->cap_evals, r->n_evals + 1);
    r->evals[r->n_evals] = (tta_eval){rec->time_s, epoch, m->samples, q, q2, rec->line};
    b->pending_eval = isnan(m->samples) ? (long)r->n_evals : -1;
    r->n_evals++;
}

/* A number the value holds as a JSON number; NAN otherwise (a string or an object is not read as
 * one: the breakdown's fields are numbers or unknown). */
static double json_number(tta_json_span v) { return v.type == TTA_JSON_NUMBER ? span_number(v) : NAN; }

/* A time breakdown record of a replay log (TTA_KEY_EPOCH_BREAKDOWN): its fields by the names
 * common/replay_log.h gives them, and each rank's communication time. */
static void add_breakdown(tta_run_builder *b, const tta_log_record *rec, double epoch) {
    tta_run_record *r = &b->f->run;
    growArray(r->breakdowns, &b->cap_breakdowns, r->n_breakdowns + 1);
    tta_breakdown_record *x = &r->breakdowns[r->n_breakdowns++];
    *x = (tta_breakdown_record){.epoch = epoch};
    tta_json_span v;
    for (int i = 0; i < TTA_BREAKDOWN_FIELDS; i++)
        x->seconds[i] = rec->value.type == TTA_JSON_OBJECT && tta_json_find(rec->value, tta_breakdown_names[i], &v)
                            ? json_number(v)
                            : NAN;
    if (rec->value.type != TTA_JSON_OBJECT || !tta_json_find(rec->value, TTA_BREAKDOWN_RANK_COMM, &v) ||
        v.type != TTA_JSON_ARRAY)
        return;
    tta_json_iter it;
    tta_json_span e;
    uint32_t n = 0;
    tta_json_iter_init(&it, v);
    while (tta_json_array_next(&it, &e)) n++;
    if (n == 0) return;
    x->rank_comm_s = tta_arena_alloc(&b->f->arena, n * sizeof *x->rank_comm_s);
    tta_json_iter_init(&it, v);
    while (tta_json_array_next(&it, &e)) x->rank_comm_s[x->n_ranks++] = json_number(e);
}

/* A replay log's memory record (TTA_KEY_MEMORY), the last one counting: the bytes of each
 * category of tta_replay_memory by its member's name. A value that is not an object is no record. */
static void read_memory(tta_run_record *r, tta_json_span value) {
    if (value.type != TTA_JSON_OBJECT) return;
    r->has_memory = 1;
    tta_json_span v;
    for (int i = 0; i < TTA_REPLAY_MEMORY_CATEGORIES; i++)
        r->memory[i] = tta_json_find(value, tta_profile_memory_names[tta_replay_memory[i]], &v) ? json_number(v) : NAN;
}

/* A replay log's layer profile (TTA_KEY_LAYER_PROFILE), the last one counting: its steps and each
 * layer's name, type, FLOPs, bytes and seconds per step by the members' names (profile_json.h).
 * A value that is not an object is no record; an element that is not an object, a layer of
 * nothing known. */
static void read_layer_profile(tta_run_builder *b, tta_json_span value) {
    tta_run_record *r = &b->f->run;
    if (value.type != TTA_JSON_OBJECT) return;
    tta_json_span v, e;
    r->has_layer_profile = 1;
    r->layer_steps = tta_json_find(value, TTA_LAYER_PROFILE_STEPS, &v) ? json_number(v) : NAN;
    r->layers = NULL;
    r->n_layers = 0;
    if (!tta_json_find(value, TTA_PROFILE_LAYERS, &v) || v.type != TTA_JSON_ARRAY) return;
    tta_json_iter it;
    size_t n = 0;
    tta_json_iter_init(&it, v);
    while (tta_json_array_next(&it, &e)) n++;
    if (n == 0) return;
    r->layers = tta_arena_alloc(&b->f->arena, n * sizeof *r->layers);
    static const int numbers[3] = {TTA_LAYER_FLOPS, TTA_LAYER_BYTES, TTA_LAYER_TIME_S};
    tta_json_iter_init(&it, v);
    while (tta_json_array_next(&it, &e)) {
        tta_replay_layer *L = &r->layers[r->n_layers++];
        double x[3];
        tta_json_span m;
        for (int k = 0; k < 3; k++)
            x[k] = e.type == TTA_JSON_OBJECT && tta_json_find(e, tta_profile_layer_names[numbers[k]], &m)
                       ? json_number(m)
                       : NAN;
        *L = (tta_replay_layer){.flops = x[0], .bytes = x[1], .time_s = x[2]};
        if (e.type != TTA_JSON_OBJECT) continue;
        if (tta_json_find(e, TTA_LAYER_NAME, &m)) L->name = tta_parsed_string(b->f, m);
        if (tta_json_find(e, TTA_LAYER_TYPE, &m)) L->type = tta_parsed_string(b->f, m);
    }
}

/* tta's own records of a replay log (keys starting "tta_", common/replay_log.h) that the database
 * keeps typed: the per-epoch time breakdown, the run's memory and layer profile (the last of
 * each), and the run's world size (the last), the claim it replays (the first string), how it
 * ran and its final accuracies (the first numbers). */
static void read_replay_record(tta_run_builder *b, const tta_log_record *rec, double epoch) {
    tta_run_record *r = &b->f->run;
    tta_str k = rec->key;
    double v = json_number(rec->value);
    if (KEY_IS(k, TTA_KEY_EPOCH_BREAKDOWN)) {
        add_breakdown(b, rec, epoch);
        return;
    }
    if (KEY_IS(k, TTA_KEY_MEMORY)) {
        read_memory(r, rec->value);
        return;
    }
    if (KEY_IS(k, TTA_KEY_LAYER_PROFILE)) {
        read_layer_profile(b, rec->value);
        return;
    }
    if (KEY_IS(k, TTA_KEY_WORLD_SIZE)) {
        r->world_size = span_number(rec->value);
    } else if (KEY_IS(k, TTA_KEY_REPLAY_OF)) {
        if (!r->replay_of) r->replay_of = tta_parsed_string(b->f, rec->value);
    } else if (KEY_IS(k, TTA_KEY_TO_SCHEDULE_END)) {
        if (r->to_schedule_end < 0 && !isnan(v)) r->to_schedule_end = v != 0;
    } else if (KEY_IS(k, TTA_KEY_UNSEEN_ACCURACY)) {
        if (isnan(r->unseen_accuracy)) r->unseen_accuracy = v;
    } else if (KEY_IS(k, TTA_KEY_SHIFTED_ACCURACY)) {
        if (isnan(r->shifted_accuracy)) r->shifted_accuracy = v;
    } else {
        return;
    }
    r->replay_logged = 1;
}

/* :::SYSJSON: the system description printed into the log (later rounds). */
static void read_sysjson(tta_run_builder *b, tta_json_span v) {
    tta_json_span x;
    if (v.type != TTA_JSON_OBJECT) return;
    if (!b->sys_division && (tta_json_find(v, "division", &x) || tta_json_find(v, "divison", &x)))
        b->sys_division = tta_parsed_string(b->f, x);
    if (!b->sys_submitter && tta_json_find(v, "submitter", &x)) b->sys_submitter = tta_parsed_string(b->f, x);
    if (!b->sys_name && tta_json_find(v, "system_name", &x)) b->sys_name = tta_parsed_string(b->f, x);
}

/* A logged count (number_of_nodes: 16, or "16"): the summarizer's int(value); -1 when it is none. */
static int count_value(tta_json_span v) {
    double x = span_number(v);
    return !isnan(x) && x >= 0 && x < 1e9 ? (int)x : -1;
}

void tta_rb_record(tta_run_builder *b, const tta_log_record *rec) {
    tta_parsed_file *f = b->f;
    tta_run_record *r = &f->run;
    tta_meta_fields m;
    if (rec->meta_fields)
        m = *rec->meta_fields; /* read while the format reader validated the metadata */
    else
        read_meta(rec->meta, &m);
    /* v0.5 and the text form carry the epoch inside the value: {"epoch": e, "value": v}. */
    double epoch_logged = m.epoch_num;
    if (b->zero_based_epochs && rec->value.type == TTA_JSON_OBJECT) {
        tta_json_span e;
        if (tta_json_find(rec->value, "epoch", &e)) epoch_logged = span_number(e);
    }
    tta_event ev = {
        .key = rec->key,
        .value = rec->value.type ? span_str(rec->value) : (tta_str){"null", 4},
        .metadata = rec->meta.type == TTA_JSON_OBJECT ? span_str(rec->meta) : (tta_str){0},
        .file = rec->meta.type == TTA_JSON_OBJECT && m.file.type ? span_str(m.file) : (tta_str){0},
        .time_s = rec->time_s,
        .epoch_num = epoch_logged,
        .samples = m.samples,
        .line = rec->line,
        .type = rec->type,
    };
    growArray(f->events, &b->cap_events, f->n_events + 1);
    f->events[f->n_events++] = ev;
    if (!b->first_record_line) b->first_record_line = rec->line;

    tta_str k = rec->key;
    if (k.n > 4 && k.p[0] == 't' && memcmp(k.p, "tta_", 4) == 0) read_replay_record(b, rec, m.epoch_num);
    switch (k.n) {
    case 4:
        if (KEY_IS(k, "seed")) goto seed;
        break;
    case 7:
        if (KEY_IS(k, "sysjson")) read_sysjson(b, rec->value);
        break;
    case 8:
        if (KEY_IS(k, "run_stop")) {
            tta_run_status s = run_stop_status(f, rec, &m);
            /* The checker: the last run_stop decides, with the values seen before it. */
            b->cp_stop = b->cp_now;
            r->cp_status = s;
            if (b->stop_state < 2 && s != TTA_RUN_UNKNOWN) {
                r->run_stop_s = rec->time_s;
                r->status = s;
                b->stop_state = 2;
                b->stop_line = rec->line;
            } else if (b->stop_state == 0) {
                r->run_stop_s = rec->time_s;
                b->stop_state = 1;
                b->stop_line = rec->line;
            }
        }
        break;
    case 9:
        if (KEY_IS(k, "init_stop")) {
            if (!isnan(rec->time_s)) r->init_stop_s = rec->time_s; /* the last one */
        } else if (KEY_IS(k, "run_start") && !b->have_start) {
            r->run_start_s = rec->time_s;
            b->have_start = 1;
        } else if (KEY_IS(k, TTA_KEY_ROUND) && !b->log_round) {
            /* tta's replays name their round (TTA_REPLAY_ROUND): no path says it */
            b->log_round = tta_parsed_string(f, rec->value);
        }
        break;
    case 10:
        if (KEY_IS(k, "init_start")) {
            if (isnan(r->init_start_s)) r->init_start_s = rec->time_s; /* the first one */
        } else if (KEY_IS(k, "epoch_stop")) mark(b, 0, m.epoch_num, rec->time_s, 0);
        else if (KEY_IS(k, "block_stop")) mark(b, 1, m.first_epoch, rec->time_s, 0);
        else if (KEY_IS(k, "eval_error")) /* MLPerf HPC's quality (cosmoflow, oc20: lower is better) */
            add_eval(b, rec, &m, epoch_logged);
        break;
    case 11:
        if (KEY_IS(k, "epoch_start")) mark(b, 0, m.epoch_num, rec->time_s, 1);
        else if (KEY_IS(k, "block_start")) mark(b, 1, m.first_epoch, rec->time_s, 1);
        else if (KEY_IS(k, "eval_target") && isnan(r->target)) {
            double t = NAN, t2 = NAN;
            if (quality_of(rec->value, &t, &t2, 0)) {
                r->target = t;
                r->target2 = t2;
            }
        } else if (KEY_IS(k, "eval_result") && isnan(b->eval_result_s)) {
            b->eval_result_s = m.timestamp;
        } else if (KEY_IS(k, "train_epoch") && b->zero_based_epochs) {
            double e = span_number(rec->value);
            if (!isnan(e)) mark(b, 0, e + 1, rec->time_s, 1);
        }
        break;
    case 12:
        if (KEY_IS(k, "eval_samples") && isnan(r->eval_samples)) r->eval_samples = span_number(rec->value);
        break;
    case 13:
        if (KEY_IS(k, "eval_accuracy")) add_eval(b, rec, &m, epoch_logged);
        else if (KEY_IS(k, "train_samples")) {
            double v = span_count(rec->value);
            b->cp_now.train_samples = v;
            if (isnan(r->train_samples)) r->train_samples = v;
            /* Logged after an evaluation that carried no progress (BERT v0.7 prints it at the
             * end): the samples that evaluation had seen. */
            if (b->pending_eval >= 0 && !isnan(v)) r->evals[b->pending_eval].samples = v;
            b->pending_eval = -1;
        }
        break;
    case 14:
        if (KEY_IS(k, "submission_org") && !b->log_org) b->log_org = tta_parsed_string(f, rec->value);
        break;
    case 17:
        if (KEY_IS(k, "global_batch_size") && isnan(r->global_batch_size))
            r->global_batch_size = span_number(rec->value);
        break;
    case 19:
        if (KEY_IS(k, "submission_division") && !b->log_division) b->log_division = tta_parsed_string(f, rec->value);
        else if (KEY_IS(k, "submission_platform") && !b->log_platform)
            b->log_platform = tta_parsed_string(f, rec->value);
        else if (KEY_IS(k, "run_set_random_seed")) goto seed;
        break;
    case 20:
        if (KEY_IS(k, "submission_benchmark") && !b->log_benchmark) {
            char *s = tta_parsed_string(f, rec->value);
            if (s) b->log_benchmark = tta_benchmark_canonical(s, strlen(s), effective_round(b));
        }
        break;
    case 15: /* MLPerf HPC: a weak-scaling instance's size, as the summarizer reads it */
        if (KEY_IS(k, "number_of_nodes") && r->log_nodes < 0) r->log_nodes = count_value(rec->value);
        break;
    case 21:
        if (KEY_IS(k, "accelerators_per_node") && r->log_accelerators_per_node < 0)
            r->log_accelerators_per_node = count_value(rec->value);
        break;
    default:
        break;
    }
    if (is_hparam_key_memo(b, k)) add_hparam(b, rec, ev.value);
    return;

seed:
    if (!r->has_seed) {
        double v = span_number(rec->value);
        if (!isnan(v) && v == floor(v) && fabs(v) < 9.2e18) {
            r->has_seed = 1;
            r->seed = (int64_t)v;
        }
    }
    if (is_hparam_key_memo(b, k)) add_hparam(b, rec, ev.value);
}

/* ---- the end ---- */

/* A logged quality in the benchmark's stored scale (schemas/001_init.sql targets). */
static double normalize_quality(const tta_run_builder *b, tta_quality_scale scale, double q) {
    if (isnan(q)) return q;
    switch (scale) {
    case TTA_SCALE_FRACTION:
        return q > 1.0 ? q / 100.0 : q; /* a percentage printed without its sign */
    case TTA_SCALE_BLEU:
        return b->bleu_is_fraction ? q * 100.0 : q;
    default:
        return q;
    }
}

/* The convergence point candidates at the last run_stop (the RCP checker's reading), and for
 * stable_diffusion the first step at which both metrics pass the rule's targets. */
static void finish_checker_progress(tta_run_builder *b, const tta_rule *rule) {
    tta_run_record *r = &b->f->run;
    r->cp_epoch_num = b->cp_stop.epoch_num;
    r->cp_samples_count = b->cp_stop.samples_count;
    r->cp_train_samples = b->cp_stop.train_samples;
    if (rule && rule->metric2 && b->n_sd) {
        double best_step = NAN, best_samples = NAN;
        for (size_t i = 0; i < b->cp_stop.n_sd && i < b->n_sd; i++) {
            const struct tta_sd_point *p = &b->sd[i];
            if (isnan(p->fid) || isnan(p->clip)) continue;
            int fid_ok = rule->higher_is_better ? p->fid >= rule->target : p->fid <= rule->target;
            int clip_ok = rule->higher_is_better2 ? p->clip >= rule->target2 : p->clip <= rule->target2;
            if (!fid_ok || !clip_ok) continue;
            if (!isnan(p->step) && (isnan(best_step) || p->step < best_step)) best_step = p->step;
            if (!isnan(p->samples) && (isnan(best_samples) || p->samples < best_samples)) best_samples = p->samples;
        }
        r->cp_first_passing_step = best_step;
        r->cp_first_passing_samples = best_samples;
    }
    free(b->sd);
    b->sd = NULL;
    b->n_sd = b->cap_sd = 0;
}

void tta_rb_finish(tta_run_builder *b, uint32_t last_line, int need_run_start) {
    tta_parsed_file *f = b->f;
    tta_run_record *r = &f->run;
    const tta_path_meta *pm = b->pm;

    /* Identity (docs/ingest.md): the path where the layout is recognised, else the log. */
    const char *round = b->log_round ? b->log_round : effective_round(b);
    r->round = (char *)round;
    if (pm->layout == TTA_LAYOUT_RESULTS) {
        r->submitter = (char *)pm->submitter;
        r->system = (char *)pm->system;
    } else {
        r->submitter = b->log_org ? b->log_org : b->sys_submitter;
        r->system = b->log_platform ? b->log_platform : b->sys_name;
    }
    r->platform = b->log_platform;
    const char *bench = b->log_benchmark ? b->log_benchmark : pm->benchmark;
    r->benchmark = (char *)bench;
    r->scaling = pm->scaling;
    const char *division = b->log_division ? b->log_division : b->sys_division ? b->sys_division : pm->division;
    r->division = tta_parsed_lower(f, division);

    /* Scales: evaluations may precede the line naming the benchmark. */
    const tta_rule *rule = tta_benchmark_rule(bench, round);
    tta_quality_scale scale = rule ? rule->scale : TTA_SCALE_ASIS;
    for (size_t i = 0; i < r->n_evals; i++) {
        r->evals[i].quality = normalize_quality(b, scale, r->evals[i].quality);
        r->evals[i].quality2 = normalize_quality(b, scale, r->evals[i].quality2);
    }
    r->target = normalize_quality(b, scale, r->target);
    r->target2 = normalize_quality(b, scale, r->target2);
    /* Where the rules say epoch_num counts something else than epochs (samples: BERT, unet3d from
     * 3.1.0; tokens: gpt3), an evaluation's epoch_num is that count, kept as its progress in
     * samples, and its epochs follow from the training-set size where the rules give one. */
    if (rule && !rule->progress_in_epochs &&
        (rule->progress == TTA_PROGRESS_EPOCH_NUM || rule->progress == TTA_PROGRESS_TRAIN_SAMPLES)) {
        for (size_t i = 0; i < r->n_evals; i++) {
            if (isnan(r->evals[i].samples)) r->evals[i].samples = r->evals[i].epoch;
            r->evals[i].epoch = rule->train_set_size > 0 ? r->evals[i].samples / rule->train_set_size : NAN;
        }
    }
    finish_checker_progress(b, rule);

    /* Epoch marks; a log with only block marks gives those (epoch = first_epoch_num). */
    if (r->n_epochs == 0 && b->n_blocks > 0) {
        r->epochs = b->blocks;
        r->n_epochs = b->n_blocks;
        b->blocks = NULL;
    }
    free(b->blocks);
    b->blocks = NULL;

    /* v0.6 minigo logs without run_stop: the eval_result record says when the winning model
     * was trained (seconds after run_start), which is what v0.6 scored. */
    if (b->stop_state == 0 && b->have_start && !isnan(b->eval_result_s)) {
        r->run_stop_s = r->run_start_s + b->eval_result_s;
        r->status = TTA_RUN_SUCCESS;
    }

    imap_free(&b->hparam_keys);
    imap_free(&b->epoch_index);
    imap_free(&b->block_index);
    imap_free(&b->eval_seen);

    if (f->n_events == 0) {
        if (b->first_bad_line)
            tta_parse_fail(f, b->first_bad_line, "%s (and no readable record)", b->first_bad_reason);
        else
            tta_parse_fail(f, 1, "no %s record", tta_format_name(f->format));
    } else if (need_run_start && !b->have_start) {
        if (b->first_bad_line)
            tta_parse_fail(f, b->first_bad_line, "no run_start record (first unreadable record: %s)",
                           b->first_bad_reason);
        else
            tta_parse_fail(f, last_line, "no run_start record in %zu records", f->n_events);
    }
}
