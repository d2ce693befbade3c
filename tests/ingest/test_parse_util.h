/* test_parse_util.h: helpers shared by the parser tests (tests/ingest/test_parse_*.c).
 * Tests run with the source root as working directory, so fixtures are "fixtures/...". */
#ifndef TTA_TEST_PARSE_UTIL_H
#define TTA_TEST_PARSE_UTIL_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ingest/jsonscan.h"
#include "ingest/parse.h"
#include "tta_test.h"

/* Parses a file (CHECKing that the call itself succeeds); the caller frees with tta_parsed_free. */
static inline tta_parsed_file parse_path(const char *path) {
    tta_parsed_file f = {0};
    int rc = tta_parse_file(path, &f);
    if (rc != 0) fprintf(stderr, "parse %s: rc %d: %s\n", path, rc, f.error ? f.error : "");
    CHECK(rc == 0);
    return f;
}

/* Parses a string as if it were the file at path. */
static inline tta_parsed_file parse_text(const char *path, const char *text) {
    tta_parsed_file f = {0};
    CHECK(tta_parse_buffer(path, text, strlen(text), &f) == 0);
    return f;
}

static inline int str_is(tta_str s, const char *lit) { return s.p && s.n == strlen(lit) && memcmp(s.p, lit, s.n) == 0; }

/* 1 when every event's value is valid JSON and its metadata a valid JSON object (or absent). */
static inline int events_are_json(const tta_parsed_file *f) {
    for (size_t i = 0; i < f->n_events; i++) {
        const tta_event *e = &f->events[i];
        tta_json_span v;
        if (!e->value.p || !tta_json_whole(e->value.p, e->value.p + e->value.n, &v)) {
            fprintf(stderr, "event %zu (line %u): value is not JSON: %.*s\n", i, e->line, (int)e->value.n, e->value.p);
            return 0;
        }
        if (e->metadata.n &&
            (!tta_json_whole(e->metadata.p, e->metadata.p + e->metadata.n, &v) || v.type != TTA_JSON_OBJECT)) {
            fprintf(stderr, "event %zu (line %u): metadata is not a JSON object\n", i, e->line);
            return 0;
        }
    }
    for (size_t i = 0; i < f->run.n_hparams; i++) {
        tta_json_span v;
        tta_str x = f->run.hparams[i].value;
        if (!x.p || !tta_json_whole(x.p, x.p + x.n, &v)) return 0;
    }
    return 1;
}

/* The epoch of the first evaluation at or beyond target (relative tolerance 1e-6), or NAN. */
static inline double epoch_reaching(const tta_run_record *r, double target) {
    for (size_t i = 0; i < r->n_evals; i++)
        if (r->evals[i].quality >= target - 1e-6 * fabs(target)) return r->evals[i].epoch;
    return NAN;
}

/* The time of the first evaluation meeting target (higher is better); NAN when none does. */
static inline double time_reaching(const tta_run_record *r, double target) {
    for (size_t i = 0; i < r->n_evals; i++)
        if (r->evals[i].quality >= target - 1e-6 * fabs(target)) return r->evals[i].time_s;
    return NAN;
}

/* The number of events with key. */
static inline size_t count_key(const tta_parsed_file *f, const char *key) {
    size_t n = 0;
    for (size_t i = 0; i < f->n_events; i++) n += str_is(f->events[i].key, key);
    return n;
}

/* The value of hyperparameter key, or NULL. */
static inline const tta_kv *hparam(const tta_run_record *r, const char *key) {
    for (size_t i = 0; i < r->n_hparams; i++)
        if (str_is(r->hparams[i].key, key)) return &r->hparams[i];
    return NULL;
}

static inline int compare_minutes(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The official score of n successful runs in minutes: olympic mean of run_stop - run_start. */
static inline double olympic_minutes(double *seconds, int n) {
    qsort(seconds, (size_t)n, sizeof *seconds, compare_minutes);
    double s = 0;
    for (int i = 1; i < n - 1; i++) s += seconds[i];
    return s / (n - 2) / 60.0;
}

#endif
