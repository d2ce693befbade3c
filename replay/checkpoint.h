/* checkpoint.h: a training run's checkpoint (internal to replay/): after every epoch the trainer
 * saves the session's parameters, buffers and optimizer state with a header of the run's own
 * state (epoch, shuffle generator, clock, length of the log); --resume loads it back.
 *
 * The file: the header, then the payload (parameters, buffers, optimizer state as floats),
 * checked by a hash. Written atomically (a temporary file renamed over the old one). Errors are
 * tta_status codes (common/error.h) with "<path>: reason" in err.
 */
#ifndef TTA_REPLAY_CHECKPOINT_H
#define TTA_REPLAY_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "replay/replay.h"
#include "replay/session.h"

#define TTA_CKPT_MAGIC "TTACKPT1"

typedef struct {
    char magic[8];
    uint64_t seed, spec_hash;
    int32_t epoch, workers, batch, reserved;
    uint64_t nparams, nbuffers, nstate;
    int64_t optim_step;
    uint64_t rng;
    int64_t log_bytes, log_time_ms;
    double elapsed_s, train_time, val_acc;
    double sums[8]; /* phase totals so far: data, fwd, bwd, opt, comm_exposed, comm_total */
    int64_t trained;
    uint64_t payload_hash;
} tta_ckpt_header;

/* What a checkpoint must agree with to be continued: the recipe's fields that shape training,
 * for K workers. */
uint64_t tta_ckpt_spec_hash(const tta_replay_spec *spec, int K);

/* Saves s's state under h (its magic, sizes and payload hash are filled here) at path: TTA_OK,
 * or TTA_EIO when it cannot be written. */
int tta_ckpt_save(tta_session *s, const char *path, tta_ckpt_header *h, tta_error *err);

/* Loads path into s when it was made for this spec, seed and s's world size: TTA_OK with *loaded
 * 1 (h filled), or 0 when there is no checkpoint; TTA_EINPUT when it exists but cannot be used
 * (not a checkpoint, cut short, damaged, made by another recipe, seed or number of workers). */
int tta_ckpt_load(tta_session *s, const char *path, const tta_replay_spec *spec, uint64_t seed, tta_ckpt_header *h,
                  int *loaded, tta_error *err);

#endif
