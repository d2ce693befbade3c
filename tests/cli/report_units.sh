#!/bin/bash
# The decomposition TTA = progress x time per unit of progress in each unit, on real v3.1 excerpts
# (fixtures/units/v3.1/NVIDIA): two BERT entries count samples (the 3.1.0 rules give no training-set size:
# millions of samples), a ResNet entry counts epochs (one run aborted). Expected values from
# tests/expected/report_units.py (MLCommons' rcp_checker reads each run's convergence point; arithmetic in
# Python), pasted below; relative tolerance 1e-6 (tta reads times as doubles, Python as integers).
set -uo pipefail
TTA=${TTA:-build/tta}
cd "${TTA_SOURCE_DIR:-.}"
command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed to read the reports"; exit 77; }
work=$(mktemp -d /tmp/tta-units.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$TTA" --db "$work/db" ingest --quiet fixtures/units 2>"$work/err" || { cat "$work/err"; exit 1; }
for rep in variance speedup scaling; do
    "$TTA" --db "$work/db" report $rep --format json >"$work/$rep.json" || exit 1
done
"$TTA" --db "$work/db" report variance >"$work/variance.txt" || exit 1
"$TTA" --db "$work/db" report speedup --format csv >"$work/speedup.csv" || exit 1

python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
load = lambda n: json.load(open("%s/%s.json" % (work, n)))
variance, speedup, scaling = load("variance"), load("speedup"), load("scaling")
failed = []
def check(what, ok):
    if not ok:
        failed.append(what)
def near(what, got, want, rtol=1e-6):
    check("%s: %r, expected %r" % (what, got, want),
          got is not None and (abs(got - want) <= rtol * abs(want) if want else abs(got) < 1e-12))

EXPECTED = {  # tests/expected/report_units.py
    "eos_ngc23.04_pytorch/bert": dict(
        progress_unit="million_samples", progress_mean=2.6495483333333332, progress_std=0.070430379696706277,
        time_per_unit_mean_s=128.8389196133825, time_per_unit_std_s=0.043430609410744926,
        log_var_share_progress=0.97537332620363248, log_var_share_time_per_unit=0.00015387367455621634,
        log_var_share_cov=0.024472800121811359, cv_ratio=78.856833571283445, score_min=347.703 / 60),
    "eos_n8_ngc23.04_pytorch/bert": dict(
        progress_unit="million_samples", progress_mean=2.8692480000000002, progress_std=0.095578209399423172,
        time_per_unit_mean_s=18.761481053106198, time_per_unit_std_s=0.059385263635577432,
        log_var_share_progress=1.2242021476659855, log_var_share_time_per_unit=0.011331468195762561,
        log_var_share_cov=-0.23553361586174795, cv_ratio=10.523961065716845, score_min=52.684 / 60),
    "eos_ngc23.09_mxnet/resnet": dict(
        progress_unit="epochs", progress_mean=35, progress_std=0, time_per_unit_mean_s=23.111723809523809,
        time_per_unit_std_s=0.10016545314895443, log_var_share_progress=0, log_var_share_time_per_unit=1,
        log_var_share_cov=0, cv_ratio=0, score_min=811.389 / 60),
}
rows = {"%s/%s" % (r["system"], r["benchmark"]): r for r in variance}
check("variance has the three entries (got %s)" % sorted(rows), sorted(rows) == sorted(EXPECTED))
for name, want in EXPECTED.items():
    row = rows.get(name, {})
    for k, v in want.items():
        if isinstance(v, str):
            check("%s %s: %r, expected %r" % (name, k, row.get(k), v), row.get(k) == v)
        else:
            near("%s %s" % (name, k), row.get(k), v)
    if want["progress_unit"] == "epochs":
        near(name + " epochs_mean", row.get("epochs_mean"), want["progress_mean"])
        near(name + " tpe_mean_s", row.get("tpe_mean_s"), want["time_per_unit_mean_s"])
    else:
        check(name + ": no epochs where progress counts samples",
              row.get("epochs_mean") is None and row.get("tpe_mean_s") is None)
        check(name + ": the note says why there are no epochs", "no training-set size" in row.get("note", ""))
n8 = rows.get("eos_n8_ngc23.04_pytorch/bert", {})
check("a share above 100% is explained", "negative covariance" in n8.get("note", ""))

check("one speedup pair (got %d)" % len(speedup), len(speedup) == 1)
for row in speedup[:1]:
    check("the base is the 8-accelerator BERT entry", row["base_system"] == "eos_ngc23.04_pytorch")
    check("the pair's unit is millions of samples", row["progress_unit"] == "million_samples")
    near("throughput speedup", row["throughput_speedup"], 6.867204100182251)
    near("TTA speedup", row["tta_speedup"], 6.5997836155189429)
    near("base progress", row["base_progress"], 2.6495483333333332)
    check("no epochs in the pair", row["base_epochs"] is None and row["epochs"] is None)
series = [r for r in scaling if r["benchmark"] == "bert" and r["system"] == "eos_n8_ngc23.04_pytorch"]
check("the BERT scaling series has its 64-accelerator member", len(series) == 1)
for row in series:
    near("scaling throughput speedup", row["speedup_tpe"], 6.867204100182251)
    near("scaling efficiency", row["efficiency_tpe"], 6.867204100182251 / 8)
    check("scaling gives the unit", row["progress_unit"] == "million_samples" and row["tpe_mean_s"] is None)

for f in failed:
    print("FAIL: " + f)
sys.exit(1 if failed else 0)
PY
rc=$?
# People see the unit: hoisted above the table when every row has the same, else in its own column.
grep -Eq '(^| )unit( |$)' "$work/variance.txt" || { echo "FAIL: the variance table names no unit"; rc=1; }
grep -q 'Msamples' "$work/variance.txt" || { echo "FAIL: the variance table does not say Msamples"; rc=1; }
grep -q 'share' "$work/variance.txt" || { echo "FAIL: the variance table's share column is not labelled"; rc=1; }
head -1 "$work/speedup.csv" | grep -q 'progress_unit' || { echo "FAIL: speedup CSV has no progress_unit"; rc=1; }
# An empty report says why, in one line on stderr: no entry matches; no entry has a partner.
for args in "speedup --round /^v9.9$/" "scaling --round /^v9.9$/" "speedup --benchmark resnet" "scaling --benchmark resnet"; do
    out=$("$TTA" --db "$work/db" report $args --format json 2>"$work/empty.err")
    if [ "$out" != "[]" ] || [ "$(wc -l <"$work/empty.err")" -ne 1 ] || ! grep -q '^tta report [a-z]*: no ' "$work/empty.err"; then
        echo "FAIL: report $args: [] and one line on stderr saying why (got '$out', '$(cat "$work/empty.err")')"; rc=1
    fi
done
[ $rc -eq 0 ] && echo "report units: passed"
exit $rc
