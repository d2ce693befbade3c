/* test_parse_v06.c: v0.6 ":::MLL" logs and the Alibaba "MLPerf: " text form, with their quirks
 * (Python dicts and bare words in records, interleaved output, broken records, minigo without
 * run_stop), on the fixtures. Expected values were read from the fixtures with Python. */
#include "test_parse_util.h"

#define V06 "fixtures/mlperf/v0.6/"

TEST(nvidia_resnet_entry) {
    static const double start[5] = {1560881731.835, 1560881731.505, 1560881731.07, 1560881737.191, 1560881731.891};
    static const double stop[5] = {1560888652.056, 1560888641.483, 1560888219.474, 1560888646.718, 1560888666.433};
    static const size_t evals[5] = {15, 15, 14, 15, 15};
    static const double reach[5] = {60, 60, 56, 60, 60};
    double seconds[5];
    for (int i = 0; i < 5; i++) {
        char path[256];
        snprintf(path, sizeof path, V06 "NVIDIA/results/dgx1_ngc19.05_mxnet/resnet/result_%d.txt", i);
        tta_parsed_file f = parse_path(path);
        const tta_run_record *r = &f.run;
        CHECK(f.format == TTA_FMT_MLPERF_V06 && !f.failed);
        CHECK_STR(r->round, "v0.6");
        CHECK_STR(r->submitter, "NVIDIA");
        CHECK_STR(r->system, "dgx1_ngc19.05_mxnet");
        CHECK_STR(r->benchmark, "resnet");
        CHECK_STR(r->division, "closed");
        CHECK(r->run_index == i);
        CHECK_NEAR(r->run_start_s, start[i], 1e-6);
        CHECK_NEAR(r->run_stop_s, stop[i], 1e-6);
        CHECK(r->status == TTA_RUN_SUCCESS);
        CHECK(r->n_evals == evals[i]);
        CHECK(epoch_reaching(r, 0.759) == reach[i]);
        CHECK(events_are_json(&f));
        seconds[i] = r->run_stop_s - r->run_start_s;
        tta_parsed_free(&f);
    }
    CHECK_NEAR(olympic_minutes(seconds, 5), 115.22069999906752, 1e-6);
}

TEST(nvidia_resnet_details) {
    tta_parsed_file f = parse_path(V06 "NVIDIA/results/dgx1_ngc19.05_mxnet/resnet/result_0.txt");
    const tta_run_record *r = &f.run;
    CHECK(f.n_events == 244);
    if (r->n_evals == 15) {
        CHECK_NEAR(r->evals[0].quality, 0.36176, 1e-12);
        CHECK(r->evals[0].epoch == 4);
        CHECK(r->evals[0].line == 66);
        CHECK_NEAR(r->evals[14].quality, 0.762, 1e-12);
    }
    CHECK(isnan(r->target)); /* NVIDIA v0.6 logs no eval_target */
    /* :::MLL init times: the first of 8 init_start (ranks), the one init_stop */
    CHECK_NEAR(r->init_start_s, 1560881721.098, 1e-6);
    CHECK_NEAR(r->init_stop_s, 1560881731.835, 1e-6);
    CHECK(!isnan(r->global_batch_size));
    CHECK(r->n_epochs > 0);
    /* Events: a record's value and metadata are spans of its JSON. */
    size_t i = 0;
    while (i < f.n_events && !str_is(f.events[i].key, "eval_accuracy")) i++;
    if (i < f.n_events) {
        CHECK(f.events[i].epoch_num == 4);
        CHECK(str_is(f.events[i].value, "0.36176"));
        CHECK(f.events[i].metadata.n > 0 && f.events[i].metadata.p[0] == '{');
    }
    tta_parsed_free(&f);
}

TEST(maskrcnn_accuracy_object) {
    tta_parsed_file f = parse_path(V06 "NVIDIA/results/dgx1_ngc19.05_pytorch/maskrcnn/result_0.txt");
    const tta_run_record *r = &f.run;
    CHECK_STR(r->benchmark, "maskrcnn");
    CHECK(r->n_evals == 13);
    if (r->n_evals == 13) {
        CHECK_NEAR(r->evals[0].quality, 0.1988320950217395, 1e-15);
        CHECK_NEAR(r->evals[12].quality, 0.3770440286348618, 1e-15);
        CHECK(r->evals[12].quality2 >= 0.339);
    }
    CHECK(epoch_reaching(r, 0.377) == 13);
    tta_parsed_free(&f);
}

