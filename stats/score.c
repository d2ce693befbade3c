/* score.c: the official MLPerf score (olympic mean) and the runs the rules require. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "stats/stats.h"

size_t tta_required_runs(const char *benchmark, const char *round) {
    if (!benchmark || !round || round[0] != 'v') return 0;
    static const char *const five[] = {"resnet", "ssd", "maskrcnn", "retinanet", "dlrm", "dlrm_dcnv2",
                                       "stable_diffusion", "gnn"};
    for (size_t i = 0; i < sizeof five / sizeof five[0]; i++)
        if (!strcmp(benchmark, five[i])) return 5;
    if (!strcmp(benchmark, "unet3d")) return 40;
    if (!strcmp(benchmark, "ncf") && !strcmp(round, "v0.5")) return 100;
    static const char *const ten[] = {"gnmt", "transformer", "minigo", "bert", "rnnt", "ncf", "gpt3",
                                      "llama2_70b_lora"};
    for (size_t i = 0; i < sizeof ten / sizeof ten[0]; i++)
        if (!strcmp(benchmark, ten[i])) return 10;
    return 0;
}

static int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

tta_score tta_official_score(const double *times, const int *success, size_t n, const char *benchmark,
                             const char *round) {
    tta_score s = {.score = NAN, .n_runs = n, .required = tta_required_runs(benchmark, round)};
    size_t max_dropped = benchmark && !strcmp(benchmark, "unet3d") ? 4 : 1;
    double *ok = mallocCheck((n ? n : 1) * sizeof *ok);
    size_t n_ok = 0;
    for (size_t i = 0; i < n; i++) {
        if (success[i] && !isnan(times[i]))
            ok[n_ok++] = times[i];
        else
            s.n_dropped++;
    }
    if (s.n_dropped > max_dropped) {
        s.why = "too many runs did not succeed for an official score";
        free(ok);
        return s;
    }
    qsort(ok, n_ok, sizeof *ok, compare_double);
    /* The summarizer's slice: scores[max_dropped : len - (max_dropped - dropped)] */
    size_t lo = max_dropped, hi = n_ok >= max_dropped - s.n_dropped ? n_ok - (max_dropped - s.n_dropped) : 0;
    if (hi <= lo) {
        s.why = "too few successful runs for an olympic mean";
        free(ok);
        return s;
    }
    double sum = 0;
    for (size_t i = lo; i < hi; i++) sum += ok[i];
    s.n_used = hi - lo;
    s.score = sum / (double)s.n_used;
    if (s.required && n < s.required) s.why = "fewer runs than the rules require";
    free(ok);
    return s;
}
