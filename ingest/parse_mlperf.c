/* parse_mlperf.c: MLPerf Training result logs of every round, and power logs.
 *
 * The mapping is searched for the format's marker with memmem (":::" for :::MLLOG and
 * :::SYSJSON, ":::MLL ", ":::MLPv0.5.0 ", "MLPerf: "), wherever it sits on a line (ranks print
 * "0: " before it), so the shell output, stack traces and progress bars between records cost
 * one memmem and one newline count over their bytes. Line numbers come from counting '\n'
 * between consecutive markers. Each reader turns one record into a tta_log_record and hands it
 * to the run builder (parse_run.c): :::MLLOG JSON is validated in place by the span scanner and
 * stays a span into the mapping; only values that need converting (v0.5 bare words, Python
 * reprs, invalid UTF-8) are copied, as strict JSON, into the arena.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/buf.h"
#include "common/check.h"
#include "ingest/parse_common.h"
#include "ingest/parsers.h"

typedef struct {
    tta_run_builder rb;
    tta_parsed_file *f;
    const tta_path_meta *pm;
    size_t cap_power;
    buf scratch;
} log_reader;

/* ---- value conversion ---- */

/* Copies strict JSON text (from scratch) into the arena as a span. */
static tta_json_span keep_json(log_reader *lr, const buf *b) {
    tta_str s = tta_parsed_keep(lr->f, buf_str(b), b->len);
    tta_json_span v;
    const char *end = tta_json_value(s.p, s.p + s.n, &v, NULL);
    (void)end;
    return v;
}

/* JSON whose strings hold invalid UTF-8 or raw control characters, made valid: the bad bytes
 * become U+FFFD, control characters escapes. Returns 0 when that does not make it JSON. */
static int repair_json(log_reader *lr, const char *p, const char *end, tta_json_span *out) {
    buf *b = &lr->scratch;
    buf_clear(b);
    int in_string = 0;
    while (p < end) {
        unsigned char c = (unsigned char)*p;
        if (in_string && c == '\\' && p + 1 < end) {
            buf_append(b, p, 2);
            p += 2;
            continue;
        }
        if (c == '"') in_string = !in_string;
        if (in_string && c < 0x20) {
            buf_printf(b, "\\u%04x", c);
            p++;
            continue;
        }
        if (c >= 0x80) {
            /* buf_json_string replaces an invalid sequence by U+FFFD; strip its quotes. */
            const char *q = p;
            while (q < end && (unsigned char)*q >= 0x80) q++;
            buf tmp = {0};
            buf_json_string(&tmp, p, (size_t)(q - p));
            buf_append(b, buf_str(&tmp) + 1, tmp.len - 2);
            buf_free(&tmp);
            p = q;
            continue;
        }
        buf_putc(b, (char)c);
        p++;
    }
    tta_json_span v;
    if (!tta_json_whole(buf_str(b), buf_str(b) + b->len, &v)) return 0;
    *out = keep_json(lr, b);
    return 1;
}

/* The JSON value at [p, end): in place when valid; else repaired (encoding) or read leniently
 * (Python reprs; bare words too with TTA_RELAXED_BARE_WORDS in flags); *stop is where the
 * value ended in the original text. Returns 0 when it is none of these. */
static int json_at(log_reader *lr, const char *p, const char *end, int flags, tta_json_span *out, const char **stop) {
    const char *q = tta_json_value(p, end, out, NULL);
    if (q) {
        *stop = q;
        return 1;
    }
    while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r')) end--;
    *stop = end;
    if (repair_json(lr, p, end, out)) return 1;
    buf_clear(&lr->scratch);
    if (tta_relaxed_to_json(p, (size_t)(end - p), flags, &lr->scratch)) {
        *out = keep_json(lr, &lr->scratch);
        return 1;
    }
    return 0;
}

/* A free-text value (v0.5, the text form) as JSON: itself when it is JSON, its lenient reading
 * when it is JSON-like ({"value": 74.4%, ...}), else a JSON string of the text. */
