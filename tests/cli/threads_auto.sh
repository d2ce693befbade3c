#!/bin/bash
# `tta profile --threads auto` and `tta replay --threads auto` beside a CPU-bound neighbour that
# this test starts and stops: the runs complete, and the profile and the replay's log record the
# thread changes (on 2+ CPUs at least one drop, each change within 1..CPUs, the cores the others
# held); without auto the profile has no such members; a stored auto profile is read back; the
# replay is filed under <host>-cpu-auto<CPUs>t and ingested. No timing is checked (docs/replay.md, "Threads on
# a busy machine"; the decision itself: tests/replay/test_threads_auto.c).
set -uo pipefail
TTA=${TTA:-build/tta}
data=/usr/share/datasets/fashion-mnist
if [ ! -f "$data/train-images-idx3-ubyte.gz" ]; then
    echo "SKIPPED: Fashion-MNIST is not installed (Debian package dataset-fashion-mnist)"
    exit 77
fi
work=$(mktemp -d /tmp/tta-threads-auto.XXXXXX)
neighbour=
stop_neighbour() { if [ -n "$neighbour" ]; then kill "$neighbour" 2>/dev/null; wait "$neighbour" 2>/dev/null; neighbour=; fi; }
trap 'stop_neighbour; rm -rf "$work"' EXIT
. "$(dirname "$0")/lib/check.sh"
ncpu=$(nproc)
cat > "$work/cnn.json" <<JSON
{"benchmark": "fashion-mnist", "dataset": {"kind": "fashion-mnist", "path": "$data"},
 "model": "resnet9_small", "optimizer": {"kind": "sgd", "momentum": 0.9, "nesterov": true, "weight_decay": 0.0005},
 "schedule": {"type": "piecewiseLinear", "epochs": [0, 1, 2], "values": [0, 0.1, 0]},
 "batch_size": 64, "target": {"metric": "top1", "value": 0.9}, "max_epochs": 1, "seeds": [0]}
JSON
cat > "$work/mlp.json" <<JSON
{"benchmark": "fashion-mnist", "dataset": {"kind": "fashion-mnist", "path": "$data"},
 "model": "mlp", "model_params": "hidden1=256,hidden2=128",
 "optimizer": {"kind": "sgd", "momentum": 0.9, "nesterov": true, "weight_decay": 0.0005},
 "schedule": {"type": "piecewiseLinear", "epochs": [0, 1, 4], "values": [0.02, 0.1, 0]},
 "batch_size": 128, "target": {"metric": "top1", "value": 0.99}, "max_epochs": 1, "seeds": [0]}
JSON
( while :; do :; done ) &
neighbour=$!
"$TTA" --db "$work/db" replay "$work/mlp.json" --threads auto --log-dir "$work/logs" --no-checkpoint \
    > "$work/replay.txt" 2>> "$work/err"
rc_replay=$?
"$TTA" profile "$work/cnn.json" --threads auto --steps 4 --no-store --format json > "$work/auto.json" 2> "$work/err"
rc=$?
"$TTA" profile "$work/cnn.json" --threads auto --steps 2 --no-store > "$work/auto.txt" 2>> "$work/err"
rc_text=$?
stop_neighbour
check "an auto profile beside a neighbour completes ($(head -2 "$work/err"))" test $rc -eq 0 -a $rc_text -eq 0
check "an auto replay beside a neighbour completes ($(head -2 "$work/err"))" test $rc_replay -eq 0
log=$(ls "$work"/logs/replay/results/*-cpu-auto${ncpu}t/fashion-mnist/result_0.txt 2>/dev/null | head -1)
check "the replay is filed under <host>-cpu-auto${ncpu}t" test -n "$log"
check "its log records the most threads" grep -q "\"key\": \"tta_threads_auto\", \"value\": $ncpu" "${log:-/dev/null}"
if [ "$ncpu" -ge 2 ]; then
    check "and the thread changes" grep -Eq '"key": "tta_thread_change", "value": \{"step": [0-9]+, "t_s": [0-9.e+-]+, "from": [0-9]+, "to": [0-9]+, "others_cores": [0-9.e+-]+\}' "${log:-/dev/null}"
fi
"$TTA" --db "$work/db" ls runs --round local > "$work/runs.txt" 2>> "$work/err"
check "the auto replay is ingested" grep -q "cpu-auto${ncpu}t" "$work/runs.txt"
py_check() { # name, python expression over d (the profile JSON), n (CPUs)
    /usr/bin/python3 - "$1" "$2" "$ncpu" <<'PY' >/dev/null 2>&1
import json, sys
d, n = json.load(open(sys.argv[1])), int(sys.argv[3])
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
    check "$3" test $? -eq 0
}
py_check "$work/auto.json" 'd["auto_threads"] is True and d["threads"] == n' "auto: the most threads is the CPU count"
py_check "$work/auto.json" '1 <= d["mean_threads"] <= n' "auto: the mean thread count lies in 1..CPUs"
py_check "$work/auto.json" 'all(1 <= c["from"] <= n and 1 <= c["to"] <= n and c["from"] != c["to"] and c["step"] >= 0
    and c["t_s"] >= 0 and 0 <= c["others_cores"] <= n for c in d["thread_changes"])' "auto: every change is well formed"
if [ "$ncpu" -ge 2 ]; then
    py_check "$work/auto.json" 'any(c["to"] < c["from"] and c["others_cores"] >= 0.6 for c in d["thread_changes"])' \
        "auto: a neighbour holding a core takes a thread away (recorded with the cores it held)"
    check "the text profile lists the changes" grep -Eq "^threads: auto \(1\.\.$ncpu, by the load\).*[0-9]+ -> [0-9]+ \(others held" "$work/auto.txt"
else
    echo "note: one CPU: no thread to give up, the drop is not checked"
fi
"$TTA" profile "$work/cnn.json" --threads 1 --steps 2 --no-store --format json > "$work/fixed.json" 2>> "$work/err"
py_check "$work/fixed.json" '"auto_threads" not in d and "thread_changes" not in d' "a fixed --threads profile has no auto members"
"$TTA" --db "$work/db" profile "$work/cnn.json" --threads auto --steps 2 > /dev/null 2>> "$work/err"
check "an auto profile is stored" test $? -eq 0
"$TTA" --db "$work/db" report profile > "$work/report.txt" 2>> "$work/err"
check "and reported" grep -q resnet9_small "$work/report.txt"
"$TTA" profile "$work/cnn.json" --threads automatic > /dev/null 2> "$work/bad"
check "--threads automatic is refused (exit 2)" test $? -eq 2
check "with the reason" grep -q -- "--threads needs a positive number or auto" "$work/bad"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
