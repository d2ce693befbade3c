/* summary.c: per-entry figures shared by the variance, speedup and scaling reports. */
#include "reports/summary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "common/rules.h"

/* Counts of data (samples, tokens) run to millions per entry: shown in millions. Anything else
 * the rules may count (optimizer steps) is shown as counted. */
static int counted_in_millions(const char *unit) { return !strcmp(unit, "samples") || !strcmp(unit, "tokens"); }

tta_progress_scale tta_entry_progress_scale(const tta_entry_data *e) {
    tta_progress_scale u = {.epochs = 1, .divisor = 1};
    const char *unit = e->unit ? e->unit : "epochs";
    if (!strcmp(unit, "epochs")) {
        snprintf(u.key, sizeof u.key, "epochs");
        snprintf(u.label, sizeof u.label, "ep");
    } else if (e->train_set_size > 0) {
        u.divisor = e->train_set_size;
        snprintf(u.key, sizeof u.key, "epochs");
        snprintf(u.label, sizeof u.label, "ep");
    } else if (counted_in_millions(unit)) {
        u.epochs = 0;
        u.divisor = 1e6;
        snprintf(u.key, sizeof u.key, "million_%s", unit);
        snprintf(u.label, sizeof u.label, "M%s", unit);
    } else {
        u.epochs = 0;
        snprintf(u.key, sizeof u.key, "%s", unit);
        snprintf(u.label, sizeof u.label, "%s", unit);
    }
    return u;
}

int tta_progress_scale_same(const tta_progress_scale *a, const tta_progress_scale *b) { return !strcmp(a->key, b->key); }

const char tta_below_batch_why[] = "a convergence point below one global batch of samples is no sample count "
                                   "(the log's evaluations count something else)";

const char *tta_run_progress_problem(const tta_entry_data *e, const tta_run_data *r) {
    if (isnan(r->progress)) return "not converged as the RCP checker reads it, or progress not logged";
    if (e->unit && !strcmp(e->unit, "samples") && r->global_batch_size > 0 && r->progress < r->global_batch_size)
        return tta_below_batch_why;
    return NULL;
}

int tta_entry_is_mlperf(const tta_entry_data *e) { return tta_rules_is_mlperf_round(tta_rules_builtin(), e->round); }

int tta_entry_is_algoperf(const tta_entry_data *e) { return !strncmp(e->round, "algoperf-", 9); }

int tta_run_succeeded(const tta_run_data *r) { return r->succeeded; }

double tta_entry_rank_score_s(const tta_entry_summary *s) {
    if (s->weak) return NAN; /* the time to train many instances ranks with no time to train one */
    if (tta_entry_is_algoperf(s->entry)) return NAN; /* tta report algoperf ranks them, as AlgoPerf does */
    return tta_entry_is_mlperf(s->entry) ? s->published_s : s->tta_mean_s;
}

double tta_entry_accelerator_minutes(const tta_entry_summary *s) {
    int acc = s->entry->accelerators;
    return acc > 0 ? acc * tta_entry_rank_score_s(s) / 60.0 : NAN;
}

double tta_entry_cost_usd(const tta_entry_summary *s) {
    return s->entry->cost_per_hour * tta_entry_rank_score_s(s) / 3600.0;
}

/* Seed of the CV bootstrap: fixed, so that a report is the same every time it is made. */
#define SUMMARY_BOOTSTRAP_SEED 20190613UL
#define SUMMARY_BOOTSTRAP_RESAMPLES 2000

/* An MLPerf HPC weak-scaling entry's score (the summarizer's _compute_weak_score_standalone): its
 * runs are the model instances, counted as the strong score counts runs. */
static void summarize_weak(const tta_entry_data *e, const int *counted, tta_entry_summary *s) {
    size_t n = e->n_runs;
    double *start = mallocCheck((n ? n : 1) * sizeof *start), *stop = mallocCheck((n ? n : 1) * sizeof *stop);
    int *nodes = mallocCheck((n ? n : 1) * sizeof *nodes), *per_node = mallocCheck((n ? n : 1) * sizeof *per_node);
    for (size_t i = 0; i < n; i++) {
        start[i] = e->runs[i].run_start_s;
        stop[i] = e->runs[i].run_stop_s;
        nodes[i] = e->runs[i].log_nodes;
        per_node[i] = e->runs[i].log_accelerators_per_node;
    }
    s->weak = 1;
    s->weak_score = tta_weak_scaling_score(start, stop, counted, nodes, per_node, n, e->benchmark, e->round);
    s->score = (tta_score){.score = s->weak_score.time_all, .n_runs = n, .n_used = s->weak_score.n_models,
                           .n_dropped = n - s->weak_score.n_models, .required = s->weak_score.required,
                           .reason = s->weak_score.reason, .why = s->weak_score.why};
    free(start);
    free(stop);
    free(nodes);
    free(per_node);
}

