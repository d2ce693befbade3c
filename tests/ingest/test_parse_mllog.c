/* test_parse_mllog.c: :::MLLOG logs (v0.7 and later), :::SYSJSON, ranks, power logs, and the
 * MLLOG quirks, on the fixtures. Expected values were read from the fixture files with Python's
 * json module (fixtures/README.md), not from this parser. */
#include "ingest/pathmeta.h"
#include "test_parse_util.h"

#define V07 "fixtures/mlperf/v0.7/NVIDIA/results/"

TEST(resnet_entry_1_node) {
    static const double start[5] = {1592669212.356, 1592669288.183, 1592669289.807, 1592669324.063, 1592669321.699};
    static const double stop[5] = {1592671579.019, 1592671653.448, 1592671649.688, 1592671758.533, 1592671750.11};
    static const double first_q[5] = {0.04408, 0.0822, 0.05176, 0.05688, 0.09064};
    static const double last_q[5] = {0.76146, 0.7614, 0.76086, 0.76138, 0.75922};
    double seconds[5];
    for (int i = 0; i < 5; i++) {
        char path[256];
        snprintf(path, sizeof path, V07 "dgxa100_ngc20.06_mxnet/resnet/result_%d.txt", i);
        tta_parsed_file f = parse_path(path);
        const tta_run_record *r = &f.run;
        CHECK(f.format == TTA_FMT_MLLOG);
        CHECK(!f.failed);
        CHECK_STR(r->round, "v0.7");
        CHECK_STR(r->division, "closed");
        CHECK_STR(r->submitter, "NVIDIA");
        CHECK_STR(r->system, "dgxa100_ngc20.06_mxnet");
        CHECK_STR(r->benchmark, "resnet");
        CHECK_STR(r->platform, "1xNVIDIA DGX A100");
        CHECK(r->run_index == i);
        CHECK_NEAR(r->run_start_s, start[i], 1e-6);
        CHECK_NEAR(r->run_stop_s, stop[i], 1e-6);
        CHECK(r->status == TTA_RUN_SUCCESS);
        CHECK(r->n_evals == 11);
        CHECK(f.n_events == 169);
        if (r->n_evals == 11) {
            CHECK_NEAR(r->evals[0].quality, first_q[i], 1e-12);
            CHECK_NEAR(r->evals[10].quality, last_q[i], 1e-12);
            CHECK(r->evals[0].epoch == 1);
            CHECK(r->evals[0].line == 43);
        }
        CHECK(epoch_reaching(r, 0.759) == 41);
        CHECK(events_are_json(&f));
        seconds[i] = r->run_stop_s - r->run_start_s;
        tta_parsed_free(&f);
    }
    /* The official v0.7 score of NVIDIA/results/dgxa100_ngc20.06_mxnet/resnet. */
    CHECK_NEAR(olympic_minutes(seconds, 5), 39.779661, 1e-6);
}

TEST(resnet_entry_2_nodes) {
    double seconds[5];
    for (int i = 0; i < 5; i++) {
        char path[256];
        snprintf(path, sizeof path, V07 "dgxa100_n2_ngc20.06_mxnet/resnet/result_%d.txt", i);
        tta_parsed_file f = parse_path(path);
        CHECK_STR(f.run.system, "dgxa100_n2_ngc20.06_mxnet");
        CHECK(f.run.status == TTA_RUN_SUCCESS);
        CHECK(f.run.n_evals == 11);
        CHECK(f.n_events == 177);
        seconds[i] = f.run.run_stop_s - f.run.run_start_s;
        tta_parsed_free(&f);
    }
    CHECK_NEAR(olympic_minutes(seconds, 5), 23.753289, 1e-6);
}

TEST(resnet_run_details) {
    tta_parsed_file f = parse_path(V07 "dgxa100_ngc20.06_mxnet/resnet/result_0.txt");
    const tta_run_record *r = &f.run;
    CHECK(r->has_seed && r->seed == 28690);
    CHECK(r->global_batch_size == 3264);
    CHECK(r->train_samples == 1281167);
    CHECK(r->eval_samples == 50000);
    CHECK(isnan(r->target));
    /* Epoch marks from epoch_start/epoch_stop: 41 epochs, each stopping after it starts. */
    CHECK(r->n_epochs == 41);
    for (size_t i = 0; i < r->n_epochs; i++) CHECK(r->epochs[i].stop_s >= r->epochs[i].start_s);
    const tta_kv *gbs = hparam(r, "global_batch_size");
    CHECK(gbs && str_is(gbs->value, "3264"));
    CHECK(hparam(r, "opt_name") != NULL);
    /* Events keep the log's spans: the run_start record with its time and type. */
    size_t i = 0;
    while (i < f.n_events && !str_is(f.events[i].key, "run_start")) i++;
    CHECK(i < f.n_events);
    if (i < f.n_events) {
        CHECK(f.events[i].type == TTA_EV_START);
        CHECK_NEAR(f.events[i].time_s, 1592669212.356, 1e-6);
        CHECK(str_is(f.events[i].value, "null"));
    }
    tta_parsed_free(&f);
}

