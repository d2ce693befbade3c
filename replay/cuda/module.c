/* module.c: the CUDA module's table (cuda_module.h), the one place that names both the
 * backend (backend_cuda.c) and the NCCL comm (comm_nccl.c), which do not know each other.
 */
#include "replay/cuda_module.h"

/* The module's one exported symbol (cuda_module.h): everything else is hidden. */
__attribute__((visibility("default"))) const tta_cuda_module *tta_cuda_module_get(void) {
    static const tta_cuda_module table = {TTA_CUDA_MODULE_ABI, sizeof(tta_backend), tta_cuda_backend_create,
                                          tta_cuda_comm_nccl_create};
    return &table;
}
