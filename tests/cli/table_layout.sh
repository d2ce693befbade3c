#!/bin/bash
# How tables read, on the bundled real excerpts (fixtures/) and, where present, MLPerf v0.7 of
# ../shared/corpus (that part skips without it):
# - scaling: each series' rows start with its base (the fewest accelerators), then by accelerators;
# - rcp: the submission's mean says its unit beside it (epochs, samples), for people too;
# - accelerators read "accel" in every table that counts them, never "acc" (beside top-1 accuracy);
# - on a narrow terminal, hidden columns are said in a last line that counts and names them.
set -uo pipefail
TTA=${TTA:-build/tta}
cd "${TTA_SOURCE_DIR:-.}"
command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed to read the outputs"; exit 77; }
work=$(mktemp -d /tmp/tta-table-layout.XXXXXX)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/lib/check.sh"

# series_base_first JSON: every series (base_entry) starts with its base, then accelerators do not fall
series_base_first() { python3 - "$1" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
series = {}
for r in rows: series.setdefault(r["base_entry"], []).append(r)
ok = bool(series)
for base, rs in series.items():
    acc = [r["accelerators"] for r in rs]
    ok &= rs[0]["entry"] == base and all(a is not None for a in acc) and acc == sorted(acc)
print(len(series))
sys.exit(0 if ok else 1)
PY
}
# hidden_said FILE WIDTH: the note "N columns hidden at WIDTH columns: a, b, c (...)" counts what it names
hidden_said() { python3 - "$1" "$2" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read().replace("\r", "")
text = re.sub(r"\n  ", " ", text)  # the note wraps with an indent
m = re.search(r"^(\d+) columns? hidden at %s columns: (.*?) \(--wide shows every column\)$" % sys.argv[2], text, re.M)
sys.exit(0 if m and int(m.group(1)) == len(m.group(2).split(", ")) else 1)
PY
}

db="$work/db"
"$TTA" --db "$db" ingest --quiet fixtures/mlperf >/dev/null 2>&1
"$TTA" --db "$db" report scaling --format json >"$work/scaling.json"
n=$(series_base_first "$work/scaling.json")
check "fixtures: each scaling series starts with its base, then by accelerators ($n series)" test $? -eq 0 -a "${n:-0}" -ge 1
"$TTA" --db "$db" report scaling --format csv >"$work/scaling.csv"
check "fixtures: NVIDIA resnet's base dgxa100_ngc20.06_mxnet (8) before dgxa100_n2 (16), though its name sorts after" \
    bash -c "grep -n 'dgxa100' '$work/scaling.csv' | head -1 | grep -q ',dgxa100_ngc20.06_mxnet,dgxa100_ngc20.06_mxnet,8,'"
"$TTA" --db "$db" report rcp --rcp-dir fixtures/rcp/training_4.0.0 >"$work/rcp.txt" 2>/dev/null
check "rcp table: the mean's unit beside it (a 'unit' column after 'mean', or said once above)" \
    bash -c "grep -Eq ' mean +unit ' '$work/rcp.txt' || grep -q 'unit: ' '$work/rcp.txt'"
"$TTA" --db "$db" report rcp --rcp-dir fixtures/rcp/training_4.0.0 --format json >"$work/rcp.json" 2>/dev/null
check "rcp JSON: progress_unit on every row with a mean (the unit people see)" python3 -c '
import json, sys; r = json.load(open(sys.argv[1])); m = [x for x in r if x.get("subm_mean") is not None]
sys.exit(0 if m and all(x["progress_unit"] in ("epochs", "samples", "tokens", "steps") for x in m) else 1)' "$work/rcp.json"
for rep in "ls entries" "ls runs" "ls systems" "report variance" "report speedup" "report scaling" "report trend" \
    "report summary --round v0.7"; do
    $TTA --db "$db" $rep 2>/dev/null >"$work/o.txt"
    check "$rep: accelerators headed 'accel', never 'acc'" \
        bash -c "grep -Eq '(^| )accel( |$)' '$work/o.txt' && ! grep -Eq '(^| )acc( |$)' '$work/o.txt'"
done

shared=${TTA_SHARED_DIR:-../shared}
archive="$shared/corpus/mlperf-training-v0.7.tar.zst"
if [ -f "$archive" ] && command -v script >/dev/null; then
    mkdir -p "$work/v0.7"
    tar --zstd -xf "$archive" -C "$work/v0.7"
    "$TTA" --db "$work/v07" ingest --quiet "$work/v0.7" >/dev/null 2>&1
    "$TTA" --db "$work/v07" report scaling --format json >"$work/s07.json"
    n=$(series_base_first "$work/s07.json")
    check "v0.7: every scaling series starts with its base, then by accelerators ($n series)" test $? -eq 0 -a "${n:-0}" -ge 5
    for cols in 80 120; do
        for rep in "report variance" "ls runs" "report summary"; do
            NO_COLOR=1 COLUMNS=$cols script -qec "$TTA --db $work/v07 $rep --round v0.7" /dev/null </dev/null 2>/dev/null |
                tr -d '\r' >"$work/t.txt"
            "$TTA" --db "$work/v07" $rep --round v0.7 >"$work/wide.txt" 2>/dev/null
            if grep -q 'hidden at' "$work/t.txt"; then
                check "v0.7 $rep at $cols columns: the hidden columns are counted and named" hidden_said "$work/t.txt" "$cols"
            else
                w=$(python3 -c 'import sys; print(max(len(l) for l in open(sys.argv[1], encoding="utf-8").read().split("\n")))' "$work/t.txt")
                check "v0.7 $rep at $cols columns: nothing hidden, nothing said ($w wide)" test "$w" -le "$cols"
            fi
        done
    done
    NO_COLOR=1 COLUMNS=80 script -qec "$TTA --db $work/v07 report variance --round v0.7" /dev/null </dev/null 2>/dev/null |
        tr -d '\r' >"$work/t.txt"
    check "v0.7 report variance at 80 columns hides some columns, and says so" hidden_said "$work/t.txt" 80
else
    echo "note: no $archive (or no script(1)): the v0.7 part is skipped"
fi
echo "$passed passed, $failed failed"
test "$failed" -eq 0
