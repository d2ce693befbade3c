/* test_parse_dawnbench.c: DAWNBench TSV runs with their sibling JSON, on the fixtures (a CIFAR10
 * entry, one with a byte-order mark and CRLF, an ImageNet one with its columns reordered, the
 * Fashion-MNIST claims) and malformed TSVs. Expected values were read with Python's csv module. */
#include "test_parse_util.h"

#define CIFAR "fixtures/dawnbench/CIFAR10/train/"

TEST(cifar10_entry) {
    tta_parsed_file f = parse_path(CIFAR "davidcpage_resnet9_1v100-ec2_pytorch.tsv");
    const tta_run_record *r = &f.run;
    CHECK(f.format == TTA_FMT_DAWNBENCH_TSV && !f.failed);
    CHECK_STR(r->round, "dawnbench");
    CHECK_STR(r->division, "open");
    CHECK_STR(r->submitter, "David Page, myrtle.ai");
    CHECK_STR(r->system, "davidcpage_resnet9_1v100-ec2_pytorch");
    CHECK_STR(r->benchmark, "cifar10");
    CHECK_STR(r->platform, "V100 (AWS p3.2xlarge)");
    CHECK(r->run_index == -1);
    CHECK(r->run_start_s == 0);
    CHECK(isnan(r->init_start_s) && isnan(r->init_stop_s)); /* no initialisation logged */
    CHECK_NEAR(r->run_stop_s, 74.041416, 1e-9);
    CHECK(r->status == TTA_RUN_SUCCESS);
    CHECK(r->n_evals == 24 && r->n_epochs == 24);
    if (r->n_evals == 24) {
        CHECK(r->evals[0].epoch == 1 && r->evals[0].quality == 34.69 && r->evals[0].line == 2);
        CHECK_NEAR(r->evals[0].time_s, 0.00152249 * 3600, 1e-9);
        CHECK(r->evals[23].quality == 94.08);
        CHECK(r->epochs[1].start_s == r->epochs[0].stop_s);
    }
    CHECK_NEAR(time_reaching(r, 94.0), 74.041416, 1e-9); /* the first row at 94% top-1: the last */
    /* misc: every key, as JSON */
    const tta_kv *lr = hparam(r, "learningRate");
    CHECK(lr && str_is(lr->value, "{\"type\":\"piecewiseLinear\",\"epochs\":[0,5,24],\"values\":[0,0.4,0]}"));
    const tta_kv *bs = hparam(r, "batchSize");
    CHECK(bs && str_is(bs->value, "512"));
    CHECK(r->n_hparams == 8);
    /* The hash covers the TSV and its JSON. */
    tta_parsed_file alone = {0};
    FILE *fp = fopen(CIFAR "davidcpage_resnet9_1v100-ec2_pytorch.tsv", "rb");
    char text[4096];
    size_t n = fp ? fread(text, 1, sizeof text, fp) : 0;
    if (fp) fclose(fp);
    CHECK(tta_parse_buffer("elsewhere/davidcpage_resnet9_1v100-ec2_pytorch.tsv", text, n, &alone) == 0);
    CHECK(alone.hash != f.hash);
    CHECK(alone.run.n_hparams == 0 && alone.run.n_evals == 24);
    tta_parsed_free(&alone);
    tta_parsed_free(&f);
}

