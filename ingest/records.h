/* records.h: the JSON text of a run's log records, as stored in event_log.records (internal to
 * ingest/). Each record is [line, time, key, value, metadata, epoch_num, samples(, 1)]: docs/database.md. */
#ifndef TTA_INGEST_RECORDS_H
#define TTA_INGEST_RECORDS_H

#include <stddef.h>

#include "common/buf.h"
#include "ingest/parsed.h"

/* Replaces the contents of out with the JSON array of the n events, and of files with the JSON
 * array of the "file" paths their metadata name (empty when none). Always valid JSON: keys are
 * escaped, value and metadata are the parsers' JSON spans, NAN numbers are null; a metadata
 * "file" (event.file, inside event.metadata) becomes its index into files and the element gets
 * an eighth item, 1 (up to 64 paths a run; further ones stay in place). */
void tta_records_encode(const tta_event *events, size_t n, buf *out, buf *files);

/* Sets f->records, f->records_len and f->records_files (NULL when no path) to the encoding of f's events (ingest.c calls it in the
 * parser threads, so that the writer only binds it). */
void tta_parsed_encode_records(tta_parsed_file *f);

#endif
