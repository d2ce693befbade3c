/* energy.c: energy to train from MLPerf power logs, as MLCommons' result summarizer computes it
 * (result_summarizer.py: _compute_power_node, _compute_power_sw, _compute_total_power and the
 * power part of _compute_strong_score_standalone, logging 4.1.59), with a reason where the
 * summarizer stops with an exception or prints a meaningless number. */
#include <assert.h>
#include <math.h>
#include <stdlib.h>

#include "common/check.h"
#include "stats/stats.h"

const char *tta_energy_status_text(tta_energy_status status) {
    switch (status) {
    case TTA_ENERGY_OK: return NULL;
    case TTA_ENERGY_NO_TIME: return "the run's time to train is unknown";
    case TTA_ENERGY_NO_START: return "a node power log has no power_measurement_start";
    case TTA_ENERGY_EMPTY_WINDOW: return "a node power log's measurement window is empty (stop not after start)";
    case TTA_ENERGY_BAD_VALUE: return "a power log value it needs is not a number";
    case TTA_ENERGY_NO_NODE_LOG: return "the run has no node power log";
    case TTA_ENERGY_NO_SCORE: return "no performance score, so no energy score";
    case TTA_ENERGY_RUN_MISSING: return "a run the score averages has no energy";
    case TTA_ENERGY_OTHER_SLICE: return "the score does not average the summarizer's olympic slice";
    }
    return "unknown reason";
}

static tta_node_energy node_failed(tta_node_energy r, tta_energy_status status) {
    r.energy_j = r.avg_power_w = NAN;
    r.status = status;
    r.why = tta_energy_status_text(status);
    return r;
}

/* Orders events by time; equal times keep their log order (Python's stable sort). */
typedef struct {
    double time_s;
    size_t index;
} time_order;

static int by_time_then_index(const void *pa, const void *pb) {
    const time_order *a = pa, *b = pb;
    if (a->time_s < b->time_s) return -1;
    if (a->time_s > b->time_s) return 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

tta_node_energy tta_power_node_energy(const tta_power_event *ev, size_t n, double tta_s) {
    assert(n == 0 || ev);
    tta_node_energy r = {.energy_j = NAN, .avg_power_w = NAN, .conversion_eff = 1.0, .window_s = NAN};
    /* The summarizer sorts the log's records by time and walks them in that order. A record
     * without a time (NAN) cannot be placed: it is left out (the official parser cannot read it). */
    time_order *order = mallocCheck((n ? n : 1) * sizeof *order);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(ev[i].time_s)) order[m++] = (time_order){ev[i].time_s, i};
    qsort(order, m, sizeof *order, by_time_then_index);
    double start = 0, stop = 0, prev = 0, last = 0, sum = 0;
    int have_start = 0, have_stop = 0, bad = 0;
    for (size_t k = 0; k < m; k++) {
        const tta_power_event *e = &ev[order[k].index];
        switch (e->key) {
        case TTA_POWER_START:
            /* A second start restarts the window and the interval of the next reading. */
            start = prev = e->time_s;
            have_start = 1;
            break;
        case TTA_POWER_READING:
            if (have_start && !have_stop) {
                /* Each reading stands for the interval since the previous one (or the start). */
                if (isnan(e->value)) bad = 1;
                sum += e->value * (e->time_s - prev);
                prev = e->time_s;
                if (e->time_s > last) last = e->time_s;
                r.readings++;
            }
            break;
        case TTA_POWER_STOP:
            stop = e->time_s; /* the last stop's time, though readings end at the first */
            have_stop = 1;
            break;
        case TTA_POWER_CONVERSION_EFF:
            r.conversion_eff = e->value; /* the last one in time order */
            break;
        default: break;
        }
    }
    free(order);
    r.stop_found = have_stop;
    if (!have_start) return node_failed(r, TTA_ENERGY_NO_START);
    /* Without a stop the summarizer takes the latest reading's time (0 when there was none). */
    if (!have_stop) stop = last;
    r.window_s = stop - start;
    if (!(r.window_s > 0)) return node_failed(r, TTA_ENERGY_EMPTY_WINDOW);
    if (bad || isnan(r.conversion_eff)) return node_failed(r, TTA_ENERGY_BAD_VALUE);
    r.avg_power_w = r.conversion_eff * sum / r.window_s;
    if (!(tta_s > 0)) {
        r.status = TTA_ENERGY_NO_TIME; /* the mean power stands */
        r.why = tta_energy_status_text(r.status);
        return r;
    }
    r.energy_j = r.avg_power_w * tta_s;
    return r;
}

