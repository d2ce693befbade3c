#!/bin/bash
# summary.json (MLCommons' result summarizer's output) as a cross-check of tta's scores:
# - fixtures/summary/v0.7/NVIDIA/summary.json, the summarizer's own output on fixtures/mlperf/v0.7/NVIDIA
#   (fixtures/README.md), ingested beside those results: `report variance` gives summary_score_min for
#   the two entries it scores, equal to tta's score_min to 0.01 min and without a note on it; the
#   entries it does not score (one run each) have it null;
# - fixtures/summary/changed/v0.7/NVIDIA/summary.json, the same file with one score changed by hand
#   (39.78 -> 41.78 min): that row has the value and a note naming both numbers, the other rows none;
# - in CSV, the column is there and holds the same value;
# - a malformed summary.json is a failed source named path:line: reason.
set -uo pipefail
TTA=${TTA:-build/tta}
command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed for the checks"; exit 77; }
work=$(mktemp -d /tmp/tta-summary-json.XXXXXX)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/lib/check.sh"

results=fixtures/mlperf/v0.7/NVIDIA
"$TTA" --db "$work/same.db" ingest "$results" fixtures/summary/v0.7/NVIDIA/summary.json >/dev/null 2>"$work/err"
rc=$?; check "ingest of the results and summary.json exits 0 ($(head -2 "$work/err"))" test $rc -eq 0
"$TTA" --db "$work/changed.db" ingest "$results" fixtures/summary/changed/v0.7/NVIDIA/summary.json >/dev/null 2>"$work/err"
rc=$?; check "ingest of the results and the changed summary.json exits 0 ($(head -2 "$work/err"))" test $rc -eq 0
for db in same changed; do
    "$TTA" --db "$work/$db.db" report variance --format json >"$work/$db.json" 2>"$work/err"
    rc=$?; check "report variance ($db) exits 0 ($(head -2 "$work/err"))" test $rc -eq 0
    "$TTA" --db "$work/$db.db" report variance --format csv >"$work/$db.csv" 2>"$work/err"
    check "report variance --format csv ($db) exits 0" test $? -eq 0
done

out=$(python3 - "$work" <<'EOF'
import csv, json, sqlite3, sys
work = sys.argv[1]
problems = []
stored = sqlite3.connect("%s/same.db" % work).execute(
    "SELECT system, benchmark, score_min FROM entry_files WHERE kind = 'summary' ORDER BY system").fetchall()
if stored != [("dgxa100_n2_ngc20.06_mxnet", "resnet", 23.7532888889), ("dgxa100_ngc20.06_mxnet", "resnet", 39.7796611111)]:
    problems.append("entry_files rows of summary.json: %s" % stored)
def rows(name):
    return {(r["system"], r["benchmark"]): r for r in json.load(open("%s/%s.json" % (work, name)))}
scored = {("dgxa100_n2_ngc20.06_mxnet", "resnet"), ("dgxa100_ngc20.06_mxnet", "resnet")}
same, changed = rows("same"), rows("changed")
if set(same) != scored | {("dgxa100_ngc20.06_pytorch", b) for b in ("bert", "gnmt", "maskrcnn")}:
    problems.append("unexpected entries: %s" % sorted(same))
for key, r in same.items():
    note = r.get("note") or ""
    if key in scored:
        if r["summary_score_min"] is None or r["score_min"] is None:
            problems.append("%s: summary_score_min %s, score_min %s" % (key, r["summary_score_min"], r["score_min"]))
        elif abs(r["summary_score_min"] - r["score_min"]) > 0.01:
            problems.append("%s: summary %s != tta %s" % (key, r["summary_score_min"], r["score_min"]))
    elif r["summary_score_min"] is not None:
        problems.append("%s: summary_score_min %s for an entry the summary does not score" % (key, r["summary_score_min"]))
    if "summary.json" in note:
        problems.append("%s: a summary note where the scores agree: %s" % (key, note))
moved = ("dgxa100_ngc20.06_mxnet", "resnet")
for key, r in changed.items():
    note = r.get("note") or ""
    if key == moved:
        if r["summary_score_min"] != 41.7796611111:
            problems.append("changed: summary_score_min %s, not 41.7796611111" % r["summary_score_min"])
        if "summary.json gives 41.78 min, tta 39.78 min" not in note:
            problems.append("changed: no note with both numbers: %r" % note)
    elif "summary.json" in note:
        problems.append("changed: %s has a summary note: %s" % (key, note))
with open("%s/same.csv" % work, newline="") as f:
    got = {(r["system"], r["benchmark"]): r["summary_score_min"] for r in csv.DictReader(f)}
if got.get(moved) != "39.7796611111":
    problems.append("CSV summary_score_min %r, not 39.7796611111" % got.get(moved))
print("\n".join(problems))
EOF
)
check "the cross-check: $out" test -z "$out"

# A malformed summary.json: a failed source, path:line: reason.
mkdir -p "$work/v0.7"
printf '[\n  {"submitter": "NVIDIA", "system": "a",\n   "resnet": "23.75"}\n]\n' >"$work/v0.7/summary.json"
"$TTA" --db "$work/bad.db" ingest "$work/v0.7" >/dev/null 2>"$work/err"
check "ingest of a malformed summary.json exits 1" test $? -eq 1
check "the error names path:line: reason ($(head -1 "$work/err"))" \
    grep -q "v0.7/summary.json:3: record 1: score resnet must be a number of minutes or null, not a string" "$work/err"

echo "summary_json: $passed passed, $failed failed"
test "$failed" -eq 0
