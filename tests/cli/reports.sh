#!/bin/bash
# CLI tests of ingest, ls and every report on the bundled fixtures (real excerpts): exit codes,
# error messages, the JSON/CSV contracts, values checked against the official v0.7 score, tables
# that fit 100 columns, valid SVG, and an HTML page that is one self-contained file.
set -uo pipefail
TTA=${TTA:-build/tta}
cd "${TTA_SOURCE_DIR:-.}"
work=$(mktemp -d /tmp/tta-cli.XXXXXX)
trap 'rm -rf "$work"' EXIT
db="$work/db"
. "$(dirname "$0")/lib/check.sh"

# ---- ingest ----
out=$("$TTA" --db "$db" ingest --format json fixtures/mlperf fixtures/dawnbench fixtures/claims 2>"$work/err")
rc=$?
check "ingest of the fixtures exits 0 (got $rc: $(head -3 "$work/err"))" test $rc -eq 0
for key in files ingested unchanged failed runs events bytes seconds; do
    check "ingest --format json has \"$key\"" grep -q "\"$key\": " <<<"$out"
done
check "ingest reports no failure" grep -q '"failed": 0' <<<"$out"
out=$("$TTA" --db "$db" ingest --format json fixtures/mlperf 2>/dev/null)
check "second ingest: nothing re-ingested" grep -q '"ingested": 0' <<<"$out"
"$TTA" --db "$db" ingest fixtures/quirks >/dev/null 2>"$work/err"
rc=$?
check "ingest of malformed files exits 1 (got $rc)" test $rc -eq 1
check "a malformed file is reported as path:line: reason" grep -Eq '^fixtures/quirks/malformed[^:]*\.txt:[0-9]+: .+' "$work/err"
n_before=$("$TTA" --db "$db" ls runs --format csv | wc -l)
check "failed files leave the stored runs intact" test "$n_before" -gt 20
"$TTA" --db "$db" ingest --jobs 0 fixtures >/dev/null 2>&1
check "a bad --jobs value is a usage error (2)" test $? -eq 2
"$TTA" --db "$db" ingest 2>/dev/null
check "ingest without PATH is a usage error (2)" test $? -eq 2
"$TTA" --db "$db" ingest /nonexistent/folder 2>"$work/err"
check "a missing path is reported and fails (1)" test $? -eq 1
check "the missing path is named" grep -q '/nonexistent/folder' "$work/err"

# ---- ls ----
json=$("$TTA" --db "$db" ls runs --format json)
for key in round division submitter system benchmark file status reached tta_s epochs accelerators global_batch_size; do
    check "ls runs JSON has \"$key\"" grep -q "\"$key\": " <<<"$json"
done
check "ls runs JSON is an array" test "${json:0:1}" = "["
n=$("$TTA" --db "$db" ls runs --round v0.7 --submitter nvidia --system dgxa100_ngc20.06_mxnet --format csv | tail -n +2 | wc -l)
check "filters select the 5 runs of one entry (got $n)" test "$n" -eq 5
"$TTA" --db "$work/none.db" ls runs >/dev/null 2>"$work/err"
check "a missing database fails (1)" test $? -eq 1
check "it says how to make one" grep -q 'tta ingest' "$work/err"
"$TTA" --db "$db" ls things >/dev/null 2>&1
check "ls of an unknown kind is a usage error (2)" test $? -eq 2

# ---- reports: contracts ----
header=$("$TTA" --db "$db" report variance --format csv | head -1 | tr -d '\r')
check "variance CSV header is the contract" test "$header" = \
    "entry,round,division,submitter,system,benchmark,accelerators,runs,reached,score_min,scaling_factor,score_unscaled_min,summary_score_min,tta_mean_s,cv,cv_ci_low,cv_ci_high,progress_unit,progress_mean,progress_std,time_per_unit_mean_s,time_per_unit_std_s,epochs_mean,epochs_std,tpe_mean_s,tpe_std_s,cv_ratio,log_var_share_progress,log_var_share_time_per_unit,log_var_share_cov,energy_j,energy_kwh,accelerator_minutes,cost_per_hour_usd,cost_usd,scaling,number_of_models,instance_scale,models_per_min,logs_url,note"
v=$("$TTA" --db "$db" report variance --system dgxa100_ngc20.06_mxnet --benchmark resnet --format json)
score=$(grep -o '"score_min": [0-9.]*' <<<"$v" | awk '{print $2}')
check "score_min of NVIDIA dgxa100 mxnet resnet is the official 39.779661 min (got $score)" \
    awk -v s="$score" 'BEGIN { exit !(s > 39.7696 && s < 39.7897) }'
s=$("$TTA" --db "$db" report speedup --format json)
for key in base_system system base_accelerators accelerators throughput_speedup tta_speedup gap; do
    check "speedup JSON has \"$key\"" grep -q "\"$key\": " <<<"$s"
done
k=$("$TTA" --db "$db" report scaling --format json)
for key in system accelerators speedup_tpe speedup_tta efficiency_tpe efficiency_tta; do
    check "scaling JSON has \"$key\"" grep -q "\"$key\": " <<<"$k"
done
r=$("$TTA" --db "$db" report rcp --rcp-dir fixtures/rcp/training_4.0.0 --format json)
for key in entry round ruleset benchmark bs verdict message rcp_mean min_mean subm_mean normalization progress_unit; do
    check "rcp JSON has \"$key\"" grep -q "\"$key\": " <<<"$r"
