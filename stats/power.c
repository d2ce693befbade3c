/* power.c: the power of a two-sample t-test (noncentral t distribution) and the number of runs
 * per group a comparison needs to detect a given relative difference. */
#include <math.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_randist.h>

#include "stats/stats.h"

/* Above this many degrees of freedom sqrt(V/df) is taken as 1 (error O(1/df)). */
#define POWER_NORMAL_DF 1e6
#define POWER_MAX_STEPS 10000

typedef struct {
    double scale;  /* coefficient of sqrt(V / df) */
    double offset; /* added to it */
    double df;
} tail_integrand;

/* Phi(offset + scale sqrt(v / df)) times the chi-square density of v. */
static double tail_at(double v, void *params) {
    const tail_integrand *p = params;
    return gsl_cdf_ugaussian_P(p->offset + p->scale * sqrt(v / p->df)) * gsl_ran_chisq_pdf(v, p->df);
}

/* E[Phi(offset + scale S)] with S = sqrt(V / df), V chi-square with df degrees of freedom: with
 * scale -t and offset delta it is P(T' > t) for T' noncentral t (df, delta). The chi-square mass
 * outside df +- 40 sd (+ 40) is below 1e-300. NAN when the integration fails. */
static double expected_phi(double scale, double offset, double df) {
    if (df > POWER_NORMAL_DF) return gsl_cdf_ugaussian_P(offset + scale);
    tail_integrand p = {scale, offset, df};
    gsl_function f = {tail_at, &p};
    double sd = sqrt(2 * df), lo = fmax(0.0, df - 40 * sd), hi = df + 40 * sd + 40;
    gsl_integration_workspace *w = gsl_integration_workspace_alloc(1000);
    if (!w) return NAN;
    double result, abserr;
    int status = gsl_integration_qags(&f, lo, hi, 1e-14, 1e-10, 1000, w, &result, &abserr);
    gsl_integration_workspace_free(w);
    return status == GSL_SUCCESS ? result : NAN;
}

double tta_t_test_power(double n, double effect, double alpha) {
    gsl_set_error_handler_off();
    if (!(n >= 2) || !(alpha > 0 && alpha < 1) || isnan(effect)) return NAN;
    double df = 2 * n - 2, delta = fabs(effect) * sqrt(n / 2);
    double t_crit = gsl_cdf_tdist_Qinv(alpha / 2, df);
    /* P(T' > t_crit) + P(T' < -t_crit) */
    return expected_phi(-t_crit, delta, df) + expected_phi(-t_crit, -delta, df);
}

double tta_runs_needed(double mean, double sd, double rel_diff, double alpha, double power) {
    gsl_set_error_handler_off();
    if (!(mean > 0) || !(sd > 0) || !(rel_diff > 0) || !(alpha > 0 && alpha < 1) || !(power > 0 && power < 1))
        return NAN;
    double effect = rel_diff * mean / sd;
    double z = gsl_cdf_ugaussian_Pinv(1 - alpha / 2) + gsl_cdf_ugaussian_Pinv(power);
    double n = fmax(2.0, ceil(2 * z * z / (effect * effect)));
    /* The normal approximation undershoots by a run or two; power grows with n. */
    int reached = 0;
    for (int step = 0; step < POWER_MAX_STEPS && !reached; step++) {
        double p = tta_t_test_power(n, effect, alpha);
        if (isnan(p)) return NAN;
        reached = p >= power;
        if (!reached) n += 1;
    }
    if (!reached) return NAN;
    while (n > 2) {
        double p = tta_t_test_power(n - 1, effect, alpha);
        if (isnan(p) || p < power) break;
        n -= 1;
    }
    return n;
}
