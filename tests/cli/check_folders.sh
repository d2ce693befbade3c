#!/bin/bash
# `tta check` per benchmark folder on the project's own fixtures (always runs): the runs found, the runs
# MLCommons' result summarizer drops, the score it publishes and the RCP verdict, in table, CSV and JSON.
# - a folder whose 5 logs all pass: the score equals MLCommons' published one (tests/expected/official/
#   scores-v0.7.tsv, recorded with the summarizer) and the olympic mean of `tta ls runs`' times;
# - the same folder with one log made non-compliant (a required key, model_bn_span, removed): the run is dropped, said with
#   its rule, and the score is the summarizer's over the other four (the fastest dropped), another number;
# - the same folder with a log cut before run_start (ingest reads no run): counted as a dropped run, as the
#   summarizer counts it; both scores equal the summarizer's on those folders (tests/expected/official/
#   check-folders-fixtures.tsv, recorded with MLCommons' code);
# - a one-log folder: no score, said, exit 1; the RCP verdict from a reference file (pass; and a fail,
#   exit 1 in the closed division, and the package checker's bypass); the summary line; the user's database
#   untouched (an ingest in memory).
set -euo pipefail
TTA=${TTA:-build/tta}
TTA=$(cd "$(dirname "$TTA")" && pwd)/$(basename "$TTA") # the test works in its own folder
here=$(cd "$(dirname "$0")/.." && pwd)
root=$(cd "$here/.." && pwd)
work=$(mktemp -d /tmp/tta-check-folders.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
ok="$root/fixtures/mlperf/v0.7/NVIDIA/results/dgxa100_n2_ngc20.06_mxnet/resnet"
rcp="$root/fixtures/rcp/training_4.0.0"

# 1. every log passes: table (the log rows, the folder row, both summary lines), CSV, JSON
cd "$work"
"$TTA" check --no-package --rcp-dir "$rcp" "$ok" > ok.txt || fail "a compliant, scored folder that passes RCP must exit 0"
[ ! -e tta.db ] || fail "tta check wrote a database file"
grep -q "result_4.txt" ok.txt && grep -q "verdict: pass" ok.txt || fail "the log rows: $(cat ok.txt)"
grep -q "^tta check: 5 logs, 5 compliant, 0 not compliant" ok.txt || fail "the logs' summary line"
grep -qx "tta check: 1 benchmark folder: 1 scored, 0 not, 0 of 5 runs dropped; RCP: 1 pass, 0 fail, 0 without a verdict" ok.txt \
    || fail "the folders' summary line: $(tail -1 ok.txt)"
grep -q "23.75" ok.txt && grep -q "RCP found" ok.txt || fail "the folder row: $(cat ok.txt)"
"$TTA" check --no-package --rcp-dir "$rcp" --folders --format csv "$ok" > ok.csv 2> ok.err
head -1 ok.csv | grep -q "^folder,round,division,submitter,system,benchmark,runs,dropped,averaged,score_min,scaling_factor,no_score_reason,rcp,rcp_message,rcp_required,dropped_runs" \
    || fail "CSV header: $(head -1 ok.csv)"
grep -q "benchmark folder" ok.err || fail "CSV: the summary lines go to stderr"
"$TTA" check --no-package --rcp-dir "$rcp" --folders --format json "$ok" > ok.json 2>/dev/null
"$TTA" --db "$work/runs.db" ingest --quiet "$ok" 2>/dev/null
"$TTA" --db "$work/runs.db" ls runs --format json > runs.json
python3 - ok.json runs.json "$here/expected/official/scores-v0.7.tsv" <<'PY' || fail "JSON: all pass"
import json, sys
rows = json.load(open(sys.argv[1]))
assert len(rows) == 1, rows
r = rows[0]
times = sorted(x['tta_s'] for x in json.load(open(sys.argv[2])))
olympic = sum(times[1:-1]) / 3 / 60
official = [float(l.split('\t')[2]) for l in open(sys.argv[3]) if l.startswith('NVIDIA/results/dgxa100_n2_ngc20.06_mxnet/resnet\t')]
assert r['runs'] == 5 and r['dropped'] == 0 and r['averaged'] == 3 and r['dropped_runs'] == '', r
assert abs(r['score_min'] - olympic) < 1e-9 and abs(r['score_min'] - official[0]) < 0.01, (r['score_min'], olympic, official)
assert r['rcp'] == 'pass' and r['rcp_message'] == 'RCP found' and r['rcp_required'] is True, r
print('all pass: 5 runs, score %.4f min = olympic mean of `tta ls runs` = official %.6f; RCP found' % (r['score_min'], official[0]))
PY

# 2. one log not compliant (model_bn_span, which 0.7.0 requires of resnet, removed): dropped and said
bad="$work/v0.7/NVIDIA/results/dgxa100_n2_ngc20.06_mxnet/resnet"
mkdir -p "$bad"
cp "$ok"/result_*.txt "$bad/"
grep -v '"key": "model_bn_span"' "$ok/result_2.txt" > "$bad/result_2.txt"
cmp -s "$ok/result_2.txt" "$bad/result_2.txt" && fail "the fixture edit removed nothing"
status=0; "$TTA" check --no-package --rcp-dir "$rcp" "$bad" > bad.txt || status=$?
[ "$status" -eq 1 ] || fail "a non-compliant log exits 1, got $status"
grep -q "result_2.txt not compliant\|not compliant (model_bn_span: EXACTLY_ONE): result_2.txt" bad.txt || fail "the dropped run is named with its rule: $(cat bad.txt)"
grep -qx "tta check: 1 benchmark folder: 1 scored, 0 not, 1 of 5 runs dropped; RCP: 1 pass, 0 fail, 0 without a verdict" bad.txt \
    || fail "summary: $(tail -1 bad.txt)"
status=0; "$TTA" check --no-package --rcp-dir "$rcp" --folders --format json "$bad" > bad.json 2>/dev/null || status=$?
"$TTA" check --no-package --rcp-dir "$rcp" --folders --format csv "$bad" > bad.csv 2>/dev/null || true
grep -q ",5,1,3,.*not compliant (model_bn_span: EXACTLY_ONE): result_2.txt" bad.csv || fail "CSV row of the dropped run: $(cat bad.csv)"
python3 - bad.json runs.json ok.json "$here/expected/official/check-folders-fixtures.tsv" <<'PY' || fail "JSON: one dropped"
import json, os, sys
r = json.load(open(sys.argv[1]))[0]
runs = json.load(open(sys.argv[2]))
kept = sorted(x['tta_s'] for x in runs if os.path.basename(x['file']) != 'result_2.txt')
want = sum(kept[1:]) / 3 / 60   # the summarizer: scores[1 : 4 - (1 - 1)], the dropped run stands for the slowest
before = json.load(open(sys.argv[3]))[0]['score_min']
assert r['runs'] == 5 and r['dropped'] == 1 and r['averaged'] == 3, r
assert r['dropped_runs'] == 'not compliant (model_bn_span: EXACTLY_ONE): result_2.txt', r['dropped_runs']
official = [float(l.split('\t')[2]) for l in open(sys.argv[4]) if l.startswith('model_bn_span\t')][0]
assert abs(r['score_min'] - want) < 1e-9 and abs(r['score_min'] - before) > 1e-6, (r['score_min'], want, before)
assert abs(r['score_min'] - official) < 1e-6, (r['score_min'], official)
print('one dropped: score %.4f min (all five: %.4f), the summarizer\'s slice of the other four = official %.6f' % (r['score_min'], before, official))
PY

# 2b. a log without run_start, which ingest reads as no run: the summarizer still counts it as a dropped run
cp "$ok"/result_*.txt "$bad/"
grep -v '"key": "run_start"' "$ok/result_3.txt" > "$bad/result_3.txt"
"$TTA" check --no-package --folders --format json "$bad" > cut.json 2>/dev/null || true
python3 - cut.json "$here/expected/official/check-folders-fixtures.tsv" <<'PY' || fail "JSON: a log without a run"
import json, sys
r = json.load(open(sys.argv[1]))[0]
official = [float(l.split('\t')[2]) for l in open(sys.argv[2]) if l.startswith('run_start\t')][0]
assert r['runs'] == 5 and r['dropped'] == 1 and r['averaged'] == 3, r
assert r['dropped_runs'].startswith('no run tta can read (') and r['dropped_runs'].endswith('): result_3.txt'), r
assert abs(r['score_min'] - official) < 1e-6, (r['score_min'], official)
print('a log without run_start: counted as a dropped run, score %.6f = official %.6f' % (r['score_min'], official))
PY
#     ... and the official score of the reports (tta report variance on a database) counts it the same way
"$TTA" --db "$work/cut.db" ingest --quiet "$work/v0.7" >/dev/null 2>&1 || true
"$TTA" --db "$work/cut.db" report variance --format json > cut-variance.json 2>/dev/null || fail "variance on the cut folder"
python3 - cut-variance.json "$here/expected/official/check-folders-fixtures.tsv" <<'PY' || fail "variance: a log without a run"
import json, sys
r = json.load(open(sys.argv[1]))[0]
official = [float(l.split('\t')[2]) for l in open(sys.argv[2]) if l.startswith('run_start\t')][0]
assert r['runs'] == 4 and abs(r['score_min'] - official) < 1e-6, (r['runs'], r['score_min'], official)
print('report variance: the log without a run counted as dropped, score %.6f = official %.6f' % (r['score_min'], official))
PY

# 2c. a submission where it lies, its path naming no round: scored with --ruleset's round (ingest reads it
#     through a link in a temporary folder, removed after), the folder named as given
mkdir -p "$work/sub/Org/results/s" "$work/tmp"
cp -r "$ok" "$work/sub/Org/results/s/resnet"
TMPDIR="$work/tmp" "$TTA" check --no-package --ruleset 0.7.0 --folders --no-package --format json "$work/sub/Org" > sub.json 2>/dev/null \
    || fail "a compliant folder outside a round folder, with --ruleset: exit 0"
[ -z "$(ls -A "$work/tmp")" ] || fail "the temporary folder is left: $(ls -A "$work/tmp")"
python3 - sub.json ok.json "$work/sub/Org/results/s/resnet" <<'PY' || fail "JSON: outside a round folder"
import json, sys
r, want = json.load(open(sys.argv[1]))[0], json.load(open(sys.argv[2]))[0]
assert r['folder'] == sys.argv[3] and r['round'] == 'v0.7' and r['submitter'] == 'Org', r
assert r['score_min'] == want['score_min'] and r['runs'] == 5 and r['dropped'] == 0, (r, want)
PY

# 3. no score (one log where resnet needs 5 and olympic scoring keeps none), exit 1; --logs-only as before
one="$root/fixtures/mlperf/v0.7/NVIDIA/results/dgxa100_ngc20.06_pytorch/gnmt"
status=0; "$TTA" check --no-package "$one" > one.txt || status=$?
[ "$status" -eq 1 ] || fail "a folder without a score exits 1, got $status"
grep -q "no score: too few successful runs for an olympic mean" one.txt || fail "the reason: $(cat one.txt)"
grep -qx "tta check: 1 benchmark folder: 0 scored, 1 not (1 too few runs), 0 of 1 run dropped; RCP: not checked (no --rcp-dir)" one.txt \
    || fail "summary: $(tail -1 one.txt)"
# --failing: only the folders that fail (here the one-log folders, and Alibaba's logs outside a benchmark
# folder), the summary line over every folder
"$TTA" check --no-package --failing --folders --format csv "$root/fixtures/mlperf/v0.7" > failing.csv 2> failing.err || true
grep -q "dgxa100_ngc20.06_pytorch/gnmt," failing.csv && ! grep -q "/resnet," failing.csv || fail "--failing rows: $(cat failing.csv)"
[ "$(grep -c "^/\|^fixtures\|^$root" failing.csv)" -eq 4 ] || fail "--failing: 4 folders fail: $(cat failing.csv)"
grep -q "tta check: 6 benchmark folders: 2 scored, 4 not" failing.err || fail "--failing summary: $(cat failing.err)"
"$TTA" check --no-package --logs-only "$one" > logs.txt || fail "--logs-only: the log passes, exit 0"
grep -q "benchmark folder" logs.txt && fail "--logs-only prints no folder rows"

# 4. an RCP failure in the closed division exits 1: reference points that converge twice as late as the
#    real ones (the runs' 41 epochs are then faster than the checker allows)
mkdir -p "$work/rcp"
python3 - "$rcp/rcps_resnet.json" "$work/rcp/rcps_resnet.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for point in d.values():
    point['Epochs to converge'] = [2 * e for e in point['Epochs to converge']]
json.dump(d, open(sys.argv[2], 'w'))
PY
status=0; "$TTA" check --no-package --rcp-dir "$work/rcp" "$ok" > rcpfail.txt || status=$?
[ "$status" -eq 1 ] || fail "a closed-division RCP failure exits 1, got $status"
grep -q "RCP: 0 pass, 1 fail" rcpfail.txt && grep -q "RCP  *fail" rcpfail.txt || fail "RCP fail: $(cat rcpfail.txt)"
# the package checker's bypass: --rcp-bypass, or package_checker_params in the system or benchmark folder,
# read as the package checker reads it (readlines, line == "rcp-bypass": a last line without its newline)
"$TTA" check --no-package --rcp-dir "$work/rcp" --rcp-bypass "$ok" > bypass.txt || fail "--rcp-bypass: exit 0"
grep -q "RCP found passed using rcp_bypass" bypass.txt && grep -q "RCP: 1 pass, 0 fail" bypass.txt || fail "--rcp-bypass: $(cat bypass.txt)"
sys="$work/v0.7/NVIDIA/results/dgxa100_n2_ngc20.06_mxnet"
cp "$ok"/result_*.txt "$sys/resnet/"
printf 'rcp-bypass' > "$sys/package_checker_params"
"$TTA" check --no-package --rcp-dir "$work/rcp" "$sys/resnet" > params.txt || fail "package_checker_params in the system folder: exit 0"
grep -q "RCP found passed using rcp_bypass" params.txt || fail "system params: $(cat params.txt)"
rm "$sys/package_checker_params"
printf 'seed-checker-bypass\nrcp-bypass\n' > "$sys/resnet/package_checker_params"
status=0; "$TTA" check --no-package --rcp-dir "$work/rcp" "$sys/resnet" > params.txt || status=$?
[ "$status" -eq 1 ] || fail "a params line ending in a newline is no bypass for the package checker: exit 1, got $status"
grep -q "does not read as a bypass" params.txt || fail "the note on the params file: $(cat params.txt)"
printf 'seed-checker-bypass\nrcp-bypass' > "$sys/resnet/package_checker_params"
"$TTA" check --no-package --rcp-dir "$work/rcp" "$sys/resnet" > params.txt || fail "package_checker_params in the benchmark folder: exit 0"
status=0; "$TTA" check --no-package --rcp-dir "$work/none" "$ok" >/dev/null 2> nodir.txt || status=$?
[ "$status" -eq 1 ] && grep -q "not a folder" nodir.txt || fail "--rcp-dir without a folder: $status $(cat nodir.txt)"
echo "check_folders: all checks passed"
