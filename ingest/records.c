/* records.c: a run's log records as the JSON array stored in event_log.records.
 *
 * The parser threads encode it (ingest.c), so that the single writer only binds the text: the
 * writer is the serial part of an ingest, and on record-dense logs this encoding was a fifth of
 * its work. Every element is [line, time, key, value, metadata, epoch_num, samples]; value and
 * metadata are the parsers' JSON spans, copied as they are, except that a metadata "file" path
 * is replaced by its index into the run's files array and the element then ends with a 1
 * (schemas/003_event_files.sql: the view `events` puts the path back). */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/check.h"
#include "ingest/jsonscan.h"
#include "ingest/records.h"

static const char two_digits[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                   "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                   "8081828384858687888990919293949596979899";

/* Writes n in decimal at p, two digits per division; returns the end. */
static char *put_uint(char *p, uint64_t n) {
    char tmp[24];
    char *end = tmp + sizeof tmp, *q = end;
    while (n >= 100) {
        unsigned r = (unsigned)(n % 100);
        n /= 100;
        q -= 2;
        memcpy(q, two_digits + 2 * r, 2);
    }
    if (n >= 10) {
        q -= 2;
        memcpy(q, two_digits + 2 * n, 2);
    } else {
        *--q = (char)('0' + n);
    }
    memcpy(p, q, (size_t)(end - q));
    return p + (end - q);
}

/* Writes a time in seconds: whole milliseconds (what the logs give) exactly, without printf;
 * returns NULL when t is not a whole number of ms (the caller falls back to buf_json_number). */
static char *put_time_ms(char *p, double t) {
    double ms = t * 1000.0;
    if (!(isfinite(t) && fabs(ms) < 9e15 && ms == (double)(int64_t)ms)) return NULL;
    int64_t v = (int64_t)ms;
    if (v < 0) {
        *p++ = '-';
        v = -v;
    }
    p = put_uint(p, (uint64_t)(v / 1000));
    int frac = (int)(v % 1000);
    if (frac) {
        char f[3] = {(char)('0' + frac / 100), (char)('0' + frac / 10 % 10), (char)('0' + frac % 10)};
        int len = 3;
        while (f[len - 1] == '0') len--;
        *p++ = '.';
        memcpy(p, f, (size_t)len);
        p += len;
    }
    return p;
}

/* 1 when s needs no escaping as a JSON string (printable ASCII without '"' and '\\'): keys are. */
static int is_plain(const char *s, size_t n) { return tta_json_plain_prefix(s, s + n) == s + n; }

/* The slow paths go through buf's own appenders: sync b->len with the write pointer first. */
static void flush_to(buf *b, const char *p) { b->len = (size_t)(p - b->data); }

/* Appends a number (epoch_num, samples): whole numbers without printf, null for NAN. */
static char *put_number(buf *b, char *p, double v) {
    if (isnan(v)) {
        memcpy(p, "null", 4);
        return p + 4;
    }
    if (v >= 0 && v < 1e15 && v == (double)(uint64_t)v) return put_uint(p, (uint64_t)v);
    flush_to(b, p);
    buf_json_number(b, v); /* at most 24 bytes: within the reserve */
    return b->data + b->len;
}

/* The distinct "file" paths of one run, as spans of their JSON string tokens: linear search, so
 * bounded (a run names a handful; past the bound a record keeps its path in place). */
#define MAX_FILES 64
typedef struct {
    tta_str file[MAX_FILES];
    int n;
} file_table;

/* The index of f in t, adding it when new; -1 when the table is full. */
static int file_index(file_table *t, tta_str f) {
    for (int i = t->n - 1; i >= 0; i--)
        if (t->file[i].n == f.n && memcmp(t->file[i].p, f.p, f.n) == 0) return i;
    if (t->n == MAX_FILES) return -1;
    t->file[t->n] = f;
    return t->n++;
}

void tta_records_encode(const tta_event *events, size_t n, buf *out, buf *files) {
    buf_clear(out);
    buf_clear(files);
    file_table table;
    table.n = 0;
    size_t need = 2;
    for (size_t i = 0; i < n; i++) need += 96 + events[i].key.n + events[i].value.n + events[i].metadata.n;
    buf_reserve(out, need);
    char *p = out->data + out->len;
    *p++ = '[';
    for (size_t i = 0; i < n; i++) {
        const tta_event *e = &events[i];
        /* Worst case of this element: 6 bytes per key byte escaped, two numbers of 24, a time
         * of 32, the line, separators and nulls: within 6 * key + value + metadata + 160. */
        size_t worst = 160 + 6 * (size_t)e->key.n + e->value.n + e->metadata.n;
        flush_to(out, p);
        buf_reserve(out, worst);
        p = out->data + out->len;
        if (i) *p++ = ',';
        *p++ = '[';
        p = put_uint(p, e->line);
        *p++ = ',';
        char *t = put_time_ms(p, e->time_s);
        if (t) {
            p = t;
        } else {
            flush_to(out, p);
            buf_json_number(out, e->time_s);
            p = out->data + out->len;
        }
        *p++ = ',';
        const char *key = e->key.p ? e->key.p : "";
        if (is_plain(key, e->key.n)) {
            *p++ = '"';
            memcpy(p, key, e->key.n);
            p += e->key.n;
            *p++ = '"';
        } else {
            flush_to(out, p);
            buf_json_string(out, key, e->key.n);
            p = out->data + out->len;
        }
        *p++ = ',';
        if (e->value.n) {
            memcpy(p, e->value.p, e->value.n);
            p += e->value.n;
        } else {
            memcpy(p, "null", 4);
            p += 4;
        }
        *p++ = ',';
        int file = -1;
        if (e->file.n && e->file.p > e->metadata.p && e->file.p + e->file.n < e->metadata.p + e->metadata.n)
            file = file_index(&table, e->file);
        if (file >= 0) {
            /* The metadata with its "file" path replaced by the path's index in files. */
            size_t head = (size_t)(e->file.p - e->metadata.p);
            memcpy(p, e->metadata.p, head);
            p = put_uint(p + head, (uint64_t)file);
            size_t tail = e->metadata.n - head - e->file.n;
            memcpy(p, e->file.p + e->file.n, tail);
            p += tail;
        } else if (e->metadata.n) {
            memcpy(p, e->metadata.p, e->metadata.n);
            p += e->metadata.n;
        } else {
            memcpy(p, "null", 4);
            p += 4;
        }
        *p++ = ',';
        p = put_number(out, p, e->epoch_num);
        *p++ = ',';
        p = put_number(out, p, e->samples);
        if (file >= 0) {
            memcpy(p, ",1", 2); /* metadata.file is an index into files */
            p += 2;
        }
        *p++ = ']';
        assert((size_t)(p - out->data) < out->cap);
    }
    *p++ = ']';
    *p = '\0';
    flush_to(out, p);
    if (table.n) {
        buf_putc(files, '[');
        for (int i = 0; i < table.n; i++) {
            if (i) buf_putc(files, ',');
            buf_append(files, table.file[i].p, table.file[i].n);
        }
        buf_putc(files, ']');
    }
}

void tta_parsed_encode_records(tta_parsed_file *f) {
    free(f->records);
    free(f->records_files);
    buf b = {0}, files = {0};
    tta_records_encode(f->events, f->n_events, &b, &files);
    f->records_len = b.len;
    f->records = buf_take(&b);
    f->records_files = files.len ? buf_take(&files) : NULL;
    buf_free(&files);
}
