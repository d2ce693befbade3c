#!/bin/bash
# `tta report summary`, the round's results table: on the fixtures (always), the CSV equals MLCommons'
# result summarizer's CSV of fixtures/mlperf/v0.7/NVIDIA cell for cell (tests/expected/summary), the JSON's
# columns are the summarizer's then tta's, every score's <benchmark>_entry is the entry whose published score
# `report variance --entry` gives, a system without description is listed with the reason, table and Markdown
# read as tables that fit 100 columns on a terminal, several rounds are refused, and the HTML page has the
# sortable table. On ../shared/corpus (skipped without it): the CSVs of v0.7, v3.1 and v5.1 equal the
# summarizer's for every organisation it summarizes (tests/expected/summary/<round>/<ORG>.csv; the one known
# difference in known-differences.tsv).
set -uo pipefail
TTA=${TTA:-build/tta}
cd "${TTA_SOURCE_DIR:-.}"
command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed to read CSV and JSON"; exit 77; }
work=$(mktemp -d /tmp/tta-summary.XXXXXX)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/lib/check.sh"
expected=tests/expected/summary

# compare_csv OFFICIAL TTA [NO_DESCRIPTION_ROWS [ROUND ORG]]: the summarizer's columns of tta's CSV equal the
# official file cell for cell, row for row, and tta's columns follow them (round, system_folder,
# <benchmark>_entry); rows of systems without a description (which the summarizer skips) must be exactly
# NO_DESCRIPTION_ROWS; the cells of ROUND ORG in known-differences.tsv must differ exactly as listed there.
compare_csv() {
    python3 - "$@" <<'PY'
import csv, sys
official = list(csv.reader(open(sys.argv[1], newline="")))
raw = open(sys.argv[2], newline="").read()
ours = list(csv.reader(raw.splitlines()))
skipped = int(sys.argv[3]) if len(sys.argv) > 3 else 0
known = {}
if len(sys.argv) > 5:
    for line in list(csv.reader(open("tests/expected/summary/known-differences.tsv"), delimiter="\t"))[1:]:
        if line[:2] == sys.argv[4:6]:
            known[(line[2], line[3])] = line[4]
had_known = bool(known)
problems = []
if "\r" in raw:
    problems.append("lines end with CR (pandas writes LF)")
head = official[0]
n = len(head)
benchmarks = head[head.index("private_id") + 1:head.index("details_url")]
if ours[0][:n] != head:
    problems.append("header %s != %s" % (ours[0][:n], head))
if ours[0][n:] != ["round", "system_folder"] + [b + "_entry" for b in benchmarks]:
    problems.append("tta's columns: %s" % ours[0][n:])
described = [r for r in ours[1:] if r[head.index("system")] != ""]
undescribed = [r for r in ours[1:] if r[head.index("system")] == ""]
if len(undescribed) != skipped:
    problems.append("%d rows without a description, expected %d" % (len(undescribed), skipped))
if len(described) != len(official) - 1:
    problems.append("%d rows, the summarizer has %d" % (len(described), len(official) - 1))
cells = 0
for i, (a, b) in enumerate(zip(official[1:], described), 1):
    for j in range(n):
        cells += 1
        if a[j] != b[j] and known.pop((head[j], a[j]), None) != b[j]:
            problems.append("row %d %s: summarizer %r, tta %r" % (i, head[j], a[j], b[j]))
    for k, bench in enumerate(benchmarks):
        score, entry = b[head.index(bench)], b[n + 2 + k]
        if bool(entry) != bool(score) and score:
            problems.append("row %d %s: a score without its entry id" % (i, bench))
# without tta's columns (and the rows the summarizer skips), the file is the summarizer's byte for byte
import io
text = io.StringIO()
w = csv.writer(text, lineterminator="\n")
for r in [ours[0]] + described:
    w.writerow(r[:n])
for (column, value), mine in known.items():
    problems.append("the known difference %s %r -> %r is gone: update known-differences.tsv" % (column, value, mine))
if not had_known and text.getvalue() != open(sys.argv[1], newline="").read():
    problems.append("the summarizer's columns are not its file byte for byte (quoting, line ends)")
for p in problems[:10]:
    print("  " + p)
print("%d cells equal, %d problems" % (cells, len(problems)))
sys.exit(1 if problems else 0)
PY
}