/* BERT v0.7 logs progress once, in train_samples after the final evaluation. */
TEST(bert) {
    tta_parsed_file f = parse_path(V07 "dgxa100_ngc20.06_pytorch/bert/result_0.txt");
    const tta_run_record *r = &f.run;
    CHECK(!f.failed);
    CHECK_STR(r->benchmark, "bert");
    CHECK_NEAR(r->run_start_s, 1593138511.332, 1e-6);
    CHECK_NEAR(r->run_stop_s, 1593141363.092, 1e-6);
    CHECK(r->n_evals == 1);
    if (r->n_evals == 1) {
        CHECK_NEAR(r->evals[0].quality, 0.712178111076355, 1e-15);
        CHECK(r->evals[0].epoch == 1);
        CHECK(r->evals[0].samples == 3000064);
        CHECK(r->evals[0].line == 39);
    }
    CHECK(r->global_batch_size == 256);
    CHECK(f.n_events == 38);
    /* Records behind the "0: " rank prefix are read. */
    CHECK(count_key(&f, "submission_benchmark") == 1);
    tta_parsed_free(&f);
}

/* From v1.0 on, BERT's eval_accuracy epoch_num is a sample count. */
TEST(bert_samples_from_v1) {
    const char *log =
        "0: :::MLLOG {\"namespace\": \"\", \"time_ms\": 1000, \"event_type\": \"POINT_IN_TIME\", \"key\": \"submission_benchmark\", \"value\": \"bert\", \"metadata\": {}}\n"
        "0: :::MLLOG {\"namespace\": \"\", \"time_ms\": 2000, \"event_type\": \"INTERVAL_START\", \"key\": \"run_start\", \"value\": null, \"metadata\": {}}\n"
        "0: :::MLLOG {\"namespace\": \"\", \"time_ms\": 3000, \"event_type\": \"POINT_IN_TIME\", \"key\": \"eval_accuracy\", \"value\": 0.70, \"metadata\": {\"epoch_num\": 2826240}}\n"
        "0: :::MLLOG {\"namespace\": \"\", \"time_ms\": 4000, \"event_type\": \"POINT_IN_TIME\", \"key\": \"eval_accuracy\", \"value\": 0.721, \"metadata\": {\"epoch_num\": 3031040}}\n"
        "0: :::MLLOG {\"namespace\": \"\", \"time_ms\": 4001, \"event_type\": \"INTERVAL_END\", \"key\": \"run_stop\", \"value\": null, \"metadata\": {\"status\": \"success\"}}\n";
    tta_parsed_file f = parse_text("training_results_v1.0/Acme/results/box/bert/result_0.txt", log);
    CHECK_STR(f.run.round, "v1.0");
    CHECK(f.run.n_evals == 2);
    if (f.run.n_evals == 2) {
        CHECK(f.run.evals[1].samples == 3031040);
        CHECK(isnan(f.run.evals[1].epoch));
    }
    CHECK(f.events[2].epoch_num == 2826240); /* events keep it as logged */
    /* The RCP checker's readings at run_stop: the last evaluation's epoch_num; no train_samples. */
    CHECK(f.run.cp_epoch_num == 3031040 && isnan(f.run.cp_train_samples) && f.run.cp_status == TTA_RUN_SUCCESS);
    tta_parsed_free(&f);
    /* The same log in v0.7: epoch_num stays an epoch. */
    f = parse_text("v0.7/Acme/results/box/bert/result_0.txt", log);
    CHECK(f.run.n_evals == 2 && f.run.evals[1].epoch == 3031040 && isnan(f.run.evals[1].samples));
    tta_parsed_free(&f);
}