done
check "rcp notes benchmarks without reference points instead of failing" grep -q 'no reference convergence points' <<<"$r"
c=$("$TTA" --db "$db" report compare v0.7/closed/NVIDIA/dgxa100_ngc20.06_mxnet/resnet v0.7/closed/NVIDIA/dgxa100_n2_ngc20.06_mxnet/resnet --format json)
check "compare finds the two entries different" grep -q 'different at alpha = 0.05' <<<"$c"
"$TTA" --db "$db" report compare 1 999999 >/dev/null 2>"$work/err"
check "compare with an unknown entry fails (1)" test $? -eq 1
check "and names it" grep -q '999999' "$work/err"
t=$("$TTA" --db "$db" report threshold --at 0.70:0.76:0.02 --system dgxa100_ngc20.06_mxnet --format csv | tail -n +2 | wc -l)
check "threshold: 4 thresholds x 5 runs (got $t)" test "$t" -eq 20
"$TTA" --db "$db" report nonsense >/dev/null 2>&1
check "an unknown report is a usage error (2)" test $? -eq 2
"$TTA" --db "$db" report variance --format yaml >/dev/null 2>&1
check "an unknown format is a usage error (2)" test $? -eq 2

# ---- every row names its entry by the id that compare, verify and --entry take ----
ids=$("$TTA" --db "$db" ls entries --format csv | tail -n +2 | cut -d, -f1 | sort -n | tr '\n' ' ')
for rep in "ls runs" "ls entries" "report variance" "report speedup" "report scaling" "report curves" \
           "report threshold --at 0.7" "report rcp --rcp-dir fixtures/rcp/training_4.0.0" \
           "report compare v0.7/closed/NVIDIA/dgxa100_ngc20.06_mxnet/resnet v0.7/closed/NVIDIA/dgxa100_n2_ngc20.06_mxnet/resnet"; do
    "$TTA" --db "$db" $rep --format json >"$work/ids.json" 2>/dev/null
    bad_rows=$(python3 - "$work/ids.json" "$ids" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
ids = set(int(x) for x in sys.argv[2].split())
keys = [k for k in ("entry", "base_entry", "id_a", "id_b") if rows and k in rows[0]]
bad = sum(1 for r in rows for k in keys if r.get(k) not in ids) + (0 if keys and rows else 1)
print(bad)
PY
)
    check "$rep: every JSON row carries entry ids of tta ls entries ($bad_rows bad)" test "$bad_rows" = 0
done
s=$("$TTA" --db "$db" report speedup --format json)
check "speedup rows carry both ids" grep -q '"base_entry": [0-9]*, "entry": [0-9]*' <<<"$s"

# ---- tables fit 100 columns on a terminal, and print every value whole elsewhere ----
# (variance of every round at once is wider: its numbers alone need 109 columns, and numbers are
# never cut; one round's round column is said once above the table)
for rep in "variance --round v0.7" "speedup" "scaling" "curves" "rcp --rcp-dir fixtures/rcp/training_4.0.0" "threshold --at 0.7"; do
    if command -v script >/dev/null; then
        NO_COLOR=1 COLUMNS=100 script -qec "$TTA --db $db report $rep" /dev/null >"$work/tty.txt" 2>/dev/null </dev/null
        width=$(python3 -c 'import re, sys
text = re.sub(r"\x1b\[[0-9;]*m", "", open(sys.argv[1], encoding="utf-8").read().replace("\r", ""))
print(max((len(l) for l in text.split("\n")), default=0))' "$work/tty.txt")
        check "report $rep fits 100 columns on a terminal (widest line $width)" test "$width" -le 100
    fi
    n_cut=$("$TTA" --db "$db" report $rep 2>/dev/null | grep -c '…')
    check "report $rep into a pipe shortens nothing ($n_cut lines with …)" test "$n_cut" -eq 0
done

# ---- plots and the page ----
"$TTA" --db "$db" report curves --round v0.7 --benchmark resnet --svg "$work/curves.svg" >/dev/null
"$TTA" --db "$db" report variance --round v0.7 --svg "$work/tta.svg" >/dev/null 2>&1
"$TTA" --db "$db" report scaling --svg "$work/scaling.svg" >/dev/null 2>&1
if command -v xmllint >/dev/null; then
    for f in "$work"/*.svg; do check "$(basename "$f") is valid XML" xmllint --noout "$f"; done
fi
check "curves plot draws a target line" grep -q 'target' "$work/curves.svg"
"$TTA" --db "$db" report html "$work/report.html" 2>/dev/null
check "report html writes the page" test -s "$work/report.html"
check "the page loads nothing from elsewhere" bash -c "! grep -Eq 'src=\"(https?:)?//' '$work/report.html'"
# its only links elsewhere: an entry's system, to where it is published (tests/cli/report_links.sh)
check "the page links elsewhere only to the published results" bash -c "! grep -o 'href=\"[a-z]*://[^\"]*' '$work/report.html' | grep -Ev 'href=\"https://github.com/(mlcommons/training_results_v|stanford-futuredata/dawn-bench-entries/)'"
check "the page holds inline SVG figures" grep -q '<svg' "$work/report.html"

echo "$passed passed, $failed failed"
test "$failed" -eq 0
