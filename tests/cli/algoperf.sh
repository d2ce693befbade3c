#!/bin/bash
# `tta report algoperf` on the AlgoPerf fixture (fixtures/algoperf: an excerpt of the v0.5 leaderboard, both
# rulesets, fastmri and ogbg with their held-out variants): every score, profile value and time to target
# equals what the official scoring code gives on the same files (tests/expected/algoperf/fixture, recorded
# with tests/expected/algoperf/official_scores.sh); the JSON and CSV contracts; the plain SQL of the stored
# files agrees with the report; the profiles' SVG, one per ruleset; the HTML page's section; a submitter
# filter shows one submission without changing its score; and bad input: a CSV cell that is no number, a
# trial folder of an unknown ruleset, a targets file naming an unknown metric (each: the file and line, and
# the rest stored). Needs the sqlite3 shell and python3 (exit 77 without).
set -uo pipefail
TTA=${TTA:-build/tta}
cd "${TTA_SOURCE_DIR:-.}"
command -v sqlite3 >/dev/null || { echo "skipped: the sqlite3 shell is not installed"; exit 77; }
command -v python3 >/dev/null || { echo "skipped: python3 reads the expected values"; exit 77; }
work=$(mktemp -d /tmp/tta-algoperf.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
db="$work/db"
. "$(dirname "$0")/lib/check.sh"
q() { sqlite3 "$db" "$1"; }

"$TTA" --db "$db" ingest --quiet fixtures/algoperf >"$work/ingest.out" 2>&1
check "the fixture ingests without a failed file" test $? -eq 0
check "537 files: 204 trials' evaluations, JSON files, one targets file" \
    test "$(q "SELECT count(*) FROM sources WHERE status = 'ok'")" = 537
check "204 trials with evaluations" test "$(q "SELECT count(*) FROM algoperf_files WHERE kind = 'eval_measurements'")" = 204
check "4 workloads of version algoperf-v0.5: 2 base, 2 held-out with their base" \
    test "$(q "SELECT group_concat(workload || ':' || role || ':' || ifnull(base, '-'), ' ') FROM algoperf_targets")" = \
    "fastmri:base:- ogbg:base:- fastmri_tanh:held_out:fastmri ogbg_model_size:held_out:ogbg"

# ---- against the official scoring code's output on the same files ----
check "scores, profiles and times to target equal the official code's" \
    python3 tests/official/algoperf_compare.py "$TTA" "$db" tests/expected/algoperf/fixture

# ---- the report's formats ----
"$TTA" --db "$db" report algoperf >"$work/table.txt"
check "table: a row per submission, ranked, 4 decimals" grep -Eq '^external_tuning +2 +baseline +0\.7172 +2 +2 *$' "$work/table.txt"
"$TTA" --db "$db" report algoperf --format json >"$work/board.json"
check "JSON: rows with the leaderboard's keys" python3 -c "
import json, sys
rows = json.load(open('$work/board.json'))
want = {'leaderboard', 'ruleset', 'rank', 'submission', 'score', 'workloads_scored', 'base_workloads', 'profile'}
assert len(rows) == 5 and all(want <= set(r) for r in rows), rows[0].keys()
assert [r['rank'] for r in rows] == [1, 2, 3, 1, 2]
assert rows[0]['submission'] == 'shampoo_submission' and rows[0]['score'] == 1
"
"$TTA" --db "$db" report algoperf --runs --format json >"$work/runs.json"
check "JSON --runs: a row per submission and scored workload, misses with their reason" python3 -c "
import json
rows = json.load(open('$work/runs.json'))
assert len(rows) == 5 * 4, len(rows)
r = [x for x in rows if x['submission'] == 'schedule_free_prodigy' and x['workload'] == 'ogbg_model_size'][0]
assert r['time_to_target_s'] is None and 'missed' in r['note'], r
b = [x for x in rows if x['submission'] == 'schedule_free_prodigy' and x['workload'] == 'ogbg'][0]
assert b['time_to_target_s'] > 0 and b['scored_time_s'] is None and 'held-out' in b['note'], b
assert all(x['studies'] == 3 for x in rows)
"

# ---- plain SQL against the report: the first evaluation of shampoo's fastmri trials meeting the target ----
sql_median=$(q "WITH hit AS (
    SELECT f.study, f.trial, min(e.idx) AS idx FROM algoperf_files f
    JOIN algoperf_evals e ON e.source_id = f.source_id
    JOIN algoperf_values v ON v.source_id = e.source_id AND v.idx = e.idx AND v.name = 'validation/ssim'
    WHERE f.ruleset = 'external_tuning' AND f.submission = 'shampoo_submission' AND f.workload = 'fastmri'
      AND v.value >= (SELECT target FROM algoperf_targets WHERE workload = 'fastmri') GROUP BY f.study, f.trial),
  best AS (SELECT study, min(idx) AS idx FROM hit GROUP BY study),
  first AS (SELECT h.study, min(h.trial) AS trial FROM hit h JOIN best b ON b.study = h.study AND b.idx = h.idx GROUP BY h.study)
  SELECT e.score FROM first x JOIN best b ON b.study = x.study
  JOIN algoperf_files f ON f.study = x.study AND f.trial = x.trial AND f.kind = 'eval_measurements'
   AND f.ruleset = 'external_tuning' AND f.submission = 'shampoo_submission' AND f.workload = 'fastmri'
  JOIN algoperf_evals e ON e.source_id = f.source_id AND e.idx = b.idx ORDER BY e.score LIMIT 1 OFFSET 1")
cli_median=$(python3 -c "
import json
print([x for x in json.load(open('$work/runs.json')) if x['submission'] == 'shampoo_submission' and x['workload'] == 'fastmri'][0]['time_to_target_s'])")
check "plain SQL's median study time ($sql_median) equals the report's ($cli_median)" \
    python3 -c "assert abs($sql_median - $cli_median) < 1e-6"

check "study_cv of shampoo's fastmri equals the population CV of its study times read from the CSVs" python3 -c "
import csv, glob, json, statistics
target = 0.723653
times = []
for study in sorted(glob.glob('fixtures/algoperf/algoperf-v0.5/logs/external_tuning/shampoo_submission/study_*')):
    best = None
    for t in sorted(glob.glob(study + '/fastmri_*/trial_*'), key=lambda p: int(p.rsplit('_', 1)[1])):
        rows = list(csv.DictReader(open(t + '/eval_measurements.csv')))
        hit = next((i for i, r in enumerate(rows) if r['validation/ssim'] not in ('', 'nan') and float(r['validation/ssim']) >= target), None)
        if hit is not None and (best is None or hit < best[0]):
            best = (hit, float(rows[hit]['score']))
    if best: times.append(best[1])
cv = statistics.pstdev(times) / statistics.mean(times)
row = [x for x in json.load(open('$work/runs.json')) if x['submission'] == 'shampoo_submission' and x['workload'] == 'fastmri'][0]
assert len(times) == 3 and abs(row['study_cv'] - cv) < 1e-12, (times, cv, row['study_cv'])
"

# ---- the plot and the page ----
"$TTA" --db "$db" report algoperf --svg "$work/profiles.svg" >/dev/null
for r in external_tuning self_tuning; do
    f="$work/profiles-algoperf-v0.5-$r.svg"
    check "the $r profiles' SVG" test -s "$f"
    check "$r SVG: a line per submission, tau and the fraction named on the axes" \
        python3 -c "
import re
s = open('$f').read()
assert s.startswith('<svg') and 'tau' in s and 'fraction of base workloads' in s
n = {'external_tuning': 3, 'self_tuning': 2}['$r']
assert len(re.findall(r'class=\"line\"', s)) >= n, len(re.findall(r'class=\"line\"', s))
"
done
"$TTA" --db "$db" report html "$work/page.html" >/dev/null 2>"$work/html.err"
check "the HTML page has the AlgoPerf section with both rulesets" \
    grep -q 'AlgoPerf: training algorithms' "$work/page.html"
check "... and the ranking's table" grep -q 'schedule_free_prodigy' "$work/page.html"

"$TTA" --db "$db" ingest --quiet fixtures/mlperf/v0.5 fixtures/mlperf/v0.7 >/dev/null 2>&1
"$TTA" --db "$db" report html "$work/multi.html" >/dev/null 2>&1
check "with MLPerf rounds v0.5 and v0.7: an index and a page per round" test -s "$work/multi-v0.7.html"
check "... the index has the AlgoPerf section" grep -q 'AlgoPerf: training algorithms' "$work/multi.html"
check "... a line per leaderboard linking to its section on the round's page" \
    grep -q '<li><a href="multi-algoperf-[^"]*\.html#algoperf-training-algorithms-performance-profiles-and-benchmark-scores">Leaderboard ' "$work/multi.html"
check "... which has it at the top" python3 -c "
import glob, re
p = open(glob.glob('$work/multi-algoperf-*.html')[0]).read()
h2 = re.findall(r'<h2 id=\"([^\"]+)\"', p)
assert h2[1] == 'algoperf-training-algorithms-performance-profiles-and-benchmark-scores', h2[:3]"
check "... MLPerf's v0.5 page has none" bash -c "! grep -q 'AlgoPerf: training algorithms' '$work/multi-v0.5.html'"

# ---- a filter shows, never rescores ----
"$TTA" --db "$db" report algoperf --submitter baseline --format csv >"$work/one.csv"
check "--submitter baseline: one row, the same score" \
    python3 -c "
import csv
rows = list(csv.DictReader(open('$work/one.csv')))
assert len(rows) == 1 and rows[0]['submission'] == 'baseline' and abs(float(rows[0]['score']) - 0.7171717171717171) < 1e-12, rows
"
"$TTA" --db "$db" report algoperf --division self_tuning --format csv >"$work/self.csv"
check "--division self_tuning: that ruleset only" test "$(tail -n +2 "$work/self.csv" | cut -d, -f2 | sort -u)" = self_tuning

# ---- beside MLPerf Training's round v0.5 (ingested above): the names do not collide ----
"$TTA" --db "$db" report algoperf --round v0.5 --format csv >"$work/mlperf-round.csv" 2>/dev/null
check "--round v0.5 (MLPerf's round) selects no AlgoPerf leaderboard" test "$(wc -l <"$work/mlperf-round.csv")" -le 1
"$TTA" --db "$db" report algoperf --round algoperf-v0.5 --format csv >"$work/ap-round.csv"
check "--round algoperf-v0.5 selects the 5 submissions" test "$(tail -n +2 "$work/ap-round.csv" | wc -l)" = 5

# ---- bad input ----
bad="$work/bad/algoperf-v0.5/logs/external_tuning/x/study_0/ogbg_jax/trial_1"
mkdir -p "$bad"
printf 'global_step,score,validation/mean_average_precision\n1,10.5,0.1\n2,abc,0.2\n' >"$bad/eval_measurements.csv"
"$TTA" --db "$db" ingest "$work/bad" >"$work/bad.out" 2>&1
check "a cell that is no number: exit 1" test $? -eq 1
check "... the file, the line and the column named" grep -q "trial_1/eval_measurements.csv:3: column score: 'abc' is not a number" "$work/bad.out"
mkdir -p "${bad%/trial_1}/trial_2" "${bad%/trial_1}/trial_3"
printf 'score,validation/mean_average_precision\n1,0.1,7\n' >"${bad%/trial_1}/trial_2/eval_measurements.csv"
: >"${bad%/trial_1}/trial_3/eval_measurements.csv"
"$TTA" --db "$db" ingest "$work/bad" >"$work/bad.out" 2>&1
check "a row with more cells than the header: its line" grep -q "trial_2/eval_measurements.csv:2: more cells than the header's 2 columns" "$work/bad.out"
check "an empty CSV: said so" grep -q "trial_3/eval_measurements.csv:1: empty eval_measurements.csv" "$work/bad.out"
other="$work/bad2/logs/tuned/x/study_0/ogbg_jax/trial_1"
mkdir -p "$other"
printf 'score,validation/loss\n1,2\n' >"$other/eval_measurements.csv"
"$TTA" --db "$db" ingest "$work/bad2" >"$work/bad2.out" 2>&1
check "an unknown ruleset folder is named" grep -q "unknown AlgoPerf ruleset folder 'tuned'" "$work/bad2.out"
python3 -c "
import json
t = json.load(open('fixtures/algoperf/algoperf-v0.5/workload_targets_excerpt.json'))
t['workloads']['ogbg']['target_metric_name'] = 'auc'
json.dump(t, open('$work/workload_targets_bad.json', 'w'), indent=1)"
"$TTA" --db "$db" ingest "$work/workload_targets_bad.json" >"$work/bad3.out" 2>&1
check "a targets file with an unknown metric is refused, naming the line" \
    grep -Eq "workload_targets_bad.json:[0-9]+: workload ogbg: metric 'auc' is not one" "$work/bad3.out"
check "... and the stored targets are the fixture's still" \
    test "$(q "SELECT count(*) FROM algoperf_targets WHERE metric = 'auc'")" = 0
check "scores after the bad files are the same" \
    python3 tests/official/algoperf_compare.py "$TTA" "$db" tests/expected/algoperf/fixture

# ---- trials without their targets file: the report says what is missing, the page too ----
"$TTA" --db "$work/notargets.db" ingest --quiet fixtures/algoperf/algoperf-v0.5/logs/self_tuning >/dev/null 2>&1
"$TTA" --db "$work/notargets.db" report algoperf >"$work/nt.out" 2>&1
check "no targets: exit 1" test $? -eq 1
check "... saying which targets file is missing" grep -q "no workload targets of benchmark version algoperf-v0.5 stored" "$work/nt.out"
"$TTA" --db "$work/notargets.db" report html "$work/nt.html" >/dev/null 2>&1
check "... and the page is written with the reason in the AlgoPerf section" \
    grep -q "no workload targets of benchmark version algoperf-v0.5" "$work/nt.html"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