static tta_json_span text_value(log_reader *lr, const char *p, const char *end) {
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r')) end--;
    if (p == end) return (tta_json_span){0};
    tta_json_span v;
    if (tta_json_whole(p, end, &v)) return v;
    buf_clear(&lr->scratch);
    if (tta_relaxed_to_json(p, (size_t)(end - p), TTA_RELAXED_BARE_WORDS, &lr->scratch)) return keep_json(lr, &lr->scratch);
    buf_clear(&lr->scratch);
    buf_json_string(&lr->scratch, p, (size_t)(end - p));
    return keep_json(lr, &lr->scratch);
}

/* A time like 1543785258.927179813 or 0000000000 (v0.5's "(empty:0)" lines). */
static const char *read_time(const char *p, const char *end, double *t) {
    const char *s = p;
    while (p < end && ((*p >= '0' && *p <= '9') || *p == '.' || *p == '-' || *p == 'e' || *p == 'E' || *p == '+')) p++;
    if (p == s) return NULL;
    if (tta_json_parse_number(s, (size_t)(p - s), t)) return p;
    char tmp[64];
    size_t n = (size_t)(p - s);
    if (n >= sizeof tmp) return NULL;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    char *e;
    *t = strtod(tmp, &e);
    return *e == '\0' ? p : NULL;
}

static uint8_t type_from_key(tta_str k) {
    if (k.n > 6 && memcmp(k.p + k.n - 6, "_start", 6) == 0) return TTA_EV_START;
    if (k.n > 5 && memcmp(k.p + k.n - 5, "_stop", 5) == 0) return TTA_EV_END;
    return TTA_EV_POINT;
}

/* ---- readers: [p, end) is a record's line after its marker; each returns where the record
 * ended (the caller searches on from there), or NULL when it could not be read ---- */

/* The members of an MLLOG record a reader keeps. */
static void mllog_member(tta_log_record *rec, tta_json_span k, tta_json_span v, tta_json_span *key, tta_json_span *etype) {
    if (!k.plain) return;
    const char *kp = k.p + 1;
    switch (k.n - 2) {
    case 3:
        if (!memcmp(kp, "key", 3)) *key = v;
        break;
    case 5:
        if (!memcmp(kp, "value", 5)) rec->value = v;
        break;
    case 6:
        if (!memcmp(kp, "time_s", 6) && isnan(rec->time_s)) tta_json_span_number(v, &rec->time_s, NULL);
        break;
    case 7:
        if (!memcmp(kp, "time_ms", 7) && tta_json_span_number(v, &rec->time_s, NULL)) rec->time_s /= 1000.0;
        break;
    case 8:
        if (!memcmp(kp, "metadata", 8) && v.type == TTA_JSON_OBJECT) rec->meta = v;
        break;
    case 10:
        if (!memcmp(kp, "event_type", 10)) *etype = v;
        break;
    default:
        break;
    }
}

/* ":::MLLOG {json}" and ":::SYSJSON {json}" at p; the record may run to end (the file's end:
 * JSON stops by itself); when it is not valid JSON, the rest of its line is read leniently. */
