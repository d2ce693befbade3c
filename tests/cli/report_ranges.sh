#!/bin/bash
# `report variance|speedup|scaling --format json` on MLPerf Training v2.1, v3.1, v4.1 and v5.1 (../shared/corpus)
# show no impossible values: every entry decomposes its TTA in the unit its benchmark's rule gives
# (schemas/benchmark_rules.json: epochs, or samples turned into epochs by the training-set size, else millions
# of samples or tokens, or steps), time per epoch between 1 ms and 1 day, epochs per run between 0.001 and 100,000, progress x time
# per unit close to the mean TTA, shares of Var(log TTA) summing to 1 and within [-1, 2], each entry's progress
# within 10x of the median of its round's entries of the benchmark, throughput speedups within [0.001, 1000] and
# equal to the ratio of the times per unit, no NaN or infinity printed as a number, runs whose log says success
# without meeting the target named in the entry's note, and one line on stderr when a report is empty. The few
# entries that break a bound are listed below with the reason; any other fails. Needs ../shared/corpus (skips
# without it).
set -euo pipefail
TTA=${TTA:-build/tta}
cd "${TTA_SOURCE_DIR:-.}"
shared=${TTA_SHARED_DIR:-../shared}
corpus="$shared/corpus"
rounds="v2.1 v3.1 v4.1 v5.1"
for r in $rounds; do
    if [ ! -f "$corpus/mlperf-training-$r.tar.zst" ]; then
        echo "SKIPPED: no $corpus/mlperf-training-$r.tar.zst (the real logs live in ../shared, absent in a user's clone)"
        exit 77
    fi
done
command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed to read the reports"; exit 77; }
work=$(mktemp -d /tmp/tta-ranges.XXXXXX)
trap 'rm -rf "$work"' EXIT
dirs=()
for r in $rounds; do
    mkdir -p "$work/$r"
    tar --zstd -xf "$corpus/mlperf-training-$r.tar.zst" -C "$work/$r"
    dirs+=("$work/$r")
done
# A file the corpus holds broken makes ingest exit 1; the reports below say whether enough was read.
"$TTA" --db "$work/db" ingest --quiet "${dirs[@]}" 2>"$work/ingest.err" || true
"$TTA" --db "$work/db" ls runs --format json >"$work/runs.json"
for rep in variance speedup scaling; do
    "$TTA" --db "$work/db" report $rep --format json >"$work/$rep.json" 2>"$work/$rep.err"
done
# Empty reports say why, in one line on stderr.
for rep in speedup scaling; do
    out=$("$TTA" --db "$work/db" report $rep --round '/^v0\.0$/' --format json 2>"$work/empty.err")
    if [ "$out" != "[]" ] || [ "$(wc -l <"$work/empty.err")" -ne 1 ] || ! grep -q "^tta report $rep: " "$work/empty.err"; then
        echo "FAIL: an empty $rep report prints [] and says why in one line on stderr (got '$out', $(cat "$work/empty.err"))"
        exit 1
    fi
done

python3 - schemas/benchmark_rules.json "$work" <<'PY'
import json, math, statistics, sys
from collections import defaultdict

rules_doc = json.load(open(sys.argv[1]))
work = sys.argv[2]

def no_constants(name):
    raise ValueError("%s printed as a number" % name)

def load(name):
    # NaN, Infinity and -Infinity are not JSON: json.loads accepts them only through parse_constant.
    return json.loads(open("%s/%s.json" % (work, name)).read(), parse_constant=no_constants)

variance, speedup, scaling, runs = load("variance"), load("speedup"), load("scaling"), load("runs")
ruleset = {r["round"]: r["ruleset"] for r in rules_doc["rounds"]}
rule = {(b["ruleset"], b["benchmark"]): b for b in rules_doc["benchmarks"]}

def expected_unit(row):
    b = rule.get((ruleset.get(row["round"]), row["benchmark"]))
    if b is None or b["progress_unit"] == "epochs" or (b.get("train_set_size") or 0) > 0:
        return "epochs"
    if b["progress_unit"] in ("samples", "tokens"):
        return "million_" + b["progress_unit"]
    return b["progress_unit"]  # steps, as counted

