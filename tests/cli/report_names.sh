#!/bin/bash
# Names that tell entries apart, on a real round: `report variance --round v0.7` on a 100-column
# pseudo-terminal (script(1)) has a row per entry and fits 100 columns, and no two rows read the
# same in the cells that name the entry (division, submitter, system, benchmark: the id aside);
# --wide shortens nothing; into a pipe nothing is shortened either; ls entries and the reports'
# JSON carry ids that `tta ls entries` lists. Needs ../shared/corpus and script (skips without).
set -uo pipefail
TTA=${TTA:-build/tta}
shared=${TTA_SHARED_DIR:-../shared}
corpus="$shared/corpus"
if [ ! -f "$corpus/mlperf-training-v0.7.tar.zst" ]; then
    echo "SKIPPED: no corpus at $corpus (the real logs live in ../shared, absent in a user's clone)"
    exit 77
fi
command -v script >/dev/null || { echo "SKIPPED: script(1) (bsdutils) is needed for a pseudo-terminal"; exit 77; }
command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed to read the tables"; exit 77; }
case "$TTA" in /*) ;; *) TTA="$PWD/$TTA" ;; esac
work=$(mktemp -d /tmp/tta-names.XXXXXX)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/lib/check.sh"

mkdir -p "$work/v0.7"
tar --zstd -xf "$corpus/mlperf-training-v0.7.tar.zst" -C "$work/v0.7"
"$TTA" --db "$work/db" ingest "$work/v0.7" >/dev/null 2>&1
n=$("$TTA" --db "$work/db" ls entries --round v0.7 --format csv | tail -n +2 | wc -l)
check "v0.7 ingested (entries: $n)" test "$n" -gt 50

# The table as a person sees it at a 100-column terminal.
tty_table() { NO_COLOR=1 COLUMNS=100 script -qec "$TTA --db $work/db report variance --round v0.7 $*" /dev/null \
    </dev/null 2>/dev/null | tr -d '\r'; }
tty_table >"$work/t100.txt"
tty_table --wide >"$work/wide.txt"
"$TTA" --db "$work/db" report variance --round v0.7 >"$work/pipe.txt" 2>/dev/null

# Rows of the grid cut at the rule's column boundaries: prints "rows widest repeats cut".
cat >"$work/grid.py" <<'PY'
import sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
n = int(sys.argv[2])
rule = next(i for i, l in enumerate(lines) if l and set(l) <= set("─ "))
spans, j, l = [], 0, lines[rule]
while j < len(l):
    if l[j] == "─":
        k = j
        while k < len(l) and l[k] == "─": k += 1
        spans.append((j, k)); j = k
    else: j += 1
header = [lines[rule - 1][a:b].strip() for a, b in spans]
ident = [i for i, h in enumerate(header) if h in ("div", "submitter", "system", "bench")]
rows = [r for r in lines[rule + 1:rule + 1 + n]]
cells = [tuple(r.ljust(spans[-1][1])[spans[i][0]:spans[i][1]].strip() for i in ident) for r in rows]
seen, repeats = {}, 0
for c in cells:
    if c in seen: repeats += 1; print("same:", c, file=sys.stderr)
    seen[c] = 1
print(len(rows), max(len(x) for x in lines), repeats, sum("…" in r for r in rows), len(ident))
PY
read -r rows widest repeats cut n_ident < <(python3 "$work/grid.py" "$work/t100.txt" "$n")
check "100 columns: a row per entry ($rows of $n)" test "$rows" -eq "$n"
check "100 columns: fits 100 columns (got $widest)" test "$widest" -le 100
# It fits by leaving out the decomposition's columns (said in a line), not by cutting numbers.
check "100 columns: says which columns it left out" grep -q '^6 columns hidden at 100 columns: cv ratio, unit, progress, s/unit, accel-min, cost' "$work/t100.txt"
check "100 columns: the CV's CI is never cut" bash -c "! grep -qE '[0-9]…[0-9]' '$work/t100.txt'"
check "--wide: every column shown" bash -c "grep -q 'cv ratio' '$work/wide.txt' && ! grep -q '^not shown' '$work/wide.txt'"
check "100 columns: the identity columns are shown ($n_ident)" test "$n_ident" -ge 2
check "100 columns: some names are shortened ($cut rows), so this tests something" test "$cut" -gt 0
check "100 columns: no two entries' rows read the same ($repeats repeats)" test "$repeats" -eq 0
read -r rows widest repeats cut n_ident < <(python3 "$work/grid.py" "$work/wide.txt" "$n")
check "--wide: nothing shortened ($cut rows with …)" test "$cut" -eq 0
check "--wide: a row per entry, none alike ($rows, $repeats)" test "$rows" -eq "$n" -a "$repeats" -eq 0
check "into a pipe: nothing shortened" bash -c "! grep -q '…' '$work/pipe.txt'"
check "into a pipe: every system name whole" grep -q 'dgxa100_n8_ngc20.06_mxnet\|dgx2h_n' "$work/pipe.txt"

# The other reports fit a 100-column terminal too (leaving out what they must, said in a line).
for rep in "ls entries" "ls runs" "ls systems" "report speedup" "report scaling" "report summary" \
    "report curves --benchmark resnet" "report trend"; do
    NO_COLOR=1 COLUMNS=100 script -qec "$TTA --db $work/db $rep --round v0.7" /dev/null </dev/null 2>/dev/null |
        tr -d '\r' >"$work/o.txt"
    w=$(python3 -c 'import sys; print(max(len(l) for l in open(sys.argv[1], encoding="utf-8").read().split("\n")))' "$work/o.txt")
    lines=$(wc -l <"$work/o.txt")
    check "$rep at 100 columns: $lines lines, fits ($w wide)" test "$lines" -gt 3 -a "$w" -le 100
done

# Ids: every row of every report names an entry that `tta ls entries` lists.
ids=$("$TTA" --db "$work/db" ls entries --round v0.7 --format csv | tail -n +2 | cut -d, -f1 | tr '\n' ' ')
for rep in "ls runs" "report variance" "report speedup" "report scaling" "report curves --benchmark resnet"; do
    "$TTA" --db "$work/db" $rep --round v0.7 --format json >"$work/r.json" 2>/dev/null
    res=$(python3 -c '
import json, sys
rows = json.load(open(sys.argv[1])); ids = set(int(x) for x in sys.argv[2].split())
keys = [k for k in ("entry", "base_entry") if rows and k in rows[0]]
print(len(rows), "entry" in keys, sum(1 for r in rows for k in keys if r.get(k) not in ids))' "$work/r.json" "$ids")
    read -r nrows has bad_ids <<<"$res"
    check "$rep: $nrows rows with an entry id, all listed ($bad_ids not)" test "$nrows" -gt 0 -a "$has" = True -a "$bad_ids" -eq 0
done
echo "$passed passed, $failed failed"
test "$failed" -eq 0