TEST(maskrcnn_two_metrics) {
    tta_parsed_file f = parse_path(V07 "dgxa100_ngc20.06_pytorch/maskrcnn/result_0.txt");
    const tta_run_record *r = &f.run;
    CHECK_STR(r->benchmark, "maskrcnn");
    CHECK(r->n_evals == 14);
    if (r->n_evals == 14) {
        CHECK_NEAR(r->evals[0].quality, 0.1750719681110053, 1e-15);
        CHECK_NEAR(r->evals[13].quality, 0.37848828640629323, 1e-15);
        CHECK(r->evals[13].quality2 > 0.339 && r->evals[13].quality2 < 0.35);
    }
    CHECK(epoch_reaching(r, 0.377) == 14);
    CHECK_NEAR(r->run_start_s, 1592669087.611, 1e-6);
    CHECK_NEAR(r->run_stop_s, 1592673910.591, 1e-6);
    tta_parsed_free(&f);
}

/* v0.7 GNMT logs BLEU as a fraction (0.2426): stored in points. */
TEST(gnmt_bleu_points) {
    tta_parsed_file f = parse_path(V07 "dgxa100_ngc20.06_pytorch/gnmt/result_0.txt");
    const tta_run_record *r = &f.run;
    CHECK(r->n_evals == 5);
    if (r->n_evals == 5) {
        CHECK_NEAR(r->evals[0].quality, 19.89, 1e-9);
        CHECK_NEAR(r->evals[4].quality, 24.26, 1e-9);
    }
    CHECK(epoch_reaching(r, 24.0) == 5);
    tta_parsed_free(&f);
}

/* Alibaba v0.7: no benchmark folder, time_s instead of time_ms, submission_org "alibaba". */
TEST(alibaba_without_benchmark_folder) {
    tta_parsed_file f = parse_path("fixtures/mlperf/v0.7/Alibaba/results/v100-256/result_1.txt");
    const tta_run_record *r = &f.run;
    CHECK(!f.failed);
    CHECK_STR(r->submitter, "Alibaba");
    CHECK_STR(r->system, "v100-256");
    CHECK_STR(r->benchmark, "resnet");
    CHECK(r->run_index == 1);
    CHECK_NEAR(r->run_start_s, 1593354424.831, 1e-6);
    CHECK_NEAR(r->run_stop_s, 1593354661.616, 1e-6);
    CHECK(r->status == TTA_RUN_SUCCESS);
    CHECK(r->n_evals == 14);
    CHECK(epoch_reaching(r, 0.759) == 56);
    CHECK(r->global_batch_size == 33280);
    tta_parsed_free(&f);
}

TEST(sysjson_and_samples_count) {
    tta_parsed_file f = parse_path("fixtures/quirks/sysjson.txt");
    const tta_run_record *r = &f.run;
    CHECK(!f.failed);
    CHECK(count_key(&f, "sysjson") == 1);
    CHECK(f.events[0].line == 1 && str_is(f.events[0].key, "sysjson") && isnan(f.events[0].time_s));
    CHECK_STR(r->benchmark, "llama2_70b_lora");
    CHECK_STR(r->submitter, "Synthetic"); /* no layout in the path: the log's submission_org */
    CHECK_STR(r->system, "box8");
    CHECK_STR(r->division, "closed");
    CHECK(r->n_evals == 3);
    if (r->n_evals == 3) {
        CHECK(r->evals[2].samples == 9216);
        CHECK_NEAR(r->evals[2].quality, 0.9243, 1e-12); /* eval loss: kept as logged */
    }
    CHECK(r->has_seed && r->seed == 1234);
    CHECK(events_are_json(&f));
    tta_parsed_free(&f);
}

/* Sixteen ranks print cache_clear and init_start; rank 0 the rest. */
TEST(ranks) {
    tta_parsed_file f = parse_path("fixtures/quirks/ranks.txt");
    CHECK(!f.failed);
    CHECK(count_key(&f, "cache_clear") == 16);
    CHECK(count_key(&f, "init_start") == 16);
    CHECK_NEAR(f.run.run_start_s, 1593118445.814, 1e-6);
    CHECK_NEAR(f.run.run_stop_s, 1593121159.335, 1e-6);
    CHECK(f.run.n_evals == 14);
    CHECK_STR(f.run.benchmark, "dlrm");
    tta_parsed_free(&f);
    /* A run_stop without status from rank 1, then rank 0's: the first with a status counts. */
    f = parse_path("fixtures/quirks/ranks_run_stop.txt");
    CHECK(count_key(&f, "run_stop") == 2);
    CHECK_NEAR(f.run.run_stop_s, 1593121159.335, 1e-6);
    CHECK(f.run.status == TTA_RUN_SUCCESS);
    tta_parsed_free(&f);
}

