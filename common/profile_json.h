/* profile_json.h: the member names of a training-step profile as JSON, written once for the module
 * that writes it (replay/: `tta profile --format json`, tta_profile_json; and the tta_memory and
 * tta_layer_profile records of a replay log) and the one that stores it (db/: profile_store.c
 * fills the profiles and profile_layers tables from that JSON). docs/replay.md ("Profiling")
 * gives the contract. A name here is not spelt again in code: both sides index these tables.
 */
#ifndef TTA_COMMON_PROFILE_JSON_H
#define TTA_COMMON_PROFILE_JSON_H

#include <string.h>

/* Members of the profile object that name or count the configuration. */
#define TTA_PROFILE_HOST "host"
#define TTA_PROFILE_SPEC "spec"
#define TTA_PROFILE_MODEL "model"
#define TTA_PROFILE_DEVICE "device"
#define TTA_PROFILE_THREADS "threads"
/* cpu only: the libraries' threads and OpenMP's wait (OMP_WAIT_POLICY, GOMP_SPINCOUNT) */
#define TTA_PROFILE_THREADING "threading"
/* cpu only: the pages of the trainer's large buffers (replay/engine.h, tta_backend_cpu_pages) */
#define TTA_PROFILE_PAGES "pages"
#define TTA_PROFILE_BATCH "batch"
#define TTA_PROFILE_WARMUP_STEPS "warmup_steps"
#define TTA_PROFILE_SETTLED "settled"
#define TTA_PROFILE_MEASURED_STEPS "measured_steps"
/* Its objects and arrays: the step's phases, memory by category, the layers, every step's time. */
#define TTA_PROFILE_PHASES "phases"
#define TTA_PROFILE_MEMORY "memory"
#define TTA_PROFILE_LAYERS "layers"
#define TTA_PROFILE_STEP_TRACE "step_trace_s"
/* `--threads auto` only: "auto_threads": true, the mean thread count of the measured steps, and
 * "thread_changes": [{"step", "t_s", "from", "to", "others_cores"}] (replay/threads_auto.h). */
#define TTA_PROFILE_AUTO_THREADS "auto_threads"
#define TTA_PROFILE_MEAN_THREADS "mean_threads"
#define TTA_PROFILE_THREAD_CHANGES "thread_changes"

/* The step's rates, members of the profile object, in the order it writes them. */
typedef enum {
    TTA_PROFILE_STEP_S,
    TTA_PROFILE_SAMPLES_PER_S,
    TTA_PROFILE_FLOPS_PER_STEP,
    TTA_PROFILE_BYTES_PER_STEP,
    TTA_PROFILE_GFLOPS,
    TTA_PROFILE_INTENSITY,
    TTA_PROFILE_RATES
} tta_profile_rate;
extern const char *const tta_profile_rate_names[TTA_PROFILE_RATES];

/* The members of "phases" (seconds per step). */
typedef enum {
    TTA_PHASE_DATA_S,
    TTA_PHASE_FORWARD_S,
    TTA_PHASE_BACKWARD_S,
    TTA_PHASE_OPTIMIZER_S,
    TTA_PHASE_LAYERS_S,
    TTA_PHASE_UNATTRIBUTED_S,
    TTA_PHASES
} tta_profile_phase;
extern const char *const tta_profile_phase_names[TTA_PHASES];

/* The members of "memory" (bytes by category; a replay log's tta_memory record uses the same). */
typedef enum {
    TTA_PMEM_WEIGHTS,
    TTA_PMEM_WEIGHT_GRADS,
    TTA_PMEM_OPTIMIZER_STATE,
    TTA_PMEM_FEATURE_MAPS,
    TTA_PMEM_WORKSPACE,
    TTA_PMEM_DATA,
    TTA_PMEM_TOTAL,
    TTA_PMEM_BUFFERS,
    TTA_PMEM_ACTIVATIONS,
    TTA_PMEM_ACTIVATION_GRADS,
    TTA_PMEM_SAVED,
    TTA_PMEM_EVAL,
    TTA_PMEM_HOST_COPIES,
    TTA_PMEM_ALLOCATOR_TOTAL,
    TTA_PMEM_COUNT
} tta_profile_memory;
extern const char *const tta_profile_memory_names[TTA_PMEM_COUNT];

/* The members of a layer of "layers" (a replay log's tta_layer_profile record uses the name, type
 * and the first three numbers). */
#define TTA_LAYER_NAME "name"
#define TTA_LAYER_TYPE "type"
#define TTA_LAYER_FUSED_INTO "fused_into"
#define TTA_LAYER_ALGORITHM "algorithm" /* a convolution's, where the backend has several; optional */
/* Whether a layer's algorithm ("" or NULL: the backend's only one) is Winograd in any direction:
 * its FLOPs are then the direct convolution's and its GFLOP/s can pass the SGEMM peak. */
static inline int tta_algorithm_is_winograd(const char *algorithm) {
    return algorithm && strncmp(algorithm, "winograd", 8) == 0;
}
typedef enum {
    TTA_LAYER_FLOPS,
    TTA_LAYER_BYTES,
    TTA_LAYER_TIME_S,
    TTA_LAYER_TIME_FWD_S,
    TTA_LAYER_TIME_BWD_S,
    TTA_LAYER_GFLOPS,
    TTA_LAYER_INTENSITY,
    TTA_LAYER_NUMBERS
} tta_profile_layer_number;
extern const char *const tta_profile_layer_names[TTA_LAYER_NUMBERS];

#endif
