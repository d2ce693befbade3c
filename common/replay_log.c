/* replay_log.c: the field names of a replay log's time breakdown (replay_log.h). */
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
