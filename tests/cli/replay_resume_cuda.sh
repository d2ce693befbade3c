#!/bin/bash
# `tta replay --device cuda --resume`: a run stopped by Ctrl-C after its third epoch and resumed
# finishes with the accuracies and training losses of an uninterrupted run, bit for bit. On cuda
# the SGD velocity lives on the device (the backend's sgd_step), so this checks its way into the
# checkpoint and back. Generated data, no dataset needed. Skips where tta has no usable CUDA
# device (not built with CUDA, or no GPU): the CPU path is tests/cli/replay_resume.sh.
set -uo pipefail
TTA=${TTA:-build/tta}
work=$(mktemp -d /tmp/tta-resume-cuda.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
. "$(dirname "$0")/lib/check.sh"
. "$(dirname "$0")/lib/replay_log.sh"
# (480,000 samples at batch 64: 7,500 steps an epoch, a few seconds on a GPU, so that the Ctrl-C
# sent once the log shows epoch 3 lands before the run's end)
cat > "$work/spec.json" <<JSON
{"benchmark": "generated", "dataset": {"kind": "generated", "n": 480000},
 "model": "mlp", "model_params": "hidden1=64,hidden2=64",
 "optimizer": {"kind": "sgd", "momentum": 0.9, "nesterov": true, "weight_decay": 0.0005},
 "schedule": {"type": "piecewiseLinear", "epochs": [0, 1, 6], "values": [0.005, 0.02, 0]},
 "batch_size": 64, "augment": {"crop_pad": 1, "flip": true},
 "target": {"metric": "top1", "value": 0.999}, "max_epochs": 6, "seeds": [5]}
JSON

"$TTA" --db "$work/full.db" replay "$work/spec.json" --device cuda --log-dir "$work/full" --no-checkpoint \
    --format json >"$work/full.json" 2>"$work/err"
rc=$?
if [ $rc -ne 0 ] && grep -qiE 'cuda' "$work/err"; then
    echo "SKIPPED: no usable CUDA device: $(head -1 "$work/err")"
    exit 77
fi
check "an uninterrupted replay on cuda exits 0 ($(head -2 "$work/err"))" test $rc -eq 0
full_log=$(log_of "$work/full.json")
check "it ran 6 epochs" test "$(grep -c '"key": "epoch_stop"' "$full_log" 2>/dev/null)" -eq 6

"$TTA" --db "$work/db" replay "$work/spec.json" --device cuda --log-dir "$work/logs" --format json \
    >"$work/a.json" 2>"$work/a.err" &
pid=$!
log=""
for _ in $(seq 1 1200); do
    [ -n "$log" ] || log=$(find "$work/logs/replay/results" -name 'result_5.txt' 2>/dev/null | head -1)
    [ -n "$log" ] && [ "$(grep -c '"key": "epoch_stop"' "$log")" -ge 3 ] && break
    sleep 0.1
done
kill -INT $pid
wait $pid
check "Ctrl-C after epoch 3: exit status 130" test $? -eq 130
ckpt=$(find "$work/logs/replay/checkpoints" -name 'seed_5.ckpt' 2>/dev/null | head -1)
check "the checkpoint stays" test -n "$ckpt" -a -s "$ckpt"
"$TTA" --db "$work/db" replay "$work/spec.json" --device cuda --log-dir "$work/logs" --resume --format json \
    >"$work/b.json" 2>"$work/err"
rc=$?; check "--resume on cuda exits 0 ($(head -2 "$work/err"))" test $rc -eq 0
check "--resume says where it continued" grep -Eq '"resumed_from": [3-5]' "$work/b.json"
check "epochs 1..6 once each" test "$(grep -o '"key": "epoch_stop".*"epoch_num": [0-9]*' "$log" | grep -o '[0-9]*$' | tr '\n' ' ')" = "1 2 3 4 5 6 "
check "resumed accuracies equal the uninterrupted run's, bit for bit" test "$(accs "$log")" = "$(accs "$full_log")"
check "and so do the training losses" test "$(losses "$log")" = "$(losses "$full_log")"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
