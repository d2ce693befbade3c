/* benchmarks.c: benchmark names, quality scales, DAWNBench thresholds. */
#include "ingest/benchmarks.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *alias;
    const char *canonical;
} benchmark_alias;

/* Names as logs (submission_benchmark, the v0.5 line's benchmark field) and folders of every
 * round spell them, lowercased, '-' and ' ' read as '_'. */
static const benchmark_alias aliases[] = {
    {"resnet", "resnet"},
    {"resnet50", "resnet"},
    {"resnet_50", "resnet"},
    {"image_classification", "resnet"},
    {"ssd", "ssd"},
    {"single_stage_detector", "ssd"},
    {"object_detection", "ssd"}, /* v0.5's reference name for SSD */
    {"retinanet", "retinanet"},
    {"maskrcnn", "maskrcnn"},
    {"mask", "maskrcnn"}, /* Google v0.6 folders */
    {"mask_rcnn", "maskrcnn"},
    {"heavy_object_detection", "maskrcnn"},
    {"gnmt", "gnmt"},
    {"rnn_translator", "gnmt"},
    {"transformer", "transformer"},
    {"translation", "transformer"},
    {"ncf", "ncf"},
    {"minigo", "minigo"},
    {"reinforcement", "minigo"},
    {"bert", "bert"},
    {"language_model", "bert"},
    {"dlrm", "dlrm"},
    {"dlrmv2", "dlrm_dcnv2"},
    {"dlrm_dcnv2", "dlrm_dcnv2"},
    {"rnnt", "rnnt"},
    {"rnn_t", "rnnt"},
    {"speech_recognition", "rnnt"},
    {"unet3d", "unet3d"},
    {"image_segmentation", "unet3d"},
    {"gpt3", "gpt3"},
    {"stable_diffusion", "stable_diffusion"},
    {"stable_diffusion_v2", "stable_diffusion"},
    {"stablediffusion", "stable_diffusion"},
    {"llama2_70b_lora", "llama2_70b_lora"},
    {"gnn", "gnn"},
    {"rgat", "gnn"},
    {"cifar10", "cifar10"},
    {"cifar_10", "cifar10"},
    {"imagenet", "imagenet"},
    {"squad", "squad"},
    {"fashion_mnist", "fashion-mnist"},
    {"fashionmnist", "fashion-mnist"},
    {"fmnist", "fashion-mnist"},
    {"generated", "generated"}, /* tta replay's generated data (tests) */
    {"cifar100", "cifar100"},
};

int tta_round_compare(const char *a, const char *b) {
    double x = a && (a[0] == 'v' || a[0] == 'V') ? strtod(a + 1, NULL) : -1;
    double y = b && (b[0] == 'v' || b[0] == 'V') ? strtod(b + 1, NULL) : -1;
    return x < y ? -1 : x > y ? 1 : 0;
}

const char *tta_benchmark_canonical(const char *name, size_t n, const char *round) {
    char low[48];
    while (n && (*name == ' ' || *name == '"')) name++, n--;
    while (n && (name[n - 1] == ' ' || name[n - 1] == '"')) n--;
    if (n == 0 || n >= sizeof low) return NULL;
    for (size_t i = 0; i < n; i++) {
        char c = (char)tolower((unsigned char)name[i]);
        low[i] = c == '-' || c == ' ' ? '_' : c;
    }
    low[n] = '\0';
    if (strcmp(low, "recommendation") == 0) {
        /* NCF in v0.5 and v0.6; DLRM from v0.7 (and when the round is unknown: MLLOG era). */
        return round && tta_round_compare(round, "v0.7") < 0 ? "ncf" : "dlrm";
    }
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(low, aliases[i].alias) == 0) return aliases[i].canonical;
    return NULL;
}

int tta_benchmark_is_dawnbench(const char *b) {
    return b && (!strcmp(b, "cifar10") || !strcmp(b, "imagenet") || !strcmp(b, "squad") || !strcmp(b, "fashion-mnist"));
}

tta_quality_scale tta_benchmark_scale(const char *b) {
    static const char *const fractions[] = {"resnet",  "ssd",        "retinanet", "maskrcnn", "ncf", "minigo",
                                            "bert",    "dlrm",       "dlrm_dcnv2", "unet3d",  "gnn"};
    if (!b) return TTA_SCALE_ASIS;
    if (!strcmp(b, "gnmt") || !strcmp(b, "transformer")) return TTA_SCALE_BLEU;
    if (tta_benchmark_is_dawnbench(b)) return TTA_SCALE_PERCENT;
    for (size_t i = 0; i < sizeof fractions / sizeof fractions[0]; i++)
        if (!strcmp(b, fractions[i])) return TTA_SCALE_FRACTION;
    return TTA_SCALE_ASIS;
}

const char *tta_dawnbench_metric_column(const char *b) {
    if (!b) return NULL;
    if (!strcmp(b, "cifar10") || !strcmp(b, "fashion-mnist")) return "top1Accuracy";
    if (!strcmp(b, "imagenet")) return "top5Accuracy";
    if (!strcmp(b, "squad")) return "f1Score";
    return NULL;
}

double tta_dawnbench_threshold(const char *b) {
    if (!b) return NAN;
    if (!strcmp(b, "cifar10")) return 94.0;
    if (!strcmp(b, "imagenet")) return 93.0;
    if (!strcmp(b, "squad")) return 75.0;
    if (!strcmp(b, "fashion-mnist")) return 88.0; /* tta's choice: docs/ingest.md */
    return NAN;
}

int tta_benchmark_epoch_is_samples(const char *b, const char *round) {
    return b && !strcmp(b, "bert") && round && tta_round_compare(round, "v1.0") >= 0;
}
