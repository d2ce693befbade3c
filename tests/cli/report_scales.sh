#!/bin/bash
# One quality scale per metric, progress in the benchmark's unit, means of successful runs, and what
# compare refuses, on the bundled real excerpts (fixtures/mlperf, fixtures/units, fixtures/dawnbench,
# fixtures/claims) and a one-epoch replay of Fashion-MNIST on generated data (round local, accuracies
# logged as fractions, as every replay's):
#  1. scales: the DAWNBench claim (stored in percent) and the replay (fractions) list the same target
#     (0.88; "target (%)" 88.0 for people), their curves are fractions with one target, the plot has one
#     target line ("target 88%") and a "top1 (%)" axis; threshold --at 0.85 finds each claim run's first
#     epoch at 85% in the claim's own TSV (not its first epoch, as 85 > 0.85 would);
#  2. units: llama31_8b's curve and threshold are in millions of samples (the log's samples_count / 1e6),
#     gpt3's in millions of tokens (epoch_num / 1e6), stable_diffusion v3.1 (no progress per evaluation)
#     has rows by evaluation with their time and plots against time; SVG axes say the unit; --x time
#     plots time; --x with another report, or another value, is a usage error;
#  3. ls entries' mean is over successful runs (fixtures/units' v3.1 ResNet has an aborted run), "ok"
#     counts them, the header says so; ls runs says "duration (min)" and notes the aborted run;
#  4. compare refuses llama31_8b against gpt3 (exit 2, naming both), and notes the v0.5 -> v0.6 ResNet
#     change of ruleset and target.
set -uo pipefail
TTA=${TTA:-build/tta}
cd "${TTA_SOURCE_DIR:-.}"
command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed to read the reports"; exit 77; }
work=$(mktemp -d /tmp/tta-scales.XXXXXX)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/lib/check.sh"
db="$work/db"
# j FILE EXPR: evaluates the Python expression EXPR with j = the JSON array in FILE; exit 0 when true
j() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"; }

"$TTA" --db "$db" ingest --quiet fixtures/mlperf fixtures/units fixtures/dawnbench fixtures/claims 2>"$work/err" \
    || { cat "$work/err"; exit 1; }
cat >"$work/spec.json" <<JSON
{"benchmark": "fashion-mnist", "dataset": {"kind": "generated", "n": 512},
 "model": "mlp", "model_params": "hidden1=16,hidden2=16",
 "optimizer": {"kind": "sgd", "momentum": 0.9, "nesterov": true, "weight_decay": 0.0005},
 "schedule": {"type": "piecewiseLinear", "epochs": [0, 1], "values": [0.02, 0]},
 "batch_size": 64, "target": {"metric": "top1", "value": 0.88}, "max_epochs": 1, "seeds": [1]}
JSON
"$TTA" --db "$db" replay "$work/spec.json" --threads 1 --log-dir "$work/logs" --no-checkpoint >/dev/null 2>"$work/err"
rc=$?; check "the replay is stored ($(head -1 "$work/err"))" test $rc -eq 0

# ---- 1. one scale per metric ----
"$TTA" --db "$db" ls entries --benchmark fashion-mnist --format json >"$work/fm.json"
check "ls entries: the claim and the replay, both target 0.88 as fractions" j "$work/fm.json" \
    "sorted(r['round'] for r in j) == ['dawnbench', 'local'] and all(abs(r['target'] - 0.88) < 1e-12 and r['quality_unit'] == 'fraction' for r in j)"
check "ls entries: the replay's metric is its benchmark's rule's (top1)" j "$work/fm.json" "all(r['metric'] == 'top1' for r in j)"
"$TTA" --db "$db" ls entries --benchmark fashion-mnist --wide >"$work/fm.txt"
check "ls entries for people: target (%) 88.0 on both rows" \
    bash -c "grep -q 'target (%)' '$work/fm.txt' && test \$(grep -c ' 88\.0 ' '$work/fm.txt') -eq 2"
"$TTA" --db "$db" report curves --benchmark fashion-mnist --format json --svg "$work/fm.svg" >"$work/fmc.json"
check "curves: every quality a fraction, every target 0.88" j "$work/fmc.json" \
    "j and all(0 <= r['quality_mean'] <= 1 and abs(r['target'] - 0.88) < 1e-12 for r in j)"
check "curves: the claim's epoch 1 is the mean of its TSVs' epoch 1 / 100" j "$work/fmc.json" \
    "abs([r for r in j if r['round'] == 'dawnbench' and r['progress'] == 1][0]['quality_mean'] - $(awk -F'\t' '$1 == 1 {s += $3; n++} END {printf "%.17g", s / n / 100}' fixtures/claims/*.tsv)) < 1e-9"
