/* model_internal.h: the expanded model graph that model_spec.c reads from a model file and
 * model.c builds a model from. Private to replay/.
 *
 * The graph is a list of nodes in execution order (every input precedes its consumer). Blocks,
 * repeats, parameter expressions and shortcuts are already expanded: an identity shortcut is
 * no node at all (references to it resolve to its input), an option-B shortcut is a conv and
 * a bn node.
 */
#ifndef TTA_REPLAY_MODEL_INTERNAL_H
#define TTA_REPLAY_MODEL_INTERNAL_H

#include "replay/engine.h"

typedef struct {
    char name[TTA_NAME_MAX];
    tta_op_kind kind;   /* never TTA_OP_XENT: the loss is implicit after the last node */
    int in[2], nin;     /* producer node indices; -1 = the model input */
    int c, h, w;        /* output shape per sample */
    int kernel, stride, pad, bias, pad_front; /* as in tta_op */
    float eps, momentum, p, factor;
} tta_node;

typedef struct {
    char name[TTA_NAME_MAX];
    tta_node *nodes;
    int nnodes;
    size_t cap;
    int in_c, in_h, in_w;
    float label_smoothing;
} tta_graph;

/* Parses, expands and validates a model file for cfg's input shape and classes. */
int tta_graph_parse(tta_graph *g, const char *json, const char *origin,
                    const tta_model_config *cfg, char *err, size_t errlen);
void tta_graph_free(tta_graph *g);

#endif