/* Google v0.6 logs Mask R-CNN as [bbox, segm] under a "mask" folder. */
TEST(google_mask_list) {
    tta_parsed_file f = parse_path(V06 "Google/results/tpu-v3-32/mask/result_0.txt");
    const tta_run_record *r = &f.run;
    CHECK_STR(r->benchmark, "maskrcnn");
    CHECK_STR(r->system, "tpu-v3-32");
    CHECK(r->n_evals == 15);
    if (r->n_evals == 15) {
        CHECK_NEAR(r->evals[0].quality, 0.12832936644554138, 1e-15);
        CHECK_NEAR(r->evals[0].quality2, 0.13468720018863678, 1e-15);
        CHECK_NEAR(r->evals[14].quality, 0.38106971979141235, 1e-15);
        CHECK(r->evals[0].epoch == 0); /* as logged: Google counted from 0 */
    }
    CHECK(epoch_reaching(r, 0.377) == 14);
    CHECK_NEAR(r->run_start_s, 1558421526.167, 1e-6);
    CHECK_NEAR(r->run_stop_s, 1558427949.145, 1e-6);
    tta_parsed_free(&f);
}

/* BLEU as a string ("20.298999547958374"), in points. */
TEST(transformer_bleu_string) {
    tta_parsed_file f = parse_path(V06 "NVIDIA/results/dgx1_ngc19.05_pytorch/transformer/result_0.txt");
    const tta_run_record *r = &f.run;
    CHECK(r->n_evals == 3);
    if (r->n_evals == 3) {
        CHECK_NEAR(r->evals[0].quality, 20.298999547958374, 1e-12);
        CHECK_NEAR(r->evals[2].quality, 25.329875946044922, 1e-12);
    }
    CHECK(epoch_reaching(r, 25.0) == 3);
    CHECK(f.n_events == 49);
    tta_parsed_free(&f);
}

/* NVIDIA v0.6 minigo prints no run_stop: eval_result's timestamp ends the run. */
TEST(minigo_eval_result) {
    tta_parsed_file f = parse_path(V06 "NVIDIA/results/dgx1_ngc19.05_tensorflow/minigo/result_0.txt");
    const tta_run_record *r = &f.run;
    CHECK(!f.failed);
    CHECK(count_key(&f, "run_stop") == 0);
    CHECK_NEAR(r->run_start_s, 1560822993.653, 1e-6);
    CHECK_NEAR(r->run_stop_s - r->run_start_s, 1725.869, 1e-6);
    CHECK(r->status == TTA_RUN_SUCCESS);
    CHECK(r->n_evals == 19);
    CHECK(epoch_reaching(r, 0.5) == 19);
    tta_parsed_free(&f);
}

/* Intel v0.6 minigo: Python dicts in metadata, bare words ({value: true, metadata: {file:
 * manual}}); its run_stop is used as logged. */
TEST(intel_minigo_python_dicts) {
    tta_parsed_file f = parse_path(V06 "Intel/results/clx-8260l-2s-x32/minigo/result_0.txt");
    const tta_run_record *r = &f.run;
    CHECK(!f.failed);
    CHECK(events_are_json(&f));
    CHECK(count_key(&f, "cache_clear") == 1);
    CHECK(str_is(f.events[0].key, "submission_org"));
    CHECK_NEAR(r->run_start_s, 1560873710.141025, 1e-6);
    CHECK_NEAR(r->run_stop_s, 1560875622.040346, 1e-6);
    CHECK_NEAR(r->init_start_s, 1560873523.355233, 1e-6); /* a Python-dict record */
    CHECK_NEAR(r->init_stop_s, 1560873710.140646, 1e-6);
    CHECK(r->status == TTA_RUN_SUCCESS);
    CHECK(r->n_evals == 15);
    if (r->n_evals == 15) CHECK(r->evals[0].epoch == 0 && r->evals[14].quality == 0.51);
    /* the bare-word record, as strict JSON */
    for (size_t i = 0; i < f.n_events; i++)
        if (str_is(f.events[i].key, "cache_clear")) {
            CHECK(str_is(f.events[i].value, "true"));
            CHECK(str_is(f.events[i].metadata, "{\"lineno\":0,\"file\":\"manual\"}"));
        }
    tta_parsed_free(&f);
}

