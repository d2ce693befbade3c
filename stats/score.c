/* score.c: the official MLPerf score (the result summarizer's olympic mean), MLPerf HPC's
 * weak-scaling score, and the runs the rules require per benchmark and round. */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>

#include "common/check.h"
#include "common/rules.h"
#include "stats/stats.h"

/* The rule of benchmark in round (schemas/benchmark_rules.json), or NULL. */
static const tta_rule *rule_of(const char *benchmark, const char *round) {
    return tta_rules_find(tta_rules_builtin(), round, benchmark);
}

/* The rules' minimum number of runs (schemas/benchmark_rules.json: runs_required). */
size_t tta_required_runs(const char *benchmark, const char *round) {
    const tta_rule *r = rule_of(benchmark, round);
    return r && r->runs_required > 0 ? (size_t)r->runs_required : 0;
}

/* The runs olympic scoring drops from each end (benchmark_rules.json: olympic_drop; the same in
 * every ruleset that has the benchmark, so the latest rule's). */
size_t tta_max_dropped_runs(const char *benchmark) {
    const tta_rule *r = tta_rules_latest(tta_rules_builtin(), benchmark);
    return r && r->olympic_drop > 0 ? (size_t)r->olympic_drop : 1;
}

static tta_score no_score(tta_score s, tta_reason reason) {
    s.score = NAN;
    s.n_used = 0;
    s.reason = reason;
    s.why = tta_reason_text(reason);
    return s;
}

/* Olympic mean of the first used successful runs in run order (the rule's runs_scored: v0.5 NCF,
 * "use first 50 that converge"). */
static tta_score score_first_converged(tta_score s, const double *times, const int *success, size_t n,
                                       size_t used_runs) {
    double *used = mallocCheck(used_runs * sizeof *used);
    size_t k = 0;
    for (size_t i = 0; i < n && k < used_runs; i++)
        if (success[i] && !isnan(times[i])) used[k++] = times[i];
    double mean = tta_olympic_mean(used, k, 1, 1);
    free(used);
    if (isnan(mean)) return no_score(s, n ? TTA_TOO_FEW_RUNS : TTA_NO_VALUES);
    s.score = mean;
    s.n_used = k - 2;
    if (k < used_runs) s.reason = TTA_FEWER_CONVERGED_THAN_USED;
    return s;
}

/* The result summarizer's _compute_strong_score_standalone + _compute_olympic_average. */
tta_score tta_official_score(const double *times, const int *success, size_t n, const char *benchmark,
                             const char *round) {
    assert(n == 0 || (times && success));
    const tta_rule *rule = rule_of(benchmark, round);
    tta_score s = {.score = NAN, .n_runs = n, .required = tta_required_runs(benchmark, round),
                   .max_dropped = tta_max_dropped_runs(benchmark)};
    for (size_t i = 0; i < n; i++) s.n_dropped += !(success[i] && !isnan(times[i]));
    if (rule && rule->runs_scored > 0) {
        s = score_first_converged(s, times, success, n, (size_t)rule->runs_scored);
    } else if (n == 0) {
        return no_score(s, TTA_NO_VALUES);
    } else if (s.n_dropped > s.max_dropped) {
        return no_score(s, TTA_TOO_MANY_FAILED);
    } else {
        size_t n_ok = n - s.n_dropped;
        double *ok = mallocCheck(n * sizeof *ok);
        size_t j = 0;
        for (size_t i = 0; i < n; i++)
            if (success[i] && !isnan(times[i])) ok[j++] = times[i];
        assert(j == n_ok);
        /* scores[k : len - (k - dropped)]: the failed runs stand in for the slowest ones. */
        s.score = tta_olympic_mean(ok, n_ok, s.max_dropped, s.max_dropped - s.n_dropped);
        free(ok);
        if (isnan(s.score)) return no_score(s, TTA_TOO_FEW_RUNS);
        s.n_used = n_ok - s.max_dropped - (s.max_dropped - s.n_dropped);
    }
    if (s.reason == TTA_REASON_NONE && s.required && n < s.required) s.reason = TTA_FEWER_RUNS_THAN_REQUIRED;
    s.why = tta_reason_text(s.reason);
    return s;
}

tta_weak_score tta_weak_scaling_score(const double *start, const double *stop, const int *counted, const int *nodes,
                                      const int *per_node, size_t n, const char *benchmark, const char *round) {
    assert(n == 0 || (start && stop && counted && nodes && per_node));
    tta_weak_score w = {.time_all = NAN, .models_per_time = NAN, .instance_scale = -1, .n_given = n,
                        .required = tta_required_runs(benchmark, round)};
    double first = INFINITY, last = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        if (!counted[i] || isnan(start[i]) || isnan(stop[i])) continue;
        first = fmin(first, start[i]);
        last = fmax(last, stop[i]);
        if (w.n_models++ == 0 && nodes[i] >= 0 && per_node[i] >= 0)
            w.instance_scale = nodes[i] * (per_node[i] > 1 ? per_node[i] : 1);
    }
    if (w.n_models == 0) {
        w.reason = TTA_NO_VALUES;
        w.why = n ? "no instance converged with a whole log: no weak-scaling score" : tta_reason_text(TTA_NO_VALUES);
        return w;
    }
    if (w.n_models < w.required) {
        w.reason = TTA_TOO_FEW_RUNS;
        w.why = "fewer converged instances than the rules require: no weak-scaling score (the summarizer's "
                "\"Not enough converging weak scaling runs\")";
        return w;
    }
    w.time_all = last - first;
    w.models_per_time = w.time_all > 0 ? (double)w.n_models / w.time_all : NAN;
    return w;
}
