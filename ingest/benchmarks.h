/* benchmarks.h: benchmark names, quality scales and DAWNBench thresholds for the parsers (internal
 * to ingest/), read from the benchmark rules (common/rules.h, schemas/benchmark_rules.json). */
#ifndef TTA_INGEST_BENCHMARKS_H
#define TTA_INGEST_BENCHMARKS_H

#include <stddef.h>

#include "common/rules.h"

/* Canonical lowercase name (a string that lives as long as the process) of a benchmark as logged or
 * as a folder name, or NULL when the name is not one. round ("v0.5", ...; may be NULL) decides the
 * names whose meaning changed: "recommendation" is NCF up to v0.6 and DLRM from v0.7 on. */
const char *tta_benchmark_canonical(const char *name, size_t n, const char *round);

/* 1 for the DAWNBench tasks (the benchmarks of the "dawnbench" ruleset). */
int tta_benchmark_is_dawnbench(const char *canonical);

/* The rule of a benchmark in a round; for a round the rules do not know (NULL, a replay's
 * TTA_REPLAY_ROUND), the latest ruleset's. NULL for an unknown benchmark. */
const tta_rule *tta_benchmark_rule(const char *canonical, const char *round);

/* How the benchmark's quality is stored (its rule's scale; TTA_SCALE_ASIS when unknown). */
tta_quality_scale tta_benchmark_scale(const char *canonical, const char *round);

/* DAWNBench: the TSV column holding a task's primary metric ("top1Accuracy", "top5Accuracy",
 * "f1Score"); NULL for other names. */
const char *tta_dawnbench_metric_column(const char *canonical);

/* Compares rounds by their order in the rules (schemas/benchmark_rules.json "rounds", in time
 * order): <0, 0, >0; rounds the rules do not know sort first. */
int tta_round_compare(const char *a, const char *b);

#endif
