#!/bin/bash
# `tta verify` on the Fashion-MNIST claims of fixtures/claims (and ../shared/claims when present):
# by default the replay runs the claim's schedule past the threshold (capped here at epoch 3 with
# --max-epochs, a threshold of 78% that epoch 1 or 2 meets, to keep the test short), its log has
# run_stop at the threshold and the later epochs after it, accuracies are compared at the compared
# epoch (the claim's own evaluations at that epoch), the claim column is full, --stop-at-target
# stops at the threshold, JSON/CSV keys, and the runs are stored as round local.
# Needs Debian's dataset-fashion-mnist (skips without it).
set -uo pipefail
TTA=${TTA:-build/tta}
shared=${TTA_SHARED_DIR:-../shared}
data=/usr/share/datasets/fashion-mnist
if [ ! -f "$data/train-images-idx3-ubyte.gz" ]; then
    echo "SKIPPED: Fashion-MNIST is not installed (Debian package dataset-fashion-mnist)"
    exit 77
fi
work=$(mktemp -d /tmp/tta-verify.XXXXXX)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
check() { local what="$1"; shift; if "$@"; then passed=$((passed + 1)); else echo "FAIL: $what"; failed=$((failed + 1)); fi; }
# py FILE EXPR: evaluates EXPR with j = the JSON in FILE; exit 0 when true
py() { /usr/bin/python3 -c "import json,sys; j=json.load(open(sys.argv[1])); rows={r['measure'].split(' at ')[0].split(' to ')[0]: r for r in j.get('rows', [])}; sys.exit(0 if ($2) else 1)" "$1"; }

"$TTA" --db "$work/db" ingest fixtures/claims >/dev/null 2>&1
claim='dawnbench/open/tta anchors (PyTorch reference run)/fmnist_mlp_pytorch/fashion-mnist'
id=$("$TTA" --db "$work/db" ls entries --format csv | awk -F, 'NR > 1 && /fmnist_mlp_pytorch/ {print $1; exit}')
[ -n "$id" ] || id=1

# 1. the claim's schedule (capped at epoch 3): the replay goes on past the threshold
"$TTA" --db "$work/db" verify "$claim" --runs 1 --max-epochs 3 --threshold 0.78 --threads 1 --log-dir "$work/logs" \
    --format json >"$work/v.json" 2>"$work/err"
check "verify exits 0 ($(head -2 "$work/err"))" test $? -eq 0
check "JSON: mode schedule, compared at epoch 3 of a 15-epoch schedule, cap 3" \
    py "$work/v.json" "j['mode'] == 'schedule' and j['compared_epoch'] == 3 and j['schedule_epochs'] == 15 and j['epoch_cap'] == 3"
for key in claim_entry_id replay_entry_id claim replay threshold mode compared_epoch schedule_epochs epoch_cap runs rows verdict; do
    check "JSON has \"$key\"" py "$work/v.json" "'$key' in j"
done
check "JSON: the claim's entry id and a stored replay entry id" \
    py "$work/v.json" "isinstance(j['claim_entry_id'], int) and isinstance(j['replay_entry_id'], int) and j['replay_entry_id'] != j['claim_entry_id']"
for key in measure unit test claim_mean claim_std claim_n replay_mean replay_std replay_n welch_p claim_entry_id replay_entry_id; do
    check "JSON rows have \"$key\"" py "$work/v.json" "all('$key' in r for r in j['rows'])"
done
check "JSON: the rows are the measures" py "$work/v.json" \
    "set(rows) >= {'runs reaching 78.0%', 'epochs', 'TTA (s)', 'time per epoch (s)', 'validation accuracy', 'unseen accuracy', 'shifted accuracy', 'generalization gap (val - unseen)'}"
check "the claim column is full: epochs, TTA, s/epoch, validation, unseen, gap (3 runs each)" py "$work/v.json" \
    "all(rows[m]['claim_n'] == 3 and rows[m]['claim_mean'] is not None for m in ['epochs', 'TTA (s)', 'time per epoch (s)', 'validation accuracy', 'unseen accuracy', 'generalization gap (val - unseen)'])"
check "the claim's unseen accuracy is misc.unseenAccuracy ((90.21 + 90.4 + 90.24) / 3 %)" py "$work/v.json" \
    "abs(rows['unseen accuracy']['claim_mean'] - (0.9021 + 0.904 + 0.9024) / 3) < 1e-9"
tsv_mean() { awk -F'\t' -v e="$1" -v c="$2" '$1 == e {s += $c; n++} END {printf "%.17g", s / n / 100}' fixtures/claims/*.tsv; }
check "the claim's validation accuracy is its evaluations' at epoch 3 ($(tsv_mean 3 3))" py "$work/v.json" \
    "abs(rows['validation accuracy']['claim_mean'] - $(tsv_mean 3 3)) < 1e-9"
check "the claim's time per epoch is hours at epoch 3 x 3600 / 3 (times are stored to about 1e-6)" py "$work/v.json" \
    "abs(rows['time per epoch (s)']['claim_mean'] - $(tsv_mean 3 2) * 100 * 3600 / 3) < 1e-4"
log=$(ls "$work"/logs/replay/results/*/fashion-mnist/result_0.txt)
check "the replay's log exists" test -s "$log"
last_epoch=$(grep '"key": "eval_accuracy"' "$log" | tail -1 | grep -o '"epoch_num": [0-9]*' | grep -o '[0-9]*$')
check "the replay ran to epoch 3 (last evaluation at epoch $last_epoch)" test "$last_epoch" = 3
stop_line=$(grep -n '"key": "run_stop"' "$log" | cut -d: -f1)
last_eval_line=$(grep -n '"key": "eval_accuracy"' "$log" | tail -1 | cut -d: -f1)
check "one run_stop, status success" test "$(grep -c '"key": "run_stop".*"status": "success"' "$log")" = 1
check "run_stop at the threshold, before the last evaluation (did not stop at the target)" \
    test "${stop_line:-0}" -lt "${last_eval_line:-0}"