TEST(bom_crlf_truncated) {
    tta_parsed_file f = parse_path("fixtures/quirks/bom.txt");
    CHECK(f.format == TTA_FMT_MLLOG && !f.failed && f.n_events == 169);
    CHECK(f.run.status == TTA_RUN_SUCCESS);
    tta_parsed_free(&f);
    f = parse_path("fixtures/quirks/crlf.txt");
    CHECK(f.format == TTA_FMT_MLLOG && !f.failed);
    CHECK_STR(f.run.benchmark, "maskrcnn");
    CHECK(f.run.status == TTA_RUN_SUCCESS && f.run.n_evals == 14);
    CHECK(events_are_json(&f));
    for (size_t i = 0; i < f.n_events; i++) CHECK(!memchr(f.events[i].key.p, '\r', f.events[i].key.n));
    tta_parsed_free(&f);
    /* Cut inside its run_stop record: the run has no stop and no status, and is kept. */
    f = parse_path("fixtures/quirks/truncated.txt");
    CHECK(!f.failed);
    CHECK(f.n_events == 168);
    CHECK(isnan(f.run.run_stop_s));
    CHECK(f.run.status == TTA_RUN_UNKNOWN);
    CHECK(f.run.n_evals == 11);
    tta_parsed_free(&f);
}

TEST(malformed_records) {
    const char *head = ":::MLLOG {\"time_ms\": 1000, \"key\": \"run_start\", \"value\": null, \"metadata\": {}}\n";
    /* A broken record, noise and two records on one line: the good ones are read. */
    const char *log = "noise\n"
                      ":::MLLOG {\"time_ms\": 500, \"key\": \"init_start\", \"value\": null, \"metadata\": {}}\n"
                      ":::MLLOG {\"time_ms\": 900, \"key\": \"broken\", \"value\": [1, \n"
                      ":::MLLOG {\"time_ms\": 1000, \"key\": \"run_start\", \"value\": null}:::MLLOG {\"time_ms\": 2000, \"key\": \"run_stop\", \"value\": null, \"metadata\": {\"status\": \"aborted\"}}\n";
    tta_parsed_file f = parse_text("x/log.txt", log);
    CHECK(!f.failed);
    CHECK(f.n_events == 3);
    CHECK(f.run.run_start_s == 1 && f.run.run_stop_s == 2 && f.run.status == TTA_RUN_ABORTED);
    if (f.n_events == 3) CHECK(f.events[2].line == 4);
    tta_parsed_free(&f);
    /* No run_start: failed, at the line of the first unreadable record. */
    f = parse_text("x/log.txt", ":::MLLOG {\"time_ms\": 1, \"key\": \"init_start\", \"value\": null}\nx\n:::MLLOG {\"time_ms\": 2, \"key\": \"run_start\", \"value\": nul}\n");
    CHECK(f.failed);
    CHECK_STR(f.error, "x/log.txt:3: no run_start record (first unreadable record: broken :::MLLOG JSON)");
    tta_parsed_free(&f);
    /* No run_start and nothing unreadable: the file's last line. */
    f = parse_text("x/log.txt", ":::MLLOG {\"time_ms\": 1, \"key\": \"init_start\", \"value\": null}\nmore\nend\n");
    CHECK(f.failed);
    CHECK_STR(f.error, "x/log.txt:3: no run_start record in 1 records");
    tta_parsed_free(&f);
    /* A key that is not a string, invalid UTF-8 repaired, a value that is not JSON (NaN). */
    f = parse_text("x/log.txt", ":::MLLOG {\"time_ms\": 1, \"key\": 5}\n"
                                ":::MLLOG {\"time_ms\": 2, \"key\": \"run_start\", \"value\": \"\xff\xfe\"}\n"
                                ":::MLLOG {\"time_ms\": 3, \"key\": \"eval_accuracy\", \"value\": NaN}\n");
    CHECK(!f.failed);
    CHECK(f.n_events == 2);
    CHECK(events_are_json(&f));
    tta_parsed_free(&f);
    (void)head;
}

