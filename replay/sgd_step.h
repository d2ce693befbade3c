/* sgd_step.h: the arguments of one momentum-SGD step on a device backend's arrays
 * (tta_backend_ops.sgd_step; internal to replay/). A header of its own, plain C that C++ also
 * reads, because the CUDA kernels (replay/cuda/kernels.cu) take it by value and do not include
 * engine.h.
 */
#ifndef TTA_REPLAY_SGD_STEP_H
#define TTA_REPLAY_SGD_STEP_H

#include <stddef.h>

/* The most ranges one step takes: the session merges adjacent tensors of equal decay into one
 * range, and keeps the optimizer on host copies for a model that still needs more. */
#define TTA_SGD_MAX_RANGES 64

/* One step over the ranges [begin[r], end[r]) of the flat parameter, gradient and velocity
 * arrays, each with its weight decay; elements outside every range are left alone. The
 * arithmetic is tta_optim_step's SGD (replay/optim.c, sgd_tensor), every operation rounded to
 * float in the same order, so that the result is that function's bit for bit. */
typedef struct {
    float lr, momentum;
    int nesterov, caffe; /* tta_opt_config's conventions */
    int n_ranges;        /* 1..TTA_SGD_MAX_RANGES */
    size_t begin[TTA_SGD_MAX_RANGES], end[TTA_SGD_MAX_RANGES]; /* ascending and disjoint */
    float decay[TTA_SGD_MAX_RANGES];
} tta_sgd_step;

#endif