acc3=$(grep '"key": "eval_accuracy"' "$log" | tail -1 | grep -o '"value": [0-9.e-]*' | cut -d' ' -f2)
check "the replay's validation accuracy compared is epoch 3's ($acc3)" py "$work/v.json" \
    "abs(rows['validation accuracy']['replay_mean'] - $acc3) < 1e-6"
first=$(grep '"key": "eval_accuracy"' "$log" | awk -F'"value": ' '{split($2, a, ","); if (a[1] >= 0.78) {print NR; exit}}')
check "epochs to 78% is the log's first meeting epoch ($first)" py "$work/v.json" "rows['epochs']['replay_mean'] == ${first:-0}"
check "the log names the claim it replays" grep -q "\"key\": \"tta_replay_of\", \"value\": \"$claim\"" "$log"

# 2. the table says how it was run
"$TTA" --db "$work/db" verify "$id" --runs 1 --max-epochs 1 --threshold 0.5 --threads 1 --log-dir "$work/logs2" \
    >"$work/v.txt" 2>"$work/err"
check "verify (table) exits 0 ($(head -2 "$work/err"))" test $? -eq 0
check "the table says the schedule is capped and where accuracies are compared" \
    grep -q 'CAPPED at epoch 1 of 15 (--max-epochs): accuracies compared at epoch 1' "$work/v.txt"
check "the table has a validation row at epoch 1" grep -q '^validation accuracy at epoch 1 ' "$work/v.txt"
check "the table names both entries by id" grep -Eq '^replay .*\(entry [0-9]+\)' "$work/v.txt"
check "and ends with a verdict" grep -q '^verdict: ' "$work/v.txt"
check "no empty claim cell but shifted accuracy (the claim has none)" \
    test "$(grep -c '^[a-zA-Z].* n/a' "$work/v.txt")" -le 1

# 3. --stop-at-target stops at the threshold (MLPerf)
"$TTA" --db "$work/db" verify "$claim" --runs 1 --max-epochs 3 --threshold 0.78 --stop-at-target --threads 1 \
    --log-dir "$work/slogs" --format csv >"$work/s.csv" 2>"$work/err"
check "verify --stop-at-target exits 0 ($(head -2 "$work/err"))" test $? -eq 0
check "CSV header" grep -q '^measure,unit,test,claim_mean,claim_std,claim_n,replay_mean,replay_std,replay_n,welch_p,claim_entry_id,replay_entry_id,note' "$work/s.csv"
check "CSV: validation accuracy at the stop" grep -q '^validation accuracy at the stop,' "$work/s.csv"
slog=$(ls "$work"/slogs/replay/results/*/fashion-mnist/result_0.txt)
s_last=$(grep '"key": "eval_accuracy"' "$slog" | tail -1 | grep -o '"epoch_num": [0-9]*' | grep -o '[0-9]*$')
check "the replay stopped at the threshold (epoch $s_last, before 3)" test "${s_last:-9}" -lt 3
check "its run_stop is the log's last training record" \
    test "$(grep -n '"key": "run_stop"' "$slog" | cut -d: -f1)" -gt "$(grep -n '"key": "eval_accuracy"' "$slog" | tail -1 | cut -d: -f1)"
"$TTA" --db "$work/db" verify "$claim" --runs 1 --stop-at-target --format json --max-epochs 1 --threshold 0.5 \
    --threads 1 --log-dir "$work/slogs2" >"$work/s.json" 2>/dev/null
check "JSON --stop-at-target: mode stop_at_target, no compared epoch" py "$work/s.json" "j['mode'] == 'stop_at_target' and j['compared_epoch'] is None"

# 4. the runs are stored as replay stores them
"$TTA" --db "$work/db" ls runs --round local --format json >"$work/runs.json"
check "tta ls runs --round local shows the 4 verify runs, submitter replay" \
    /usr/bin/python3 -c "import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if len(r) == 4 and all(x['submitter'] == 'replay' for x in r) else 1)" "$work/runs.json"

# usage
"$TTA" --db "$work/db" verify "$claim" --threshold abc 2>/dev/null
check "a bad --threshold is a usage error (2)" test $? -eq 2
"$TTA" --db "$work/db" verify "$claim" --format xml 2>/dev/null
check "a bad --format is a usage error (2)" test $? -eq 2

# 5. ../shared/claims, when present: the claim's full column from the shared copies
if [ -d "$shared/claims" ] && ls "$shared"/claims/*.json >/dev/null 2>&1; then
    "$TTA" --db "$work/sdb" ingest "$shared/claims" >/dev/null 2>&1
    "$TTA" --db "$work/sdb" verify "$claim" --runs 1 --max-epochs 1 --threshold 0.5 --threads 1 \
        --log-dir "$work/shlogs" --format json >"$work/sh.json" 2>"$work/err"
    check "verify on ../shared/claims exits 0 ($(head -2 "$work/err"))" test $? -eq 0
    check "../shared/claims: a 15-epoch schedule, the claim column full" py "$work/sh.json" \
        "j['schedule_epochs'] == 15 and all(rows[m]['claim_n'] == 3 for m in ['epochs', 'TTA (s)', 'time per epoch (s)', 'validation accuracy', 'unseen accuracy'])"
else
    echo "note: no $shared/claims: the shared claims part is skipped"
fi
echo "$passed passed, $failed failed"
test "$failed" -eq 0
