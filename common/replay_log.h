/* replay_log.h: the names tta's replay logs use, written once for the module that writes the logs
 * (replay/) and those that read them back (ingest/, db/).
 *
 * Every replay (`tta replay`, `tta verify`) is filed under one round and one submitter, which its
 * log and its system description name (the key TTA_KEY_ROUND) since no path says them; db/'s
 * queries of replays select that round. A name here is not spelt again in code: C uses the macro,
 * SQL text is built from it (string concatenation). docs/replay.md ("Logs") describes the records.
 */
#ifndef TTA_COMMON_REPLAY_LOG_H
#define TTA_COMMON_REPLAY_LOG_H

#include "common/profile_json.h"

/* The round and the submitter of every replay (`tta ls runs --round local`). */
#define TTA_REPLAY_ROUND "local"
#define TTA_REPLAY_SUBMITTER "replay"

/* The log key (and system description member) that names a replay's round. */
#define TTA_KEY_ROUND "tta_round"

/* tta's own records of a run (every such key starts "tta_"): the data-parallel workers K (a
 * number, once), what the run replays and how it ran (below), and per epoch its time breakdown (an object of tta_breakdown_names' members,
 * seconds, and TTA_BREAKDOWN_RANK_COMM; metadata epoch_num). */
#define TTA_KEY_WORLD_SIZE "tta_world_size"
#define TTA_KEY_EPOCH_BREAKDOWN "tta_epoch_breakdown"
/* `--threads auto` (docs/replay.md): tta_threads_auto (the most threads, once), and after each
 * epoch one record per change of the thread count in it: {"step", "t_s" (since the session
 * opened), "from", "to", "others_cores"} (replay/threads_auto.h), metadata epoch_num. */
#define TTA_KEY_THREADS_AUTO "tta_threads_auto"
#define TTA_KEY_THREAD_CHANGE "tta_thread_change"
/* The claim a run replays ("<round>/<division>/<submitter>/<system>/<benchmark>"), whether it went
 * on past the target to the schedule's end (1) or stopped there (0), and the final model's
 * accuracy on the unseen and the shifted data (after run_stop). */
#define TTA_KEY_REPLAY_OF "tta_replay_of"
#define TTA_KEY_TO_SCHEDULE_END "tta_to_schedule_end"
#define TTA_KEY_UNSEEN_ACCURACY "tta_unseen_accuracy"
#define TTA_KEY_SHIFTED_ACCURACY "tta_shifted_accuracy"

/* The fields of a time breakdown, in the order the log writes them: training time of the epoch,
 * waiting for data, forward, backward, optimizer, communication exposed (the training thread's
 * time in communication calls) and in all (each bucket's duration, hidden or not), evaluation. */
typedef enum {
    TTA_BREAKDOWN_EPOCH_S,
    TTA_BREAKDOWN_DATA_S,
    TTA_BREAKDOWN_FORWARD_S,
    TTA_BREAKDOWN_BACKWARD_S,
    TTA_BREAKDOWN_OPTIMIZER_S,
    TTA_BREAKDOWN_COMM_EXPOSED_S,
    TTA_BREAKDOWN_COMM_TOTAL_S,
    TTA_BREAKDOWN_EVAL_S,
    TTA_BREAKDOWN_FIELDS
} tta_breakdown_field;

/* Each field's name: its member in the record's value (replay/ writes it, ingest/ reads it) and
 * its column in the database's replay_epoch_breakdown (db/ builds its SQL from these). */
extern const char *const tta_breakdown_names[TTA_BREAKDOWN_FIELDS];

/* The breakdown's member holding each rank's comm_total_s, an array in rank order (column
 * comm_total_s of replay_rank_comm). */
#define TTA_BREAKDOWN_RANK_COMM "rank_comm_total_s"

/* The run's profile, once each: TTA_KEY_MEMORY, bytes by category (an object of the members
 * tta_profile_memory_names gives the categories of tta_replay_memory, in that order: what the
 * trainer allocated, exact), and TTA_KEY_LAYER_PROFILE, an object of TTA_LAYER_PROFILE_STEPS (the
 * training steps its times average over) and TTA_PROFILE_LAYERS (an array of objects with
 * TTA_LAYER_NAME, TTA_LAYER_TYPE and tta_profile_layer_names' TTA_LAYER_FLOPS, TTA_LAYER_BYTES
 * and TTA_LAYER_TIME_S: analytic FLOPs and bytes of one step, measured seconds per step; a
 * layer fused into another has time 0). The database stores them typed in replay_memory (one
 * column per category, named as the member) and replay_layers. */
#define TTA_KEY_MEMORY "tta_memory"
#define TTA_KEY_LAYER_PROFILE "tta_layer_profile"
#define TTA_LAYER_PROFILE_STEPS "steps"
#define TTA_REPLAY_MEMORY_CATEGORIES 8
extern const tta_profile_memory tta_replay_memory[TTA_REPLAY_MEMORY_CATEGORIES];

#endif
