/* cuda_module.h: the CUDA backend and the NCCL comm as a module loaded at run time (internal to
 * replay/).
 *
 * Linking cuDNN, cuBLAS, NCCL and the CUDA runtime into tta costs every command about 200 MB of
 * memory and 0.2 s at start-up (the dynamic linker relocates those libraries whether a GPU is
 * used or not). So replay/cuda/ is built, wherever CUDA is found, as a shared module
 * (libtta_cuda.so, linked against those libraries) that tta opens with dlopen the first time
 * `--device cuda` or the NCCL comm is asked for. The module exports one function,
 * tta_cuda_module_get, returning the table below.
 *
 * Where the module is looked for: $TTA_CUDA_MODULE, then the path it was built at, then
 * libtta_cuda.so beside the tta executable.
 */
#ifndef TTA_REPLAY_CUDA_MODULE_H
#define TTA_REPLAY_CUDA_MODULE_H

#include <stddef.h>

#include "replay/comm.h"
#include "replay/engine.h"

/* Bumped whenever the table or the engine's interface changes, so that a stale module is
 * refused instead of called. */
#define TTA_CUDA_MODULE_ABI 4

typedef struct {
    int abi;                   /* TTA_CUDA_MODULE_ABI of the module */
    size_t backend_size;       /* sizeof(tta_backend) the module was built with */
    tta_backend *(*backend_create)(const tta_backend_options *opt, char *err, size_t errlen);
    tta_comm *(*comm_nccl_create)(char *err, size_t errlen);
} tta_cuda_module;

/* The table of the module (in the module: replay/cuda/module.c). */
const tta_cuda_module *tta_cuda_module_get(void);

/* The table's entries (in the module, hidden; tta reaches them only through the table).
 * tta_cuda_backend_create (replay/cuda/backend_cuda.c): the "cuda" backend on the device that
 * tta_cuda_select_device picks, or NULL with a message in err ("no CUDA device: ..." without
 * one). tta_cuda_comm_nccl_create (replay/cuda/comm_nccl.c): the "nccl" comm over MPI_COMM_WORLD
 * on that device, or NULL with a message in err ("nccl: ..."). */
tta_backend *tta_cuda_backend_create(const tta_backend_options *opt, char *err, size_t errlen);
tta_comm *tta_cuda_comm_nccl_create(char *err, size_t errlen);

/* Opens the module (in tta): the table, or NULL with a message in err. The module stays loaded
 * for the life of the process. */
const tta_cuda_module *tta_cuda_module_load(char *err, size_t errlen);

#endif
