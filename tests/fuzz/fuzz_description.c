/* fuzz_description.c: libFuzzer target for descriptions: the first byte picks the path that
 * selects a system JSON, a v0.5 entry.json or a DAWNBench entry JSON; the rest is the file. */
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    static const char *const paths[] = {"v0.7/Fuzz/systems/box.json", "v0.5.0/fuzz/sub/results/box/entry.json",
                                        "dawnbench/CIFAR10/train/fuzz_entry.json"};
    if (size == 0) return 0;
    fuzz_parse(paths[data[0] % 3], data + 1, size - 1);
    return 0;
}
