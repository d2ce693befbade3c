/* fuzz_dawnbench.c: libFuzzer target for DAWNBench TSV logs (the content selects the format;
 * no sibling JSON exists beside the fuzz path). */
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    fuzz_parse("dawnbench/CIFAR10/train/fuzz_run.tsv", data, size);
    return 0;
}
