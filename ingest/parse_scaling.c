/* parse_scaling.c: scaling.json, the file beside a folder's result logs whose scaling_factor the
 * MLCommons result summarizer multiplies the folder's score by (from v2.0 on: the review
 * committee's RCP normalisation; the RCP checker writes it as {"scaling_factor": x}).
 *
 * Read as the summarizer reads it (Python's json, then contents['scaling_factor']): strict JSON,
 * one object, a number member scaling_factor (the last one when repeated). A byte-order mark is
 * allowed. The factor must be a positive number: a score times anything else means nothing.
 */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ingest/jsonscan.h"
#include "ingest/parse_common.h"
#include "ingest/parsers.h"

int tta_parse_scaling(tta_parsed_file *f, const char *data, size_t len, const tta_path_meta *pm) {
    assert(f && pm && (data || len == 0));
    tta_entry_file_record *e = &f->entry_file;
    e->kind = "scaling";
    e->scaling_factor = NAN;
    e->score_min = NAN;
    e->round = (char *)pm->round;
    e->submitter = (char *)pm->submitter;
    e->system = (char *)pm->system;
    e->benchmark = (char *)pm->benchmark;

    tta_json_span obj;
    if (tta_parse_whole_json(f, data, len, "empty scaling.json: expected {\"scaling_factor\": <number>}", &obj))
        return 0;
    if (obj.type != TTA_JSON_OBJECT) {
        tta_parse_fail(f, tta_line_at(data, obj.p), "not a JSON object: expected {\"scaling_factor\": <number>}");
        return 0;
    }
    tta_json_iter it;
    tta_json_span key, value, factor = {0};
    tta_json_iter_init(&it, obj);
    while (tta_json_object_next(&it, &key, &value))
        if (TTA_JSON_IS(key, "scaling_factor")) factor = value;
    if (factor.type == TTA_JSON_NONE) {
        tta_parse_fail(f, tta_line_at(data, obj.p), "no scaling_factor member");
        return 0;
    }
    double x = NAN;
    if (factor.type != TTA_JSON_NUMBER) {
        tta_parse_fail(f, tta_line_at(data, factor.p), "scaling_factor must be a number, not %s", tta_json_type_names[factor.type]);
        return 0;
    }
    if (!tta_json_parse_number(factor.p, factor.n, &x) || !isfinite(x) || x <= 0) {
        tta_parse_fail(f, tta_line_at(data, factor.p), "scaling_factor must be a positive number, not %.*s",
                       factor.n > 40 ? 40 : (int)factor.n, factor.p);
        return 0;
    }
    if (obj.n > UINT32_MAX) {
        tta_parse_fail(f, tta_line_at(data, obj.p), "scaling.json too large (%zu bytes)", obj.n);
        return 0;
    }
    e->scaling_factor = x;
    e->content = (tta_str){obj.p, (uint32_t)obj.n};
    return 0;
}
