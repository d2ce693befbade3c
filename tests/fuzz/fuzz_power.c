/* fuzz_power.c: libFuzzer target for power logs (a power/result_N/ folder selects the format). */
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    fuzz_parse("v3.0/Fuzz/results/box/bert/power/result_0/node_0.txt", data, size);
    return 0;
}
