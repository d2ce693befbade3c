/* fuzz_scaling.c: libFuzzer target for scaling.json (the file name selects the format): a file
 * read is a JSON object with a positive finite scaling_factor, identity from the path. */
#include <math.h>

#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    static const char path[] = "v3.1/Fuzz/results/box/bert/scaling.json";
    fuzz_parse(path, data, size);
    tta_parsed_file f = {0};
    tta_parse_buffer(path, (const char *)data, size, &f);
    if (f.format != TTA_FMT_SCALING) fuzz_fail("scaling.json not read as scaling");
    if (!f.failed) {
        tta_json_span v;
        const tta_entry_file_record *e = &f.entry_file;
        if (!e->content.p || !tta_json_whole(e->content.p, e->content.p + e->content.n, &v) ||
            v.type != TTA_JSON_OBJECT)
            fuzz_fail("scaling content is not a JSON object");
        if (!(isfinite(e->scaling_factor) && e->scaling_factor > 0)) fuzz_fail("scaling factor not positive");
        if (!e->benchmark || strcmp(e->benchmark, "bert") != 0) fuzz_fail("scaling identity not from the path");
    }
    tta_parsed_free(&f);
    return 0;
}
