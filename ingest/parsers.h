/* parsers.h: the format parsers, one per file format family (internal to ingest/).
 *
 * Only the dispatcher (parse.c) calls them: it has detected the format (f->format) and set
 * f->path, f->size and f->hash. Each parser fills f from data[0..len) and the layout read from
 * the path, using what the parsers share (parse_common.h); none calls another. The bytes outlive
 * f (spans may point into them). Each returns 0; malformed input sets f->failed and f->error
 * ("<path>:<line>: <reason>") and is not an error of the call.
 */
#ifndef TTA_INGEST_PARSERS_H
#define TTA_INGEST_PARSERS_H

#include <stddef.h>

#include "ingest/parsed.h"
#include "ingest/pathmeta.h"

/* :::MLPv0.5.0, :::MLL, :::MLLOG (+ :::SYSJSON) and "MLPerf: " logs, and :::MLLOG power logs
 * (parse_mlperf.c). */
int tta_parse_log(tta_parsed_file *f, const char *data, size_t len, const tta_path_meta *pm);

/* A DAWNBench per-epoch TSV with its sibling JSON description (desc[0..desc_len), or NULL when
 * there is none: the dispatcher finds and reads it, parse.h) (parse_dawnbench.c). */
int tta_parse_dawnbench_tsv(tta_parsed_file *f, const char *data, size_t len, const tta_path_meta *pm,
                            const char *desc, size_t desc_len);

/* A system description, v0.5 entry.json or DAWNBench entry JSON, read leniently (parse_json.c). */
int tta_parse_description(tta_parsed_file *f, const char *data, size_t len, const tta_path_meta *pm);

/* scaling.json beside a folder's result logs: one JSON object with a positive number
 * "scaling_factor" (parse_scaling.c). */
int tta_parse_scaling(tta_parsed_file *f, const char *data, size_t len, const tta_path_meta *pm);

/* summary.json, the result summarizer's JSON array of records: one f->entry_files row per record
 * and numeric score of a known benchmark (parse_summary.c). */
int tta_parse_summary(tta_parsed_file *f, const char *data, size_t len, const tta_path_meta *pm);

/* An AlgoPerf leaderboard's file (f->format says which: a trial's eval_measurements.csv, its
 * hparams.json, meta_data_0.json or flags_0.json, or a workload_targets*.json), the trial's place
 * read from f->path (logs/<ruleset>/<submission>/study_<N>/<workload>_<framework>/trial_<N>/)
 * (parse_algoperf.c). */
int tta_parse_algoperf(tta_parsed_file *f, const char *data, size_t len);

#endif
