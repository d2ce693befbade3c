#!/usr/bin/python3
"""Reference values for tests/stats/test_*.c, computed independently of tta's C code.

Run offline with Debian's python3-numpy and python3-scipy (1.24 / 1.10 when the values were pasted):

    /usr/bin/python3 tests/stats/reference_values.py [PATH/TO/mlcommons-logging] [SHARED_DIR]

The RCP values come from MLCommons' own checker (mlperf_logging/rcp_checker/rcp_checker.py from a
checkout of github.com/mlcommons/logging, 4.1.59 when pasted) run on ../shared/rcp. The tests
themselves never need Python: this script only prints the numbers that were pasted into them.
"""
import glob
import json
import os
import sys

import numpy as np
import scipy.stats


def gsl_mt19937(seed):
    """numpy's MT19937 with the legacy init_genrand seeding is GSL's gsl_rng_mt19937 + gsl_rng_set."""
    bg = np.random.MT19937()
    bg._legacy_seeding(seed)
    return bg


def gsl_uniform_int(bg, n):
    """gsl_rng_uniform_int: scale = range / n, reject k >= n (range 0xffffffff for mt19937)."""
    scale = 0xFFFFFFFF // n
    while True:
        k = int(bg.random_raw()) // scale
        if k < n:
            return k


def cv(x):
    x = np.asarray(x, dtype=float)
    return np.std(x) / abs(np.mean(x))


def bootstrap_cv(x, resamples, alpha, seed):
    bg = gsl_mt19937(seed)
    n = len(x)
    cvs = [cv([x[gsl_uniform_int(bg, n)] for _ in range(n)]) for _ in range(resamples)]
    return np.percentile(cvs, [100 * alpha / 2, 100 * (1 - alpha / 2)])


def bootstrap_ratio(a, b, resamples, alpha, seed):
    bg = gsl_mt19937(seed)
    ratios = []
    for _ in range(resamples):
        ma = np.mean([a[gsl_uniform_int(bg, len(a))] for _ in range(len(a))])
        mb = np.mean([b[gsl_uniform_int(bg, len(b))] for _ in range(len(b))])
        ratios.append(ma / mb)
    return np.percentile(ratios, [100 * alpha / 2, 100 * (1 - alpha / 2)])


def decomposition(tta, epochs):
    tta, epochs = np.asarray(tta, float), np.asarray(epochs, float)
    tpe = tta / epochs
    le, lt = np.log(epochs), np.log(tpe)
    ve, vt = np.var(le), np.var(lt)
    cov = np.mean((le - le.mean()) * (lt - lt.mean()))
    total = np.var(np.log(tta))
    return dict(epochs_mean=epochs.mean(), epochs_std=epochs.std(), tpe_mean=tpe.mean(), tpe_std=tpe.std(),
                cv_ratio=cv(epochs) / cv(tpe), share_epochs=ve / total, share_tpe=vt / total,
                share_cov=2 * cov / total)


def power(n, effect, alpha):
    df = 2 * n - 2
    nc = effect * np.sqrt(n / 2)
    t = scipy.stats.t.isf(alpha / 2, df)
    return scipy.stats.nct.sf(t, df, nc) + scipy.stats.nct.cdf(-t, df, nc)


def runs_needed(effect, alpha, target):
    n = 2
    while power(n, effect, alpha) < target:
        n += 1
    return n


def summarizer_score(times, success, benchmark):
    """result_summarizer._compute_strong_score_standalone's arithmetic (4.1.59)."""
    scores = [t for t, ok in zip(times, success) if ok]
    dropped = len(times) - len(scores)
    max_dropped = 4 if benchmark == "unet3d" else 1
    if dropped > max_dropped:
        return None
    scores.sort()
    countable = scores[max_dropped:(len(scores) - (max_dropped - dropped))]
    return sum(countable) / len(countable) if countable else None


def official_rcp_record(checker, bs, rcp_pass="pruned_rcps"):
    """The reference record check_directory evaluates a submission at bs against (None: none)."""
    rcp = checker._find_rcp(bs, rcp_pass)
    if rcp is not None:
        return rcp
    lo = checker._find_top_min_rcp(bs, rcp_pass)
    hi = checker._find_bottom_max_rcp(bs, rcp_pass)
    if lo is not None and hi is not None:
        return checker._create_interp_rcp(bs, lo, hi)[1]
    return checker._find_min_rcp(rcp_pass) if lo is None else None


