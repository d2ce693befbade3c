/* replay_log.c: the field names of a replay log's time breakdown and the memory categories of its
 * tta_memory record (replay_log.h). */
#include "common/replay_log.h"

const char *const tta_breakdown_names[TTA_BREAKDOWN_FIELDS] = {
    [TTA_BREAKDOWN_EPOCH_S] = "epoch_s",
    [TTA_BREAKDOWN_DATA_S] = "data_s",
    [TTA_BREAKDOWN_FORWARD_S] = "forward_s",
    [TTA_BREAKDOWN_BACKWARD_S] = "backward_s",
    [TTA_BREAKDOWN_OPTIMIZER_S] = "optimizer_s",
    [TTA_BREAKDOWN_COMM_EXPOSED_S] = "comm_exposed_s",
    [TTA_BREAKDOWN_COMM_TOTAL_S] = "comm_total_s",
    [TTA_BREAKDOWN_EVAL_S] = "eval_s",
};

const tta_profile_memory tta_replay_memory[TTA_REPLAY_MEMORY_CATEGORIES] = {
    TTA_PMEM_WEIGHTS,   TTA_PMEM_BUFFERS, TTA_PMEM_WEIGHT_GRADS, TTA_PMEM_OPTIMIZER_STATE,
    TTA_PMEM_FEATURE_MAPS, TTA_PMEM_WORKSPACE, TTA_PMEM_EVAL,  TTA_PMEM_DATA,
};
