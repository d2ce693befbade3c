#!/bin/bash
# MLPerf HPC on the bundled excerpts (fixtures/hpc: a v2.0 weak-scaling folder of 8 deepcam instances, a v2.0
# strong-scaling oc20 folder, a v0.7 cosmoflow folder): the rounds are named hpc-v2.0 and hpc-v0.7, the folders'
# scaling is stored, and the strong score, the weak-scaling score (time_to_train_all, number_of_models,
# instance_scale, models per minute) and the RCP verdicts (fixtures/rcp/hpc_2.0.0, copies of MLCommons' files)
# equal the official code's (tests/expected/official/hpc-*-fixture-*.tsv, recorded once with mlcommons/logging
# 7bbf792; tests/official/record_hpc.py says how). Always runs (needs python3 to read the expected values).
set -euo pipefail
TTA=${TTA:-build/tta}
command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed to read the expected values"; exit 77; }
work=$(mktemp -d /tmp/tta-hpc-fixtures.XXXXXX)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/lib/sql.sh"
fail=0
"$TTA" --db "$work/db" ingest --quiet fixtures/hpc
python3 tests/official/compare_hpc.py "$TTA" "$work/db" fixture-v2.0 hpc-v2.0 fixtures/rcp || fail=1
python3 tests/official/compare_hpc.py "$TTA" "$work/db" fixture-v0.7 hpc-v0.7 fixtures/rcp || fail=1

check() { # what, expected, actual
    if [ "$2" = "$3" ]; then echo "ok: $1"; else echo "FAIL: $1: expected '$2', got '$3'"; fail=1; fi
}
# the rounds and scalings as stored, and plain SQL agreeing with the reports
check "entries by round and scaling" "hpc-v0.7||cosmoflow
hpc-v2.0|strong|oc20
hpc-v2.0|weak|deepcam" "$(sql "$work/db" "SELECT round, scaling, benchmark FROM entries ORDER BY 1, 2")"
check "instance size as logged" "8|8|8" \
    "$(sql "$work/db" "SELECT count(*), sum(r.log_nodes * max(r.log_accelerators_per_node, 1) = 64), count(DISTINCT r.id)
        FROM runs r JOIN entries e ON e.id = r.entry_id WHERE e.scaling = 'weak'")"
# cosmoflow's quality is eval_error, lower is better: every v0.7 run's last evaluation meets 0.124
check "eval_error evaluations meet the target" "10|10" \
    "$(sql "$work/db" "SELECT count(*), sum(f.reached) FROM run_facts f JOIN runs r ON r.id = f.run_id
        JOIN entries e ON e.id = r.entry_id WHERE e.round = 'hpc-v0.7'")"
# the results table: the weak-scaling columns, named as the summarizer's weak table names them
csv=$("$TTA" --db "$work/db" report summary --round hpc-v2.0 --format csv)
check "summary CSV has the weak columns" 1 \
    "$(echo "$csv" | head -1 | grep -c 'deepcam:number_of_models,deepcam:instance_scale,deepcam:time_to_train_all,deepcam:models_per_min')"
check "summary CSV weak row" "8,64,23.938233" \
    "$(echo "$csv" | python3 -c "
import csv, sys
for row in csv.DictReader(sys.stdin):
    if row['deepcam:number_of_models']:
        print('%s,%s,%.6f' % (row['deepcam:number_of_models'], row['deepcam:instance_scale'], float(row['deepcam:time_to_train_all'])))")"
# people's table labels the weak score's units
table=$(COLUMNS=250 "$TTA" --db "$work/db" report summary --round hpc-v2.0)
check "people's summary labels units" 1 "$(echo "$table" | grep -c 'deepcam weak (min).*deepcam models/min')"
exit $fail
