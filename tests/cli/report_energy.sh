#!/bin/bash
# `tta report energy` against MLCommons' result summarizer. On the fixture (fixtures/power: a real
# v4.1 Dell llama2_70b_lora folder with power logs, 5 runs, trimmed): every run's energy, the runs
# averaged and the energy score equal the summarizer's (tests/expected/energy-fixture.json, made by
# its own code: the header says how) to 1e-9; the JSON (runs nested), CSV, table and Markdown
# contracts; the SVG; the HTML section; energy_j in `report variance --format json`; copies of the
# fixture broken where the summarizer stops (no power_measurement_start, a measurement window of
# zero length: its ZeroDivisionError, a run without node logs) give a reason instead, and a broken
# run outside the olympic slice leaves the score as it is. On the corpus (../shared/corpus; skipped
# without it): every folder with power logs of each round with tests/expected/energy-<round>.json has
# the summarizer's energy to 0.1%. Needs python3 (exit 77 without).
set -uo pipefail
TTA=${TTA:-build/tta}
cd "${TTA_SOURCE_DIR:-.}"
command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed to read the reports' JSON"; exit 77; }
shared=${TTA_SHARED_DIR:-../shared}
work=$(mktemp -d /tmp/tta-energy.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
db="$work/db"
. "$(dirname "$0")/lib/check.sh"
# compare REPORT.json EXPECTED.json TREE RTOL SCALED: python's verdict on the report against the
# summarizer's values, one line per problem, "ok N" when there is none (N folders)
compare() {
    python3 - "$@" <<'PY'
import json, os, sys
report, expected, tree, rtol, scaled = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), sys.argv[5] == "1"
rows = json.load(open(report))
folders = json.load(open(expected))["folders"]
close = lambda a, b, t: a is not None and b is not None and abs(a - b) <= t * max(abs(a), abs(b))
problems = []
mine = {}
for row in rows:
    files = {os.path.dirname(os.path.relpath(r["file"], tree)) for r in row["runs"]}
    if len(files) != 1:
        problems.append("entry %s: runs in %d folders" % (row["entry"], len(files)))
        continue
    mine[files.pop()] = row
for folder, want in sorted(folders.items()):
    row = mine.pop(folder, None)
    if row is None:
        problems.append("%s: no tta entry" % folder)
        continue
    if "error" in want:
        if row["energy_j"] is not None or not row.get("note"):
            problems.append("%s: the summarizer stops (%s); tta should give a reason, gives %s" % (folder, want["error"], row["energy_j"]))
        continue
    # without the scaling factor stored, energy_unscaled_j x the summarizer's factor must still agree
    got = row["energy_j"] if scaled else row["energy_unscaled_j"] * want["scaling"]
    if not close(got, want["energy_j"], rtol):
        problems.append("%s: energy_j %s, the summarizer's %s (scaling: tta %s, summarizer %s)" % (folder, got, want["energy_j"], row["scaling_factor"], want["scaling"]))
    if scaled and not close(row["scaling_factor"], want["scaling"], 1e-12):
        problems.append("%s: scaling_factor %s, the summarizer's %s" % (folder, row["scaling_factor"], want["scaling"]))
    runs = {os.path.basename(r["file"]).split(".")[0]: r for r in row["runs"]}
    for name, w in sorted(want["runs"].items()):
        r = runs.get(name)
        if r is None or not close(r["energy_j"], w["energy_j"], min(rtol, 1e-6)):
            problems.append("%s %s: energy_j %s, the summarizer's %s" % (folder, name, r and r["energy_j"], w["energy_j"]))
for folder in mine:
    problems.append("%s: tta has power logs the summarizer does not see" % folder)
print("\n".join(problems) if problems else "ok %d" % len(folders))
PY
}

