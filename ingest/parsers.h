/* parsers.h: the format parsers behind tta_parse_buffer (internal to ingest/).
 *
 * Each fills f (already holding path, format and an arena) from the bytes data[0..len) and
 * the layout read from the path; the bytes outlive f's use (spans may point into them).
 * Each returns 0; malformed input sets f->failed and f->error ("<path>:<line>: <reason>").
 */
#ifndef TTA_INGEST_PARSERS_H
#define TTA_INGEST_PARSERS_H

#include <stddef.h>

#include "ingest/parsed.h"
#include "ingest/pathmeta.h"

/* :::MLPv0.5.0, :::MLL, :::MLLOG and "MLPerf: " logs, and :::MLLOG power logs. */
int tta_parse_mlperf_log(tta_parsed_file *f, const char *data, size_t len, const tta_path_meta *pm);

/* A DAWNBench per-epoch TSV (with its sibling JSON description when there is one). */
int tta_parse_dawnbench_tsv(tta_parsed_file *f, const char *data, size_t len, const tta_path_meta *pm);

/* A system description, v0.5 entry.json, or DAWNBench entry JSON: read leniently. */
int tta_parse_description(tta_parsed_file *f, const char *data, size_t len, const tta_path_meta *pm);

/* JSON text made acceptable to cJSON: no byte-order mark, // comments or trailing commas
 * (malloc'd; the caller frees). */
char *tta_lenient_json(const char *p, size_t len);

/* Sets f->failed and f->error to "<path>:<line>: <reason>". */
void tta_parse_fail(tta_parsed_file *f, unsigned line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* 1-based line number of position pos in data. */
unsigned tta_line_of(const char *data, const char *pos);

#endif