def key(row):
    return "%s/%s/%s/%s" % (row["round"], row["submitter"], row["system"], row["benchmark"])

# Entries that break a bound, and why (checked against the logs by hand):
# - shares outside [-1, 2]: Var(log TTA) is small beside Var(log progress) and Var(log time per unit), which
#   move against each other (the runs that needed more progress ran faster per unit): a real negative
#   covariance, not a unit mix-up (progress and time per unit each vary by a few percent).
KNOWN_SHARES = {
    "v2.1/Azure-HazyResearch/ND96amsr_A100_v4_n8_pytorch/bert",  # 2.45-2.80 Msamples, 158-170 s: cov share -1.9
    "v2.1/Dell/R750xax4A100-PCIE-80GB/minigo",    # 43-54 epochs, 28-32 ks: progress share 2.4, cov -3.2
    "v2.1/NVIDIA/dgxh100_preview/rnnt",           # 47-52 epochs, 1040-1197 s: time share 2.2, cov -1.9
    "v3.1/xFusion/G5500V7x8xL40S/bert",           # 2.25 or 2.40 Msamples, the larger the faster: time share 3.5
}
# - progress far from the round's other entries: these v3.1 unet3d logs print epoch_num in epochs
#   ("epoch_num": 2000) where the 3.1.0 rules, like the RCP checker and the other submitters' logs, count
#   samples (168 per epoch): read as samples they make 12-33 "epochs". The report notes it.
# - MosaicML's open-division v2.1 BERT logs print train_samples once, before training, as the size of the
#   training set (156,811,560); the 2.1.0 rules read BERT's progress from the last train_samples record (as the
#   RCP checker does with its BERT option), which is then that size, 57x the round's median (their evaluations'
#   epoch_num says 665,280 samples).
KNOWN_UNIT_MIX = {
    "v3.1/Quanta_Cloud_Technology/D74H-7U/unet3d",
    "v3.1/xFusion/G5500V7x8xA30/unet3d",
    "v3.1/xFusion/G5500V7x8L40/unet3d",
    "v2.1/MosaicML/8xA100_80GB-baseline/bert",
    "v2.1/MosaicML/8xA100_80GB-methods/bert",
}

failed = []
def fail(msg):
    failed.append(msg)

def within(x, lo, hi):
    return x is not None and lo <= x <= hi

counts = defaultdict(lambda: defaultdict(int))
groups = defaultdict(list)
for row in variance:
    k, rnd = key(row), row["round"]
    counts[rnd]["entries"] += 1
    unit = row.get("progress_unit")
    if unit != expected_unit(row):
        fail("%s: progress_unit %s, its rule gives %s" % (k, unit, expected_unit(row)))
    p, tpu = row["progress_mean"], row["time_per_unit_mean_s"]
    if p is None:
        counts[rnd]["no decomposition"] += 1
        if "note" not in row:
            fail("%s: no decomposition and no reason" % k)
        continue
    counts[rnd]["decomposed"] += 1
    groups[(rnd, row["benchmark"], unit)].append((p, k, row))
    if unit == "epochs":
        if not within(tpu, 1e-3, 86400):
            fail("%s: time per epoch %r s outside [1 ms, 1 day]" % (k, tpu))
        if not within(p, 1e-3, 1e5):
            fail("%s: %r epochs outside [0.001, 100000]" % (k, p))
        if row["epochs_mean"] != p or row["tpe_mean_s"] != tpu:
            fail("%s: epochs_mean/tpe_mean_s differ from progress_mean/time_per_unit_mean_s" % k)
    else:
        if row["epochs_mean"] is not None or row["tpe_mean_s"] is not None:
            fail("%s: epochs given although progress counts %s" % (k, unit))
        lo, hi = (1e-3, 1e5) if unit.startswith("million_") else (1, 1e7)  # 1000 to 1e11 samples; steps
        if not within(p, lo, hi):
            fail("%s: %r %s outside [%g, %g]" % (k, p, unit, lo, hi))
    # progress x time per unit is a TTA: within a factor 2 of the mean TTA of the successful runs.
    if not (row["tta_mean_s"] and 0.5 <= p * tpu / row["tta_mean_s"] <= 2):
        fail("%s: progress %r x time per unit %r is far from the mean TTA %r" % (k, p, tpu, row["tta_mean_s"]))
    shares = [row["log_var_share_progress"], row["log_var_share_time_per_unit"], row["log_var_share_cov"]]
    if all(s is not None for s in shares):
        if abs(sum(shares) - 1) > 1e-9:
            fail("%s: shares of Var(log TTA) sum to %r" % (k, sum(shares)))
        if not all(-1 <= s <= 2 for s in shares):
            if k in KNOWN_SHARES:
                counts[rnd]["known shares outside [-1, 2]"] += 1
                if not (shares[2] < 0 and "note" in row and "negative covariance" in row["note"]):
                    fail("%s: shares %r outside [-1, 2] without a negative covariance noted" % (k, shares))
            else:
                fail("%s: shares of Var(log TTA) %r outside [-1, 2]" % (k, shares))
    elif any(s is not None for s in shares):
        fail("%s: only some shares given: %r" % (k, shares))