TEST(bom_crlf_and_reordered_columns) {
    tta_parsed_file f = parse_path(CIFAR "KRes34_1GTX1080Ti_pytorch.tsv");
    const tta_run_record *r = &f.run;
    CHECK(!f.failed);
    CHECK(r->n_evals == 200);
    if (r->n_evals == 200) CHECK(r->evals[0].quality == 43.18 && r->evals[199].quality == 95.15);
    CHECK_NEAR(time_reaching(r, 94.0), 2136.1788, 1e-9);
    CHECK_NEAR(r->run_stop_s, 7763.0976, 1e-9);
    CHECK_STR(r->submitter, "Chen Wang");
    tta_parsed_free(&f);
    /* hours before epoch; ImageNet: top-5 is the metric, top-1 the second one */
    f = parse_path("fixtures/dawnbench/ImageNet/train/dawn_resnet152_b_4M60_ec2_tensorflow.tsv");
    r = &f.run;
    CHECK_STR(r->benchmark, "imagenet");
    CHECK(r->n_evals == 113);
    if (r->n_evals == 113) {
        CHECK(r->evals[0].epoch == 1);
        CHECK(r->evals[112].quality == 93.35);
        CHECK(r->evals[0].quality == 19.74 && r->evals[0].quality2 == 7.21);
    }
    CHECK_NEAR(time_reaching(r, 93.0), 1161696.3649778366, 1e-6);
    tta_parsed_free(&f);
}

TEST(claims) {
    static const double stop[3] = {80.539992, 79.750008, 82.479996};
    static const double tta[3] = {44.73, 55.08, 38.909988};
    static const double reach[3] = {8, 10, 6};
    for (int i = 0; i < 3; i++) {
        char path[128];
        snprintf(path, sizeof path, "fixtures/claims/fmnist_mlp_pytorch_seed%d.tsv", i);
        tta_parsed_file f = parse_path(path);
        const tta_run_record *r = &f.run;
        CHECK(!f.failed);
        CHECK_STR(r->benchmark, "fashion-mnist"); /* from the JSON's "dataset" */
        CHECK_STR(r->submitter, "tta anchors (PyTorch reference run)");
        CHECK(r->run_index == i); /* _seed<N> */
        CHECK(r->has_seed && r->seed == i);
        CHECK(r->n_evals == 15);
        CHECK_NEAR(r->run_stop_s, stop[i], 1e-6);
        CHECK_NEAR(time_reaching(r, 88.0), tta[i], 1e-6);
        CHECK(epoch_reaching(r, 88.0) == reach[i]);
        const tta_kv *u = hparam(r, "unseenAccuracy");
        CHECK(u != NULL);
        tta_parsed_free(&f);
    }
}

TEST(malformed_tsv) {
    /* A row with a non-number is skipped; fractions are read as percent. */
    tta_parsed_file f = parse_text("x/cifar10/a.tsv", "epoch\thours\ttop1Accuracy\n1\t0.5\t0.5\n2\tn/a\t0.9\n3\t1.5\t0.95\n");
    CHECK(f.format == TTA_FMT_DAWNBENCH_TSV && !f.failed);
    CHECK(f.run.n_evals == 2);
    if (f.run.n_evals == 2) CHECK(f.run.evals[1].quality == 95 && f.run.evals[1].time_s == 5400 && f.run.evals[1].line == 4);
    CHECK(time_reaching(&f.run, 94.0) == 5400);
    tta_parsed_free(&f);
    /* No usable row: failed at the first bad row. */
    f = parse_text("x/a.tsv", "epoch\thours\ttop1Accuracy\n\n1\tsoon\t50\n2\t1\t\n");
    CHECK(f.failed);
    CHECK_STR(f.error, "x/a.tsv:3: TSV row is not numbers (and no data row)");
    tta_parsed_free(&f);
    f = parse_text("x/a.tsv", "epoch\thours\ttop1Accuracy\n");
    CHECK(f.failed);
    CHECK_STR(f.error, "x/a.tsv:1: TSV has no data row");
    tta_parsed_free(&f);
    /* A header without a quality column is detected as a TSV but fails. */
    f = parse_text("x/a.tsv", "epoch\thours\tloss\n1\t1\t0.5\n");
    CHECK(f.format == TTA_FMT_DAWNBENCH_TSV && f.failed);
    CHECK_STR(f.error, "x/a.tsv:1: TSV header has no quality (top1Accuracy, top5Accuracy, f1Score) column");
    tta_parsed_free(&f);
}

int main(void) {
    RUN(cifar10_entry);
    RUN(bom_crlf_and_reordered_columns);
    RUN(claims);
    RUN(malformed_tsv);
    return test_summary();
}
