/* cuda_loader.c: opens the CUDA module at run time (see cuda_module.h). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay/cuda_module.h"

#ifdef TTA_HAVE_CUDA

/* Tries one path: the table, or NULL with why in err. */
static const tta_cuda_module *try_open(const char *path, char *err, size_t errlen) {
    /* RTLD_LOCAL: the module's symbols (and its copy of common/) stay its own */
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(err, errlen, "%s", dlerror());
        return NULL;
    }
    const tta_cuda_module *(*get)(void);
    *(void **)&get = dlsym(h, "tta_cuda_module_get");
    const tta_cuda_module *m = get ? get() : NULL;
    if (!m || m->abi != TTA_CUDA_MODULE_ABI || m->backend_size != sizeof(tta_backend)) {
        snprintf(err, errlen, "%s: not a CUDA module of this tta (rebuild it)", path);
        dlclose(h);
        return NULL;
    }
    return m; /* the handle stays open: the process keeps using the module */
}

const tta_cuda_module *tta_cuda_module_load(char *err, size_t errlen) {
    char exe_dir[1024] = "", beside[1100] = "";
    ssize_t n = readlink("/proc/self/exe", exe_dir, sizeof exe_dir - 1);
    if (n > 0) {
        exe_dir[n] = '\0';
        char *slash = strrchr(exe_dir, '/');
        if (slash) *slash = '\0';
        snprintf(beside, sizeof beside, "%s/libtta_cuda.so", exe_dir);
    }
    const char *env = getenv("TTA_CUDA_MODULE");
    const char *paths[3] = {env && *env ? env : NULL, TTA_CUDA_MODULE_PATH, beside[0] ? beside : NULL};
    char why[512] = "";
    for (int i = 0; i < 3; i++) {
        if (!paths[i] || (i > 0 && access(paths[i], R_OK) != 0)) continue;
        const tta_cuda_module *m = try_open(paths[i], why, sizeof why);
        if (m) return m;
        if (i == 0) break; /* an explicit TTA_CUDA_MODULE that fails is the answer */
    }
    snprintf(err, errlen, "no CUDA device: cannot load the CUDA module (libtta_cuda.so)%s%s", why[0] ? ": " : "",
             why);
    return NULL;
}

tta_backend *tta_backend_cuda_create(const tta_backend_options *opt, char *err, size_t errlen) {
    const tta_cuda_module *m = tta_cuda_module_load(err, errlen);
    return m ? m->backend_create(opt, err, errlen) : NULL;
}

tta_comm *tta_comm_nccl_create(char *err, size_t errlen) {
    const tta_cuda_module *m = tta_cuda_module_load(err, errlen);
    return m ? m->comm_nccl_create(err, errlen) : NULL;
}

#else

const tta_cuda_module *tta_cuda_module_load(char *err, size_t errlen) {
    snprintf(err, errlen, "this tta was built without CUDA (no nvcc, cuDNN or NCCL found, or TTA_CUDA=OFF)");
    return NULL;
}

tta_comm *tta_comm_nccl_create(char *err, size_t errlen) {
    snprintf(err, errlen, "nccl: this tta was built without CUDA");
    return NULL;
}

#endif
