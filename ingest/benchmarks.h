/* benchmarks.h: canonical benchmark names and the quality scale each is stored in (internal). */
#ifndef TTA_INGEST_BENCHMARKS_H
#define TTA_INGEST_BENCHMARKS_H

#include <stddef.h>

/* Canonical lowercase name of a benchmark as logged or as a folder name ("resnet",
 * "maskrcnn", "gnmt", ...; "mask" and "image_classification" map to theirs), or NULL when
 * the name is not a known benchmark. */
const char *tta_benchmark_canonical(const char *name, size_t n);

/* Brings a logged quality to the benchmark's stored scale (schemas/001_init.sql targets):
 * fractions for accuracy-like metrics (a value above 1.5 is taken as percent), BLEU in points
 * (a value at or below 1 is taken as a fraction). Unknown benchmarks keep the value. */
double tta_quality_normalize(const char *benchmark, double q);

#endif