void tta_summarize_entry(const tta_entry_data *e, tta_entry_summary *s, int with_cv_ci) {
    memset(s, 0, sizeof *s);
    s->entry = e;
    size_t n = e->n_runs;
    s->runs = n;
    /* the logs the summarizer reads: the runs, and the result logs ingest read as no run */
    size_t n_logs = n + (e->unread_logs > 0 ? (size_t)e->unread_logs : 0);
    double *times = mallocCheck((n_logs ? n_logs : 1) * sizeof *times);
    int *success = mallocCheck((n ? n : 1) * sizeof *success);
    double *ok = mallocCheck((n ? n : 1) * sizeof *ok);
    double *tta = mallocCheck((n ? n : 1) * sizeof *tta), *progress = mallocCheck((n ? n : 1) * sizeof *progress);
    s->batch = NAN;
    s->unit = tta_entry_progress_scale(e);
    double *all_ok = mallocCheck((n ? n : 1) * sizeof *all_ok);
    for (size_t i = 0; i < n; i++) {
        const tta_run_data *r = &e->runs[i];
        times[i] = r->tta_s;
        success[i] = tta_run_succeeded(r);
        s->reached += r->reached == 1;
        if (success[i]) all_ok[s->succeeded++] = r->tta_s;
        /* tta's own statistics leave out a run whose duration a flag says cannot be trusted; the
         * official score keeps it where MLCommons' summarizer does */
        int counted = success[i] && !r->time_suspect;
        s->time_suspect += success[i] && r->time_suspect;
        if (counted) ok[s->counted++] = r->tta_s;
        tta[i] = counted ? r->tta_s : NAN;
        const char *problem = tta_run_progress_problem(e, r);
        progress[i] = problem ? NAN : r->progress / s->unit.divisor;
        s->no_progress += success[i] && problem;
        s->below_batch += success[i] && problem && !isnan(r->progress);
        s->success_unmet += r->success_unmet != 0;
        if (isnan(s->batch) && !isnan(r->global_batch_size)) s->batch = r->global_batch_size;
    }
    s->tta_mean_s = tta_mean(ok, s->counted);
    s->cv_with_suspect = s->time_suspect ? tta_cv(all_ok, s->succeeded) : NAN;
    if (tta_entry_is_mlperf(e)) {
        /* MLCommons' summarizer drops a run whose log it cannot parse whole (a broken record), and one
         * that fails its compliance checks (flag not_compliant). */
        int *counted = mallocCheck((n_logs ? n_logs : 1) * sizeof *counted);
        for (size_t i = 0; i < n; i++) {
            counted[i] = success[i] && e->runs[i].unreadable_records == 0 && !e->runs[i].not_compliant;
            s->not_compliant_runs += e->runs[i].not_compliant;
            s->unreadable_runs += e->runs[i].unreadable_records > 0;
        }
        /* a log without a run (no run_start) is a run it drops: it stands in for a slow one */
        for (size_t i = n; i < n_logs; i++) times[i] = NAN, counted[i] = 0;
        s->unread_logs = n_logs - n;
        if (e->scaling && !strcmp(e->scaling, "weak"))
            summarize_weak(e, counted, s);
        else
            s->score = tta_official_score(times, counted, n_logs, e->benchmark, e->round);
        free(counted);
        s->score_s = s->weak ? NAN : s->score.score; /* no wall-clock time of one training */
    } else {
        s->score = (tta_score){.score = NAN, .n_runs = n, .why = "no official score outside MLPerf rounds"};
        s->score_s = s->tta_mean_s;
    }
    /* The summarizer multiplies the olympic mean by the folder's scaling factor; the wall-clock
     * score (score_s) stays what the runs measured, for speedups. */
    s->scaling_factor = e->scaling_factor > 0 ? e->scaling_factor : 1.0;
    s->published_s = s->score.score * s->scaling_factor;
    /* tta_decompose is unit-blind: its "epochs" are the progress in s->unit. */
    s->dec = tta_decompose(tta, progress, n);
    if (with_cv_ci)
        s->cv = tta_cv_bootstrap(ok, s->counted, SUMMARY_BOOTSTRAP_RESAMPLES, 0.05, SUMMARY_BOOTSTRAP_SEED);
    else
        s->cv = (tta_cv_ci){.cv = tta_cv(ok, s->counted), .low = NAN, .high = NAN};
    free(all_ok);
    free(times);
    free(success);
    free(ok);
    free(tta);
    free(progress);
}