tta_switch_energy tta_power_switch_energy(const tta_power_event *ev, size_t n, double tta_s) {
    assert(n == 0 || ev);
    tta_switch_energy r = {.energy_j = NAN, .power_w = 0, .conversion_eff = 1.0, .measured_j = NAN};
    /* In log order, unsorted: efficiencies up to the first estimate; that estimate alone. */
    for (size_t i = 0; i < n; i++) {
        if (ev[i].key == TTA_POWER_CONVERSION_EFF) {
            r.conversion_eff = ev[i].value;
        } else if (ev[i].key == TTA_POWER_INTERCONNECT_EST) {
            r.power_w = ev[i].value;
            r.has_estimate = 1;
            break;
        }
    }
    size_t readings = 0;
    for (size_t i = 0; i < n; i++) readings += ev[i].key == TTA_POWER_READING;
    if (readings > 0) {
        tta_node_energy measured = tta_power_node_energy(ev, n, tta_s);
        r.measured_j = measured.energy_j;
    }
    if (!(tta_s > 0)) {
        r.status = TTA_ENERGY_NO_TIME;
    } else if (isnan(r.power_w) || isnan(r.conversion_eff)) {
        r.status = TTA_ENERGY_BAD_VALUE;
    } else {
        r.energy_j = r.conversion_eff * r.power_w * tta_s;
        return r;
    }
    r.why = tta_energy_status_text(r.status);
    return r;
}

static tta_run_energy run_failed(tta_run_energy r, tta_energy_status status, size_t bad_log) {
    r.energy_j = r.node_j = r.interconnect_j = r.avg_power_w = NAN;
    r.status = status;
    r.bad_log = bad_log;
    r.why = tta_energy_status_text(status);
    return r;
}

tta_run_energy tta_run_energy_of(const tta_power_log *logs, size_t n_logs, double tta_s) {
    assert(n_logs == 0 || logs);
    tta_run_energy r = {.interconnect_measured_j = NAN};
    for (size_t i = 0; i < n_logs; i++) {
        if (logs[i].is_switch) r.switches++;
        else r.nodes++;
    }
    if (r.nodes == 0) return run_failed(r, TTA_ENERGY_NO_NODE_LOG, 0);
    if (!(tta_s > 0)) return run_failed(r, TTA_ENERGY_NO_TIME, 0);
    double measured = 0;
    size_t measured_logs = 0;
    int measured_bad = 0;
    /* Nodes first, then switches, each in the caller's order (the summarizer's glob order). */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < n_logs; i++) {
            if (logs[i].is_switch != pass) continue;
            if (!pass) {
                tta_node_energy e = tta_power_node_energy(logs[i].events, logs[i].n, tta_s);
                if (e.status != TTA_ENERGY_OK) return run_failed(r, e.status, i);
                r.node_j += e.energy_j;
                r.no_stop += !e.stop_found;
            } else {
                tta_switch_energy e = tta_power_switch_energy(logs[i].events, logs[i].n, tta_s);
                if (e.status != TTA_ENERGY_OK) return run_failed(r, e.status, i);
                r.interconnect_j += e.energy_j;
                r.no_estimate += !e.has_estimate;
                for (size_t k = 0; k < logs[i].n; k++)
                    if (logs[i].events[k].key == TTA_POWER_READING) {
                        measured += e.measured_j;
                        measured_bad |= isnan(e.measured_j);
                        measured_logs++;
                        break;
                    }
            }
        }
    }
    r.energy_j = r.node_j + r.interconnect_j;
    r.avg_power_w = r.energy_j / tta_s;
    if (measured_logs && !measured_bad) r.interconnect_measured_j = measured;
    return r;
}

