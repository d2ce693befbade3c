/* decompose.c: how much of the run-to-run variance of TTA comes from the number of epochs and how
 * much from the time per epoch (TTA = epochs x tpe, so log TTA = log epochs + log tpe). */
#include <assert.h>
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_statistics_double.h>

#include "common/check.h"
#include "stats/stats.h"

/* Population variance of x and y and their population covariance. */
static void log_moments(const double *x, const double *y, size_t n, double *vx, double *vy, double *cov) {
    double mx = gsl_stats_mean(x, 1, n), my = gsl_stats_mean(y, 1, n);
    *vx = gsl_stats_variance_with_fixed_mean(x, 1, n, mx);
    *vy = gsl_stats_variance_with_fixed_mean(y, 1, n, my);
    double c = 0;
    for (size_t i = 0; i < n; i++) c += (x[i] - mx) * (y[i] - my);
    *cov = c / (double)n;
}

/* Decomposition over the runs with a positive TTA and positive epochs. */
tta_decomposition tta_decompose(const double *tta, const double *epochs, size_t n) {
    tta_decomposition d = {.epochs_mean = NAN, .epochs_std = NAN, .tpe_mean = NAN, .tpe_std = NAN,
                           .cv_epochs = NAN, .cv_tpe = NAN, .cv_ratio = NAN, .log_share_epochs = NAN,
                           .log_share_tpe = NAN, .log_share_cov = NAN};
    assert(n == 0 || (tta && epochs));
    size_t cap = n ? n : 1;
    double *e = mallocCheck(cap * sizeof *e), *t = mallocCheck(cap * sizeof *t);
    double *le = mallocCheck(cap * sizeof *le), *lt = mallocCheck(cap * sizeof *lt);
    for (size_t i = 0; i < n; i++) {
        /* !(x > 0) also rejects NAN: a run that never reached the target or has no epochs. */
        if (!(tta[i] > 0) || !(epochs[i] > 0)) continue;
        e[d.n] = epochs[i];
        t[d.n] = tta[i] / epochs[i];
        le[d.n] = log(e[d.n]);
        lt[d.n] = log(t[d.n]);
        d.n++;
    }
    if (d.n == 0) {
        d.reason = TTA_NO_EPOCHS;
        goto out;
    }
    d.epochs_mean = tta_mean(e, d.n);
    d.epochs_std = tta_std_population(e, d.n);
    d.tpe_mean = tta_mean(t, d.n);
    d.tpe_std = tta_std_population(t, d.n);
    d.cv_epochs = tta_cv(e, d.n);
    d.cv_tpe = tta_cv(t, d.n);
    if (d.n == 1) {
        d.reason = TTA_ONE_VALUE;
        goto out;
    }
    if (d.cv_tpe > 0)
        d.cv_ratio = d.cv_epochs / d.cv_tpe;
    else
        d.reason = TTA_IDENTICAL_VALUES;
    double ve, vt, cov;
    log_moments(le, lt, d.n, &ve, &vt, &cov);
    double total = ve + vt + 2 * cov; /* = Var(log TTA) */
    /* Identical TTAs leave rounding noise of the size of ve + vt times the machine epsilon. */
    if (total > 1e-12 * (ve + vt)) {
        d.log_share_epochs = ve / total;
        d.log_share_tpe = vt / total;
        d.log_share_cov = 2 * cov / total;
    } else if (d.reason == TTA_REASON_NONE) {
        d.reason = TTA_NO_VARIANCE;
    }
out:
    d.why = tta_reason_text(d.reason);
    free(e);
    free(t);
    free(le);
    free(lt);
    return d;
}
