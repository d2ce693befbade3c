/* benchmarks.c: benchmark names and quality scales. */
#include "ingest/benchmarks.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

typedef struct {
    const char *alias;
    const char *canonical;
} benchmark_alias;

/* Names as they appear in logs and folders of every round. */
static const benchmark_alias aliases[] = {
    {"resnet", "resnet"}, {"resnet50", "resnet"}, {"image_classification", "resnet"},
    {"ssd", "ssd"}, {"single_stage_detector", "ssd"}, {"object_detection", "maskrcnn"},
    {"maskrcnn", "maskrcnn"}, {"mask", "maskrcnn"}, {"mask_rcnn", "maskrcnn"},
    {"gnmt", "gnmt"}, {"rnn_translator", "gnmt"}, {"transformer", "transformer"}, {"translation", "transformer"},
    {"ncf", "ncf"}, {"recommendation", "ncf"}, {"minigo", "minigo"}, {"reinforcement", "minigo"},
    {"bert", "bert"}, {"language_model", "bert"}, {"dlrm", "dlrm"}, {"dlrmv2", "dlrm_dcnv2"},
    {"dlrm_dcnv2", "dlrm_dcnv2"}, {"rnnt", "rnnt"}, {"rnn_t", "rnnt"}, {"speech_recognition", "rnnt"},
    {"unet3d", "unet3d"}, {"image_segmentation", "unet3d"}, {"retinanet", "retinanet"},
    {"gpt3", "gpt3"}, {"stable_diffusion", "stable_diffusion"}, {"stable_diffusion_v2", "stable_diffusion"},
    {"llama2_70b_lora", "llama2_70b_lora"}, {"gnn", "gnn"}, {"rgat", "gnn"},
    {"cifar10", "cifar10"}, {"imagenet", "imagenet"}, {"squad", "squad"},
    {"fashion-mnist", "fashion-mnist"}, {"fashion_mnist", "fashion-mnist"}, {"fmnist", "fashion-mnist"},
};

const char *tta_benchmark_canonical(const char *name, size_t n) {
    char low[40];
    if (n == 0 || n >= sizeof low) return NULL;
    for (size_t i = 0; i < n; i++) low[i] = (char)tolower((unsigned char)name[i]);
    low[n] = '\0';
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(low, aliases[i].alias) == 0) return aliases[i].canonical;
    return NULL;
}

static int is_bleu(const char *b) { return b && (strcmp(b, "gnmt") == 0 || strcmp(b, "transformer") == 0); }

static int is_fraction_metric(const char *b) {
    static const char *const names[] = {"resnet", "ssd", "maskrcnn", "ncf", "minigo", "bert", "dlrm",
                                        "dlrm_dcnv2", "unet3d", "retinanet", "gnn"};
    if (!b) return 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(b, names[i]) == 0) return 1;
    return 0;
}

double tta_quality_normalize(const char *benchmark, double q) {
    if (is_bleu(benchmark) && q <= 1.0) return q * 100.0;
    if (is_fraction_metric(benchmark) && q > 1.5) return q / 100.0;
    return q;
}
