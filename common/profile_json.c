/* profile_json.c: the member names of a profile's JSON (profile_json.h). */
#include "common/profile_json.h"

const char *const tta_profile_rate_names[TTA_PROFILE_RATES] = {
    [TTA_PROFILE_STEP_S] = "step_s",
    [TTA_PROFILE_SAMPLES_PER_S] = "samples_per_s",
    [TTA_PROFILE_FLOPS_PER_STEP] = "flops_per_step",
    [TTA_PROFILE_BYTES_PER_STEP] = "bytes_per_step",
    [TTA_PROFILE_GFLOPS] = "gflops",
    [TTA_PROFILE_INTENSITY] = "intensity",
};

const char *const tta_profile_phase_names[TTA_PHASES] = {
    [TTA_PHASE_DATA_S] = "data_s",
    [TTA_PHASE_FORWARD_S] = "forward_s",
    [TTA_PHASE_BACKWARD_S] = "backward_s",
    [TTA_PHASE_OPTIMIZER_S] = "optimizer_s",
    [TTA_PHASE_LAYERS_S] = "layers_s",
    [TTA_PHASE_UNATTRIBUTED_S] = "unattributed_s",
};

const char *const tta_profile_memory_names[TTA_PMEM_COUNT] = {
    [TTA_PMEM_WEIGHTS] = "weights",
    [TTA_PMEM_WEIGHT_GRADS] = "weight_grads",
    [TTA_PMEM_OPTIMIZER_STATE] = "optimizer_state",
    [TTA_PMEM_FEATURE_MAPS] = "feature_maps",
    [TTA_PMEM_WORKSPACE] = "workspace",
    [TTA_PMEM_DATA] = "data",
    [TTA_PMEM_TOTAL] = "total",
    [TTA_PMEM_BUFFERS] = "buffers",
    [TTA_PMEM_ACTIVATIONS] = "activations",
    [TTA_PMEM_ACTIVATION_GRADS] = "activation_grads",
    [TTA_PMEM_SAVED] = "saved",
    [TTA_PMEM_EVAL] = "eval",
    [TTA_PMEM_HOST_COPIES] = "host_copies",
    [TTA_PMEM_ALLOCATOR_TOTAL] = "allocator_total",
};

const char *const tta_profile_layer_names[TTA_LAYER_NUMBERS] = {
    [TTA_LAYER_FLOPS] = "flops",
    [TTA_LAYER_BYTES] = "bytes",
    [TTA_LAYER_TIME_S] = "time_s",
    [TTA_LAYER_TIME_FWD_S] = "time_fwd_s",
    [TTA_LAYER_TIME_BWD_S] = "time_bwd_s",
    [TTA_LAYER_GFLOPS] = "gflops",
    [TTA_LAYER_INTENSITY] = "intensity",
};