check "curves plot: one target line, 'target 88%'" \
    bash -c "test \$(grep -c 'class=\"hline\"' '$work/fm.svg') -eq 1 && grep -q 'target 88%' '$work/fm.svg' && ! grep -q 'target 0.88' '$work/fm.svg'"
check "curves plot: the y axis is top1 (%), the x axis progress (epochs)" \
    bash -c "grep -q '>top1 (%)<' '$work/fm.svg' && grep -q '>progress (epochs)<' '$work/fm.svg'"
"$TTA" --db "$db" report threshold --at 0.85 --round dawnbench --benchmark fashion-mnist --format json >"$work/th.json"
for tsv in fixtures/claims/*.tsv; do
    first=$(awk -F'\t' '$1 ~ /^[0-9]+$/ && $3 >= 85 {print $1; exit}' "$tsv")
    name=$(basename "$tsv" .tsv)
    check "threshold 0.85: $name first at epoch $first (its TSV)" j "$work/th.json" \
        "[r['progress'] for r in j if '$name' in r['file']] == [$first]"
done

# ---- 2. progress in the benchmark's unit ----
llama=fixtures/mlperf/v5.1/NVIDIA/results/tyche_ngpu512_ngc25.09_nemo/llama31_8b/result_5.txt
samples=$(grep '"key": "eval_accuracy"' "$llama" | grep -o '"samples_count": [0-9]*' | awk '{printf "%s%.17g", (NR > 1 ? "," : ""), $2 / 1e6}')
"$TTA" --db "$db" report curves --benchmark llama31_8b --format json --svg "$work/llama.svg" >"$work/llama.json"
check "llama31_8b curves: progress is samples_count / 1e6 in million_samples ([$samples])" j "$work/llama.json" \
    "[r['progress'] for r in j] == [$samples] and all(r['progress_unit'] == 'million_samples' and r['time_s'] > 0 for r in j)"
check "llama31_8b plot: x axis progress (Msamples), y log_perplexity (as logged)" \
    bash -c "grep -q '>progress (Msamples)<' '$work/llama.svg' && grep -q '>log_perplexity (as logged)<' '$work/llama.svg'"
"$TTA" --db "$db" report curves --benchmark llama31_8b >"$work/llama.txt"
check "llama31_8b table for people: unit Msamples, no 'epoch'" \
    bash -c "grep -q 'unit: Msamples' '$work/llama.txt' && ! grep -qi 'epoch' '$work/llama.txt'"
"$TTA" --db "$db" report threshold --at 3.4 --benchmark llama31_8b --format json >"$work/llth.json"
first=$(grep '"key": "eval_accuracy"' "$llama" | awk -F'"value": ' '{split($2, a, ","); if (a[1] <= 3.4) {print; exit}}' | grep -o '"samples_count": [0-9]*' | awk '{printf "%.17g", $2 / 1e6}')
check "llama31_8b threshold 3.4: at $first Msamples" j "$work/llth.json" \
    "len(j) == 1 and j[0]['progress'] == $first and j[0]['progress_unit'] == 'million_samples'"
gpt3=$(ls fixtures/mlperf/v4.1/Google/results/cloud-tpu-trillium-1024-maxtext/gpt3/*.txt)
tokens=$(grep '"key": "eval_accuracy"' "$gpt3" | grep -o '"epoch_num": [0-9]*' | awk '{printf "%s%.17g", (NR > 1 ? "," : ""), $2 / 1e6}')
"$TTA" --db "$db" report curves --benchmark gpt3 --format json >"$work/gpt3.json"
check "gpt3 curves: progress is epoch_num / 1e6 in million_tokens ([$tokens])" j "$work/gpt3.json" \
    "[r['progress'] for r in j] == [$tokens] and all(r['progress_unit'] == 'million_tokens' for r in j)"
"$TTA" --db "$db" report curves --round v3.1 --benchmark stable_diffusion --format json --svg "$work/sd.svg" >"$work/sd.json"
check "stable_diffusion v3.1: rows by evaluation with their time, said in the note" j "$work/sd.json" \
    "len(j) > 1 and all(r['progress'] is None and r['time_s'] > 0 and 'k-th evaluation' in r['note'] for r in j)"
check "stable_diffusion v3.1 plot: against time" grep -q '>time from run_start (min)<' "$work/sd.svg"
"$TTA" --db "$db" report curves --benchmark llama31_8b --x time --svg "$work/llt.svg" >/dev/null
check "--x time: the llama31_8b plot against time" grep -q '>time from run_start (min)<' "$work/llt.svg"
"$TTA" --db "$db" report variance --x time >/dev/null 2>&1
check "--x with variance: usage error (exit 2)" test $? -eq 2
"$TTA" --db "$db" report curves --x epochs >/dev/null 2>&1
check "--x epochs: usage error (exit 2)" test $? -eq 2

# ---- 3. means of successful runs ----
"$TTA" --db "$db" ls runs --format json >"$work/runs.json"
"$TTA" --db "$db" ls entries --format json >"$work/entries.json"
check "ls entries: tta_mean_s is the mean of the successful runs' tta_s, 'succeeded' counts them" python3 - "$work" <<'PY'
import json, sys
from collections import defaultdict
w = sys.argv[1]
runs = json.load(open(w + "/runs.json"))
ok = defaultdict(list)
for r in runs:
    # tta_run_succeeded: status success, or no status but the last evaluation meets the target
    if r["tta_s"] is not None and (r["status"] == "success" or (r["status"] == "unknown" and r["reached"] is True)):
        ok[r["entry"]].append(r["tta_s"])
bad = []
for e in json.load(open(w + "/entries.json")):
    xs = ok[e["entry"]]
    want = sum(xs) / len(xs) if xs else None
    if e["succeeded"] != len(xs) or (want is None) != (e["tta_mean_s"] is None) or (
            want is not None and abs(e["tta_mean_s"] - want) > 1e-9 * want):
        bad.append((e["entry"], e["succeeded"], len(xs), e["tta_mean_s"], want))
print(*bad[:5], sep="\n")
aborted = [e for e in json.load(open(w + "/entries.json")) if e["runs"] > e["succeeded"]]
sys.exit(1 if bad or not aborted else 0)
PY
"$TTA" --db "$db" ls entries --round v3.1 --benchmark resnet --format json >"$work/r31.json"
check "v3.1 ResNet: 4 runs, 3 succeeded, mean of the 3" j "$work/r31.json" "j[0]['runs'] == 4 and j[0]['succeeded'] == 3"
"$TTA" --db "$db" ls entries --round v3.1 --benchmark resnet --wide >"$work/r31.txt"
check "ls entries header: mean tta of successful runs (min)" grep -q 'mean tta of successful runs (min)' "$work/r31.txt"
"$TTA" --db "$db" ls runs --round v3.1 --benchmark resnet --wide >"$work/r31runs.txt"
check "ls runs: 'duration (min)', and the aborted run's duration noted as no TTA" \
    bash -c "grep -q 'duration (min)' '$work/r31runs.txt' && grep -q 'did not succeed: its duration is no time to accuracy' '$work/r31runs.txt'"
"$TTA" --db "$db" ls runs --benchmark llama31_8b --wide >"$work/llruns.txt"
check "ls runs: a llama31_8b run that reached its target is not called unconverged" \
    bash -c "! grep -q 'did not converge' '$work/llruns.txt' && grep -q 'progress counts samples' '$work/llruns.txt'"

# ---- 4. compare ----
id_of() { "$TTA" --db "$db" ls entries --round "$1" --benchmark "$2" --format csv | awk -F, 'NR == 2 {print $1}'; }
"$TTA" --db "$db" report compare "$(id_of v5.1 llama31_8b)" "$(id_of v4.1 gpt3)" >"$work/c.txt" 2>"$work/c.err"
check "compare llama31_8b with gpt3: exit 2" test $? -eq 2
check "compare llama31_8b with gpt3: says why, naming both, and prints no table" \
    bash -c "grep -q 'llama31_8b' '$work/c.err' && grep -q 'gpt3' '$work/c.err' && grep -q 'different benchmarks' '$work/c.err' && ! test -s '$work/c.txt'"
"$TTA" --db "$db" report compare "$(id_of v0.5 resnet)" "$(id_of v0.6 resnet)" --format json >"$work/c56.json"
check "compare v0.5 with v0.6 resnet: notes the rulesets (0.5.0, 0.6.0) and targets (0.749, 0.759)" j "$work/c56.json" \
    "'rulesets differ: A ran under 0.5.0, B under 0.6.0' in j[0]['note'] and 'targets differ: A trains to 0.749, B to 0.759' in j[0]['note']"
a=$("$TTA" --db "$db" ls entries --round v0.7 --benchmark resnet --format csv | awk -F, 'NR == 2 {print $1}')
b=$("$TTA" --db "$db" ls entries --round v0.7 --benchmark resnet --format csv | awk -F, 'NR == 3 {print $1}')
"$TTA" --db "$db" report compare "$a" "$b" --format json >"$work/c77.json"
check "compare two v0.7 resnet entries: no note of a difference in rules, target or division" j "$work/c77.json" \
    "'differ' not in (j[0].get('note') or '').replace('different at', '')"

echo "report_scales: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
