/* optim.h: optimizers on flat float arrays (internal to replay/), in llm.c's style: the model
 * keeps all parameters in one array and all gradients in another; a list of tensors says where
 * each parameter tensor lies and whether weight decay applies to it (not to biases and batch-norm
 * scales and shifts, where a recipe says so).
 *
 *   SGD (PyTorch):  g' = g + wd·p;  v = μ·v + g';  p -= lr·(g' + μ·v)  (Nesterov)  or  p -= lr·v
 *   SGD (Caffe):    v = μ·v + lr·g';  p -= v        (the velocity carries lr: MLPerf's paper shows
 *                   the two differ when lr changes)
 *   Adam:           m = β1·m + (1−β1)·g';  v = β2·v + (1−β2)·g'²;  p -= lr·m̂ / (√v̂ + ε)
 *   AdamW:          as Adam on g, then p -= lr·wd·p (decoupled)
 *   LARS:           local lr = η·‖p‖ / (‖g‖ + wd·‖p‖) per tensor (1 where a norm is 0, and for
 *                   tensors without decay), then momentum SGD with it, as MLPerf ResNet
 *
 * Ownership: the optimizer owns one allocation for all its state (tta_optim_free releases it).
 */
#ifndef TTA_REPLAY_OPTIM_H
#define TTA_REPLAY_OPTIM_H

#include <stddef.h>

#include "replay/sgd_step.h"

typedef enum { TTA_OPT_SGD, TTA_OPT_ADAM, TTA_OPT_ADAMW, TTA_OPT_LARS } tta_opt_kind;

typedef struct {
    size_t offset, count; /* elements of the flat parameter array */
    int decay;            /* 1: weight decay (and LARS scaling) applies */
    int fused;            /* 1: updated during backward by tta_optim_update_block; tta_optim_step skips it */
} tta_param_tensor;

typedef struct {
    tta_opt_kind kind;
    double momentum;     /* SGD, LARS */
    int nesterov;        /* SGD */
    int caffe;           /* SGD: Caffe's velocity convention */
    double weight_decay;
    double beta1, beta2, eps; /* Adam(W) */
    double eta;          /* LARS trust coefficient */
} tta_opt_config;

typedef struct {
    tta_opt_config cfg;
    size_t n;            /* parameters */
    float *state;        /* one allocation: velocity (SGD/LARS), or m then v (Adam) */
    long step;
} tta_optim;

/* Sets up an optimizer for n parameters; returns 0, or -1 for an invalid configuration. */
int tta_optim_init(tta_optim *o, const tta_opt_config *cfg, size_t n);
void tta_optim_free(tta_optim *o);
/* Bytes of optimizer state (for memory accounting). */
size_t tta_optim_state_bytes(const tta_optim *o);
/* One update of params from grads at learning rate lr (of every tensor but the fused ones). */
void tta_optim_step(tta_optim *o, float *params, const float *grads, const tta_param_tensor *tensors,
                    size_t n_tensors, double lr);
/* One momentum-SGD step described by a (tta_sgd_step: the arguments of a device backend's
 * sgd_step) on host arrays, with tta_optim_step's arithmetic: the reference backend's sgd_step
 * when it stands in for a device backend. */
void tta_optim_sgd_ranges(const tta_sgd_step *a, float *params, const float *grads, float *velocity);
/* 1 when the update can be applied block by block as gradients become final
 * (tta_optim_update_block): elementwise and needing nothing global (SGD; not LARS, whose rate
 * needs the tensor's norms, nor Adam(W), whose step count tta_optim_step keeps). */
int tta_optim_fusable(const tta_optim *o);
/* The update of rows x cols elements of tensor t from flat offset `offset` (rows ld apart), at
 * learning rate lr: for each element exactly the arithmetic tta_optim_step does, so that a step
 * made of blocks (in any order, on any threads, the blocks disjoint) gives its bits. Needs
 * tta_optim_fusable; thread-safe on disjoint blocks. */
void tta_optim_update_block(const tta_optim *o, float *params, const float *grads, const tta_param_tensor *t,
                            double lr, size_t offset, int rows, int cols, size_t ld);

#endif
