/* schedule.h: learning-rate schedules, as functions of training progress in (fractional) epochs
 * (internal to replay/). Read from the JSON forms recipes use:
 *
 *   {"type": "piecewiseLinear", "epochs": [0, 2, 15], "values": [0, 0.1, 0]}   DAWNBench; linear in
 *        between, per iteration; the last value after the last epoch
 *   {"type": "step", "base": 0.1, "milestones": [30, 60], "gamma": 0.1}
 *   {"type": "cosine", "base": 0.1, "epochs": 90, "final": 0}
 *   {"type": "polynomial", "base": 2.0, "epochs": 40, "power": 2, "final": 1e-4}   MLPerf ResNet
 *   {"type": "invsqrt", "base": 1.0, "warmup_epochs": 1}    transformer style: base·min(1/√e, e/w^1.5)
 * and any of them with "warmup_epochs": W (except invsqrt, which has its own): linear from 0 to the
 * schedule's value at W.
 *
 * Ownership: a schedule is a plain value (no pointers out): copy it freely.
 */
#ifndef TTA_REPLAY_SCHEDULE_H
#define TTA_REPLAY_SCHEDULE_H

#include <stddef.h>

#define TTA_SCHEDULE_MAX_POINTS 32

typedef enum {
    TTA_LR_PIECEWISE_LINEAR,
    TTA_LR_STEP,
    TTA_LR_COSINE,
    TTA_LR_POLYNOMIAL,
    TTA_LR_INVSQRT,
} tta_lr_kind;

typedef struct {
    tta_lr_kind kind;
    double base, final_lr, gamma, power, total_epochs, warmup_epochs;
    double epochs[TTA_SCHEDULE_MAX_POINTS]; /* piecewise: knots; step: milestones */
    double values[TTA_SCHEDULE_MAX_POINTS]; /* piecewise: values at the knots */
    size_t n;
} tta_lr_schedule;

/* Parses a schedule from JSON text. Returns 0, or -1 with "<field>: reason" in err. */
int tta_lr_schedule_parse(const char *json, tta_lr_schedule *out, char *err, size_t errlen);

/* The learning rate after `epoch` epochs of training (fractional: iteration / iterations per epoch). */
double tta_lr_at(const tta_lr_schedule *s, double epoch);

#endif