# ---- fixtures ----
db="$work/db"
"$TTA" --db "$db" ingest --quiet fixtures/mlperf >/dev/null 2>&1
"$TTA" --db "$db" report summary >"$work/out" 2>"$work/err"
check "several rounds are refused (exit 1)" test $? -eq 1
check "the refusal names the rounds and --round" grep -q -- '--round (the selection has v0.5, v0.6, v0.7' "$work/err"
"$TTA" --db "$db" report summary --round v0.7 --submitter NVIDIA --format csv >"$work/nvidia.csv"
check "report summary --format csv exits 0" test $? -eq 0
out=$(compare_csv "$expected/fixture-v0.7-NVIDIA.csv" "$work/nvidia.csv")
rc=$?
check "fixture NVIDIA v0.7: the summarizer's CSV cell for cell ($(tail -1 <<<"$out"))" test $rc -eq 0
[ -n "$out" ] && grep -v 'cells equal' <<<"$out"
"$TTA" --db "$db" report summary --round v0.7 --submitter Alibaba --format csv >"$work/alibaba.csv"
out=$(compare_csv "$expected/fixture-v0.7-Alibaba.csv" "$work/alibaba.csv" 1)
rc=$?
check "fixture Alibaba v0.7: the summarizer skips its undescribed system, tta lists it with empty description cells ($(tail -1 <<<"$out"))" test $rc -eq 0

"$TTA" --db "$db" report summary --round v0.7 --format json >"$work/s.json"
check "report summary --format json exits 0" test $? -eq 0
"$TTA" --db "$db" ls entries --round v0.7 --format json >"$work/entries.json"
python3 - "$work/s.json" "$work/entries.json" "$TTA" "$db" >"$work/checks" <<'PY'
import json, subprocess, sys
rows = json.load(open(sys.argv[1]))
entries = {e["entry"]: e for e in json.load(open(sys.argv[2]))}
tta, db = sys.argv[3], sys.argv[4]
def say(ok, what):
    print("%s %s" % ("ok" if ok else "FAIL", what))
official = ["division", "availability", "submitter", "system", "number_of_nodes", "host_processor_model_name",
            "host_processors_count", "accelerator_model_name", "accelerators_count", "framework", "notes", "private_id"]
benchmarks = ["bert", "dlrm", "gnmt", "maskrcnn", "minigo", "resnet", "ssd", "transformer"]
keys = official + benchmarks + ["details_url", "code_url", "round", "system_folder"] + [b + "_entry" for b in benchmarks] \
    + [b + "_accelerator_minutes" for b in benchmarks]
say(len(rows) == 4, "4 systems of v0.7 in the fixtures (got %d)" % len(rows))
say(all([k for k in r if k != "note"] == keys for r in rows), "JSON keys: the summarizer's columns, then round, system_folder, <benchmark>_entry, <benchmark>_accelerator_minutes")
for r in rows:
    for b in benchmarks:
        if r[b] is not None and r["accelerators_count"]:
            say(abs(r[b + "_accelerator_minutes"] - r["accelerators_count"] * r[b]) <= 1e-6 * r[b + "_accelerator_minutes"],
                "%s %s: accelerator-minutes = accelerators x score" % (r["system_folder"], b))
cells = 0
for r in rows:
    for b in benchmarks:
        eid = r[b + "_entry"]
        if eid is None:
            say(r[b] is None, "%s %s: no entry, no score" % (r["system_folder"], b))
            continue
        cells += 1
        e = entries.get(eid)
        say(e is not None and e["system"] == r["system_folder"] and e["benchmark"] == b and e["submitter"] == r["submitter"],
            "%s %s: entry %s is that system's entry of the benchmark" % (r["system_folder"], b, eid))
        v = json.loads(subprocess.run([tta, "--db", db, "report", "variance", "--entry", str(eid), "--format", "json"],
                                      capture_output=True, text=True).stdout)
        say(len(v) == 1 and (v[0]["score_min"] == r[b] or abs(v[0]["score_min"] - r[b]) < 1e-9),
            "%s %s: the cell is report variance --entry %s's score_min (%s, %s)" % (r["system_folder"], b, eid, r[b], v[0]["score_min"] if v else None))
