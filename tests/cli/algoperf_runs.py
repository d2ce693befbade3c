#!/usr/bin/env python3
"""AlgoPerf studies as runs (db/algoperf_runs.c), read by the general reports: per leaderboard ruleset,
submission and workload, the median over its runs (studies) of `tta ls runs --format json`'s tta_s (a
missed target counts as infinite, numpy's median) equals the official scoring code's time_to_targets.csv
(tests/expected/algoperf/<dir>/<ruleset>/, the median over studies of each study's time) to 1e-9
relative; every run's file is an eval_measurements.csv of its entry's place; `tta report variance`
shows no official score for them. Usage: algoperf_runs.py TTA DB EXPECTED_DIR. Exit 0 when all agree."""
import csv, json, math, os, subprocess, sys

tta, db, expected = sys.argv[1:4]


def tta_json(*args):
    out = subprocess.run([tta, "--db", db, *args, "--format", "json"], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def median(xs):  # numpy's: the mean of the two middle ones; inf + x = inf
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2.0


runs = tta_json("ls", "runs", "--round", "algoperf-v0.5")
studies = {}
bad = 0
for r in runs:
    key = (r["division"], r["submitter"], r["benchmark"])
    t = r["tta_s"] if r["reached"] else math.inf
    if r["reached"] and (t is None or not t > 0):
        print(f"FAIL: {key}: reached with tta_s {t}")
        bad += 1
    if r["system"] != r["submitter"] or not r["file"].endswith("/eval_measurements.csv") \
            or f"/{r['division']}/{r['submitter']}/study_" not in r["file"]:
        print(f"FAIL: {key}: run file {r['file']} is not a trial of its entry")
        bad += 1
    studies.setdefault(key, []).append(t)

compared = 0
for ruleset in sorted(os.listdir(expected)):
    with open(os.path.join(expected, ruleset, "time_to_targets.csv")) as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        sub = row.pop("submission")
        for workload, want in row.items():
            got = studies.get((ruleset, sub, workload))
            if want == "":
                if got:
                    print(f"FAIL: {ruleset} {sub} {workload}: the official code has no trial, tta {len(got)} runs")
                    bad += 1
                continue
            want = float(want)
            m = median(got) if got else None
            ok = m is not None and (m == want or (math.isfinite(want) and abs(m - want) <= 1e-9 * abs(want)))
            if not ok:
                print(f"FAIL: {ruleset} {sub} {workload}: official {want}, median of tta's runs {m} ({got})")
                bad += 1
            compared += 1
if compared == 0:
    print("FAIL: nothing compared")
    bad += 1

variance = tta_json("report", "variance", "--round", "algoperf-v0.5")
official = [v for v in variance if v["score_min"] is not None or v["summary_score_min"] is not None]
if official or len(variance) != len(studies):
    print(f"FAIL: variance: {len(official)} rows with an official score, {len(variance)} rows for {len(studies)} entries")
    bad += 1
print(f"{compared} workload times compared over {len(runs)} runs (studies), {len(variance)} variance rows; {bad} failures")
sys.exit(1 if bad else 0)
