/* profiles.c: what `tta profile` measured, into the database through ingest (the writer's
 * contract is ingest's, not the command line's: cli/ reads the database only as a reader). */
#include "ingest/ingest.h"

#include <assert.h>

#include "db/writer.h"

int tta_ingest_profile(sqlite3 *db, const char *json, int64_t sweep, int64_t *id, tta_error *err) {
    assert(db && json);
    return tta_store_profile(db, json, sweep, id, err);
}

int tta_ingest_peaks(sqlite3 *db, const char *json, tta_error *err) {
    assert(db && json);
    return tta_store_peaks(db, json, err);
}
