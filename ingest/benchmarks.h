/* benchmarks.h: benchmark names, their quality scales and DAWNBench thresholds (internal to
 * ingest/). The scales are those of schemas/001_init.sql's targets table. */
#ifndef TTA_INGEST_BENCHMARKS_H
#define TTA_INGEST_BENCHMARKS_H

#include <stddef.h>

/* How a benchmark's quality is stored. */
typedef enum {
    TTA_SCALE_ASIS = 0, /* stored as logged (WER, log perplexity, loss, FID, unknown benchmarks) */
    TTA_SCALE_FRACTION, /* accuracy, mAP, AUC, hit rate, win rate, dice: a fraction of 1 */
    TTA_SCALE_BLEU,     /* BLEU points (0-100) */
    TTA_SCALE_PERCENT,  /* DAWNBench accuracies and F1: percent */
} tta_quality_scale;

/* Canonical lowercase name (a static string) of a benchmark as logged or as a folder name, or
 * NULL when the name is not one. round ("v0.5", ...; may be NULL) decides the names whose
 * meaning changed: "recommendation" is NCF up to v0.6 and DLRM from v0.7 on. */
const char *tta_benchmark_canonical(const char *name, size_t n, const char *round);

/* 1 for the DAWNBench tasks (cifar10, imagenet, squad, fashion-mnist). */
int tta_benchmark_is_dawnbench(const char *canonical);

tta_quality_scale tta_benchmark_scale(const char *canonical);

/* DAWNBench: the TSV column holding a task's primary metric ("top1Accuracy", "top5Accuracy",
 * "f1Score") and its threshold in percent; NULL / NAN for other names. */
const char *tta_dawnbench_metric_column(const char *canonical);
double tta_dawnbench_threshold(const char *canonical);

/* 1 when the benchmark counts progress in training samples from this round on (BERT from
 * v1.0: its eval_accuracy epoch_num is a sample count). */
int tta_benchmark_epoch_is_samples(const char *canonical, const char *round);

/* Compares round names "vX.Y": <0, 0, >0; unknown rounds sort first. */
int tta_round_compare(const char *a, const char *b);

#endif
