/* device.c: which CUDA device this process uses. The backend and the NCCL comm both select it
 * (in either order, or only one of them), so the choice lives here, below both: the backend
 * and the comm call this file and not each other.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#include "replay/cuda/cuda_internal.h"

/* The node-local rank a launcher advertises, or -1. */
static int local_rank(void) {
    const char *vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID", "LOCAL_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) return atoi(v);
    }
    return -1;
}

int tta_cuda_select_device(char *err, size_t errlen) {
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        snprintf(err, errlen, "no CUDA device: %s", cudaGetErrorString(e));
        cudaGetLastError(); /* clear it: later runtime calls must not report it again */
        return -1;
    }
    if (count <= 0) {
        snprintf(err, errlen, "no CUDA device: cudaGetDeviceCount found none");
        return -1;
    }
    int dev = 0, lr = local_rank();
    if (lr >= 0) {
        dev = lr % count;
        e = cudaSetDevice(dev);
    } else {
        e = cudaGetDevice(&dev);
    }
    if (e != cudaSuccess) {
        snprintf(err, errlen, "CUDA device %d: %s", dev, cudaGetErrorString(e));
        return -1;
    }
    return dev;
}
