#!/bin/bash
# AlgoPerf in the general reports, on the fixture (fixtures/algoperf): each study is a run of the entry
# (leaderboard, ruleset, submission, workload) (db/algoperf_runs.c, docs/algoperf.md "The general
# reports"); the median of its runs' times to target (`tta ls runs`) equals the official scoring code's
# time_to_targets.csv (tests/expected/algoperf/fixture); `tta report variance` has no official score for
# them, the leaderboard leaves them out, curves read them; reading a trial again keeps one run per study;
# a targets file removed removes the runs. Needs python3 and the sqlite3 shell (exit 77 without).
set -uo pipefail
TTA=${TTA:-build/tta}
cd "${TTA_SOURCE_DIR:-.}"
command -v sqlite3 >/dev/null || { echo "skipped: the sqlite3 shell is not installed"; exit 77; }
command -v python3 >/dev/null || { echo "skipped: python3 reads the expected values"; exit 77; }
work=$(mktemp -d /tmp/tta-algoperf-runs.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
db="$work/db"
. "$(dirname "$0")/lib/check.sh"
q() { sqlite3 "$db" "$1"; }

cp -r fixtures/algoperf "$work/lb"
"$TTA" --db "$db" ingest --quiet "$work/lb" >"$work/ingest.out" 2>&1
check "the fixture ingests" test $? -eq 0
check "20 entries (5 submissions x 4 workloads) of round algoperf-v0.5, 60 runs (3 studies each)" \
    test "$(q "SELECT count(DISTINCT e.id) || ' ' || count(*) FROM runs r JOIN entries e ON e.id = r.entry_id
               WHERE e.round = 'algoperf-v0.5'")" = "20 60"
check "per workload the median of the studies' times = the official time_to_targets.csv" \
    python3 tests/cli/algoperf_runs.py "$TTA" "$db" tests/expected/algoperf/fixture
check "a run's time to target is the score of its first evaluation at the target (SQL)" \
    test "$(q "SELECT count(*) FROM run_tta t JOIN runs r ON r.id = t.run_id JOIN algoperf_files f ON f.source_id = r.source_id
               WHERE t.reached AND t.tta_s = (SELECT a.score FROM algoperf_evals a JOIN algoperf_values v
                 ON v.source_id = a.source_id AND v.idx = a.idx JOIN algoperf_targets g ON g.workload = f.workload
                 AND v.name = 'validation/' || g.metric WHERE a.source_id = r.source_id
                 AND (CASE WHEN g.minimize THEN v.value <= g.target ELSE v.value >= g.target END)
                 ORDER BY a.idx LIMIT 1)")" = "$(q "SELECT count(*) FROM run_tta WHERE reached AND round = 'algoperf-v0.5'")"
check "the variance table reads them: 20 rows, no official score" \
    test "$("$TTA" --db "$db" report variance --round algoperf-v0.5 --format csv | tail -n +2 | wc -l)" = 20
check "the leaderboard leaves them out (no AlgoPerf rank score: tta report algoperf ranks)" \
    test "$("$TTA" --db "$db" report leaderboard --round algoperf-v0.5 --format csv 2>/dev/null | tail -n +2 | wc -l)" = 0
check "curves read them against time (more than a row per entry)" \
    test "$("$TTA" --db "$db" report curves --x time --round algoperf-v0.5 --format csv | tail -n +2 | wc -l)" -gt 20
check "progress in steps: a reached run's progress is the global_step of its first evaluation at the target (SQL)" \
    test "$(q "SELECT count(*) FROM run_tta t JOIN runs r ON r.id = t.run_id WHERE t.round = 'algoperf-v0.5'
               AND t.reached AND t.unit = 'steps' AND t.progress = (SELECT a.global_step FROM algoperf_evals a
                 WHERE a.source_id = r.source_id AND a.score = t.tta_s ORDER BY a.idx LIMIT 1)")" \
         = "$(q "SELECT count(*) FROM run_tta WHERE reached AND round = 'algoperf-v0.5'")"
check "the variance table's unit is steps on every row, with seconds per step" \
    python3 - "$("$TTA" --db "$db" report variance --round algoperf-v0.5 --format csv)" <<'PY'
import csv, io, sys
rows = list(csv.DictReader(io.StringIO(sys.argv[1])))
assert rows and all(r["progress_unit"] == "steps" for r in rows), [r["progress_unit"] for r in rows]
done = [r for r in rows if r["time_per_unit_mean_s"] not in ("", "n/a")]
assert done and all(0 < float(r["time_per_unit_mean_s"]) < 60 for r in done)
PY
check "ls entries names each workload's metric from the targets file" \
    test "$("$TTA" --db "$db" ls entries --round algoperf-v0.5 --benchmark ogbg --format csv | python3 -c '
import csv, sys; print(sorted({r["metric"] for r in csv.DictReader(sys.stdin)}))')" = "['mean_average_precision']"
"$TTA" --db "$work/db2" ingest "$work/lb" >"$work/ingest-count.out" 2>&1
check "ingest's summary counts the 60 runs derived from the studies" grep -q ' 60 runs' "$work/ingest-count.out"
# A trial's file read again (changed): still one run per study.
f=$(find "$work/lb" -path '*external_tuning/baseline/study_0/fastmri_jax/trial_1/eval_measurements.csv')
echo >>"$f"
"$TTA" --db "$db" ingest --quiet "$work/lb" >"$work/ingest2.out" 2>&1
check "a trial read again: still 60 runs, the same times" \
    python3 tests/cli/algoperf_runs.py "$TTA" "$db" tests/expected/algoperf/fixture
# Without the targets file there is no target to choose a study's trial by: no runs.
rm "$work/lb/algoperf-v0.5/workload_targets_excerpt.json"
"$TTA" --db "$db" ingest --quiet "$work/lb" >"$work/ingest3.out" 2>&1
check "the targets file removed: no AlgoPerf run or entry is left" \
    test "$(q "SELECT count(*) FROM entries WHERE round = 'algoperf-v0.5'")" = 0
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
