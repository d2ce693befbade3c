#!/bin/bash
# `tta replay` beyond one plain run, on generated data (no dataset needed) and a tiny CIFAR-10
# folder written here: Ctrl-C stops cleanly (exit 130, run_stop aborted, checkpoint kept; SIGTERM
# the same with exit 143) and --resume finishes the run with the same accuracies, bit for bit, as an uninterrupted one, with
# one run_start and epochs 1..N once each; a damaged checkpoint is refused with its path and the
# log is left alone; `mpirun -np 1` gives the same loss curve as no MPI; `mpirun -np 2` is filed
# as a system of 2 workers and `tta report scaling` and `tta report comm` read it.
set -uo pipefail
TTA=${TTA:-build/tta}
work=$(mktemp -d /tmp/tta-resume.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
. "$(dirname "$0")/lib/check.sh"
. "$(dirname "$0")/lib/sql.sh"
. "$(dirname "$0")/lib/replay_log.sh"
# (240,000 samples: about 0.4 s an epoch at one thread, so that the Ctrl-C below, sent once the log
# shows epoch 3, lands before the run's end even on a busy machine: at 60,000 an epoch took 0.1-0.2 s)
cat > "$work/spec.json" <<JSON
{"benchmark": "generated", "dataset": {"kind": "generated", "n": 240000},
 "model": "mlp", "model_params": "hidden1=64,hidden2=64",
 "optimizer": {"kind": "sgd", "momentum": 0.9, "nesterov": true, "weight_decay": 0.0005},
 "schedule": {"type": "piecewiseLinear", "epochs": [0, 1, 8], "values": [0.005, 0.02, 0]},
 "batch_size": 64, "augment": {"crop_pad": 1, "flip": true},
 "target": {"metric": "top1", "value": 0.999}, "max_epochs": 8, "seeds": [5]}
JSON

# the uninterrupted run
"$TTA" --db "$work/full.db" replay "$work/spec.json" --threads 1 --log-dir "$work/full" --no-checkpoint \
    --format json >"$work/full.json" 2>"$work/err"
rc=$?; check "an uninterrupted replay exits 0 ($(head -2 "$work/err"))" test $rc -eq 0
full_log=$(log_of "$work/full.json")
check "it ran 8 epochs" test "$(grep -c '"key": "epoch_stop"' "$full_log")" -eq 8

# start_until DB LOGDIR OUT E: the spec's replay in the background (pid: $pid, JSON to OUT.json,
# stderr to OUT.err), back once its log (at DIR's result_5.txt) shows E epochs, so that a signal
# sent next lands mid-run
start_until() {
    "$TTA" --db "$1" replay "$work/spec.json" --threads 1 --log-dir "$2" --format json >"$3.json" 2>"$3.err" &
    pid=$!
    local l="$2/replay/results/$(hostname)-cpu-1t/generated/result_5.txt"
    for _ in $(seq 1 600); do
        [ -f "$l" ] && [ "$(grep -c '"key": "epoch_stop"' "$l")" -ge "$4" ] && return
        sleep 0.1
    done
}

# Ctrl-C after the third epoch (the log shows when), then --resume
start_until "$work/db" "$work/logs" "$work/a" 3
log="$work/logs/replay/results/$(hostname)-cpu-1t/generated/result_5.txt"
# Ctrl-C is taken by one thread, tta-sigint, that only waits for it (and SIGTERM); every other thread blocks
# SIGINT, so that its handler never runs on a thread inside oneDNN's sgemm (cli/interrupt.h: the
# handler's frame on that thread's stack corrupted the heap). SIGINT is bit 1 of SigBlk, SIGTERM bit 14.
sigint_masks() {
    local t name blk takers=0 others=0
    for t in /proc/$pid/task/*; do
        name=$(cat "$t/comm" 2>/dev/null) || continue
        blk=$(awk '/^SigBlk/ { print $2 }' "$t/status" 2>/dev/null) || continue
        [ -n "$blk" ] || continue
        if [ "$name" = tta-sigint ]; then
            (( (16#$blk >> 1) & 1 || (16#$blk >> 14) & 1 )) && { echo "tta-sigint blocks SIGINT or SIGTERM ($blk)"; return 1; }
            takers=$((takers + 1))
        else
            (( (16#$blk >> 1) & 1 && (16#$blk >> 14) & 1 )) || { echo "thread ${t##*/} ($name) takes SIGINT or SIGTERM ($blk)"; return 1; }
            others=$((others + 1))
        fi
    done
    [ $takers -eq 1 ] && [ $others -ge 1 ] || { echo "$takers SIGINT takers, $others other threads"; return 1; }
}
check "Ctrl-C: only the tta-sigint thread takes SIGINT and SIGTERM" sigint_masks
kill -INT $pid
wait $pid
check "Ctrl-C: exit status 130" test $? -eq 130
check "Ctrl-C: the run says interrupted" grep -q '"interrupted": true' "$work/a.json"
check "Ctrl-C: run_stop aborted in the log" grep -q '"key": "run_stop".*"status": "aborted"' "$log"
check "Ctrl-C: the message tells how to resume" grep -q -- '--resume' "$work/a.err"
ckpt="$work/logs/replay/checkpoints/$(hostname)-cpu-1t/generated/seed_5.ckpt"
check "Ctrl-C: the checkpoint stays" test -s "$ckpt"
runs=$("$TTA" --db "$work/db" ls runs --round local --format json)
check "the interrupted run was ingested as aborted" grep -q '"status": "aborted"' <<<"$runs"

