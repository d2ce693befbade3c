#!/bin/bash
# `tta replay` end to end on real Fashion-MNIST (Debian's dataset-fashion-mnist; skips without it):
# a small MLP recipe on 5,000 training images for 2 epochs; the JSON contract; the :::MLLOG log
# is read back as a run of round local; a recipe that reaches its target reports a TTA; bad specs
# are refused with the file, the field and the reason.
set -uo pipefail
TTA=${TTA:-build/tta}
data=/usr/share/datasets/fashion-mnist
if [ ! -f "$data/train-images-idx3-ubyte.gz" ]; then
    echo "SKIPPED: Fashion-MNIST is not installed (Debian package dataset-fashion-mnist)"
    exit 77
fi
work=$(mktemp -d /tmp/tta-replay.XXXXXX)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/lib/check.sh"
cat > "$work/spec.json" <<JSON
{"benchmark": "fashion-mnist", "dataset": {"kind": "fashion-mnist", "path": "$data"},
 "model": "mlp", "model_params": "hidden1=128,hidden2=128",
 "optimizer": {"kind": "sgd", "momentum": 0.9, "nesterov": true, "weight_decay": 0.0005},
 "schedule": {"type": "piecewiseLinear", "epochs": [0, 1, 4], "values": [0.02, 0.1, 0]},
 "batch_size": 128, "target": {"metric": "top1", "value": 0.70}, "max_epochs": 2,
 "seeds": [3], "train_subset": 5000}
JSON
out=$("$TTA" --db "$work/db" replay "$work/spec.json" --log-dir "$work/logs" --threads 1 --format json 2>"$work/err")
rc=$?; check "replay exits 0 ($(head -2 "$work/err"))" test $rc -eq 0
for key in seed reached epochs tta_s wall_s samples_per_s val_acc unseen_acc shifted_acc log; do
    check "replay JSON has \"$key\"" grep -q "\"$key\": " <<<"$out"
done
check "a 70% target is reached within 2 epochs on 5,000 images" grep -q '"reached": true' <<<"$out"
log=$(grep -o '"log": "[^"]*"' <<<"$out" | cut -d'"' -f4)
check "the log exists" test -s "$log"
check "every line of the log is :::MLLOG" bash -c "! grep -qv '^:::MLLOG {' '$log'"
check "the log has run_stop success" grep -q '"key": "run_stop".*"status": "success"' "$log"
check "the log has the memory by category" grep -Eq '"key": "tta_memory", "value": \{"weights": [0-9]+, .*"feature_maps": [0-9]+' "$log"
check "and the per-layer profile of its steps" grep -Eq '"key": "tta_layer_profile", "value": \{"steps": [0-9]+, "layers": \[\{"name": "flatten"' "$log"
runs=$("$TTA" --db "$work/db" ls runs --round local --format json)
check "the run was ingested as round local, submitter replay" grep -q '"submitter": "replay"' <<<"$runs"
check "with its TTA" grep -Eq '"tta_s": [0-9]' <<<"$runs"
check "and reached" grep -q '"reached": true' <<<"$runs"
# the same seed gives the same accuracy, bit for bit
out2=$("$TTA" --db "$work/db2" replay "$work/spec.json" --log-dir "$work/logs2" --threads 1 --format json 2>/dev/null)
a1=$(grep -o '"val_acc": [0-9.]*' <<<"$out"); a2=$(grep -o '"val_acc": [0-9.]*' <<<"$out2")
check "same seed, same threads: same validation accuracy ($a1 / $a2)" test "$a1" = "$a2"
# --seed S alone is one run of seed S, not the spec's seeds (it was ignored)
out3=$("$TTA" --db "$work/db3" replay "$work/spec.json" --seed 5 --max-epochs 1 --log-dir "$work/logs3" --threads 1 \
    --format json 2>/dev/null)
check "--seed 5 alone runs seed 5, once ($(grep -o '"seed": [0-9]*' <<<"$out3" | tr '\n' ' '))" \
    test "$(grep -o '"seed": [0-9]*' <<<"$out3")" = '"seed": 5'
# verify a claim (the Fashion-MNIST claims in fixtures/claims): one short replay, the verdict line
"$TTA" --db "$work/vdb" ingest fixtures/claims >/dev/null 2>&1
v=$("$TTA" --db "$work/vdb" verify dawnbench/open/tta\ anchors\ \(PyTorch\ reference\ run\)/fmnist_mlp_pytorch/fashion-mnist \
    --runs 1 --max-epochs 1 --threads 1 --log-dir "$work/vlogs" 2>"$work/err")