say(cells == 6, "6 cells have an entry (got %d)" % cells)
mx = [r for r in rows if r["system_folder"] == "dgxa100_ngc20.06_mxnet"]
say(len(mx) == 1 and mx[0]["resnet"] == 39.77966111111111 and mx[0]["accelerators_count"] == 8
    and mx[0]["system"] == "dgxa100_ngc20.06_mxnet" and mx[0]["availability"] == "onprem",
    "NVIDIA dgxa100_ngc20.06_mxnet: resnet 39.77966111111111 min (the summarizer's double), 8 accelerators, onprem")
ali = [r for r in rows if r["submitter"] == "Alibaba"]
say(len(ali) == 1 and ali[0]["system"] is None and ali[0]["accelerators_count"] is None
    and "no system description" in ali[0].get("note", ""), "Alibaba v100-256: no description, its cells null with the reason in note")
pt = [r for r in rows if r["system_folder"] == "dgxa100_ngc20.06_pytorch"]
say(len(pt) == 1 and pt[0]["bert"] is None and pt[0]["bert_entry"] is not None
    and "too few successful runs" in pt[0].get("note", ""), "one run of bert: no score, the entry id and the reason")
PY
while read -r verdict what; do
    if [ "$verdict" = ok ]; then ok; else bad "$what"; fi
done <"$work/checks"
check "the JSON checks ran" test "$(wc -l <"$work/checks")" -gt 20