# ---- the fixture ----
"$TTA" --db "$db" ingest fixtures/power >/dev/null 2>"$work/err"
rc=$?; check "ingest of fixtures/power exits 0 ($(head -2 "$work/err"))" test $rc -eq 0
"$TTA" --db "$db" report energy --format json >"$work/e.json" 2>"$work/err"
rc=$?; check "report energy --format json exits 0 ($(head -2 "$work/err"))" test $rc -eq 0
tree=fixtures/power/v4.1
verdict=$(compare "$work/e.json" tests/expected/energy-fixture.json "$(cd "$tree" && pwd)" 1e-9 0)
check "per-run energies and the unscaled score x the summarizer's factor equal its values (1e-9): $verdict" test "$verdict" = "ok 1"
verdict=$(compare "$work/e.json" tests/expected/energy-fixture.json "$(cd "$tree" && pwd)" 1e-9 1)
check "the energy score with scaling.json's factor equals the summarizer's (1e-9): $verdict" test "$verdict" = "ok 1"
# the JSON contract and its arithmetic, in one python run: a line "1 WHAT" or "0 WHAT" per check
python3 - "$work/e.json" >"$work/checks" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
def check(what, ok): print("%d %s" % (bool(ok), what))
check("one entry", len(d) == 1)
e = d[0]
for key in ("entry round division submitter system benchmark run_count power_runs used_runs score_min energy_j "
            "energy_kwh energy_unscaled_j avg_power_w node_j interconnect_j interconnect_measured_j scaling_factor "
            "runs").split():
    check('the entry has "%s"' % key, key in e)
runs = e["runs"]
for key in ("run_index file success used tta_s energy_j energy_kwh node_j interconnect_j interconnect_measured_j "
            "avg_power_w nodes switches").split():
    check('each run has "%s"' % key, all(key in r for r in runs))
check("runs nested without the entry's columns", not any("system" in r for r in runs))
check("5 runs, all with energy, 3 averaged", (len(runs), e["power_runs"], e["used_runs"]) == (5, 5, 3))
# by time: run 4 (288.4 s) 2 0 3 1 (322.4 s): the fastest and the slowest go
check("the runs averaged are the performance score's slice (0 2 3)", [r["run_index"] for r in runs if r["used"]] == [0, 2, 3])
check("8 nodes and a switch per run", {(r["nodes"], r["switches"]) for r in runs} == {(8, 1)})
check("energy_kwh = energy_j / 3.6e6", abs(e["energy_kwh"] * 3.6e6 - e["energy_j"]) < 1e-6 * e["energy_j"])
check("nodes + switches = energy", abs(e["node_j"] + e["interconnect_j"] - e["energy_j"]) < 1e-9 * e["energy_j"])
used = [r for r in runs if r["used"]]
p = sum(r["energy_j"] for r in used) / sum(r["tta_s"] for r in used)
check("average power = energy / time of the runs averaged", abs(p - e["avg_power_w"]) < 1e-9 * p)
check("a run's power = its energy / its time", all(abs(r["avg_power_w"] * r["tta_s"] - r["energy_j"]) < 1e-9 * r["energy_j"] for r in runs))
check("unscaled x scaling_factor = energy_j", abs(e["energy_unscaled_j"] * e["scaling_factor"] - e["energy_j"]) < 1e-9 * e["energy_j"])
# the switch logs hold power readings, not interconnect_power_est: 0 J in the score, as the summarizer
check("switches: 0 J in the score", e["interconnect_j"] == 0 and {r["interconnect_j"] for r in runs} == {0})
check("switches: their own readings apart, with a note", e["interconnect_measured_j"] > 0 and "interconnect_power_est" in e["note"])
PY
while read -r ok what; do check "$what" test "$ok" = 1; done <"$work/checks"
check "the JSON checks ran" test "$(wc -l <"$work/checks")" -ge 40

"$TTA" --db "$db" report energy --format csv >"$work/e.csv"
check "CSV exits 0" test $? -eq 0
check "CSV header is the contract" test "$(head -1 "$work/e.csv" | tr -d '\r')" = \
    "entry,round,division,submitter,system,benchmark,run_count,power_runs,used_runs,score_min,energy_j,energy_kwh,energy_unscaled_j,avg_power_w,node_j,interconnect_j,interconnect_measured_j,scaling_factor,note"
check "CSV: one line per entry" test "$(tail -n +2 "$work/e.csv" | wc -l)" -eq 1
"$TTA" --db "$db" report energy --runs --format csv >"$work/r.csv"
check "CSV --runs header is the contract" test "$(head -1 "$work/r.csv" | tr -d '\r')" = \
    "entry,round,division,submitter,system,benchmark,run_index,file,success,used,tta_s,energy_j,energy_kwh,node_j,interconnect_j,interconnect_measured_j,avg_power_w,nodes,switches,note"
