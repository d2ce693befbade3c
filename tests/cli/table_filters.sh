#!/bin/bash
# Filters on the system description and the order of every table, on the bundled real excerpts
# (fixtures/: MLPerf v0.5–v5.1, DAWNBench, the claims):
# - --accelerator, --framework, --availability (plain or /RE/) and --accelerators MIN:MAX (or MIN:,
#   :MAX) select exactly the entries whose system description matches (checked in Python against
#   `ls systems` and `ls entries`), in `ls entries`, `ls runs`, `ls systems` and a report; an entry
#   without a description matches none of them; a bad range is a usage error (2);
# - --sort COL[,COL] (-COL descending) and --top N order and cut every table, in CSV, JSON and the
#   table for people alike: numbers by value, text case-insensitively, missing values last, ties
#   in the table's order; a key the table lacks is said on stderr and the order kept.
set -uo pipefail
TTA=${TTA:-build/tta}
cd "${TTA_SOURCE_DIR:-.}"
command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed to read the outputs"; exit 77; }
work=$(mktemp -d /tmp/tta-table-filters.XXXXXX)
trap 'rm -rf "$work"' EXIT
db="$work/db"
. "$(dirname "$0")/lib/check.sh"

"$TTA" --db "$db" ingest --quiet fixtures/mlperf fixtures/dawnbench fixtures/claims >/dev/null 2>&1
"$TTA" --db "$db" ls entries --format json >"$work/entries.json"
"$TTA" --db "$db" ls systems --format json >"$work/systems.json"
check "fixtures ingested, systems described" test "$(grep -c '"system"' "$work/systems.json")" -gt 20

# expect FIELD PATTERN|MIN:MAX: sorted ids of the entries whose system description (the last one
# listed for its round, submitter and system) matches: a text field by Python's re (case-insensitive,
# anywhere), "accelerators" by the range
expect() { python3 - "$work/entries.json" "$work/systems.json" "$1" "$2" <<'PY'
import json, re, sys
entries, systems, field, want = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3], sys.argv[4]
desc = {}
for s in systems: desc[(s["round"], s["submitter"], s["system"])] = s
ids = []
for e in entries:
    s = desc.get((e["round"], e["submitter"], e["system"]))
    if s is None: continue
    if field == "accelerators":
        lo, hi = want.split(":")
        v = s["accelerators"]
        ok = v is not None and (not lo or v >= int(lo)) and (not hi or v <= int(hi))
    else:
        ok = s[field] is not None and re.search(want, s[field], re.I) is not None
    if ok: ids.append(e["entry"])
print(" ".join(str(i) for i in sorted(ids)))
PY
}
ids() { python3 -c 'import json, sys; print(" ".join(str(i) for i in sorted({r["entry"] for r in json.load(open(sys.argv[1]))})))' "$1"; }
got() { "$TTA" --db "$db" ls entries --format json "$@" >"$work/got.json" && ids "$work/got.json"; }

for case in "accelerator_model --accelerator h100" "accelerator_model --accelerator a100-sxm4" \
            "framework --framework pytorch" "framework --framework mxnet" \
            "availability --availability available" "availability --availability preview" \
            "availability --availability onprem"; do
    set -- $case
    want=$(expect "$1" "$3")
    check "$2 /$3/ selects the entries whose description says so ($want)" test -n "$want" -a "$(got "$2" "/$3/")" = "$want"
done
exact=$(python3 -c 'import json, sys; print(next(s["accelerator_model"] for s in json.load(open(sys.argv[1])) if s["accelerator_model"] and "(400W)" in s["accelerator_model"]))' "$work/systems.json")
check "--accelerator '$exact' (a plain value: the whole value, any case)" \
    test "$(got --accelerator "${exact,,}")" = "$(expect accelerator_model "^$(printf '%s' "$exact" | sed 's/[()]/\\&/g')\$")"
for range in 8:8 8:64 64: :8 100:100000; do
    want=$(expect accelerators "$range")
    check "--accelerators $range ($want)" test -n "$want" -a "$(got --accelerators "$range")" = "$want"
done
check "filters combine: --accelerator /h100/ --accelerators 9: is the intersection" \
    test "$(got --accelerator /h100/ --accelerators 9:)" = "$(python3 -c 'import sys; a=set(sys.argv[1].split()); b=set(sys.argv[2].split()); print(" ".join(sorted(a & b, key=int)))' "$(expect accelerator_model h100)" "$(expect accelerators 9:)")"
check "an entry without a description matches no system filter (DAWNBench's claims by framework)" \
    test "$(got --framework /./ --round dawnbench)" = "$(expect framework . | tr ' ' '\n' | python3 -c 'import json,sys; d={e["entry"] for e in json.load(open(sys.argv[1])) if e["round"]=="dawnbench"}; print(" ".join(x for x in sys.stdin.read().split() if int(x) in d))' "$work/entries.json")"