rc=$?; check "verify exits 0 ($(head -2 "$work/err"))" test $rc -eq 0
check "verify sets the claim beside the replay" grep -q 'epochs to 88.0% .* 8.0 ± 1.6' <<<"$v"
check "verify prints unseen and shifted accuracy" grep -q 'shifted accuracy' <<<"$v"
check "verify ends with a verdict" grep -q '^verdict: ' <<<"$v"
"$TTA" --db "$work/vdb" verify 999 2>"$work/err" >/dev/null
check "verify of an unknown entry fails (1)" test $? -eq 1
# --from: a DAWNBench entry file builds the SPEC; the log keeps the link to the entry
out=$("$TTA" --db "$work/fdb" replay --from fixtures/claims/fmnist_mlp_pytorch_seed0.json --runs 1 --max-epochs 1 \
    --threads 1 --log-dir "$work/flogs" --format json 2>"$work/err")
rc=$?; check "replay --from exits 0 ($(head -2 "$work/err"))" test $rc -eq 0
flog=$(grep -o '"log": "[^"]*"' <<<"$out" | cut -d'"' -f4)
check "its log names the entry it replays" grep -q '"key": "tta_replay_of", "value": "dawnbench/open/tta anchors (PyTorch reference run)/fmnist_mlp_pytorch/fashion-mnist"' "$flog"
check "with the entry's batch size" grep -q '"key": "global_batch_size", "value": 128' "$flog"
"$TTA" --db "$work/fdb" replay --from "$work/none.json" 2>"$work/err" >/dev/null
check "--from a missing file fails (1)" test $? -eq 1
check "naming it" grep -q "none.json: cannot read" "$work/err"
"$TTA" --db "$work/fdb" replay "$work/spec.json" --from fixtures/claims/fmnist_mlp_pytorch_seed0.json 2>/dev/null
check "a SPEC and --from together are a usage error (2)" test $? -eq 2
# --device cuda: built with CUDA but no GPU here -> a clear error and nothing stored; built
# without CUDA -> says so; with a GPU the same recipe must run and reach its target.
runs_before=$("$TTA" --db "$work/db" ls runs --format csv | wc -l)
out=$("$TTA" --db "$work/db" replay "$work/spec.json" --log-dir "$work/cuda-logs" --device cuda --format json 2>"$work/err")
rc=$?
module="$(dirname "$TTA")/libtta_cuda.so"
check "tta itself does not load the CUDA libraries (every command would pay for them)" \
    bash -c "! ldd '$TTA' | grep -Eq 'libcudnn|libcublas|libnccl|libcudart'"
if [ -f "$module" ]; then
    check "the CUDA module links cuDNN, cuBLAS, NCCL and the CUDA runtime" \
        test "$(ldd "$module" | grep -cE 'libcudnn\.|libcublas\.|libnccl\.|libcudart\.')" -eq 4
    check "with nothing unresolved" bash -c "! ldd '$module' | grep -q 'not found'"
    check "and exports only its table and kernels" bash -c "! nm -D --defined-only '$module' | grep ' T ' | grep -v -E ' (tta_cuda_module_get|tta_cu_[a-z_]+)$'"
fi
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 && [ -f "$module" ]; then
    check "--device cuda runs on this GPU ($(head -2 "$work/err"))" test $rc -eq 0
    check "and reaches the target" grep -q '"reached": true' <<<"$out"
else
    check "--device cuda without a usable GPU fails (1)" test $rc -eq 1
    check "with a clear reason ($(head -1 "$work/err"))" grep -Eq "no CUDA device|built without CUDA" "$work/err"
    check "printing no results" test -z "$out"
    check "and storing no run" test "$("$TTA" --db "$work/db" ls runs --format csv | wc -l)" -eq "$runs_before"
fi
# bad specs
echo '{"benchmark": "fashion-mnist", "model": "mlp", "dataset": {"kind": "fashion-mnist"}, "optimizer": {"kind": "rmsprop"}}' > "$work/bad.json"
"$TTA" --db "$work/db" replay "$work/bad.json" 2>"$work/err" >/dev/null
check "an unknown optimizer fails (1)" test $? -eq 1
check "naming the file and the field" grep -q "bad.json: optimizer.kind: " "$work/err"
"$TTA" --db "$work/db" replay 2>/dev/null
check "replay without SPEC is a usage error (2)" test $? -eq 2
echo "$passed passed, $failed failed"
test "$failed" -eq 0