TEST(power) {
    tta_parsed_file f = parse_path("fixtures/mlperf/v3.0/Synthetic/results/box8/bert/power/result_0/node_0.txt");
    CHECK(f.format == TTA_FMT_POWER);
    CHECK(!f.failed);
    const tta_power_record *p = &f.power;
    CHECK_STR(p->round, "v3.0");
    CHECK_STR(p->submitter, "Synthetic");
    CHECK_STR(p->system, "box8");
    CHECK_STR(p->benchmark, "bert");
    CHECK(p->run_index == 0);
    CHECK(p->n_samples == 13);
    size_t readings = 0;
    for (size_t i = 0; i < p->n_samples; i++) {
        CHECK_STR(p->samples[i].node, "node_0");
        if (str_is(p->samples[i].key, "power_reading")) {
            if (readings == 0) {
                CHECK(p->samples[i].value == 3712.5);
                CHECK_NEAR(p->samples[i].time_s, 1700000001.0, 1e-6);
            }
            readings++;
        }
    }
    CHECK(readings == 10);
    tta_parsed_free(&f);
    f = parse_path("fixtures/mlperf/v3.0/Synthetic/results/box8/bert/power/result_0/sw_0.txt");
    CHECK(f.format == TTA_FMT_POWER && f.power.n_samples == 2);
    if (f.power.n_samples == 2) CHECK(f.power.samples[1].value == 412.5); /* a number written as a string */
    tta_parsed_free(&f);
}

/* Copies of result logs kept in subfolders (raw_logs/, logs/) are not runs of the entry: the
 * walk skips them (pathmeta.h, tta_path_skip; tests/ingest/test_layout.c); named on their own
 * they are read like any log. */
TEST(auxiliary_copies_skipped) {
    const char *log = ":::MLLOG {\"time_ms\": 1, \"key\": \"run_start\", \"value\": null}\n";
    const char *copy = "v0.7/Intel/results/8-nodes/minigo/raw_logs/train_run2.log";
    tta_parsed_file f = parse_text(copy, log);
    CHECK(f.format == TTA_FMT_MLLOG && f.run.run_index == 2);
    tta_path_meta pm;
    tta_path_meta_read(copy, &f.arena, &pm);
    CHECK(tta_path_skip(copy, &pm, f.format) == TTA_SKIP_SUBFOLDER);
    tta_parsed_free(&f);
    f = parse_text("v0.7/Intel/results/8-nodes/minigo/result_run2.txt", log);
    CHECK(f.format == TTA_FMT_MLLOG && f.run.run_index == 2);
    tta_parsed_free(&f);
}

/* A failed system-description script (Dell v4.1 gnn, its shell trace trimmed; the two SYSJSON
 * lines edited to what the script echoes when it prints nothing): not records MLCommons' tools
 * read, so not unreadable records; the run is whole. */
TEST(failed_sysjson_is_not_unreadable) {
    tta_parsed_file f = parse_path("fixtures/quirks/sysjson_failed.txt");
    const tta_run_record *r = &f.run;
    CHECK(f.format == TTA_FMT_MLLOG && !f.failed);
    CHECK(r->unreadable_records == 0);
    CHECK(f.n_events == 70); /* the :::MLLOG records, and no sysjson event */
    CHECK(count_key(&f, "sysjson") == 0);
    CHECK(r->status == TTA_RUN_SUCCESS);
    CHECK_NEAR(r->run_start_s, 1728426269.735, 1e-6);
    CHECK_NEAR(r->run_stop_s, 1728427497.11, 1e-6);
    CHECK(r->n_evals == 15);
    tta_parsed_free(&f);
    /* A broken :::MLLOG record still is one. */
    f = parse_text("x/log.txt", ":::SYSJSON \n"
                                ":::MLLOG {\"time_ms\": 1000, \"key\": \"run_start\", \"value\": null}\n"
                                ":::MLLOG {\"time_ms\": 2000, \"key\": \"eval_accuracy\", \"value\": 0.5, \"meta\n"
                                ":::MLLOG {\"time_ms\": 3000, \"key\": \"run_stop\", \"value\": null, \"metadata\": {\"status\": \"success\"}}\n");
    CHECK(!f.failed && f.run.unreadable_records == 1 && f.run.first_unreadable_line == 3);
    tta_parsed_free(&f);
}

/* "value": [2604162]: the Graphcore v2.0 BERT excerpt (fixtures/mlperf/v2.0/...) with its
 * train_samples edited into a one-element list, which MLCommons' RCP checker reads as the number
 * (read_submission_file returns [2604162]; a folder of such runs gets the verdict the numbers get). */