for (rnd, bench, unit), members in groups.items():
    if len(members) < 3:
        continue
    median = statistics.median(p for p, _, _ in members)
    for p, k, row in members:
        if median / 10 <= p <= median * 10:
            continue
        if k in KNOWN_UNIT_MIX:
            counts[rnd]["known unit mix-ups"] += 1
            if "not count progress as the rules read it" not in row.get("note", ""):
                fail("%s: progress %r far from the median %r, not noted" % (k, p, median))
        else:
            fail("%s: progress %r %s is more than 10x from the median %r of the round's %s entries"
                 % (k, p, unit, median, bench))

for name, rows, thr, tta, base_tpu, tpu in (("speedup", speedup, "throughput_speedup", "tta_speedup",
                                             "base_time_per_unit_s", "time_per_unit_s"),
                                            ("scaling", scaling, "speedup_tpe", "speedup_tta", None, None)):
    for row in rows:
        rnd = row["round"]
        counts[rnd][name + " rows"] += 1
        x = row[thr]
        if x is None:
            counts[rnd][name + " rows without throughput"] += 1
            if "note" not in row:
                fail("%s row %r: throughput speedup missing without a reason" % (name, row))
            continue
        if row[tta] is None:
            counts[rnd][name + " rows with throughput, no TTA"] += 1
        if not within(x, 1e-3, 1e3):
            fail("%s %s %s %s -> %s: throughput speedup %r outside [0.001, 1000]"
                 % (name, rnd, row["submitter"], row.get("base_system"), row["system"], x))
        if base_tpu and abs(x - row[base_tpu] / row[tpu]) > 1e-9 * x:
            fail("%s %s -> %s: throughput speedup is not the ratio of the times per unit" % (name, row["system"], key(row)))

# Runs whose log says success without meeting the target are named in their entry's note.
unmet = defaultdict(int)
for r in runs:
    if r.get("success_unmet"):
        unmet[key(r)] += 1
for row in variance:
    n = unmet.get(key(row), 0)
    note = row.get("note", "")
    if n and ("log success but" not in note and "logs success but" not in note):
        fail("%s: %d runs say success without meeting the target, not noted" % (key(row), n))
    if n:
        counts[row["round"]]["entries with success_unmet runs"] += 1

for rnd in sorted(counts):
    print(rnd + ": " + ", ".join("%s %d" % (k, v) for k, v in sorted(counts[rnd].items())))
for rnd in ["v2.1", "v3.1", "v4.1", "v5.1"]:
    if counts[rnd]["decomposed"] < 50:
        fail("%s: only %d entries decomposed: too little was ingested or read" % (rnd, counts[rnd]["decomposed"]))
for f in failed:
    print("FAIL: " + f)
print("%d failures" % len(failed))
sys.exit(1 if failed else 0)
PY