static tta_energy_score score_failed(tta_energy_score s, tta_energy_status status, const char *why) {
    s.energy_j = s.energy_unscaled_j = s.node_j = s.interconnect_j = s.avg_power_w = NAN;
    s.status = status;
    s.why = why ? why : tta_energy_status_text(status);
    return s;
}

tta_energy_score tta_energy_score_of(const double *tta_s, const int *success, const tta_run_energy *runs, size_t n,
                                     const char *benchmark, const char *round, double scaling_factor, int *used) {
    assert(n == 0 || (tta_s && success && runs));
    tta_energy_score s = {.scaling_factor = scaling_factor, .missing_run = -1};
    for (size_t i = 0; i < n; i++) {
        s.runs_with_energy += runs[i].status == TTA_ENERGY_OK;
        if (used) used[i] = 0;
    }
    /* The performance score decides which runs count: the same failed runs, the same k. */
    s.score = tta_official_score(tta_s, success, n, benchmark, round);
    if (isnan(s.score.score)) return score_failed(s, TTA_ENERGY_NO_SCORE, s.score.why);
    /* Its olympic slice, by time: positions [k, k + n_used) of the successful runs sorted by
     * time (the summarizer sorts the energies by their runs' times and slices them alike). */
    time_order *order = mallocCheck((n ? n : 1) * sizeof *order);
    size_t n_ok = 0;
    for (size_t i = 0; i < n; i++)
        if (success[i] && !isnan(tta_s[i])) order[n_ok++] = (time_order){tta_s[i], i};
    qsort(order, n_ok, sizeof *order, by_time_then_index); /* ties: run order */
    size_t k = s.score.max_dropped, end = k + s.score.n_used;
    assert(end <= n_ok);
    double t_sum = 0, e_sum = 0, node_sum = 0, ic_sum = 0;
    for (size_t p = k; p < end; p++) t_sum += order[p].time_s;
    /* a rule with runs_scored (v0.5 NCF: the first 50 that converged) scores other runs: not this slice. */
    double t_mean = t_sum / (double)s.score.n_used;
    if (fabs(t_mean - s.score.score) > 1e-9 * fabs(s.score.score)) {
        free(order);
        return score_failed(s, TTA_ENERGY_OTHER_SLICE, NULL);
    }
    for (size_t p = k; p < end; p++) {
        const tta_run_energy *r = &runs[order[p].index];
        if (r->status != TTA_ENERGY_OK && s.missing_run < 0) s.missing_run = (long)order[p].index;
        e_sum += r->energy_j; /* summed in time order, as the summarizer's sum() */
        node_sum += r->node_j;
        ic_sum += r->interconnect_j;
        if (used) used[order[p].index] = 1;
    }
    free(order);
    s.n_used = s.score.n_used;
    if (s.missing_run >= 0) return score_failed(s, TTA_ENERGY_RUN_MISSING, NULL);
    if (isnan(scaling_factor)) return score_failed(s, TTA_ENERGY_BAD_VALUE, "the scaling factor is not a number");
    double used_n = (double)s.n_used;
    s.energy_unscaled_j = e_sum / used_n;
    s.energy_j = s.energy_unscaled_j * scaling_factor;
    s.node_j = node_sum / used_n * scaling_factor;
    s.interconnect_j = ic_sum / used_n * scaling_factor;
    s.avg_power_w = e_sum / t_sum;
    return s;
}