TEST(one_element_list_is_its_number) {
    tta_parsed_file f = parse_path("fixtures/quirks/train_samples_list.txt");
    const tta_run_record *r = &f.run;
    CHECK(!f.failed);
    CHECK(r->train_samples == 2604162);
    CHECK(r->cp_train_samples == 2604162);
    CHECK(r->cp_status == TTA_RUN_SUCCESS);
    tta_parsed_free(&f);
    /* samples_count (llama2_70b_lora's convergence point) likewise; a list of two is no count. */
    f = parse_text("x/log.txt",
                   ":::MLLOG {\"time_ms\": 1000, \"key\": \"run_start\", \"value\": null}\n"
                   ":::MLLOG {\"time_ms\": 1500, \"key\": \"train_samples\", \"value\": [3901, 1]}\n"
                   ":::MLLOG {\"time_ms\": 2000, \"key\": \"eval_accuracy\", \"value\": [0.92], \"metadata\": {\"samples_count\": [2688]}}\n"
                   ":::MLLOG {\"time_ms\": 3000, \"key\": \"run_stop\", \"value\": null, \"metadata\": {\"status\": \"success\"}}\n");
    CHECK(!f.failed && f.run.n_evals == 1);
    if (f.run.n_evals == 1) CHECK(f.run.evals[0].samples == 2688 && f.run.evals[0].quality == 0.92);
    CHECK(f.run.cp_samples_count == 2688);
    CHECK(isnan(f.run.train_samples) && isnan(f.run.cp_train_samples));
    tta_parsed_free(&f);
}

/* Initialisation times: the first init_start, the last init_stop. */
TEST(init_times) {
    /* Dell v4.1 gnn: four ranks' init_start, one init_stop. */
    tta_parsed_file f = parse_path("fixtures/quirks/sysjson_failed.txt");
    CHECK_NEAR(f.run.init_start_s, 1728426049.120, 1e-6);
    CHECK_NEAR(f.run.init_stop_s, 1728426269.735, 1e-6);
    tta_parsed_free(&f);
    /* Google v0.7 tpu-v3-8192-TF ssd result_0 (whole): run_start logged 15.4 h before init_stop. */
    f = parse_path("fixtures/quirks/run_start_before_init.txt");
    CHECK_NEAR(f.run.init_start_s, 1592854705.841, 1e-6);
    CHECK_NEAR(f.run.init_stop_s, 1592855321.271, 1e-6);
    CHECK_NEAR(f.run.run_start_s, 1592800000.0, 1e-6);
    CHECK_NEAR(f.run.init_stop_s - f.run.run_start_s, 55321.271, 1e-3);
    tta_parsed_free(&f);
    f = parse_text("x/log.txt", ":::MLLOG {\"time_ms\": 1000, \"key\": \"init_start\", \"value\": null}\n"
                                ":::MLLOG {\"time_ms\": 1100, \"key\": \"init_start\", \"value\": null}\n"
                                ":::MLLOG {\"time_ms\": 2000, \"key\": \"init_stop\", \"value\": null}\n"
                                ":::MLLOG {\"time_ms\": 2500, \"key\": \"init_stop\", \"value\": null}\n"
                                ":::MLLOG {\"time_ms\": 3000, \"key\": \"run_start\", \"value\": null}\n");
    CHECK(f.run.init_start_s == 1.0 && f.run.init_stop_s == 2.5);
    tta_parsed_free(&f);
    f = parse_text("x/log.txt", ":::MLLOG {\"time_ms\": 3000, \"key\": \"run_start\", \"value\": null}\n");
    CHECK(isnan(f.run.init_start_s) && isnan(f.run.init_stop_s));
    tta_parsed_free(&f);
}

int main(void) {
    RUN(resnet_entry_1_node);
    RUN(resnet_entry_2_nodes);
    RUN(resnet_run_details);
    RUN(bert);
    RUN(bert_samples_from_v1);
    RUN(maskrcnn_two_metrics);
    RUN(gnmt_bleu_points);
    RUN(alibaba_without_benchmark_folder);
    RUN(sysjson_and_samples_count);
    RUN(ranks);
    RUN(bom_crlf_truncated);
    RUN(malformed_records);
    RUN(power);
    RUN(auxiliary_copies_skipped);
    RUN(failed_sysjson_is_not_unreadable);
    RUN(one_element_list_is_its_number);
    RUN(init_times);
    return test_summary();
}
