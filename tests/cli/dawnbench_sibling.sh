#!/bin/bash
# A DAWNBench TSV's sibling description (<stem>.json) belongs to its run: it is found once, by one
# routine (ingest/parse.h), for both the content hash and the parser. A fixture TSV copied under an
# upper-case name (X.TSV) beside its JSON:
# - the first ingest stores the run with the description's hyperparameters;
# - a second ingest finds both files unchanged;
# - after a change to the JSON alone (momentum 0.9 -> 0.8), the next ingest re-ingests the TSV's
#   run too (its hash covers the description), and the run's stored momentum is 0.8 (once, the
#   upper-case .TSV was hashed without its JSON and the change went unnoticed);
# - a description that is there but cannot be read (a folder named X.json) fails the TSV, naming it.
set -uo pipefail
TTA=${TTA:-build/tta}
command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed for the checks"; exit 77; }
work=$(mktemp -d /tmp/tta-dawnbench-sibling.XXXXXX)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/lib/check.sh"
field() { python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }
momentum() {
    python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(
        "SELECT group_concat(value) FROM hyperparameters WHERE key = '"'"'momentum'"'"'").fetchone()[0])' "$work/db"
}

mkdir -p "$work/entry"
cp fixtures/claims/fmnist_mlp_pytorch_seed0.tsv "$work/entry/fmnist_mlp_pytorch_seed0.TSV"
cp fixtures/claims/fmnist_mlp_pytorch_seed0.json "$work/entry/fmnist_mlp_pytorch_seed0.json"

out=$("$TTA" --db "$work/db" ingest --format json "$work/entry" 2>"$work/err")
rc=$?; check "first ingest exits 0 ($(head -2 "$work/err"))" test $rc -eq 0
check "stores the TSV and its JSON" test "$(field ingested <<<"$out")" = 2
check "one run" test "$(field runs <<<"$out")" = 1
check "with the description's momentum" test "$(momentum)" = 0.9

out=$("$TTA" --db "$work/db" ingest --format json "$work/entry" 2>"$work/err")
check "again: both unchanged" test "$(field unchanged <<<"$out")" = 2

sed -i 's/"momentum": 0.9,/"momentum": 0.8,/' "$work/entry/fmnist_mlp_pytorch_seed0.json"
out=$("$TTA" --db "$work/db" ingest --format json "$work/entry" 2>"$work/err")
check "after a change to the JSON alone, both are ingested again ($out)" test "$(field ingested <<<"$out")" = 2
check "the run is stored again" test "$(field runs <<<"$out")" = 1
check "with the new momentum" test "$(momentum)" = 0.8

rm "$work/entry/fmnist_mlp_pytorch_seed0.json"
mkdir "$work/entry/fmnist_mlp_pytorch_seed0.json"
"$TTA" --db "$work/db2" ingest "$work/entry/fmnist_mlp_pytorch_seed0.TSV" >/dev/null 2>"$work/err"
check "an unreadable description fails the TSV (exit 1)" test $? -eq 1
check "naming the TSV and the description" grep -q 'seed0.TSV:0: .*seed0.json: is a directory' "$work/err"

echo "dawnbench_sibling: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