SAMPLES_BENCHMARKS = {"llama2_70b_lora", "flux1", "llama31_405b", "llama31_8b", "gpt_oss_20b", "deepseekv3_671b",
                      "qwen35_397b_grpo"}


def official_check_directory(rc, rcp_path, version, bench, runs):
    """rcp_checker.check_directory itself on result files written for runs, a list of (progress or
    None for a run that did not converge, batch size or None when not logged), read in file-name
    order (tta's order; the checker's own glob order is the directory's). Returns (pass, message,
    normalization), or the exception the checker stops with."""
    import tempfile
    key = "samples_count" if bench in SAMPLES_BENCHMARKS else "epoch_num"
    with tempfile.TemporaryDirectory() as d:
        for i, (progress, bs) in enumerate(runs):
            lines = [{"key": "submission_benchmark", "value": bench, "metadata": {}}]
            if bs is not None:
                lines.append({"key": "global_batch_size", "value": bs, "metadata": {}})
            lines.append({"key": "eval_accuracy", "value": 0.5, "metadata": {key: progress if progress else 1}})
            lines.append({"key": "run_stop", "value": None,
                          "metadata": {"status": "success" if progress is not None else "aborted"}})
            with open(os.path.join(d, "result_%02d.txt" % i), "w") as f:
                f.write("".join(":::MLLOG " + json.dumps(x) + "\n" for x in lines))
        real_glob = rc.glob
        rc.glob = type("sorted_glob", (), {"glob": staticmethod(lambda p, recursive=False: sorted(real_glob.glob(p)))})
        try:
            with open(rcp_path) as f:
                return rc.check_directory(d, "training", version, False, False, rcp_file=f, rcp_pass="pruned_rcps")
        except Exception as e:
            return repr(e)
        finally:
            rc.glob = real_glob


