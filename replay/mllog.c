/* mllog.c: the `:::MLLOG` writer (see mllog.h). */
#include "replay/mllog.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/check.h"

struct tta_mllog {
    FILE *f;
    tta_mllog_clock clock;
    void *clock_ctx;
    int failed;
    buf line;
};

int64_t tta_mllog_wall_clock(void *ctx) {
    (void)ctx;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

tta_mllog *tta_mllog_open(const char *path, tta_mllog_clock clock, void *clock_ctx) {
    FILE *f = fopen(path, "w");
    if (!f) return NULL;
    tta_mllog *log = callocCheck(1, sizeof *log);
    log->f = f;
    log->clock = clock ? clock : tta_mllog_wall_clock;
    log->clock_ctx = clock_ctx;
    return log;
}

tta_mllog *tta_mllog_open_at(const char *path, long keep_bytes, tta_mllog_clock clock, void *clock_ctx) {
    if (truncate(path, keep_bytes) != 0) return NULL;
    FILE *f = fopen(path, "a");
    if (!f) return NULL;
    tta_mllog *log = callocCheck(1, sizeof *log);
    log->f = f;
    log->clock = clock ? clock : tta_mllog_wall_clock;
    log->clock_ctx = clock_ctx;
    return log;
}

long tta_mllog_offset(tta_mllog *log) {
    if (fflush(log->f) != 0) return -1;
    return ftell(log->f);
}

int tta_mllog_close(tta_mllog *log) {
    if (!log) return 0;
    int rc = (fclose(log->f) != 0 || log->failed) ? -1 : 0;
    buf_free(&log->line);
    free(log);
    return rc;
}

int tta_mllog_event_json(tta_mllog *log, tta_mllog_event type, const char *key, const char *value_json,
                         const char *meta_json) {
    static const char *const types[] = {"POINT_IN_TIME", "INTERVAL_START", "INTERVAL_END"};
    buf *b = &log->line;
    buf_clear(b);
    buf_printf(b, ":::MLLOG {\"namespace\": \"\", \"time_ms\": %lld, \"event_type\": \"%s\", \"key\": ",
               (long long)log->clock(log->clock_ctx), types[type]);
    buf_json_string(b, key, strlen(key));
    buf_puts(b, ", \"value\": ");
    buf_puts(b, value_json ? value_json : "null");
    /* file/lineno name the writer, as mlperf_logging names the Python caller */
    buf_puts(b, ", \"metadata\": {\"file\": \"tta/replay\", \"lineno\": 0");
    if (meta_json && *meta_json) {
        buf_puts(b, ", ");
        buf_puts(b, meta_json);
    }
    buf_puts(b, "}}\n");
    if (fwrite(b->data, 1, b->len, log->f) != b->len || fflush(log->f) != 0) {
        log->failed = 1;
        return -1;
    }
    return 0;
}

int tta_mllog_string(tta_mllog *log, const char *key, const char *value) {
    buf v = {0};
    buf_json_string(&v, value, strlen(value));
    int rc = tta_mllog_event_json(log, TTA_MLLOG_POINT, key, buf_str(&v), NULL);
    buf_free(&v);
    return rc;
}

int tta_mllog_number(tta_mllog *log, const char *key, double value) {
    buf v = {0};
    buf_json_number(&v, value);
    int rc = tta_mllog_event_json(log, TTA_MLLOG_POINT, key, buf_str(&v), NULL);
    buf_free(&v);
    return rc;
}

int tta_mllog_epoch_event(tta_mllog *log, tta_mllog_event type, const char *key, int epoch_num) {
    char meta[48];
    snprintf(meta, sizeof meta, "\"epoch_num\": %d", epoch_num);
    return tta_mllog_event_json(log, type, key, "null", meta);
}

int tta_mllog_epoch_value(tta_mllog *log, const char *key, double value, int epoch_num) {
    char meta[48];
    snprintf(meta, sizeof meta, "\"epoch_num\": %d", epoch_num);
    buf v = {0};
    buf_json_number(&v, value);
    int rc = tta_mllog_event_json(log, TTA_MLLOG_POINT, key, buf_str(&v), meta);
    buf_free(&v);
    return rc;
}

int tta_mllog_run_stop(tta_mllog *log, int success) {
    return tta_mllog_event_json(log, TTA_MLLOG_END, "run_stop", "null",
                                success ? "\"status\": \"success\"" : "\"status\": \"aborted\"");
}
