/* entry_spec.c: the glue from the database to replay for `tta replay ENTRY.json` and `tta verify`:
 * an entry's description read through db/ into replay's plain recipe, then a SPEC from it
 * (replay itself reads no database). */
#include <stdlib.h>

#include "cli/cli.h"

int cli_spec_from_entry(sqlite3 *db, int64_t entry, const char *data_dir, tta_replay_spec *spec, tta_error *err) {
    /* the misc block's keys, in the order of tta_replay_recipe's fields */
    static const char *const keys[6] = {"optimizer", "momentum", "weightDecay", "batchSize", "learningRate",
                                        "inputNormalization"};
    tta_db_entry_described d;
    char *hp[6] = {0};
    int rc = tta_db_entry_description(db, entry, &d, err);
    for (int i = 0; i < 6 && rc == TTA_OK; i++) {
        rc = tta_db_entry_hparam(db, entry, keys[i], &hp[i], err);
        if (rc == TTA_ENOTFOUND) rc = TTA_OK; /* not described: the recipe says NULL */
    }
    if (rc == TTA_OK) {
        tta_replay_recipe r = {.entry = entry, .benchmark = d.benchmark, .model = d.model, .optimizer = hp[0],
                               .momentum = hp[1], .weight_decay = hp[2], .batch_size = hp[3], .learning_rate = hp[4],
                               .input_normalization = hp[5]};
        rc = tta_replay_spec_from_recipe(&r, data_dir, spec, err);
    }
    tta_db_entry_described_free(&d);
    for (int i = 0; i < 6; i++) free(hp[i]);
    return rc;
}