def main():
    logging_dir = sys.argv[1] if len(sys.argv) > 1 else None
    shared = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "../../../shared")

    print("== bootstrap CV: x = [100 104 98 110 95 101 99 103], 2000 resamples, alpha 0.05, seed 42")
    x = [100, 104, 98, 110, 95, 101, 99, 103]
    print("cv", repr(cv(x)), "interval", [repr(v) for v in bootstrap_cv(x, 2000, 0.05, 42)])
    print("same, seed 7, 500 resamples, alpha 0.1:", [repr(v) for v in bootstrap_cv(x, 500, 0.1, 7)])

    a = [100, 104, 98, 110, 95]
    b = [90, 93, 91, 97, 88, 92]
    print("== ratio of means a/b, 2000 resamples, alpha 0.05, seed 7:", [repr(v) for v in bootstrap_ratio(a, b, 2000, 0.05, 7)])

    print("== decomposition tta [100 110 200], epochs [10 10 20]:", {k: repr(v) for k, v in decomposition([100, 110, 200], [10, 10, 20]).items()})
    tta5 = [3600, 3900, 4100, 3500, 4400]
    ep5 = [40, 42, 44, 39, 46]
    print("== decomposition tta", tta5, "epochs", ep5, {k: repr(v) for k, v in decomposition(tta5, ep5).items()})

    t = scipy.stats.ttest_ind(a, b, equal_var=False)
    print("== welch a b: t", repr(t.statistic), "p", repr(t.pvalue))
    va, vb = np.var(a, ddof=1) / len(a), np.var(b, ddof=1) / len(b)
    print("   df", repr((va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))))
    w2 = scipy.stats.ttest_ind([5.1, 5.3, 4.9], [6.0, 6.2, 5.7, 6.4, 5.9, 6.1, 6.3], equal_var=False)
    print("   welch 2:", repr(w2.statistic), repr(w2.pvalue))
    for aa, bb in [(a, b), ([1, 2, 2, 3, 4, 5], [3, 4, 4, 6, 7, 8, 9])]:
        for method in ("exact", "asymptotic"):
            try:
                m = scipy.stats.mannwhitneyu(aa, bb, alternative="two-sided", method=method)
                print("== mwu", aa, bb, method, "U", repr(m.statistic), "p", repr(m.pvalue))
            except ValueError as e:
                print("== mwu", method, e)
    big_a = [float(v) for v in range(1, 61, 2)]        # 30 odd numbers
    big_b = [float(v) + 0.5 for v in range(10, 70, 2)]  # 30 values, no ties with big_a
    m = scipy.stats.mannwhitneyu(big_a, big_b, alternative="two-sided", method="exact")
    print("== mwu 30 x 30 exact U", repr(m.statistic), "p", repr(m.pvalue))
    m = scipy.stats.mannwhitneyu(list(range(1, 52)), [v + 0.5 for v in range(1, 52)], alternative="two-sided",
                                 method="asymptotic")
    print("== mwu 51 x 51 asymptotic U", repr(m.statistic), "p", repr(m.pvalue))

    for n, effect in [(17, 1.0), (16, 1.0), (2, 5.0), (10, 0.5), (200, 0.3), (3000, 0.05)]:
        print("== power n", n, "effect", effect, repr(power(n, effect, 0.05)))
    for effect in (1.0, 0.5, 2.0, 0.2):
        print("== runs needed effect", effect, runs_needed(effect, 0.05, 0.8))
    print("== runs needed effect 0.5 alpha 0.01 power 0.9", runs_needed(0.5, 0.01, 0.9))

    print("== summarizer", summarizer_score([50, 10, 30, 20, 40], [1, 1, 1, 1, 0], "resnet"))

    if not logging_dir:
        return
    sys.path.insert(0, os.path.join(logging_dir, "mlperf_logging", "rcp_checker"))
    import logging
    import warnings
    import rcp_checker as rc
    logging.disable(logging.CRITICAL)  # its warnings ("Marking as infinite") and numpy's (mean of empty slice)
    warnings.simplefilter("ignore", RuntimeWarning)
    # dlrm left rcp_checker's table in 2023 (logging commit 9d5a652); before, it made 5 runs.
    rc.submission_runs["training"].setdefault("dlrm", 5)

    def checker(version, bench):
        with open(os.path.join(shared, "rcp", "training_" + version, "rcps_" + bench + ".json")) as f:
            return rc.RCP_Checker("training", version, bench, False, f)

    print("== pruned batch sizes of every file (benchmarks in rcp_checker's table)")
    for path in sorted(glob.glob(os.path.join(shared, "rcp", "training_*", "rcps_*.json"))):
        version = os.path.basename(os.path.dirname(path))[len("training_"):]
        bench = os.path.basename(path)[len("rcps_"):-len(".json")]
        if bench not in rc.submission_runs["training"]:
            print(version, bench, "KeyError in rcp_checker")
            continue
        c = checker(version, bench)
        print('{"%s", "%s", %d, {%s}},' % (version, bench, len(c.rcp_data),
                                          ", ".join(str(v["BS"]) for v in c.pruned_rcp_data.values())))

    for version, bench in [("4.0.0", "resnet"), ("3.0.0", "unet3d"), ("4.1.0", "gpt3"), ("5.0.0", "llama2_70b_lora"),
                           ("5.0.0", "llama31_405b"), ("1.0.0", "bert")]:
        c = checker(version, bench)
        print("== points", version, bench)
        for v in c.rcp_data.values():
            print("   {%r, %r, %r, %r}," % (v["BS"], v["RCP Mean"], v["RCP Stdev"], v["Min Epochs"]))

    nan = None
    cases = [
        ("4.0.0", "resnet", 3264, [34, 35, 35, 36, 37]),
        ("4.0.0", "resnet", 3264, [34.2, 34.3, 34.4, 34.5, 34.9]),
        ("4.0.0", "resnet", 3264, [30, 31, 31, 32, 33]),
        ("4.0.0", "resnet", 3264, [36, 37, 37, 38, nan]),
        ("4.0.0", "resnet", 3264, [36, nan, 37, 38, nan]),
        ("4.0.0", "resnet", 4000, [33, 34, 34, 35, 36]),
        ("4.0.0", "resnet", 4000, [35, 35, 35.5, 36, 36]),
        ("4.0.0", "resnet", 8192, [39, 40, 41, 41, 42]),
        ("4.0.0", "resnet", 1024, [33, 34, 35, 36, 36]),
        ("4.0.0", "resnet", 1024, [30, 31, 31, 32, 33]),
        ("4.0.0", "resnet", 100000, [90, 90, 90, 90, 90]),
        ("4.0.0", "resnet", 3264, [34, 35]),
        ("3.0.0", "unet3d", 56, [3000] * 4 + list(range(3100, 3100 + 32 * 10, 10)) + [nan] * 4),
        ("3.0.0", "unet3d", 80, [1000] * 4 + list(range(1500, 1660, 5)) + [nan] * 4),
        ("3.0.0", "unet3d", 82, [1000] * 4 + list(range(1500, 1660, 5)) + [nan] * 4),
        ("3.0.0", "unet3d", 80, [1000] * 4 + list(range(1500, 1655, 5)) + [nan] * 5),
        ("5.0.0", "llama31_405b", 1152, [280000, 290000, 300000]),
        ("5.0.0", "llama31_405b", 1152, [270000, 275000, 300000]),
        ("5.0.0", "llama31_405b", 3000, [300000, 340000, 400000]),
        ("5.0.0", "llama2_70b_lora", 8, [2800, 3000, 3100, 3100, 3200, 3300, 3300, 3400, 3500, 3600]),
    ]
    print("== check_directory (version, benchmark, bs, runs): verdict; rcp mean, limit, submission mean")
    for version, bench, bs, epochs in cases:
        path = os.path.join(shared, "rcp", "training_" + version, "rcps_" + bench + ".json")
        verdict = official_check_directory(rc, path, version, bench, [(e, bs) for e in epochs])
        rec = official_rcp_record(checker(version, bench), bs)
        if rec is not None and bench == "llama31_405b":
            rec["Max Speedup"] = rec["RCP Mean"] / (rec["Min Epochs"] - 46080)
        rej = 4 if bench == "unet3d" else 1
        s = sorted(1e9 if e is None else e for e in epochs)
        print("  ", version, bench, bs, epochs, verdict, repr(rec["RCP Mean"]) if rec else None,
              repr(rec["RCP Mean"] / rec["Max Speedup"]) if rec else None,
              "subm", repr(np.mean(s[rej:len(s) - rej])) if len(s) > 2 * rej else None)
    resnet = os.path.join(shared, "rcp", "training_4.0.0", "rcps_resnet.json")
    for runs in [[(34, 3264), (35, 3264), (35, 3264), (36, 3264), (37, 4096)],  # batch sizes differ
                 [(34, None), (35, 3264), (35, 3264), (36, 3264), (37, 3264)],  # the first without one
                 [(34, 3264), (35, 3264), (35, None), (36, 3264), (37, 3264)],  # a later one without
                 [(34, None), (35, None), (35, None), (36, None), (37, None)]]:  # none
        print("== check_directory resnet 4.0.0", runs, official_check_directory(rc, resnet, "4.0.0", "resnet", runs))

    # The synthetic file of test_rcp.c: three runs per point (mean = middle run, stdev sqrt(2/3)).
    synthetic = {"p%d" % bs: {"Benchmark": "resnet", "BS": bs, "Hyperparams": {}, "Epochs to converge": [m - 1, m, m + 1]}
                 for bs, m in [(1, 12), (2, 10), (4, 14), (6, 30), (8, 20)]}
    import io
    import tempfile
    c = rc.RCP_Checker("training", "4.0.0", "resnet", False, io.StringIO(json.dumps(synthetic)))
    print("== synthetic: pruned", [v["BS"] for v in c.pruned_rcp_data.values()])
    for v in c.rcp_data.values():
        print("   {%r, %r, %r, %r}," % (v["BS"], v["RCP Mean"], v["RCP Stdev"], v["Min Epochs"]))
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump(synthetic, f)
        f.flush()
        for bs, epochs in [(6, [15, 16, 16, 17, 18]), (6, [14, 15, 15, 15, 16]), (3, [11, 12, 12, 12, 13])]:
            rec = official_rcp_record(c, bs)
            print("   check", bs, epochs, official_check_directory(rc, f.name, "4.0.0", "resnet", [(e, bs) for e in epochs]),
                  repr(rec["RCP Mean"]), repr(rec["RCP Mean"] / rec["Max Speedup"]))
    # one point beyond the checker's 1e9 search bound: "Cannot find any RCPs" below it
    far = {"p": {"Benchmark": "resnet", "BS": 2e9, "Hyperparams": {}, "Epochs to converge": [9, 10, 11]}}
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump(far, f)
        f.flush()
        print("== far point", official_check_directory(rc, f.name, "4.0.0", "resnet", [(10, 1000)] * 5))


if __name__ == "__main__":
    main()
