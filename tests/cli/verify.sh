#!/bin/bash
# `tta verify` on the Fashion-MNIST claims of fixtures/claims (and ../shared/claims when present):
# by default the replay runs the claim's schedule past the threshold (capped here at epoch 3 with
# --max-epochs, a threshold of 78% that epoch 1 or 2 meets, to keep the test short), its log has
# run_stop at the threshold and the later epochs after it, accuracies are compared at the compared
# epoch (the claim's own evaluations at that epoch), the claim column is full, --stop-at-target
# stops at the threshold, JSON/CSV keys, and the runs are stored as round local; `report verify` and
# the HTML page read the same comparisons back from the database; a replay capped before the claim reached
# the threshold is inconclusive; with ../shared/claims, a replay of the
# whole 15-epoch schedule compared at the claim's final epoch.
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
. "$(dirname "$0")/lib/check.sh"
# py FILE EXPR: evaluates EXPR with j = the JSON in FILE; exit 0 when true
py() { /usr/bin/python3 -c "import json,sys; j=json.load(open(sys.argv[1])); rows={r['measure'].split(' at ')[0].split(' to ')[0]: r for r in j.get('rows', [])}; sys.exit(0 if ($2) else 1)" "$1"; }

"$TTA" --db "$work/db" ingest fixtures/claims >/dev/null 2>&1
# before any replay: the stored comparisons' report is empty, and says why
"$TTA" --db "$work/db" report verify --format json >"$work/none.json" 2>/dev/null
check "report verify with no replay stored: JSON []" test "$(tr -d ' \n' <"$work/none.json")" = "[]"
"$TTA" --db "$work/db" report verify >"$work/none.txt" 2>"$work/none.err"
check "report verify with no replay stored: (no rows), and why on stderr" \
    bash -c "grep -q '(no rows)' '$work/none.txt' && grep -q 'no stored run replays a claim' '$work/none.err'"
claim='dawnbench/open/tta anchors (PyTorch reference run)/fmnist_mlp_pytorch/fashion-mnist'
id=$("$TTA" --db "$work/db" ls entries --format csv | awk -F, 'NR > 1 && /fmnist_mlp_pytorch/ {print $1; exit}')
[ -n "$id" ] || id=1

# 1. the claim's schedule (capped at epoch 3): the replay goes on past the threshold
"$TTA" --db "$work/db" verify "$claim" --runs 1 --max-epochs 3 --threshold 0.78 --threads 1 --log-dir "$work/logs" \
    --format json >"$work/v.json" 2>"$work/err"
rc=$?; check "verify exits 0 ($(head -2 "$work/err"))" test $rc -eq 0
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
rc=$?; check "verify (table) exits 0 ($(head -2 "$work/err"))" test $rc -eq 0
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
rc=$?; check "verify --stop-at-target exits 0 ($(head -2 "$work/err"))" test $rc -eq 0
check "CSV header" grep -q '^measure,unit,test,claim_mean,claim_std,claim_n,replay_mean,replay_std,replay_n,welch_p,claim_entry_id,replay_entry_id,threshold,mode,compared_epoch,note' "$work/s.csv"
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

# 5. the stored comparisons (`tta report verify`, and its section of the HTML page), from the database alone:
# one per way of running (the four verify calls above), each equal to what its `tta verify` printed
"$TTA" --db "$work/db" report verify --format json >"$work/stored.json" 2>"$work/err"
rc=$?; check "report verify exits 0 ($(head -2 "$work/err"))" test $rc -eq 0
check "report verify: four comparisons (schedule at epoch 3 and 1, stop at target at 78% and 50%)" \
    /usr/bin/python3 -c "import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if sorted((x['mode'], x['compared_epoch'] or 0, x['threshold']) for x in j) == [('schedule', 1, 0.5), ('schedule', 3, 0.78), ('stop_at_target', 0, 0.5), ('stop_at_target', 0, 0.78)] else 1)" "$work/stored.json"
# same FILE MODE EPOCH THRESHOLD: the stored comparison's rows equal FILE's (tta verify's): counts,
# epochs and accuracies exactly, TTA and s/epoch within 3% (the stored side times them by the
# evaluations' log records, as the claim's, tta verify by the run's clock)
same() {
    /usr/bin/python3 - "$work/stored.json" "$2" "$3" "$4" "$1" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
c = [x for x in j if x["mode"] == sys.argv[2] and (x["compared_epoch"] or 0) == int(sys.argv[3]) and x["threshold"] == float(sys.argv[4])]
v = json.load(open(sys.argv[5]))
if len(c) != 1: sys.exit(1)
c = c[0]
ok = c["claim_entry_id"] == v["claim_entry_id"] and c["replay_entry_id"] == v["replay_entry_id"] and c["verdict"] == v["verdict"]
for a, b in zip(c["rows"], v["rows"]):
    ok &= a["measure"] == b["measure"] and a["claim_n"] == b["claim_n"] and a["replay_n"] == b["replay_n"]
    for k in ("claim_mean", "replay_mean"):
        if a[k] is None or b[k] is None: ok &= a[k] == b[k]; continue
        tol = 0.03 * abs(b[k]) + 1e-6 if a["unit"] == "s" else 1e-6
        ok &= abs(a[k] - b[k]) <= tol
sys.exit(0 if ok and len(c["rows"]) == len(v["rows"]) else 1)
PY
}
check "stored: the schedule comparison at epoch 3 equals tta verify's" same "$work/v.json" schedule 3 0.78
check "stored: the stop-at-target comparison at 50% equals tta verify's" same "$work/s.json" stop_at_target 0 0.5
"$TTA" --db "$work/db" report verify --format csv >"$work/stored.csv"
check "report verify CSV: one header, 8 rows per comparison" \
    test "$(grep -c '^measure,' "$work/stored.csv"):$(wc -l <"$work/stored.csv")" = "1:33"
