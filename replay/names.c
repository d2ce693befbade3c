/* names.c: the names of op kinds and memory categories (engine.h), in a file of their own
 * because the CUDA module (replay/cuda/, loaded at run time) needs them without the engine. */
#include "replay/engine.h"

static const char *const op_kind_names[TTA_OP_COUNT] = {
    [TTA_OP_CONV] = "conv",       [TTA_OP_BN] = "bn",           [TTA_OP_RELU] = "relu",
    [TTA_OP_MAXPOOL] = "maxpool", [TTA_OP_AVGPOOL] = "avgpool", [TTA_OP_GAP] = "gap",
    [TTA_OP_GMP] = "gmp",         [TTA_OP_LINEAR] = "linear",   [TTA_OP_ADD] = "add",
    [TTA_OP_FLATTEN] = "flatten", [TTA_OP_DROPOUT] = "dropout", [TTA_OP_SCALE] = "scale",
    [TTA_OP_PAD_SHORTCUT] = "pad_shortcut", [TTA_OP_XENT] = "xent",
};

const char *tta_op_kind_name(tta_op_kind k) {
    return k >= 0 && k < TTA_OP_COUNT ? op_kind_names[k] : NULL;
}

static const char *const mem_kind_names[TTA_MEM_COUNT] = {
    "weights", "weight_grads", "buffers", "activations", "act_grads", "saved", "workspace", "eval",
};

const char *tta_mem_kind_name(tta_mem_kind k) {
    return k >= 0 && k < TTA_MEM_COUNT ? mem_kind_names[k] : NULL;
}