# the same selection in the other listings and in a report
"$TTA" --db "$db" ls runs --format json --accelerator /h100/ >"$work/runs.json"
check "ls runs --accelerator /h100/: the runs of those entries" test "$(ids "$work/runs.json")" = "$(expect accelerator_model h100)"
"$TTA" --db "$db" report variance --format json --framework /pytorch/ >"$work/var.json"
check "report variance --framework /pytorch/: only those entries" \
    python3 -c 'import json, sys; got = {r["entry"] for r in json.load(open(sys.argv[1]))}; sys.exit(0 if got and got <= set(map(int, sys.argv[2].split())) else 1)' "$work/var.json" "$(expect framework pytorch)"
"$TTA" --db "$db" ls systems --format json --accelerators 64: --framework /nemo/ >"$work/sys.json"
check "ls systems --accelerators 64: --framework /nemo/: the descriptions themselves" \
    python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); sys.exit(0 if s and all(x["accelerators"] >= 64 and "nemo" in x["framework"].lower() for x in s) else 1)' "$work/sys.json"
for bad in 9:3 x 0:4 : 4; do
    "$TTA" --db "$db" ls entries --accelerators "$bad" >/dev/null 2>&1
    check "--accelerators $bad is a usage error (2)" test $? -eq 2
done

# --sort and --top, every format
sorted_ids() { python3 - "$work/entries.json" "$@" <<'PY'
import json, sys
rows, keys, top = json.load(open(sys.argv[1])), sys.argv[2].split(","), int(sys.argv[3])
for k in reversed(keys):  # stable sorts, last key first; missing values last either way
    d = k.startswith("-"); k = k.lstrip("-")
    present = [r for r in rows if r[k] is not None]
    missing = [r for r in rows if r[k] is None]
    conv = (lambda v: (v.lower(), v)) if isinstance(present[0][k], str) else (lambda v: v)
    rows = sorted(present, key=lambda r: conv(r[k]), reverse=d) + missing  # reverse keeps ties in order
print(" ".join(str(r["entry"]) for r in rows[:top]))
PY
}
order() { python3 -c 'import json, sys; print(" ".join(str(r["entry"]) for r in json.load(open(sys.argv[1]))))' "$1"; }
"$TTA" --db "$db" ls entries --format json --sort tta_mean_s --top 7 >"$work/s1.json"
check "--sort tta_mean_s --top 7 (JSON): the 7 fastest mean TTAs" test "$(order "$work/s1.json")" = "$(sorted_ids tta_mean_s 7)"
"$TTA" --db "$db" ls entries --format json --sort -accelerators,system --top 12 >"$work/s2.json"
check "--sort -accelerators,system --top 12: most accelerators first, then by system" \
    test "$(order "$work/s2.json")" = "$(sorted_ids -accelerators,system 12)"
"$TTA" --db "$db" ls entries --format json --sort -tta_mean_s >"$work/s3.json"
check "--sort -tta_mean_s: every row, missing means last" \
    python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); v = [x["tta_mean_s"] for x in r]; n = [x for x in v if x is not None]; sys.exit(0 if len(r) == len(json.load(open(sys.argv[2]))) and n == sorted(n, reverse=True) and all(x is None for x in v[len(n):]) else 1)' "$work/s3.json" "$work/entries.json"
"$TTA" --db "$db" ls entries --format csv --sort tta_mean_s --top 7 >"$work/s1.csv"
check "CSV: the same 7 rows in the same order" \
    test "$(awk -F, 'NR > 1 {printf "%s%s", sep, $1; sep = " "}' "$work/s1.csv")" = "$(order "$work/s1.json")"
"$TTA" --db "$db" ls entries --sort tta_mean_s --top 7 >"$work/s1.txt"
check "table: 7 rows, the first the fastest entry" \
    bash -c "test \$(awk '/^─/ {on = 1; next} on && /^ *[0-9]/ {n++} END {print n}' '$work/s1.txt') = 7 && awk '/^─/ {getline; print \$1; exit}' '$work/s1.txt' | grep -qx '$(order "$work/s1.json" | cut -d' ' -f1)'"
"$TTA" --db "$db" report variance --format json --sort -score_min --top 3 >"$work/v.json"
check "report variance --sort -score_min --top 3: the 3 slowest scores" \
    python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); v = [x["score_min"] for x in r]; sys.exit(0 if len(r) == 3 and v == sorted(v, reverse=True) else 1)' "$work/v.json"
"$TTA" --db "$db" ls entries --format json --sort nosuchkey --top 2 >"$work/bad.json" 2>"$work/bad.err"
check "an unknown --sort key: said on stderr with the table's keys, exit 0, order kept, --top still cuts" \
    bash -c "grep -q \"no column 'nosuchkey' in this table (its keys: entry, round\" '$work/bad.err' && test \"\$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' '$work/bad.json')\" = 2"
"$TTA" --db "$db" ls entries --top 0 >/dev/null 2>&1
check "--top 0 is a usage error (2)" test $? -eq 2
echo "$passed passed, $failed failed"
test "$failed" -eq 0