# a damaged checkpoint is refused, the log untouched
cp "$ckpt" "$work/good.ckpt"; cp "$log" "$work/log.before"
printf 'XXXX' | dd of="$ckpt" bs=1 seek=300 conv=notrunc 2>/dev/null
"$TTA" --db "$work/db" replay "$work/spec.json" --threads 1 --log-dir "$work/logs" --resume >/dev/null 2>"$work/err"
check "a damaged checkpoint fails (1)" test $? -eq 1
check "naming it and why" grep -q "seed_5.ckpt: damaged" "$work/err"
check "and the log is as it was" cmp -s "$log" "$work/log.before"
cp "$work/good.ckpt" "$ckpt"

"$TTA" --db "$work/db" replay "$work/spec.json" --threads 1 --log-dir "$work/logs" --resume --format json \
    >"$work/b.json" 2>"$work/err"
rc=$?; check "--resume exits 0 ($(head -2 "$work/err"))" test $rc -eq 0
check "--resume says where it continued" grep -Eq '"resumed_from": [3-8]' "$work/b.json"
check "the resumed log has one run_start" test "$(grep -c '"key": "run_start"' "$log")" -eq 1
check "and epochs 1..8 once each" test "$(grep -o '"key": "epoch_stop".*"epoch_num": [0-9]*' "$log" | grep -o '[0-9]*$' | tr '\n' ' ')" = "1 2 3 4 5 6 7 8 "
check "and one run_stop" test "$(grep -c '"key": "run_stop"' "$log")" -eq 1
check "resumed accuracies equal the uninterrupted run's, bit for bit" test "$(accs "$log")" = "$(accs "$full_log")"
check "and so do the training losses" test "$(losses "$log")" = "$(losses "$full_log")"
check "a finished run leaves no checkpoint" test ! -e "$ckpt"
runs=$("$TTA" --db "$work/db" ls runs --round local --format json)
check "the database now holds the finished run, once" test "$(grep -o "\"file\"" <<<"$runs" | wc -l)" -eq 1
check "filed under benchmark generated" grep -q '"benchmark": "generated"' <<<"$runs"
n=$(sql "$work/db" "SELECT count(*) FROM evaluations")
check "with its 8 evaluations ($n)" test "$n" -eq 8

# SIGTERM (timeout(1), a batch scheduler) stops as cleanly as Ctrl-C, with exit status 143
start_until "$work/t.db" "$work/tlogs" "$work/t" 1
tlog="$work/tlogs/replay/results/$(hostname)-cpu-1t/generated/result_5.txt"
kill -TERM $pid
wait $pid
check "SIGTERM: exit status 143" test $? -eq 143
check "SIGTERM: the run says interrupted" grep -q '"interrupted": true' "$work/t.json"
check "SIGTERM: run_stop aborted in the log" grep -q '"key": "run_stop".*"status": "aborted"' "$tlog"
check "SIGTERM: the checkpoint stays" test -s "$work/tlogs/replay/checkpoints/$(hostname)-cpu-1t/generated/seed_5.ckpt"
check "SIGTERM: the run was ingested as aborted" grep -q '"status": "aborted"' <<<"$("$TTA" --db "$work/t.db" ls runs --round local --format json)"