/* A worker's output cut a record in two; broken records (a lost brace) are skipped. */
TEST(broken_records) {
    tta_parsed_file f = parse_path("fixtures/quirks/interleaved.txt");
    CHECK(!f.failed);
    CHECK(f.n_events == 30);
    CHECK(f.run.status == TTA_RUN_SUCCESS);
    tta_parsed_free(&f);
    f = parse_path("fixtures/quirks/malformed.txt");
    CHECK(!f.failed);
    CHECK(f.n_events == 48); /* 49 records, one broken */
    CHECK(f.run.n_evals == 2);
    tta_parsed_free(&f);
    f = parse_path("fixtures/quirks/malformed_no_start.txt");
    CHECK(f.failed);
    CHECK_STR(f.error, "fixtures/quirks/malformed_no_start.txt:33: no run_start record (first unreadable record: broken :::MLL JSON)");
    tta_parsed_free(&f);
    /* Binary junk between records and an invalid UTF-8 byte inside one. */
    f = parse_path("fixtures/quirks/junk.txt");
    CHECK(!f.failed);
    CHECK(f.n_events == 49);
    CHECK(events_are_json(&f));
    CHECK_NEAR(f.run.run_start_s, 1561426552.510, 1e-6);
    tta_parsed_free(&f);
}

TEST(alibaba_text_form) {
    static const double start[5] = {1560385856, 1560391397, 1560394830, 1560397961, 1560401209};
    static const double stop[5] = {1560387321, 1560392857, 1560396296, 1560399421, 1560402681};
    static const double first[5] = {0.14488, 0.17336, 0.14712, 0.1519, 0.17886};
    static const double last[5] = {0.7598, 0.75928, 0.76, 0.76186, 0.7598};
    for (int i = 0; i < 5; i++) {
        char path[256];
        snprintf(path, sizeof path, V06 "Alibaba/results/sinian/resnet/result_%d.txt", i + 1);
        tta_parsed_file f = parse_path(path);
        const tta_run_record *r = &f.run;
        CHECK(f.format == TTA_FMT_MLPERF_TEXT && !f.failed);
        CHECK_STR(r->round, "v0.6");
        CHECK_STR(r->submitter, "Alibaba");
        CHECK_STR(r->system, "sinian");
        CHECK_STR(r->benchmark, "resnet");
        CHECK(r->division == NULL); /* from entry.json, joined by the store */
        CHECK(r->run_index == i + 1);
        CHECK(r->run_start_s == start[i]);
        CHECK(r->run_stop_s == stop[i]);
        CHECK(r->status == TTA_RUN_UNKNOWN); /* a bare run_stop */
        CHECK(isnan(r->init_start_s) && isnan(r->init_stop_s)); /* the text form logs none */
        CHECK(r->n_evals == 20);
        if (r->n_evals == 20) {
            CHECK_NEAR(r->evals[0].quality, first[i], 1e-12); /* "14.48800%" */
            CHECK_NEAR(r->evals[19].quality, last[i], 1e-12);
            CHECK(r->evals[0].epoch == 4);                   /* 0-based "epoch": 3 */
            CHECK(r->evals[0].line == 377);
        }
        CHECK(epoch_reaching(r, 0.759) == 80);
        CHECK(r->has_seed && r->seed == 2019);
        CHECK(events_are_json(&f));
        tta_parsed_free(&f);
    }
}

int main(void) {
    RUN(nvidia_resnet_entry);
    RUN(nvidia_resnet_details);
    RUN(maskrcnn_accuracy_object);
    RUN(google_mask_list);
    RUN(transformer_bleu_string);
    RUN(minigo_eval_result);
    RUN(intel_minigo_python_dicts);
    RUN(broken_records);
    RUN(alibaba_text_form);
    return test_summary();
}
