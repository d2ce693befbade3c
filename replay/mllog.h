/* mllog.h: writing MLPerf `:::MLLOG` result logs, as MLCommons' mlperf_logging does, so that a
 * replay's log is read by `tta ingest` like any published one (internal to replay/).
 *
 * Each record is one line `:::MLLOG {"namespace": "", "time_ms": T, "event_type": E, "key": K,
 * "value": V, "metadata": {"file": F, "lineno": L, ...}}`, flushed as it is written, so that a
 * crash leaves a valid prefix. Time comes from a clock the caller gives (tests pass a fake one).
 *
 * Ownership: the writer owns its FILE (opened by tta_mllog_open, closed by tta_mllog_close).
 */
#ifndef TTA_REPLAY_MLLOG_H
#define TTA_REPLAY_MLLOG_H

#include <stdint.h>
#include <stdio.h>

typedef enum { TTA_MLLOG_POINT = 0, TTA_MLLOG_START, TTA_MLLOG_END } tta_mllog_event;

typedef struct tta_mllog tta_mllog;

/* Milliseconds since the Unix epoch (or any clock the tests choose). */
typedef int64_t (*tta_mllog_clock)(void *ctx);

/* The wall clock (CLOCK_REALTIME) in milliseconds. */
int64_t tta_mllog_wall_clock(void *ctx);

/* Opens path for writing (replacing it). Returns NULL with errno set when it cannot. */
tta_mllog *tta_mllog_open(const char *path, tta_mllog_clock clock, void *clock_ctx);
/* Opens an existing log to continue it: cuts it to its first keep_bytes bytes (what a checkpoint
 * recorded) and appends. NULL with errno set when it cannot. */
tta_mllog *tta_mllog_open_at(const char *path, long keep_bytes, tta_mllog_clock clock, void *clock_ctx);
/* Bytes written so far (flushed), for a checkpoint; -1 on error. */
long tta_mllog_offset(tta_mllog *log);
/* Closes the file; returns 0, or -1 when the last writes failed (disk full). */
int tta_mllog_close(tta_mllog *log);

/* Writes one record. value_json is a JSON value ("null", "0.5", "\"text\"", "{...}"); meta_json
 * is NULL or the members to add to the metadata object after file and lineno, without braces
 * (e.g. "\"epoch_num\": 3"). Returns 0, or -1 when the write failed. */
int tta_mllog_event_json(tta_mllog *log, tta_mllog_event type, const char *key, const char *value_json,
                         const char *meta_json);

/* Conveniences over tta_mllog_event_json for the common value types. */
int tta_mllog_string(tta_mllog *log, const char *key, const char *value);
int tta_mllog_number(tta_mllog *log, const char *key, double value);
/* Interval events with an epoch_num in their metadata (epoch_start/stop, eval_start/stop, block). */
int tta_mllog_epoch_event(tta_mllog *log, tta_mllog_event type, const char *key, int epoch_num);
/* eval_accuracy (or another per-epoch value) with epoch_num in its metadata. */
int tta_mllog_epoch_value(tta_mllog *log, const char *key, double value, int epoch_num);
/* run_stop with metadata status "success" or "aborted". */
int tta_mllog_run_stop(tta_mllog *log, int success);

#endif