# MPI: K = 1 under mpirun equals no MPI; K = 2 is a system of 2 workers
if command -v mpirun >/dev/null; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
    export ASAN_OPTIONS=detect_leaks=0 # OpenMPI keeps its allocations until exit
    sed 's/"max_epochs": 8/"max_epochs": 3/; s/"n": 240000/"n": 8000/' "$work/spec.json" > "$work/short.json"
    "$TTA" --db "$work/m.db" replay "$work/short.json" --threads 1 --log-dir "$work/plain" --format json >"$work/p.json" 2>/dev/null
    mpirun -np 1 "$TTA" --db "$work/m.db" replay "$work/short.json" --threads 1 --log-dir "$work/mpi1" --format json \
        >"$work/m1.json" 2>"$work/err"
    rc=$?; check "mpirun -np 1 exits 0 ($(head -2 "$work/err"))" test $rc -eq 0
    l1=$(log_of "$work/p.json"); l2=$(log_of "$work/m1.json")
    check "K = 1 under MPI: the same loss curve as without MPI" test "$(losses "$l1")" = "$(losses "$l2")"
    check "and the same accuracies" test "$(accs "$l1")" = "$(accs "$l2")"
    mpirun -np 2 "$TTA" --db "$work/m.db" replay "$work/short.json" --threads 1 --log-dir "$work/mpi2" --format json \
        >"$work/m2.json" 2>"$work/err"
    rc=$?; check "mpirun -np 2 exits 0 ($(head -3 "$work/err"))" test $rc -eq 0
    check "one JSON document (rank 0 alone prints)" test "$(grep -c '"runs"' "$work/m2.json")" -eq 1
    check "with 2 workers" grep -q '"workers": 2' "$work/m2.json"
    l3=$(log_of "$work/m2.json")
    check "the log records world size 2 and global batch 128" \
        bash -c "grep -q '\"key\": \"tta_world_size\", \"value\": 2' '$l3' && grep -q '\"key\": \"global_batch_size\", \"value\": 128' '$l3'"
    check "and each rank's communication time per epoch" grep -Eq '"rank_comm_total_s": \[[0-9.e-]+, [0-9.e-]+\]' "$l3"
    acc=$(sql "$work/m.db" "SELECT accelerators FROM systems WHERE name LIKE '%-x2'")
    check "the K = 2 system has 2 accelerators ($acc)" test "$acc" = "2"
    # K = 4 on this machine's 2 CPUs: oversubscribed, and tta says so
    mpirun --oversubscribe -np 4 "$TTA" --db "$work/m.db" replay "$work/short.json" --threads 1 --log-dir "$work/mpi4" \
        --format json >"$work/m4.json" 2>"$work/err4"
    rc4=$?
    check "mpirun -np 4 exits 0 ($(head -3 "$work/err4"))" test "$rc4" -eq 0
    check "with 4 workers" grep -q '"workers": 4' "$work/m4.json"
    if [ "$(nproc)" -lt 4 ]; then
        check "and a note that oversubscription distorts the timing" grep -q "oversubscribed" "$work/err4"
    fi
    check "rank 0 alone reports (one note, one document)" test "$(grep -c "oversubscribed" "$work/err4")" -le 1
    sc=$("$TTA" --db "$work/m.db" report scaling --round local --format csv 2>&1)
    check "report scaling compares the K = 1, 2 and 4 replays" bash -c "grep -q -- '-x2' <<<'$sc' && grep -q -- '-x4' <<<'$sc'"
    sp=$("$TTA" --db "$work/m.db" report speedup --round local --format csv 2>&1)
    check "report speedup pairs the replays of different K" grep -q -- '-x4' <<<"$sp"
else
    echo "mpi part skipped: mpirun is not installed (Debian's openmpi-bin)"
fi

# CIFAR-10 binary files (a tiny folder in the dataset's layout)
mkdir -p "$work/cifar/cifar-10-batches-bin"
/usr/bin/python3 - "$work/cifar/cifar-10-batches-bin" <<'PY' || true
import sys, random
random.seed(1)
d = sys.argv[1]
def write(name, n):
    with open(f"{d}/{name}", "wb") as f:
        for i in range(n):
            label = random.randrange(10)
            f.write(bytes([label]) + bytes((label * 25 + random.randrange(40)) % 256 for _ in range(3072)))
for b in range(1, 6):
    write(f"data_batch_{b}.bin", 2200)
write("test_batch.bin", 500)
PY
cat > "$work/cifar.json" <<JSON
{"benchmark": "cifar10", "dataset": {"kind": "cifar10", "path": "$work/cifar"}, "model": "resnet9",
 "model_params": "width=0.125", "optimizer": {"kind": "sgd", "momentum": 0.9, "nesterov": true, "weight_decay": 5e-4},
 "schedule": {"type": "piecewiseLinear", "epochs": [0, 1], "values": [0.02, 0.02]}, "batch_size": 32,
 "augment": {"crop_pad": 4, "flip": true}, "train_subset": 1024,
 "target": {"metric": "top1", "value": 0.5}, "max_epochs": 2, "seeds": [0]}
JSON
"$TTA" --db "$work/c.db" replay "$work/cifar.json" --threads 1 --log-dir "$work/clogs" --format json --no-checkpoint \
    >"$work/c.json" 2>"$work/err"
rc=$?; check "a CIFAR-10 replay of ResNet-9 runs ($(head -2 "$work/err"))" test $rc -eq 0
check "and learns the separable toy classes" grep -Eq '"val_acc": 0\.[5-9]|"val_acc": 1' "$work/c.json"
rm "$work/cifar/cifar-10-batches-bin/test_batch.bin"
"$TTA" --db "$work/c.db" replay "$work/cifar.json" --threads 1 --log-dir "$work/clogs" --no-checkpoint >/dev/null 2>"$work/err"
check "a missing CIFAR file fails (1)" test $? -eq 1
check "naming it" grep -q "test_batch.bin: cannot open" "$work/err"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