check "CSV --runs: one line per run" test "$(tail -n +2 "$work/r.csv" | wc -l)" -eq 5
table=$("$TTA" --db "$db" report energy 2>"$work/err")
check "the table is printed, with nothing on stderr" test -n "$table" -a ! -s "$work/err"
check "the table shows kWh" grep -q 'energy (kWh)' <<<"$table"
table=$("$TTA" --db "$db" report energy --runs)
width=$(python3 -c 'import sys; print(max((len(l.rstrip("\n")) for l in sys.stdin), default=0))' <<<"$table")
check "the runs table fits 100 columns (widest line $width)" test "$width" -le 100
check "the runs table has a row per run" test "$(grep -cE '^ +[0-9]+ +[0-4] ' <<<"$table")" -eq 5
"$TTA" --db "$db" report energy --format markdown >/dev/null
check "markdown exits 0" test $? -eq 0
"$TTA" --db "$db" report variance --runs >/dev/null 2>&1
check "--runs with another report is a usage error (2)" test $? -eq 2
check "a filter matching nothing gives no rows" test "$("$TTA" --db "$db" report energy --round '/^v0\.7$/' --format json 2>/dev/null)" = "[]"

"$TTA" --db "$db" report variance --format json >"$work/v.json"
check "variance JSON carries the energy score" \
    test "$(python3 -c "import json; v = json.load(open('$work/v.json')); e = json.load(open('$work/e.json')); print(v[0]['energy_j'] == e[0]['energy_j'] and v[0]['energy_kwh'] == e[0]['energy_kwh'])")" = True

"$TTA" --db "$db" report energy --svg "$work/e.svg" >/dev/null
check "--svg exits 0" test $? -eq 0
if command -v xmllint >/dev/null; then
    check "--svg writes valid XML" xmllint --noout "$work/e.svg"
fi
check "--svg writes an SVG document" grep -q '^<svg' "$work/e.svg"
check "with a point per run" test "$(grep -o 'class="point"' "$work/e.svg" | wc -l)" -eq 5
check "energy against time to train" grep -q 'energy to train (kWh)' "$work/e.svg"
"$TTA" --db "$db" report html "$work/page.html" 2>/dev/null
check "report html exits 0" test $? -eq 0
check "the page has the energy section" grep -q '<h2 id="energy-to-train">Energy to train</h2>' "$work/page.html"

# ---- no power logs: nothing to show ----
"$TTA" --db "$work/pub.db" ingest fixtures/mlperf >/dev/null 2>&1
check "published logs without power: zero rows" test "$("$TTA" --db "$work/pub.db" report energy --format json)" = "[]"
"$TTA" --db "$work/pub.db" report energy >/dev/null 2>"$work/err"
check "and a note on stderr for the table" grep -q 'no entry has power logs' "$work/err"
"$TTA" --db "$work/pub.db" report variance --format json >"$work/v0.json"
check "variance JSON: energy null without a reason where there are no power logs" \
    test "$(python3 -c "import json; v = json.load(open('$work/v0.json')); print(all(r['energy_j'] is None and 'energ' not in r.get('note', '') for r in v))")" = True
"$TTA" --db "$work/pub.db" report html "$work/pub.html" 2>/dev/null
check "no energy section without power logs" bash -c "! grep -q 'Energy to train' '$work/pub.html'"

# ---- where the summarizer stops ----
# broken COPY RUN FILE SED: a copy of the fixture with sed applied to power/result_RUN/FILE
broken() {
    local dir="$work/$1"
    rm -rf "$dir" && mkdir -p "$dir" && cp -r fixtures/power/v4.1 "$dir/"
    sed -i "$4" "$dir/v4.1/Dell/results/8xXE9680x8H100-SXM-80GB-POWER/llama2_70b_lora/power/result_$2/$3"
    "$TTA" --db "$dir/db" ingest "$dir" >/dev/null 2>&1
    "$TTA" --db "$dir/db" report energy --format json >"$dir/e.json"
}
jq_e() { python3 -c "import json, sys; d = json.load(open('$1')); $2"; }
broken nostart 2 node_3.txt '/power_measurement_start/d'
check "a used run's node log without power_measurement_start: no energy score, the run and file named" \
    test "$(jq_e "$work/nostart/e.json" "e = d[0]; print(e['energy_j'] is None and 'run 2' in e['note'] and 'node_3.txt' in e['note'])")" = True