static const char *read_mllog(log_reader *lr, const char *p, const char *end, uint32_t line, int sysjson) {
    tta_log_record rec = {.time_s = NAN, .line = line};
    tta_json_span k, v, key = {0}, etype = {0};
    tta_json_iter it;
    tta_meta_fields meta;
    const char *stop = NULL;
    int rc = -1;
    const char *open = sysjson ? NULL : tta_json_object_open(p, end, &it);
    if (open) {
        /* The usual case: validate the record and pick its members in one pass, the metadata
         * object's members included (the run builder then need not read it again). */
        while ((rc = tta_json_object_next_key_checked(&it, &k, &stop)) == 1) {
            tta_json_iter sub;
            if (k.plain && k.n == 10 && memcmp(k.p + 1, "metadata", 8) == 0 && tta_json_iter_enter_object(&it, &sub)) {
                const char *meta_open = it.p, *meta_close = NULL;
                tta_json_span mk, mv;
                int mrc;
                tta_meta_init(&meta);
                while ((mrc = tta_json_object_next_checked(&sub, &mk, &mv, &meta_close)) == 1)
                    tta_meta_member(&meta, mk, mv);
                if (mrc != 0 || tta_json_iter_value_end(&it, meta_close) != 1) {
                    rc = -1;
                    break;
                }
                rec.meta = (tta_json_span){meta_open, (size_t)(meta_close - meta_open), TTA_JSON_OBJECT, 0};
                rec.meta_fields = &meta;
            } else {
                if (tta_json_iter_value_checked(&it, &v) != 1) {
                    rc = -1;
                    break;
                }
                mllog_member(&rec, k, v, &key, &etype);
            }
        }
    }
    if (rc != 0) {
        rec = (tta_log_record){.time_s = NAN, .line = line};
        key = etype = (tta_json_span){0};
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        tta_json_span obj;
        if (!json_at(lr, p, eol ? eol : end, 0, &obj, &stop) || obj.type != TTA_JSON_OBJECT) {
            /* Only a broken :::MLLOG record is unreadable: MLCommons' tools read no other line, so
             * a :::SYSJSON line without its description (a failed system-description script
             * echoes ":::SYSJSON " and nothing) is skipped like shell output. */
            if (!sysjson) tta_rb_bad(&lr->rb, line, "broken :::MLLOG JSON");
            return NULL;
        }
        if (sysjson) {
            rec.key = (tta_str){"sysjson", 7};
            rec.value = obj;
            tta_rb_record(&lr->rb, &rec);
            return stop;
        }
        tta_json_iter_init(&it, obj);
        while (tta_json_object_next(&it, &k, &v)) mllog_member(&rec, k, v, &key, &etype);
    }
    int have_type = etype.type != TTA_JSON_NONE;
    if (key.type != TTA_JSON_STRING) {
        tta_rb_bad(&lr->rb, line, ":::MLLOG record without a key");
        return NULL;
    }
    if (key.plain) {
        rec.key = (tta_str){key.p + 1, (uint32_t)(key.n - 2)};
    } else {
        buf_clear(&lr->scratch);
        tta_json_string_decode(key, &lr->scratch);
        rec.key = tta_parsed_keep(lr->f, buf_str(&lr->scratch), lr->scratch.len);
    }
    if (have_type && TTA_JSON_IS(etype, "INTERVAL_START"))
        rec.type = TTA_EV_START;
    else if (have_type && TTA_JSON_IS(etype, "INTERVAL_END"))
        rec.type = TTA_EV_END;
    else if (!have_type)
        rec.type = type_from_key(rec.key);

    if (lr->f->format == TTA_FMT_POWER) {
        tta_power_record *pw = &lr->f->power;
        double value = NAN;
        if (rec.value.type) tta_json_span_number(rec.value, &value, NULL);
        growArray(pw->samples, &lr->cap_power, pw->n_samples + 1);
        pw->samples[pw->n_samples++] =
            (tta_power_sample){.node = (char *)lr->pm->stem, .time_s = rec.time_s, .key = rec.key, .value = value};
    }
    tta_rb_record(&lr->rb, &rec);
    return stop;
}

/* ":::MLL <unix time> <key>: {"value": v, "metadata": {...}}" */
static const char *read_mll(log_reader *lr, const char *p, const char *end, uint32_t line) {
    tta_log_record rec = {.line = line};
    p = read_time(p, end, &rec.time_s);
    if (!p || p >= end || *p != ' ') {
        tta_rb_bad(&lr->rb, line, "no time after :::MLL");
        return NULL;
    }
    while (p < end && *p == ' ') p++;
    const char *ks = p;
    while (p < end && *p != ':' && *p != ' ' && *p != '\r') p++;
    rec.key = (tta_str){ks, (uint32_t)(p - ks)};
    while (p < end && *p == ' ') p++;
    if (rec.key.n == 0 || p >= end || *p != ':') {
        tta_rb_bad(&lr->rb, line, "no key: after the :::MLL time");
        return NULL;
    }
    tta_json_span obj;
    const char *stop;
    if (!json_at(lr, p + 1, end, TTA_RELAXED_BARE_WORDS, &obj, &stop)) {
        tta_rb_bad(&lr->rb, line, "broken :::MLL JSON");
        return NULL;
    }
    rec.value = obj;
    if (obj.type == TTA_JSON_OBJECT) {
        tta_json_span v, meta;
        if (tta_json_find(obj, "value", &v)) {
            rec.value = v;
            if (tta_json_find(obj, "metadata", &meta) && meta.type == TTA_JSON_OBJECT) rec.meta = meta;
        }
    }
    rec.type = type_from_key(rec.key);
    tta_rb_record(&lr->rb, &rec);
    return stop;
}

