/* db_file.c: a parsed file as the database writer stores it (db.h's tta_db_file): which rows
 * its format gives, and its records encoded. */
#include <assert.h>

#include "ingest/parsed.h"
#include "ingest/records.h"

tta_db_file tta_parsed_db_file(tta_parsed_file *f) {
    assert(f->path);
    tta_db_file v = {.path = f->path,
                     .format = tta_format_name(f->format),
                     .size = f->size,
                     .hash = f->hash,
                     .failed = f->failed,
                     .error = f->failed ? f->error : NULL};
    if (f->failed) return v;
    switch (f->format) {
    case TTA_FMT_MLPERF_V05:
    case TTA_FMT_MLPERF_V06:
    case TTA_FMT_MLLOG:
    case TTA_FMT_MLPERF_TEXT:
    case TTA_FMT_DAWNBENCH_TSV:
        /* ingest.c encodes in the parser threads; a file parsed elsewhere is encoded here. */
        if (!f->records) tta_parsed_encode_records(f);
        v.kind = TTA_DB_FILE_RUN;
        v.run = &f->run;
        v.n_events = f->n_events;
        v.records = f->records;
        v.records_len = f->records_len;
        v.records_files = f->records_files;
        break;
    case TTA_FMT_SYSTEM_JSON:
    case TTA_FMT_ENTRY_JSON:
    case TTA_FMT_DAWNBENCH_JSON:
        v.kind = TTA_DB_FILE_SYSTEM;
        v.system = &f->system;
        break;
    case TTA_FMT_POWER:
        v.kind = TTA_DB_FILE_POWER;
        v.power = &f->power;
        break;
    case TTA_FMT_SCALING:
        v.kind = TTA_DB_FILE_ENTRY_FILES;
        v.entry_files = &f->entry_file;
        v.n_entry_files = 1;
        break;
    case TTA_FMT_SUMMARY:
        v.kind = TTA_DB_FILE_ENTRY_FILES;
        v.entry_files = f->entry_files;
        v.n_entry_files = f->n_entry_files;
        break;
    case TTA_FMT_ALGOPERF_EVALS:
    case TTA_FMT_ALGOPERF_JSON:
    case TTA_FMT_ALGOPERF_TARGETS:
        v.kind = TTA_DB_FILE_ALGOPERF;
        v.algoperf = &f->algoperf;
        break;
    case TTA_FMT_UNKNOWN:
        break;
    }
    return v;
}