check "that run: no energy, the reason" \
    test "$(jq_e "$work/nostart/e.json" "r = d[0]['runs'][2]; print(r['energy_j'] is None and 'power_measurement_start' in r['note'])")" = True
broken window 3 node_0.txt 's/"time_ms": [0-9]*, "event_type": "INTERVAL_END"/"time_ms": 1728511684000, "event_type": "INTERVAL_END"/'
# result_3's node_0 starts at 1728511684000: its stop there too is the summarizer's ZeroDivisionError
check "a window of zero length (the summarizer divides by zero): a reason" \
    test "$(jq_e "$work/window/e.json" "e = d[0]; print(e['energy_j'] is None and 'window is empty' in e['note'])")" = True
broken outside 1 node_5.txt '/power_measurement_start/d'
check "a run outside the slice without energy: the score stands" \
    test "$(jq_e "$work/outside/e.json" "e = d[0]; f = json.load(open('$work/e.json'))[0]; print(e['energy_j'] == f['energy_j'] and e['power_runs'] == 4)")" = True
rm -rf "$work/nolog" && mkdir -p "$work/nolog" && cp -r fixtures/power/v4.1 "$work/nolog/"
rm "$work/nolog/v4.1/Dell/results/8xXE9680x8H100-SXM-80GB-POWER/llama2_70b_lora/power/result_0/"node_*.txt
"$TTA" --db "$work/nolog/db" ingest "$work/nolog" >/dev/null 2>&1
"$TTA" --db "$work/nolog/db" report energy --format json >"$work/nolog/e.json"
check "a used run with switch logs only (the summarizer's AssertionError): a reason" \
    test "$(jq_e "$work/nolog/e.json" "e = d[0]; print(e['energy_j'] is None and 'run 0' in e['note'] and d[0]['runs'][0]['nodes'] == 0)")" = True

broken unreadable 0 node_2.txt '1,$c :::MLLOG {"namespace": "", "time_ms": 17'
check "a power log the ingest could not read: no energy for its run, the file and the ingest's error named" \
    test "$(jq_e "$work/unreadable/e.json" "e = d[0]; r = e['runs'][0]; print(e['energy_j'] is None and r['energy_j'] is None and 'node_2.txt: the power log could not be read' in r['note'] and 'broken' in r['note'])")" = True

# ---- the corpus ----
corpus="$shared/corpus"
if [ ! -d "$corpus" ]; then
    echo "corpus part skipped: no corpus at $corpus (the real logs live in ../shared, absent in a user's clone)"
else
    for expected in tests/expected/energy-v*.json; do
        r=$(basename "$expected" .json); r=${r#energy-}
        tarball="$corpus/mlperf-training-$r.tar.zst"
        [ -f "$tarball" ] || { echo "round $r: no logs in $corpus, not checked"; continue; }
        # only the folders with power logs, whole
        folders=$(tar --zstd -tf "$tarball" | sed -n 's#^\([^/]*/[^/]*/results/[^/]*/[^/]*\)/power/.*#\1#p' | sort -u)
        mkdir -p "$work/corpus"
        # shellcheck disable=SC2046
        tar --zstd -xf "$tarball" -C "$work/corpus" --wildcards $(sed 's#$#/*#' <<<"$folders")
        "$TTA" --db "$work/corpus/db" ingest "$work/corpus/$r" >/dev/null 2>"$work/err"
        "$TTA" --db "$work/corpus/db" report energy --round "$r" --format json >"$work/corpus/e.json"
        n=$(wc -l <<<"$folders")
        verdict=$(compare "$work/corpus/e.json" "$expected" "$work/corpus/$r" 1e-3 1)
        check "$r: the energy of each of its $n folders with power logs equals the summarizer's to 0.1%: $verdict" \
            test "$verdict" = "ok $n"
        rm -rf "$work/corpus"
    done
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