/* The "(file:line)" of a v0.5 record as a metadata object {"file": ..., "lineno": N}. */
static tta_json_span v05_metadata(log_reader *lr, const char *s, const char *e) {
    const char *colon = NULL;
    for (const char *q = s; q < e; q++)
        if (*q == ':') colon = q;
    buf *b = &lr->scratch;
    buf_clear(b);
    buf_puts(b, "{\"file\":");
    buf_json_string(b, s, (size_t)((colon ? colon : e) - s));
    if (colon) {
        double n;
        if (tta_json_parse_number(colon + 1, (size_t)(e - colon - 1), &n)) {
            buf_puts(b, ",\"lineno\":");
            buf_append(b, colon + 1, (size_t)(e - colon - 1));
        }
    }
    buf_putc(b, '}');
    return keep_json(lr, b);
}

/* ":::MLPv0.5.0 <benchmark> <unix time> (<file:line>) <key>[: <value>]" */
static const char *read_v05(log_reader *lr, const char *p, const char *end, uint32_t line) {
    tta_log_record rec = {.line = line};
    const char *bs = p;
    while (p < end && *p != ' ') p++;
    tta_rb_benchmark_hint(&lr->rb, bs, (size_t)(p - bs));
    while (p < end && *p == ' ') p++;
    p = read_time(p, end, &rec.time_s);
    if (!p) {
        tta_rb_bad(&lr->rb, line, "no time in :::MLPv0.5.0 record");
        return NULL;
    }
    while (p < end && *p == ' ') p++;
    if (p < end && *p == '(') {
        /* The file name may hold spaces and parentheses: the location ends at ") " before the key. */
        const char *close = NULL;
        for (const char *q = p + 1; q < end; q++) {
            if (*q == ')' && (q + 1 == end || q[1] == ' ')) {
                close = q;
                break;
            }
        }
        if (!close) {
            tta_rb_bad(&lr->rb, line, "unclosed (file:line) in :::MLPv0.5.0 record");
            return NULL;
        }
        rec.meta = v05_metadata(lr, p + 1, close);
        p = close + 1;
    }
    while (p < end && *p == ' ') p++;
    const char *ks = p;
    while (p < end && *p != ':' && *p != ' ' && *p != '\r') p++;
    rec.key = (tta_str){ks, (uint32_t)(p - ks)};
    if (rec.key.n == 0) {
        tta_rb_bad(&lr->rb, line, "no key in :::MLPv0.5.0 record");
        return NULL;
    }
    while (p < end && *p == ' ') p++;
    if (p < end && *p == ':') rec.value = text_value(lr, p + 1, end);
    rec.type = type_from_key(rec.key);
    tta_rb_record(&lr->rb, &rec);
    return end;
}

/* "MLPerf: <benchmark> [MM/DD/YY HH:MM:SS], <key>[: <value>]" (Alibaba v0.6). Times are the
 * machine's wall clock with one-second resolution; read as UTC. */
static const char *read_text(log_reader *lr, const char *p, const char *end, uint32_t line) {
    tta_log_record rec = {.line = line};
    const char *bs = p;
    while (p < end && *p != ' ') p++;
    tta_rb_benchmark_hint(&lr->rb, bs, (size_t)(p - bs));
    int f[6];
    if (end - p < 21 || p[1] != '[' || p[19] != ']') {
        tta_rb_bad(&lr->rb, line, "no [MM/DD/YY HH:MM:SS] in MLPerf: record");
        return NULL;
    }
    const char *s = p + 2;
    static const int pos[6] = {0, 3, 6, 9, 12, 15};
    static const char sep[6] = {'/', '/', ' ', ':', ':', ']'};
    for (int i = 0; i < 6; i++) {
        const char *d = s + pos[i];
        if (d[0] < '0' || d[0] > '9' || d[1] < '0' || d[1] > '9' || d[2] != sep[i]) {
            tta_rb_bad(&lr->rb, line, "bad [MM/DD/YY HH:MM:SS] in MLPerf: record");
            return NULL;
        }
        f[i] = (d[0] - '0') * 10 + (d[1] - '0');
    }
    struct tm tm = {.tm_mon = f[0] - 1, .tm_mday = f[1], .tm_year = f[2] + 100, .tm_hour = f[3], .tm_min = f[4],
                    .tm_sec = f[5]};
    rec.time_s = (double)timegm(&tm);
    p += 20;
    if (p < end && *p == ',') p++;
    while (p < end && *p == ' ') p++;
    const char *ks = p;
    while (p < end && *p != ':' && *p != '\r') p++;
    const char *ke = p;
    while (ke > ks && ke[-1] == ' ') ke--;
    rec.key = (tta_str){ks, (uint32_t)(ke - ks)};
    if (rec.key.n == 0) {
        tta_rb_bad(&lr->rb, line, "no key in MLPerf: record");
        return NULL;
    }
    if (p < end && *p == ':') rec.value = text_value(lr, p + 1, end);
    rec.type = type_from_key(rec.key);
    tta_rb_record(&lr->rb, &rec);
    return end;
}

