/* benchmarks.c: the parsers' view of the benchmark rules (names, scales, DAWNBench thresholds). */
#include "ingest/benchmarks.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int tta_round_compare(const char *a, const char *b) {
    const tta_rules *rules = tta_rules_builtin();
    int x = tta_rules_round_order(rules, a), y = tta_rules_round_order(rules, b);
    return x < y ? -1 : x > y ? 1 : 0;
}

const char *tta_benchmark_canonical(const char *name, size_t n, const char *round) {
    return tta_rules_canonical(tta_rules_builtin(), name, n, round);
}

int tta_benchmark_is_dawnbench(const char *b) {
    return b && tta_rules_find(tta_rules_builtin(), "dawnbench", b) != NULL;
}

const tta_rule *tta_benchmark_rule(const char *b, const char *round) {
    const tta_rules *rules = tta_rules_builtin();
    const tta_rule *r = tta_rules_find(rules, round, b);
    return r ? r : tta_rules_latest(rules, b);
}

tta_quality_scale tta_benchmark_scale(const char *b, const char *round) {
    const tta_rule *r = tta_benchmark_rule(b, round);
    return r ? r->scale : TTA_SCALE_ASIS;
}

const char *tta_dawnbench_metric_column(const char *b) {
    const tta_rule *r = b ? tta_rules_find(tta_rules_builtin(), "dawnbench", b) : NULL;
    return r ? r->log_key : NULL;
}
