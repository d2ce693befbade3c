/* fuzz_check.h: what every parser fuzz target checks about a parsed file, beyond not crashing:
 * the invariants the store relies on (tests/fuzz/). A violation aborts, which libFuzzer reports
 * with the input. */
#ifndef TTA_FUZZ_CHECK_H
#define TTA_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/jsonscan.h"
#include "ingest/parse.h"
#include "ingest/records.h"

static inline void fuzz_fail(const char *what) {
    fprintf(stderr, "fuzz invariant broken: %s\n", what);
    abort();
}

static inline void fuzz_check_json(tta_str s, int object) {
    tta_json_span v;
    if (!s.p || !tta_json_whole(s.p, s.p + s.n, &v)) fuzz_fail("value or metadata is not JSON");
    if (object && v.type != TTA_JSON_OBJECT) fuzz_fail("metadata is not an object");
}

/* Parses data as the file at path and checks the result. */
static inline void fuzz_parse(const char *path, const unsigned char *data, size_t size) {
    tta_parsed_file f = {0};
    if (tta_parse_buffer(path, (const char *)data, size, &f) != 0) fuzz_fail("tta_parse_buffer returned an error");
    if (f.failed) {
        /* "<path>:<line>: <reason>" */
        size_t n = strlen(path);
        if (!f.error || strncmp(f.error, path, n) != 0 || f.error[n] != ':') fuzz_fail("error without path:line");
    } else {
        for (size_t i = 0; i < f.n_events; i++) {
            fuzz_check_json(f.events[i].value, 0);
            if (f.events[i].metadata.n) fuzz_check_json(f.events[i].metadata, 1);
            if (f.events[i].line == 0) fuzz_check_json((tta_str){0}, 0);
        }
        for (size_t i = 0; i < f.run.n_hparams; i++) fuzz_check_json(f.run.hparams[i].value, 0);
        if (f.system.raw_json) fuzz_check_json((tta_str){f.system.raw_json, (uint32_t)strlen(f.system.raw_json)}, 1);
        for (size_t i = 1; i < f.n_events; i++)
            if (f.events[i].line < f.events[i - 1].line) fuzz_fail("events out of line order");
        /* What the store writes to event_log.records: one valid JSON array of every event. */
        tta_parsed_encode_records(&f);
        tta_json_span all;
        if (!f.records || strlen(f.records) != f.records_len ||
            !tta_json_whole(f.records, f.records + f.records_len, &all) || all.type != TTA_JSON_ARRAY)
            fuzz_fail("records JSON is not a valid array");
        if (f.records_files && (!tta_json_whole(f.records_files, f.records_files + strlen(f.records_files), &all) ||
                                all.type != TTA_JSON_ARRAY))
            fuzz_fail("records files JSON is not a valid array");
    }
    tta_parsed_free(&f);
}

#endif