table=$("$TTA" --db "$db" report summary --round v0.7)
check "the table says the round once above" grep -q 'round: v0.7' <<<"$table"
check "the table has a column per benchmark with entries, in minutes" grep -q 'resnet (min)' <<<"$table"
check "and none for benchmarks without any (dlrm)" test "$(grep -c dlrm <<<"$table")" -eq 0
check "a row shows the score in minutes" grep -Eq 'dgxa100_ngc20\.06_mxnet .* 39\.78' <<<"$table"
check "the missing description is a footnote" grep -q 'no system description' <<<"$table"
rows=$(grep -c 'dgxa100\|v100-256' <<<"$table")
distinct=$(grep 'dgxa100\|v100-256' <<<"$table" | sort -u | wc -l)
check "4 rows, no two alike ($distinct of $rows)" test "$rows" -eq 4 -a "$distinct" -eq 4
if command -v script >/dev/null; then
    NO_COLOR=1 COLUMNS=100 script -qec "$TTA --db $db report summary --round v0.7" /dev/null >"$work/tty.txt" 2>/dev/null </dev/null
    width=$(python3 -c 'import re, sys
text = re.sub(r"\x1b\[[0-9;]*m", "", open(sys.argv[1], encoding="utf-8").read().replace("\r", ""))
print(max((len(l) for l in text.split("\n")), default=0))' "$work/tty.txt")
    check "the table fits 100 columns on a terminal (widest line $width)" test "$width" -le 100
fi
md=$("$TTA" --db "$db" report summary --round v0.7 --format markdown)
check "Markdown is a table with right-aligned scores" grep -q -- '---:' <<<"$md"
check "Markdown rows name the systems" grep -q '| dgxa100_ngc20.06_mxnet ' <<<"$md"
"$TTA" --db "$db" report summary --round '/^v9\.9$/' --format csv >"$work/none.csv" 2>"$work/err"
check "an empty selection exits 0" test $? -eq 0
check "and says so on stderr" grep -q 'no entry matches' "$work/err"
"$TTA" --db "$db" ingest --quiet fixtures/dawnbench >/dev/null 2>&1
"$TTA" --db "$db" report summary --round dawnbench >/dev/null 2>"$work/err"
check "DAWNBench has no results table (exit 0)" test $? -eq 0
check "and says why" grep -q 'no MLPerf entry matches the selection (its [0-9]* entries of DAWNBench' "$work/err"

"$TTA" --db "$db" report html --round v0.7 "$work/page.html" 2>/dev/null
check "report html exits 0" test $? -eq 0
check "the page has the results table" grep -q '<h2 id="results-table-v0-7">Results table: v0.7</h2>' "$work/page.html"
check "sortable without script: a sort target per column" grep -q 'id="summary-v0.7-k1" class="k1"' "$work/page.html"
check "headers link to their sort target" grep -q '<a href="#summary-v0.7-k' "$work/page.html"
check "each row carries its ranks" grep -q '<tr style="--k1:' "$work/page.html"
check "scores carry their entry id" grep -Eq '39\.78<(span class="id"|a href="#entry-[0-9]+")>#[0-9]+<' "$work/page.html"
check "the page loads no script from elsewhere (one inline sort script at most)" \
    bash -c "test \$(grep -oi '<script' '$work/page.html' | wc -l) -le 1 && ! grep -qi '<script[^>]*src=' '$work/page.html'"
check "the results table opens the page (before the benchmarks' sections)" python3 -c '
import sys; p = open(sys.argv[1]).read(); a = p.find("Results table"); b = p.find("<h2 id=\"bench-")
sys.exit(0 if 0 <= a < b else 1)' "$work/page.html"

# ---- the corpus: v0.7, v3.1 and v5.1 against the summarizer, organisation by organisation ----
shared=${TTA_SHARED_DIR:-../shared}
for round in v0.7 v3.1 v5.1; do
    archive="$shared/corpus/mlperf-training-$round.tar.zst"
    if [ ! -f "$archive" ]; then
        echo "SKIPPED (corpus part, $round): no $archive (the real logs live in ../shared)"
        continue
    fi
    mkdir -p "$work/$round"
    tar --zstd -xf "$archive" -C "$work/$round"
    "$TTA" --db "$work/$round.db" ingest --quiet "$work/$round" >/dev/null 2>&1
    n=0
    for f in "$expected/$round"/*.csv; do
        org=$(basename "$f" .csv)
        skipped=0
        [ "$round/$org" = v0.7/Alibaba ] && skipped=4 # its 4 results folders have no description of their name
        "$TTA" --db "$work/$round.db" report summary --round "$round" --submitter "$org" --format csv >"$work/$org.csv"
        out=$(compare_csv "$f" "$work/$org.csv" "$skipped" "$round" "$org")
        rc=$?
        check "$round $org: the summarizer's CSV cell for cell ($(tail -1 <<<"$out"))" test $rc -eq 0
        [ -n "$out" ] && grep -v 'cells equal' <<<"$out"
        n=$((n + 1))
    done
    if [ "$round" = v0.7 ]; then
        # Fujitsu's descriptions say "Closed" and "Open" (the CSV keeps them, as the summarizer does);
        # people read every division as MLCommons spells it, and the rows of a division together
        "$TTA" --db "$work/$round.db" report summary --round "$round" >"$work/people.txt"
        divs=$(awk '/^─/ {on = 1; next} /^[^a-z]/ {on = 0} on && NF {sub(/[^a-z].*/, "", $1); print $1}' "$work/people.txt" | uniq | tr '\n' ' ')
        check "v0.7 table: divisions spelled closed/open, one block each ($divs)" test "$divs" = "closed open "
        check "v0.7 CSV: Fujitsu's description's \"Closed\" kept (the summarizer's)" grep -q '^Closed,available,Fujitsu' "$work/Fujitsu.csv"
    fi
    expect=19
    [ "$round" = v0.7 ] && expect=6
    check "$round: $expect organisations compared (got $n)" test "$n" -eq "$expect"
    rm -rf "${work:?}/$round" "$work/$round.db"*
done

echo "$passed passed, $failed failed"
test "$failed" -eq 0
