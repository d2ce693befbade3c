/* pathmeta.h: what a file's path says about it in the results repositories' layouts
 * (internal to ingest/). The rules are in docs/ingest.md ("Identity"). */
#ifndef TTA_INGEST_PATHMETA_H
#define TTA_INGEST_PATHMETA_H

#include "ingest/arena.h"

typedef enum {
    TTA_LAYOUT_NONE = 0, /* no recognised layout */
    TTA_LAYOUT_RESULTS,  /* .../<submitter>/results/<system>/[<benchmark>/]<file> */
    TTA_LAYOUT_SYSTEMS,  /* .../<submitter>/systems/<system>.json */
} tta_layout;

typedef struct {
    const char *round;     /* "v0.7" from a component like v0.7, v0.5.0, training_results_v1.0; NULL */
    const char *division;  /* a "closed" or "open" component; NULL */
    const char *submitter; /* layout submitter; NULL */
    const char *system;    /* layout system (results/<system>, systems/<system>.json); NULL */
    const char *benchmark; /* canonical name of the benchmark folder (or a DAWNBench task folder); NULL */
    const char *stem;      /* file name without its last extension */
    const char *dir_stem;  /* power logs: the result_N folder */
    int run_index;         /* tta_trailing_index of the stem (result_3, *_3.log, train_run3); -1 */
    int layout;            /* tta_layout */
    int auxiliary;         /* a file in a subfolder of results/<system>/<benchmark>/ other than power/ */
    int power;             /* results/<system>/<benchmark>/power/result_N/<file> (run_index = N) */
} tta_path_meta;

/* Reads path's layout into *out; strings live in arena (or are static). */
void tta_path_meta_read(const char *path, tta_arena *arena, tta_path_meta *out);

/* Normalises a round folder name ("v0.7", "v0.5.0", "training_results_v1.0") to "vX.Y" in
 * arena, or returns NULL when the name is not one. */
const char *tta_round_from_name(const char *s, size_t n, tta_arena *arena);

/* The run number in a file stem (n bytes): N of result_N..., else the last group of at most
 * six digits (train_run3, *_3.log); -1 when there is none. */
int tta_trailing_index(const char *s, size_t n);

#endif
