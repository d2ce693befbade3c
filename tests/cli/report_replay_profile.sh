#!/bin/bash
# `tta report profile` with an entry filter on a real replay (one short epoch of a small MLP on
# 2,000 Fashion-MNIST images; Debian's dataset-fashion-mnist, skips without it): the typed rows
# ingest stored (replay_memory, replay_layer_profiles, replay_layers) equal the log's tta_memory and
# tta_layer_profile records; the report's JSON gives the same memory, steps and layers (name, type,
# FLOPs, bytes, time) with GFLOP/s = FLOPs / time and the total; --entry and --system select the
# same; the CSV and the text table; a filter that selects nothing gives no rows, exit 0; without a
# filter the report is still `tta profile`'s; --profile with a filter is a usage error (exit 2).
# Needs the sqlite3 shell (exit 77 without).
set -uo pipefail
TTA=${TTA:-build/tta}
cd "${TTA_SOURCE_DIR:-.}"
data=/usr/share/datasets/fashion-mnist
if [ ! -f "$data/train-images-idx3-ubyte.gz" ]; then
    echo "SKIPPED: Fashion-MNIST is not installed (Debian package dataset-fashion-mnist)"
    exit 77
fi
command -v sqlite3 >/dev/null || { echo "SKIPPED: the sqlite3 shell is not installed"; exit 77; }
work=$(mktemp -d /tmp/tta-rprof.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
db="$work/db"
. "$(dirname "$0")/lib/check.sh"
q() { sqlite3 "$db" "$1"; }

cat > "$work/spec.json" <<JSON
{"benchmark": "fashion-mnist", "dataset": {"kind": "fashion-mnist", "path": "$data"},
 "model": "mlp", "model_params": "hidden1=64,hidden2=64",
 "optimizer": {"kind": "sgd", "momentum": 0.9, "nesterov": true, "weight_decay": 0.0005},
 "schedule": {"type": "piecewiseLinear", "epochs": [0, 1], "values": [0.05, 0]},
 "batch_size": 128, "target": {"metric": "top1", "value": 0.99}, "max_epochs": 1,
 "seeds": [5], "train_subset": 2000}
JSON
"$TTA" --db "$db" replay "$work/spec.json" --threads 1 --log-dir "$work/logs" --no-checkpoint --format json \
    >"$work/replay.json" 2>"$work/err"
check "the replay exits 0 ($(head -2 "$work/err"))" test $? -eq 0
check "its log has one tta_memory and one tta_layer_profile record" \
    test "$(q "SELECT count(*) FROM events WHERE key IN ('tta_memory', 'tta_layer_profile')")" = 2

# ---- the typed rows equal the logged records ----
# mem, lprow: the record as a one-row table of column v; lp: the layer profile's value
mem="(SELECT value AS v FROM events WHERE key = 'tta_memory')"
lprow="(SELECT value AS v FROM events WHERE key = 'tta_layer_profile')"
lp="(SELECT value FROM events WHERE key = 'tta_layer_profile')"
cats="weights buffers weight_grads optimizer_state feature_maps workspace eval data"
for c in $cats; do
    check "replay_memory.$c is the log's" test "$(q "SELECT count(*) FROM replay_memory, $mem WHERE $c = v ->> '\$.$c' AND $c > -1")" = 1
done
check "replay_layer_profiles.steps is the log's" test "$(q "SELECT count(*) FROM replay_layer_profiles, $lprow WHERE steps = v ->> '\$.steps' AND steps > 0")" = 1
typed_layers="SELECT count(*) FROM replay_layers r, json_each($lp, '\$.layers') j WHERE r.idx = j.key
    AND r.name = j.value ->> '\$.name' AND r.type = j.value ->> '\$.type' AND r.flops = j.value ->> '\$.flops'
    AND r.bytes = j.value ->> '\$.bytes' AND r.time_s = j.value ->> '\$.time_s'"
n_layers=$(q "SELECT json_array_length($lp, '\$.layers')")
check "every replay_layers row is the log's layer ($(q "$typed_layers") of $n_layers)" test "$(q "$typed_layers")" = "$n_layers"
check "no layer row beyond the log's" test "$(q "SELECT count(*) FROM replay_layers")" = "$n_layers"
check "the MLP has its layers ($n_layers)" test "$n_layers" -ge 5

# ---- the report's JSON ----
entry=$(q "SELECT id FROM entries WHERE round = 'local'")
"$TTA" --db "$db" report profile --entry "$entry" --format json >"$work/r.json" 2>"$work/err"
check "report profile --entry $entry --format json exits 0 ($(head -2 "$work/err"))" test $? -eq 0
runs="json_each(readfile('$work/r.json'), '\$.runs')"
layers="json_each(readfile('$work/r.json'), '\$.layers')"
check "one run" test "$(q "SELECT count(*) FROM $runs")" = 1
check "its entry, run, system and result" test "$(q "SELECT count(*) FROM $runs r, runs x, entries e
    WHERE r.value ->> 'entry' = e.id AND r.value ->> 'run' = x.id AND x.entry_id = e.id AND r.value ->> 'system' = e.system
      AND r.value ->> 'benchmark' = 'fashion-mnist' AND r.value ->> 'run_index' = 5")" = 1
for c in $cats; do
    check "the report's $c (bytes) is the log's" test "$(q "SELECT count(*) FROM $runs r, $mem WHERE r.value ->> '$c' = v ->> '\$.$c'")" = 1
done
check "memory_bytes is the sum of the categories" test "$(q "SELECT count(*) FROM $runs r, $mem WHERE r.value ->> 'memory_bytes' =
    (SELECT sum(value) FROM json_each(v))")" = 1
check "steps is the log's" test "$(q "SELECT count(*) FROM $runs r, $lprow WHERE r.value ->> 'steps' = v ->> '\$.steps'")" = 1
report_layers="SELECT count(*) FROM $layers r, json_each($lp, '\$.layers') j WHERE r.key = j.key
    AND r.value ->> 'name' = j.value ->> '\$.name' AND r.value ->> 'type' = j.value ->> '\$.type'
    AND r.value ->> 'flops' = j.value ->> '\$.flops' AND r.value ->> 'bytes' = j.value ->> '\$.bytes'
    AND r.value ->> 'time_s' = j.value ->> '\$.time_s'"
check "every layer of the report is the log's, in order ($(q "$report_layers") of $n_layers)" test "$(q "$report_layers")" = "$n_layers"
check "GFLOP/s = FLOPs / time for every timed layer (1e-9)" test "$(q "SELECT count(*) FROM $layers WHERE value ->> 'time_s' > 0
    AND abs(value ->> 'gflops' - (value ->> 'flops') / (value ->> 'time_s') / 1e9) > 1e-9 * (value ->> 'gflops')")" = 0
check "some layer did work (FLOPs and time)" test "$(q "SELECT count(*) FROM $layers WHERE value ->> 'flops' > 0 AND value ->> 'time_s' > 0")" -ge 1
check "the layers' shares add up to 1" test "$(q "SELECT abs(sum(value ->> 'layers_share') - 1) < 1e-9 FROM $layers")" = 1

# ---- other selections and forms ----
system=$(q "SELECT system FROM entries WHERE id = $entry")
"$TTA" --db "$db" report profile --system "$system" --format json >"$work/s.json" 2>/dev/null
check "--system $system gives the same as --entry" cmp -s "$work/r.json" "$work/s.json"
"$TTA" --db "$db" report profile --entry "$entry" --format csv >"$work/r.csv" 2>/dev/null
check "CSV: the layers with their run" test "$(head -1 "$work/r.csv" | tr -d '\r')" = \
    "run,name,type,flops,bytes,time_s,layers_share,gflops,intensity,note"
check "CSV: one line per layer" test "$(($(wc -l <"$work/r.csv") - 1))" = "$n_layers"
"$TTA" --db "$db" report profile --entry "$entry" >"$work/r.txt" 2>"$work/err"
check "the text report exits 0" test $? -eq 0
check "the text report shows the memory and the run's layers" \
    bash -c "grep -q 'Memory the trainer allocated' '$work/r.txt' && grep -q 'per layer, one training step' '$work/r.txt' && grep -q 'fc1' '$work/r.txt'"
"$TTA" --db "$db" report profile --round '/^v0\.7$/' --format json >"$work/none.json" 2>/dev/null
check "a filter that selects no replay: no rows, exit 0" test $? -eq 0 -a "$(q "SELECT json_array_length(readfile('$work/none.json'), '\$.runs')")" = 0
"$TTA" --db "$db" report profile --format json >"$work/tp.json" 2>/dev/null
check "without a filter: tta profile's report (profiles and layers), none stored" \
    test "$(q "SELECT json_array_length(readfile('$work/tp.json'), '\$.profiles')")" = 0
"$TTA" --db "$db" report profile --entry "$entry" --profile 1 >/dev/null 2>"$work/err"
check "--profile with a filter: a usage error (exit 2)" test $? -eq 2
check "it says why" grep -q "give one or the other" "$work/err"

echo "report profile (replays): $passed passed, $failed failed"
[ "$failed" -eq 0 ]