"$TTA" --db "$work/db" report verify --round dawnbench --format json >"$work/sel.json"
"$TTA" --db "$work/db" report verify --round '/^v0\.7$/' --format json >"$work/nosel.json"
check "a filter selects comparisons by their claim (dawnbench: 4) or replay entry (v0.7: none)" \
    test "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))), len(json.load(open(sys.argv[2]))))' "$work/sel.json" "$work/nosel.json")" = "4 0"
"$TTA" --db "$work/db" report html "$work/page.html" 2>"$work/err"
rc=$?; check "report html exits 0 ($(head -2 "$work/err"))" test $rc -eq 0
# (two rounds: an index and a page per round; the replays' round's page (and the claims') has the section)
check "the replays' page has verify's section: heading, the claim by entry id, a verdict per comparison" \
    bash -c "p='$work/page-local.html'; grep -q '<h2[^>]*>Claims replayed on this machine</h2>' \$p && grep -q 'claim *dawnbench/open/tta anchors (PyTorch reference run)/fmnist_mlp_pytorch/fashion-mnist (entry $id)' \$p && test \$(grep -c '<p>verdict: ' \$p) = 4"

# 6. capped before the claim's own epochs to the threshold (88%, which the claims reach at epoch 8 or
# later): inconclusive, never "not reproduced"
"$TTA" --db "$work/idb" ingest fixtures/claims >/dev/null 2>&1
"$TTA" --db "$work/idb" verify "$claim" --runs 1 --max-epochs 1 --threads 1 --log-dir "$work/ilogs" --format json \
    >"$work/i.json" 2>"$work/err"
check "verify --max-epochs 1 at 88% exits 0 ($(head -2 "$work/err"))" test $? -eq 0
first88=$(awk -F'\t' '$1 + 0 > 0 && $3 >= 88 {if (!(FILENAME in f)) f[FILENAME] = $1} END {m = 99; for (k in f) if (f[k] < m) m = f[k]; print m}' fixtures/claims/*.tsv)
check "capped at epoch 1, below the claim's epoch $first88 at 88%: inconclusive" py "$work/i.json" \
    "j['verdict'] == 'inconclusive: capped at epoch 1, the claim reached the target at epoch $first88'"
ilog=$(ls "$work"/ilogs/replay/results/*/fashion-mnist/result_0.txt)
check "a claim without misc.inputNormalization is replayed with pixel / 255 alone (no tta_input_mean logged)" \
    bash -c "! grep -q '\"key\": \"tta_input_mean\"' '$ilog'"

# usage
"$TTA" --db "$work/db" verify "$claim" --threshold abc 2>/dev/null
check "a bad --threshold is a usage error (2)" test $? -eq 2
"$TTA" --db "$work/db" verify "$claim" --format xml 2>/dev/null
check "a bad --format is a usage error (2)" test $? -eq 2

# 7. ../shared/claims, when present: the claim's full column from the shared copies
if [ -d "$shared/claims" ] && ls "$shared"/claims/*.json >/dev/null 2>&1; then
    "$TTA" --db "$work/sdb" ingest "$shared/claims" >/dev/null 2>&1
    # the claim's whole schedule (15 epochs, no cap): compared at the claim's final epoch
    "$TTA" --db "$work/sdb" verify "$claim" --runs 1 --threads 2 --log-dir "$work/shlogs" --format json \
        >"$work/sh.json" 2>"$work/err"
    rc=$?; check "verify on ../shared/claims exits 0 ($(head -2 "$work/err"))" test $rc -eq 0
    check "../shared/claims: the 15-epoch schedule run whole, compared at epoch 15, no cap, the claim column full" \
        py "$work/sh.json" "j['mode'] == 'schedule' and j['schedule_epochs'] == 15 and j['compared_epoch'] == 15 and j['epoch_cap'] is None and all(rows[m]['claim_n'] == 3 for m in ['epochs', 'TTA (s)', 'time per epoch (s)', 'validation accuracy', 'unseen accuracy'])"
    shared_mean() { awk -F'\t' -v e="$1" '$1 == e {s += $3; n++} END {printf "%.17g", s / n / 100}' "$shared"/claims/*.tsv; }
    check "../shared/claims: the claim's validation accuracy is its final epoch's ($(shared_mean 15))" py "$work/sh.json" \
        "abs(rows['validation accuracy']['claim_mean'] - $(shared_mean 15)) < 1e-9"
    shlog=$(ls "$work"/shlogs/replay/results/*/fashion-mnist/result_0.txt)
    sh_last=$(grep '"key": "eval_accuracy"' "$shlog" | tail -1 | grep -o '"epoch_num": [0-9]*' | grep -o '[0-9]*$')
    check "../shared/claims: the replay ran to epoch 15 (last evaluation at epoch $sh_last)" test "$sh_last" = 15
    sh_acc=$(grep '"key": "eval_accuracy"' "$shlog" | tail -1 | grep -o '"value": [0-9.e-]*' | cut -d' ' -f2)
    check "../shared/claims: the replay's validation accuracy compared is its epoch 15's ($sh_acc)" py "$work/sh.json" \
        "abs(rows['validation accuracy']['replay_mean'] - $sh_acc) < 1e-6"
    check "../shared/claims: replayed with the claim's misc.inputNormalization (mean 0.28550, std 0.35278 logged)" \
        bash -c "grep -q '\"key\": \"tta_input_mean\", \"value\": 0.28549' '$shlog' && grep -q '\"key\": \"tta_input_std\", \"value\": 0.35278' '$shlog'"
else
    echo "note: no $shared/claims: the shared claims part is skipped"
fi
echo "$passed passed, $failed failed"
test "$failed" -eq 0
