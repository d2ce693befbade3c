/* decompose.c: how much of the variance of TTA comes from the number of epochs and how much
 * from the time per epoch. */
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_statistics_double.h>

#include "common/check.h"
#include "stats/stats.h"

tta_decomposition tta_decompose(const double *tta, const double *epochs, size_t n) {
    gsl_set_error_handler_off();
    tta_decomposition d = {0};
    d.epochs_mean = d.epochs_std = d.tpe_mean = d.tpe_std = d.cv_epochs = d.cv_tpe = d.cv_ratio = NAN;
    d.log_share_epochs = d.log_share_tpe = d.log_share_cov = NAN;
    double *e = mallocCheck((n ? n : 1) * sizeof *e), *t = mallocCheck((n ? n : 1) * sizeof *t);
    double *le = mallocCheck((n ? n : 1) * sizeof *le), *lt = mallocCheck((n ? n : 1) * sizeof *lt);
    for (size_t i = 0; i < n; i++) {
        if (isnan(tta[i]) || isnan(epochs[i]) || epochs[i] <= 0 || tta[i] <= 0) continue;
        e[d.n] = epochs[i];
        t[d.n] = tta[i] / epochs[i];
        le[d.n] = log(e[d.n]);
        lt[d.n] = log(t[d.n]);
        d.n++;
    }
    if (d.n == 0) {
        d.why = "no run reached the target with its epochs logged";
        goto out;
    }
    d.epochs_mean = tta_mean(e, d.n);
    d.epochs_std = tta_std_population(e, d.n);
    d.tpe_mean = tta_mean(t, d.n);
    d.tpe_std = tta_std_population(t, d.n);
    d.cv_epochs = tta_cv(e, d.n);
    d.cv_tpe = tta_cv(t, d.n);
    if (d.n < 2) {
        d.why = "one run: no variance to decompose";
        goto out;
    }
    if (d.cv_tpe > 0)
        d.cv_ratio = d.cv_epochs / d.cv_tpe;
    else
        d.why = "time per epoch identical in every run: ratio undefined";
    {
        double me = gsl_stats_mean(le, 1, d.n), mt = gsl_stats_mean(lt, 1, d.n);
        double ve = gsl_stats_variance_with_fixed_mean(le, 1, d.n, me);
        double vt = gsl_stats_variance_with_fixed_mean(lt, 1, d.n, mt);
        double cov = 0;
        for (size_t i = 0; i < d.n; i++) cov += (le[i] - me) * (lt[i] - mt);
        cov /= (double)d.n;
        double total = ve + vt + 2 * cov;
        if (total > 0) {
            d.log_share_epochs = ve / total;
            d.log_share_tpe = vt / total;
            d.log_share_cov = 2 * cov / total;
        } else if (!d.why) {
            d.why = "TTA identical in every run: no variance to decompose";
        }
    }
out:
    free(e);
    free(t);
    free(le);
    free(lt);
    return d;
}
