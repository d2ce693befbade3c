#!/bin/bash
# Each `tta replay` / `tta verify` invocation keeps its own logs: a second replay of the same recipe
# and seed into the same log folder writes a new log (result_<N>.txt, N past the folder's logs)
# instead of overwriting the first, whose bytes stay as they were, and its run joins the entry
# with a new index (both runs listed, the log carrying the seed); the same for verify on the
# Fashion-MNIST claim (fixtures/claims; that part skips without Debian's dataset-fashion-mnist).
# And the README's mpirun command works as written as root (OpenMPI refuses root unless told):
# its own words up to `build/tta`, on a short recipe, without OpenMPI's root variables.
set -uo pipefail
TTA=${TTA:-build/tta}
cd "${TTA_SOURCE_DIR:-.}"
work=$(mktemp -d /tmp/tta-invocations.XXXXXX)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/lib/check.sh"
cat >"$work/spec.json" <<JSON
{"benchmark": "generated", "dataset": {"kind": "generated", "n": 4000},
 "model": "mlp", "model_params": "hidden1=32,hidden2=32",
 "optimizer": {"kind": "sgd", "momentum": 0.9},
 "schedule": {"type": "piecewiseLinear", "epochs": [0, 1, 2], "values": [0.01, 0.02, 0]},
 "batch_size": 64, "target": {"metric": "top1", "value": 0.999}, "max_epochs": 2, "seeds": [0]}
JSON
. "$(dirname "$0")/lib/replay_log.sh"
"$TTA" --db "$work/db" replay "$work/spec.json" --threads 1 --log-dir "$work/logs" --format json >"$work/r1.json" 2>"$work/err"
rc=$?; check "first replay exits 0 ($(head -2 "$work/err"))" test $rc -eq 0
l1=$(log_of "$work/r1.json")
check "first replay: result_0.txt ($l1)" test "$(basename "$l1")" = result_0.txt
sum1=$(md5sum <"$l1")
"$TTA" --db "$work/db" replay "$work/spec.json" --threads 1 --log-dir "$work/logs" --format json >"$work/r2.json" 2>"$work/err"
rc=$?; check "second replay exits 0 ($(head -2 "$work/err"))" test $rc -eq 0
l2=$(log_of "$work/r2.json")
check "second replay of seed 0: a new log ($l2)" test "$(basename "$l2")" = result_1.txt
check "the first log is untouched" test "$sum1" = "$(md5sum <"$l1")"
check "the new log names its seed" grep -q '"key": "seed", "value": 0' "$l2"
"$TTA" --db "$work/db" ls runs --round local --format json >"$work/runs.json"
check "both runs are stored" test "$(grep -o '"file": "[^"]*result_[01].txt"' "$work/runs.json" | sort -u | wc -l)" -eq 2
"$TTA" --db "$work/db" replay "$work/spec.json" --threads 1 --log-dir "$work/logs" --format json >"$work/r3.json" 2>/dev/null
check "a third: result_2.txt" test "$(basename "$(log_of "$work/r3.json")")" = result_2.txt

# verify twice on the Fashion-MNIST claim: two sets of logs, the first untouched
data=/usr/share/datasets/fashion-mnist
if [ -f "$data/train-images-idx3-ubyte.gz" ]; then
    "$TTA" --db "$work/v.db" ingest fixtures/claims >/dev/null 2>&1
    claim='dawnbench/open/tta anchors (PyTorch reference run)/fmnist_mlp_pytorch/fashion-mnist'
    for i in 1 2; do
        "$TTA" --db "$work/v.db" verify "$claim" --runs 1 --max-epochs 1 --threads 1 --log-dir "$work/vlogs" --format json \
            >"$work/v$i.json" 2>"$work/err"
        rc=$?; check "verify $i exits 0 ($(head -2 "$work/err"))" test $rc -eq 0
        [ "$i" = 1 ] && vsum=$(md5sum <"$(find "$work/vlogs" -name result_0.txt)")
    done
    check "two verify logs" test "$(find "$work/vlogs" -name 'result_*.txt' | wc -l)" -eq 2
    check "the first verify's log is untouched" test "$vsum" = "$(md5sum <"$(find "$work/vlogs" -name result_0.txt)")"
else
    echo "verify part skipped: Fashion-MNIST is not installed (Debian package dataset-fashion-mnist)"
fi

# the README's mpirun command, as written, as root
if command -v mpirun >/dev/null && [ "$(id -u)" -eq 0 ]; then
    line=$(grep -m1 '^mpirun .* build/tta replay ' README.md)
    prefix=${line%% build/tta *}
    check "README has an mpirun command ($prefix)" test -n "$prefix"
    export OMPI_MCA_rmaps_base_oversubscribe=1 ASAN_OPTIONS=detect_leaks=0
    unset OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
    # shellcheck disable=SC2086 # the README's words, split as a shell splits them
    $prefix "$TTA" --db "$work/m.db" replay "$work/spec.json" --threads 1 --log-dir "$work/mpi" --format json \
        >"$work/m.json" 2>"$work/err"
    rc=$?; check "the README's '$prefix' works as root ($(grep -m2 -i 'root\|error' "$work/err"))" test $rc -eq 0
    check "and trains on 2 ranks" grep -q '"workers": 2' "$work/m.json"
else
    echo "mpirun part skipped: not root, or mpirun is not installed (Debian's openmpi-bin)"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