/* ---- the scan ---- */

int tta_parse_log(tta_parsed_file *f, const char *data, size_t len, const tta_path_meta *pm) {
    log_reader lr = {.f = f, .pm = pm};
    tta_rb_init(&lr.rb, f, pm);
    if (f->format == TTA_FMT_POWER) {
        tta_power_record *pw = &f->power;
        pw->submitter = (char *)pm->submitter;
        pw->system = (char *)pm->system;
        pw->benchmark = (char *)pm->benchmark;
        pw->round = (char *)pm->round;
        pw->run_index = pm->run_index;
    }
    const char *needle;
    size_t needle_len;
    switch (f->format) {
    case TTA_FMT_MLPERF_V05: needle = ":::MLPv0.5.0 "; break;
    case TTA_FMT_MLPERF_V06: needle = ":::MLL "; break;
    case TTA_FMT_MLPERF_TEXT: needle = "MLPerf: "; break;
    default: needle = ":::"; break; /* :::MLLOG and :::SYSJSON */
    }
    needle_len = strlen(needle);
    const char *p = data, *end = data + len, *counted = data;
    uint32_t line = 1;
    while (p < end) {
        const char *m;
        if (f->format == TTA_FMT_MLPERF_TEXT) {
            m = memmem(p, (size_t)(end - p), needle, needle_len);
        } else {
            /* ":::" then the rest of the marker (faster than memmem for a short needle). */
            m = tta_find_triple_colon(p, end);
            while (m && ((size_t)(end - m) < needle_len || memcmp(m, needle, needle_len) != 0) && needle_len > 3)
                m = tta_find_triple_colon(m + 1, end);
        }
        if (!m) break;
        line += (uint32_t)tta_count_newlines(counted, (size_t)(m - counted));
        counted = m;
        const char *body = m + needle_len, *stop = NULL, *eol = NULL;
        if (f->format == TTA_FMT_MLLOG || f->format == TTA_FMT_POWER) {
            if (end - body >= 6 && memcmp(body, "MLLOG ", 6) == 0)
                stop = read_mllog(&lr, body + 6, end, line, 0);
            else if (end - body >= 8 && memcmp(body, "SYSJSON ", 8) == 0)
                stop = read_mllog(&lr, body + 8, end, line, 1);
            else
                stop = body; /* ":::" of something else */
        } else {
            eol = memchr(m, '\n', (size_t)(end - m));
            if (!eol) eol = end;
            switch (f->format) {
            case TTA_FMT_MLPERF_V05: stop = read_v05(&lr, body, eol, line); break;
            case TTA_FMT_MLPERF_V06: stop = read_mll(&lr, body, eol, line); break;
            default: stop = read_text(&lr, body, eol, line); break;
            }
        }
        /* Two records on one line (interleaved output): search on from the first one's end. */
        if (stop && stop > m) {
            p = stop;
        } else {
            if (!eol) eol = memchr(m, '\n', (size_t)(end - m));
            p = eol ? eol : end;
        }
    }
    uint32_t last_line = line + (uint32_t)tta_count_newlines(counted, (size_t)(end - counted));
    if (len && end[-1] == '\n') last_line--;
    /* Power logs have no run_start: having records is enough. */
    tta_rb_finish(&lr.rb, last_line ? last_line : 1, f->format != TTA_FMT_POWER);
    buf_free(&lr.scratch);
    return 0;
}
