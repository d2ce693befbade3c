/* pathmeta.h: what a file's path says about it in the results repositories' layouts
 * (internal to ingest/). The rules are in docs/ingest.md ("Identity"). */
#ifndef TTA_INGEST_PATHMETA_H
#define TTA_INGEST_PATHMETA_H

#include "ingest/arena.h"
#include "ingest/parsed.h"

typedef enum {
    TTA_LAYOUT_NONE = 0, /* no recognised layout */
    TTA_LAYOUT_RESULTS,  /* .../<submitter>/results/<system>/[strong/|weak/][<benchmark>/]<file> */
    TTA_LAYOUT_SYSTEMS,  /* .../<submitter>/systems/<system>.json */
} tta_layout;

typedef struct {
    const char *round;     /* "v0.7" from a component like v0.7, v0.5.0, training_results_v1.0; NULL */
    const char *division;  /* a "closed" or "open" component; NULL */
    const char *submitter; /* layout submitter; NULL */
    const char *system;    /* layout system (results/<system>, systems/<system>.json); NULL */
    const char *benchmark; /* canonical name of the benchmark folder (or a DAWNBench task folder); NULL */
    const char *scaling;   /* MLPerf HPC: "strong" or "weak", the folder between system and benchmark; NULL */
    const char *stem;      /* file name without its last extension */
    const char *dir_stem;  /* power logs: the result_N folder */
    const char *subfolder; /* the subfolder of results/<system>/<benchmark>/ the file is in, other than
                              power/ ("raw_logs"); NULL */
    int run_index;         /* tta_trailing_index of the stem (result_3, *_3.log, train_run3); -1 */
    int layout;            /* tta_layout */
    int auxiliary;         /* a file in a subfolder of results/<system>/<benchmark>/ other than power/ */
    int power;             /* results/<system>/<benchmark>/power/result_N/<file> (run_index = N) */
    int in_benchmark;      /* directly in results/<system>/<benchmark>/ */
    int code_folder;       /* under <submitter>/benchmarks/ (or benchmark/): code, and sample logs */
} tta_path_meta;

/* Reads path's layout into *out; strings live in arena (or are static). */
void tta_path_meta_read(const char *path, tta_arena *arena, tta_path_meta *out);

/* Why a file found in a folder is not read although its format is one tta reads: where it
 * lies, the official tools read no results (docs/ingest.md, "What is read"). */
typedef enum {
    TTA_SKIP_NONE = 0,
    TTA_SKIP_CODE_FOLDER, /* any file under <submitter>/benchmarks/ or benchmark/: sample logs, not results */
    TTA_SKIP_SUBFOLDER,   /* a log in a subfolder of results/<system>/<benchmark>/ other than power/
                             (raw_logs/, logs/: copies of the runs) */
    TTA_SKIP_NOT_RESULT,  /* from v1.0 on (and for :::MLLOG logs of unknown round), a log in a results
                             folder other than <benchmark>/result_*.txt (checker output, other logs);
                             a scaling.json elsewhere than in a benchmark folder */
} tta_skip_kind;

/* The skip kind of a file of format f whose path gave *m (TTA_SKIP_NONE for TTA_FMT_UNKNOWN);
 * path is the same path (its last component is the file name). A file named on the command line
 * is read whatever this says. */
tta_skip_kind tta_path_skip(const char *path, const tta_path_meta *m, tta_format f);

/* Normalises a round folder name ("v0.7", "v0.5.0", "training_results_v1.0") to "vX.Y" in
 * arena, an MLPerf HPC one ("hpc-v1.0", "mlperf-hpc-v2.0", "hpc_results_v0.7") to "hpc-vX.Y", or
 * returns NULL when the name is not one. */
const char *tta_round_from_name(const char *s, size_t n, tta_arena *arena);

/* The run number in a file stem (n bytes): N of result_N... (result_3_4n16r_32k_1593118427), but
 * n of result_<id>_<n> where the first number is an id of more than six digits; else the last
 * group of at most six digits (train_run3, *_3.log); -1 when there is none. */
int tta_trailing_index(const char *s, size_t n);

/* The entry a DAWNBench file stem names: the stem less a trailing "_seed<N>" / "_run<N>", which
 * numbers a run (*run_index, when not NULL; -1 without one). The result is the stem itself or a
 * copy in arena. */
char *tta_dawnbench_entry_name(const char *stem, tta_arena *arena, int *run_index);

#endif
