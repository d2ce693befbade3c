/* fuzz_mlperf_log.c: libFuzzer target for the MLPerf log parsers (:::MLLOG, :::SYSJSON, :::MLL,
 * :::MLPv0.5.0, "MLPerf: "): the content selects the format, the path a results layout. */
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    fuzz_parse("v0.7/Fuzz/results/box/resnet/result_1.txt", data, size);
    return 0;
}
