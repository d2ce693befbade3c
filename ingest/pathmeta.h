/* pathmeta.h: what a file's path says about it in the results repositories' layouts
 * (internal to ingest/). See docs/ingest.md for the rules. */
#ifndef TTA_INGEST_PATHMETA_H
#define TTA_INGEST_PATHMETA_H

#include "ingest/arena.h"

typedef struct {
    const char *round;     /* "v0.7" from a path component like v0.7, v0.5.0, training_results_v1.0; NULL */
    const char *submitter; /* the folder above results/ or systems/ (v0.5: the folder after v0.5.0) */
    const char *system;    /* results/<system>/ (v0.5: see docs), or the systems/<name>.json stem */
    const char *benchmark; /* canonical name of results/<system>/<benchmark>/, or of a DAWNBench
                              folder (CIFAR10, ImageNet, SQuAD); NULL */
    const char *stem;      /* file name without its extension */
    int run_index;         /* N of result_N, *_N.log, runN; -1 */
    int in_results;        /* 1: under a results/ folder */
    int in_systems;        /* 1: under a systems/ folder */
    int in_power;          /* 1: under results/<system>/<benchmark>/power/ */
} tta_path_meta;

/* Reads the layout from path; strings live in arena. */
void tta_path_meta_read(const char *path, tta_arena *arena, tta_path_meta *out);

/* Normalises a round name ("0.7", "v0.7.0", "training_results_v1.0") to "v0.7" form, or NULL. */
const char *tta_round_normalize(const char *s, size_t n, tta_arena *arena);

#endif
