#!/bin/bash
# tta report trend: per benchmark and round, the best published score, the best per band of
# accelerator counts, the median and the speedup over the previous round's best.
#  - on the fixtures (fixtures/mlperf: real v0.5, v0.6, v0.7 excerpts), every value of the resnet
#    rows against numbers worked out by hand from the logs (below), the formats, the empty cases,
#    rounds in rule_rounds.ord order (not by name), the SVG and the HTML section;
#  - on ../shared/corpus (skipped without it): v0.5, v0.6 and v0.7 whole, the resnet rows against
#    the official v0.7 scores (official-scores-v0.7.json), against the olympic means of the best
#    entries' logs read here independently of tta's parsers (v0.5, v0.6), and against the per-entry
#    scores of `report variance` (best, entries, median, bands, speedups); the SVG.
set -uo pipefail
TTA=${TTA:-build/tta}
cd "${TTA_SOURCE_DIR:-.}"
shared=${TTA_SHARED_DIR:-../shared}
command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed to read the JSON and SVG"; exit 77; }
work=$(mktemp -d /tmp/tta-trend.XXXXXX)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/lib/check.sh"

# Runs python3 CHECKS on the JSON file $1 (rows); the program prints "FAIL: ..." lines and "ok N".
pycheck() {
    local out
    out=$(python3 - "$@" 2>&1)
    local n_ok
    n_ok=$(sed -n 's/^ok \([0-9]*\)$/\1/p' <<<"$out" | tail -1)
    passed=$((passed + ${n_ok:-0}))
    local fails
    fails=$(grep -c '^FAIL' <<<"$out")
    failed=$((failed + fails))
    grep '^FAIL' <<<"$out"
    if [ -z "$n_ok" ]; then echo "FAIL: python check did not finish: $out"; failed=$((failed + 1)); fi
}

# ---- fixtures ----
db="$work/fx.db"
"$TTA" --db "$db" ingest --quiet fixtures/mlperf >/dev/null 2>"$work/err"
rc=$?; check "ingest of fixtures/mlperf exits 0 ($(head -2 "$work/err"))" test $rc -eq 0
"$TTA" --db "$db" report trend --benchmark resnet --format json >"$work/fx.json" 2>"$work/err"
rc=$?; check "report trend --format json exits 0 ($(head -2 "$work/err"))" test $rc -eq 0

# By hand from the fixture logs (run time = run_stop - run_start, olympic mean = the 5 sorted times
# without the fastest and the slowest):
#  v0.5 intel skx_8180_2s_1x: one run, no published score (5 needed): the round has no best.
#  v0.6 Alibaba sinian (16 nodes x 4 V100 = 64): 1465, 1460, 1466, 1460, 1472 s (whole-second
#       stamps, e.g. 00:30:56 -> 00:55:21) -> (1460 + 1465 + 1466) / 3 = 1463.667 s = 24.394444 min.
#  v0.6 NVIDIA dgx1_ngc19.05_mxnet (8): 115.220700 min (fixtures/README.md).
#  v0.7 NVIDIA dgxa100_ngc20.06_mxnet (8): 39.779661 min; dgxa100_n2_ngc20.06_mxnet (16): 23.753289
#       min (the official scores); Alibaba v100-256: one run, no score.
#  Targets: 0.749 in v0.5, 0.759 from v0.6 (benchmark_rules).
pycheck "$work/fx.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
n_ok = 0
def expect(what, cond):
    global n_ok
    if cond: n_ok += 1
    else: print("FAIL: fixtures: " + what)
def near(a, b, tol=1e-5):
    return a is not None and abs(a - b) <= tol
key = [(r["band"], r["round"]) for r in rows]
expect("rows are all/v0.5, all/v0.6, all/v0.7, 1-8/v0.6, 1-8/v0.7, 9-64/v0.6, 9-64/v0.7 (got %s)" % key,
       key == [("all", "v0.5"), ("all", "v0.6"), ("all", "v0.7"), ("1-8", "v0.6"), ("1-8", "v0.7"),
               ("9-64", "v0.6"), ("9-64", "v0.7")])
if len(rows) == 7:
    a5, a6, a7, s6, s7, m6, m7 = rows
    for r in rows:
        expect("every row is resnet, closed", r["benchmark"] == "resnet" and r["division"] == "closed")
    expect("v0.5: no entry with a score", a5["entries"] == 0 and a5["score_min"] is None and a5["id"] is None)
    expect("v0.5: why, in the note", "too few successful runs" in a5.get("note", ""))
    expect("v0.5: target 0.749, no previous", a5["target"] == 0.749 and a5["target_changed"] is None)
    expect("v0.6: best Alibaba sinian 24.394444 min on 64", a6["submitter"] == "Alibaba" and a6["system"] == "sinian"
           and near(a6["score_min"], 1463.6666667 / 60) and a6["accelerators"] == 64 and a6["entries"] == 2)
    expect("v0.6: median of 24.394444 and 115.220700", near(a6["median_min"], (1463.6666667 / 60 + 115.2207) / 2))
    expect("v0.6: target 0.759 changed from 0.749", a6["target"] == 0.759 and a6["target_changed"] is True
           and a6["previous_target"] == 0.749)
    expect("v0.6: no speedup (v0.5 has no best), and why", a6["speedup"] is None and "v0.5" in a6.get("note", ""))
    expect("v0.7: best NVIDIA dgxa100_n2 23.753289 min on 16", a7["system"] == "dgxa100_n2_ngc20.06_mxnet"
           and near(a7["score_min"], 23.753289) and a7["accelerators"] == 16 and a7["entries"] == 2)
    expect("v0.7: median (23.753289 + 39.779661) / 2", near(a7["median_min"], (23.753289 + 39.779661) / 2))
    expect("v0.7: speedup 24.394444 / 23.753289 = 1.02699", near(a7["speedup"], 24.3944444 / 23.753289, 1e-5))
    expect("v0.7: accelerators ratio 16 / 64", a7["accelerators_ratio"] == 0.25)
    expect("v0.7: target unchanged", a7["target_changed"] is False)
    expect("v0.7: the unscored Alibaba entry noted", "1 of 3 entries" in a7.get("note", ""))
    expect("1-8 v0.6: NVIDIA dgx1 115.2207", s6["system"] == "dgx1_ngc19.05_mxnet" and near(s6["score_min"], 115.2207))
    expect("1-8 v0.7: speedup 115.2207 / 39.779661 = 2.89647", s7["system"] == "dgxa100_ngc20.06_mxnet"
           and near(s7["speedup"], 115.2207 / 39.779661, 1e-5) and s7["accelerators_ratio"] == 1)
    expect("9-64 v0.6 is the round's best", m6["id"] == a6["id"] and near(m6["median_min"], a6["score_min"]))
    expect("9-64 v0.7: the n2 entry, speedup as overall", m7["id"] == a7["id"] and near(m7["speedup"], a7["speedup"]))
    expect("ids are integers", all(isinstance(r["id"], int) for r in rows[1:]))
print("ok %d" % n_ok)
PY

# The ids are those --entry takes.
id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[2]["id"])' "$work/fx.json" 2>/dev/null)
sys=$("$TTA" --db "$db" report variance --entry "${id:-0}" --format csv 2>/dev/null | tail -n +2 | grep -c 'dgxa100_n2_ngc20.06_mxnet')
check "the best's id ($id) selects its entry with --entry" test "$sys" = 1

# Formats.
header=$("$TTA" --db "$db" report trend --format csv | head -1 | tr -d '\r')
check "CSV header is the contract" test "$header" = \
    "benchmark,band,round,division,metric,target,target2,target_changed,previous_target,entries,score_min,id,submitter,system,accelerators,accelerator_minutes,median_min,speedup,accelerators_ratio,note"
n=$("$TTA" --db "$db" report trend --benchmark resnet --format csv | tail -n +2 | wc -l)
check "CSV: 7 resnet rows (got $n)" test "$n" -eq 7
table=$("$TTA" --db "$db" report trend --benchmark resnet)
check "table: the changed target reads '0.759 (was 0.749)'" grep -q '0.759 (was 0.749)' <<<"$table"
check "table: the speedup of the 1-8 band, 2.90" grep -Eq '^1-8 .* 2\.90 ' <<<"$table"
md=$("$TTA" --db "$db" report trend --benchmark resnet --format markdown)
check "markdown: a table with the best" grep -Eq '\| +24\.394 \|' <<<"$md"
"$TTA" --db "$db" report trend --format json >"$work/fx-all.json"
pycheck "$work/fx-all.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
n_ok = 0
def expect(what, cond):
    global n_ok
    if cond: n_ok += 1
    else: print("FAIL: fixtures, every benchmark: " + what)
seen = {}
for r in rows:
    seen.setdefault(r["benchmark"], []).append((r["band"], r["round"]))
expect("resnet and gnmt have rows (got %s)" % sorted(seen), "resnet" in seen and "gnmt" in seen)
expect("rows grouped by benchmark in name order", [r["benchmark"] for r in rows] == sorted(r["benchmark"] for r in rows))
for b, keys in seen.items():
    rounds = [k[1] for k in keys if k[0] == "all"]
    expect("%s: one 'all' row per round, first" % b, len(rounds) == len(set(rounds)) and keys[0][0] == "all")
expect("bands only in a round with a scored entry of the band",
       all(r["entries"] > 0 for r in rows if r["band"] != "all"))
print("ok %d" % n_ok)
PY

# Empty results say why in one line.
out=$("$TTA" --db "$db" report trend --division '/^open$/' --format json 2>"$work/err")
check "no entry: exit 0 and [] (got '$out')" test "$out" = "[]"
check "no entry: one line on stderr says why ($(cat "$work/err"))" \
    test "$(wc -l <"$work/err")" -eq 1 -a "$(grep -c 'no entry matches the filters' "$work/err")" -eq 1

# Rounds follow rule_rounds.ord, not their names: with v0.7 made earlier than v0.6 the rows follow.
cp "$db" "$work/ord.db"
python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("UPDATE rule_rounds SET ord = CASE round WHEN \"v0.6\" THEN 2 WHEN \"v0.7\" THEN 1 ELSE ord END")
c.commit()' "$work/ord.db"
order=$("$TTA" --db "$work/ord.db" report trend --benchmark resnet --format csv | awk -F, '$2 == "all" { printf "%s ", $3 }')
check "rounds in ord order: v0.5 v0.7 v0.6 (got $order)" test "$order" = "v0.5 v0.7 v0.6 "
changed=$("$TTA" --db "$work/ord.db" report trend --benchmark resnet --format csv | awk -F, '$2 == "all" && $3 == "v0.7" { print $8 }')
check "the target change is against the previous round in ord order (v0.7 after v0.5: true; got $changed)" test "$changed" = true

# SVG: one per benchmark, valid, log axis, rounds in order, one point per round with a best.
# check_svg FILE ROUNDS BEST_POINTS: the x labels are ROUNDS, the y ticks powers of 10, and the
# dashed coloured line (the best overall) has BEST_POINTS vertices.
cat >"$work/svg.py" <<'PY'
import math, re, sys
import xml.etree.ElementTree as ET
path, rounds, best_points = sys.argv[1], sys.argv[2].split(), int(sys.argv[3])
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(path).getroot()
n_ok = 0
def expect(what, cond):
    global n_ok
    if cond: n_ok += 1
    else: print("FAIL: %s: %s" % (path, what))
def texts(cls):
    return [t.text for g in root.iter(ns + "g") if g.get("class") == cls for t in g.iter(ns + "text")]
x = texts("x-axis")
expect("x labels are the rounds %s then the axis label (got %s)" % (rounds, x), x[:-1] == rounds)
ticks = []
for t in texts("y-axis")[:-1]:
    v = float(t.replace("k", "e3"))
    ticks.append(v)
logs = [math.log10(v) for v in ticks if v > 0]
expect("y axis is log10: ticks are powers of 10 (got %s)" % ticks,
       len(logs) >= 2 and all(abs(l - round(l)) < 1e-9 for l in logs))
expect("y label says log scale", any("log scale" in (t or "") for t in texts("y-axis")))
# the best overall and the median are grey and dashed; the best is drawn first, under the bands'
# lines (on top it hid the band whose best it is)
dashed = [p for p in root.iter(ns + "path") if p.get("class") == "line" and p.get("stroke-dasharray")]
expect("two dashed grey lines, the best overall and the median (got %d)" % len(dashed),
       len(dashed) == 2 and all(p.get("stroke") == "#6e6e6e" for p in dashed))
lines = [p for p in root.iter(ns + "path") if p.get("class") == "line"]
expect("the best overall is the first line drawn", bool(lines) and bool(dashed) and lines[0] is dashed[0])
best = dashed[:1]
if best:
    # a vertex is a pair of numbers (M x y, then relative l dx dy pairs)
    vertices = len(re.findall(r"-?[0-9]*\.?[0-9]+", best[0].get("d"))) // 2
    expect("the best's line has %d vertices, one per round with a best (got %d)" % (best_points, vertices),
           vertices == best_points)
legend = [t.text for g in root.iter(ns + "g") if g.get("class") == "legend" for t in g.iter(ns + "text")]
expect("legend names the best and the median (got %s)" % legend,
       "best (all entries)" in legend and "median (all entries)" in legend)
print("ok %d" % n_ok)
PY
svg_check() {
    if command -v xmllint >/dev/null; then
        check "$1 is well-formed XML (xmllint)" xmllint --noout "$1"
    fi
    pycheck "$@" <"$work/svg.py"
}
"$TTA" --db "$db" report trend --benchmark resnet --svg "$work/fx.svg" >/dev/null 2>&1
check "--svg writes the plot" test -s "$work/fx.svg"
svg_check "$work/fx.svg" "v0.5 v0.6 v0.7" 2
"$TTA" --db "$db" report trend --svg "$work/all.svg" >/dev/null 2>"$work/err"
check "--svg over several benchmarks: a file per benchmark" test -s "$work/all-resnet.svg" -a -s "$work/all-gnmt.svg"
check "and each is named on stderr" grep -q "wrote $work/all-gnmt.svg" "$work/err"

# HTML: a trend section over every round, whatever the page's round.
"$TTA" --db "$db" report html --round v0.7 "$work/page.html" 2>/dev/null
check "html has the trend section" grep -q '<h2 id="trend-across-rounds">Trend across rounds</h2>' "$work/page.html"
check "html's trend table has v0.6 rows although the page is v0.7's" grep -q '>sinian<' "$work/page.html"
check "html's trend plots are inline" grep -q 'resnet: published score per round' "$work/page.html"
"$TTA" --db "$db" report html --division '/^nosuch$/' "$work/empty.html" 2>/dev/null
check "html without an entry: the trend section says why in one line" \
    grep -q 'No entry of the /^nosuch\$/ division matches the page.*no trend to show' "$work/empty.html"

check "report --help names trend" grep -q '^  trend ' <("$TTA" report --help)

# ---- the corpus: v0.5, v0.6, v0.7 ----
corpus="$shared/corpus"
if [ ! -f "$corpus/official-scores-v0.7.json" ] || [ ! -f "$corpus/mlperf-training-v0.5.tar.zst" ]; then
    echo "corpus part SKIPPED: no corpus at $corpus (the real logs live in ../shared, absent in a user's clone)"
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit
fi
for r in v0.5 v0.6 v0.7; do
    mkdir -p "$work/$r"
    tar --zstd -xf "$corpus/mlperf-training-$r.tar.zst" -C "$work/$r" || bad "unpacking $r"
done
cdb="$work/corpus.db"
"$TTA" --db "$cdb" ingest --quiet "$work/v0.5" "$work/v0.6" "$work/v0.7" >/dev/null 2>&1
"$TTA" --db "$cdb" report trend --benchmark resnet --format json >"$work/trend.json" 2>"$work/err"
rc=$?; check "corpus: report trend exits 0 ($(head -2 "$work/err"))" test $rc -eq 0
"$TTA" --db "$cdb" report variance --benchmark resnet --format json >"$work/variance.json" 2>/dev/null
check "corpus: report variance exits 0" test -s "$work/variance.json"

# The olympic mean of an entry folder's logs, read here without tta: v0.5 ":::MLPv0.5.0 resnet T
# (file:line) run_start|run_stop: {"success": "true"}", v0.6 ":::MLL T run_start|run_stop: {... "status":
# "success" ...}"; the fastest and the slowest successful run dropped.
pycheck "$work/trend.json" "$work/variance.json" "$corpus/official-scores-v0.7.json" "$work" <<'PY'
import glob, json, os, re, sys
rows = json.load(open(sys.argv[1]))
variance = json.load(open(sys.argv[2]))
official = json.load(open(sys.argv[3]))["scores_min"]
work = sys.argv[4]
n_ok = 0
def expect(what, cond):
    global n_ok
    if cond: n_ok += 1
    else: print("FAIL: corpus: " + what)
def near(a, b, tol=1e-6):
    return a is not None and b is not None and abs(a - b) <= tol

def olympic_from_logs(folder):
    times = []
    for f in sorted(glob.glob(os.path.join(folder, "result_*.txt"))):
        start = stop = None
        ok = False
        for line in open(f, errors="replace"):
            m = re.match(r":::MLPv0\.5\.0 \S+ ([0-9.]+) \(\S+\) (run_start|run_stop)(.*)", line) or \
                re.match(r":::MLL ([0-9.]+) (run_start|run_stop): (.*)", line)
            if not m: continue
            if m.group(2) == "run_start" and start is None: start = float(m.group(1))
            if m.group(2) == "run_stop" and stop is None:
                stop = float(m.group(1))
                ok = '"success": "true"' in m.group(3) or '"status": "success"' in m.group(3)
        if start is not None and stop is not None and ok: times.append(stop - start)
    times.sort()
    if len(times) < 3: return None
    mid = times[1:-1]
    return sum(mid) / len(mid) / 60

alls = [r for r in rows if r["band"] == "all"]
expect("the 'all' rows are v0.5, v0.6, v0.7 in time order (got %s)" % [r["round"] for r in alls],
       [r["round"] for r in alls] == ["v0.5", "v0.6", "v0.7"])
by = {(r["band"], r["round"]): r for r in rows}

# v0.7: the official summarizer's best resnet score is the round's best.
off = sorted((v, k) for k, v in official.items() if k.endswith("/resnet"))
best7 = by.get(("all", "v0.7"))
if best7 and off:
    sub, _, system, _ = off[0][1].split("/")
    expect("v0.7 best %s %s %.6f is the official best %s (%.6f)" % (best7["submitter"], best7["system"],
           best7["score_min"], off[0][1], off[0][0]),
           best7["submitter"] == sub and best7["system"] == system and near(best7["score_min"], off[0][0], 1e-5))
    for r in rows:
        if r["round"] == "v0.7":
            key = "%s/results/%s/resnet" % (r["submitter"], r["system"])
            if key in official:
                expect("v0.7 %s row's best %s equals its official score" % (r["band"], key),
                       near(r["score_min"], official[key], 1e-5))
# v0.5, v0.6: the best's score is the olympic mean of its logs, read here.
for rnd in ("v0.5", "v0.6"):
    r = by.get(("all", rnd))
    if not r:
        expect("a v0.5/v0.6 best row", False); continue
    if rnd == "v0.5":
        folders = glob.glob(os.path.join(work, "v0.5", "**", r["submitter"], r["system"], "**", "results", "*", "resnet"),
                            recursive=True)
    else:
        folders = glob.glob(os.path.join(work, "v0.6", "**", r["submitter"], "results", r["system"], "resnet"),
                            recursive=True)
    expect("%s best's folder found (%s %s)" % (rnd, r["submitter"], r["system"]), len(folders) == 1)
    if folders:
        mine = olympic_from_logs(folders[0])
        expect("%s best %s %.6f = the olympic mean of its logs %s" % (rnd, r["system"], r["score_min"], mine),
               near(r["score_min"], mine, 1e-5))
expect("v0.6 and v0.7 targets 0.759, v0.6's changed from 0.749",
       by[("all", "v0.6")]["target_changed"] is True and by[("all", "v0.6")]["previous_target"] == 0.749
       and by[("all", "v0.7")]["target_changed"] is False and by[("all", "v0.5")]["target"] == 0.749)

# Every row against the per-entry scores of report variance: best, entries, median, speedup.
bands = {"all": (0, 1 << 30), "1-8": (1, 8), "9-64": (9, 64), "65-512": (65, 512), "513+": (513, 1 << 30)}
def median(v):
    v = sorted(v); n = len(v)
    return None if n == 0 else v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2
expected = {}
for band, (lo, hi) in bands.items():
    for rnd in ("v0.5", "v0.6", "v0.7"):
        es = [e for e in variance if e["round"] == rnd and e["division"] == "closed" and e["score_min"] is not None
              and (band == "all" or (e["accelerators"] is not None and lo <= e["accelerators"] <= hi))]
        if es or band == "all":
            expected[(band, rnd)] = es
expect("rows are the bands and rounds with scored entries (got %s, expected %s)" % (sorted(by), sorted(expected)),
       sorted(by) == sorted(expected))
prev = {}
for key in sorted(expected, key=lambda k: (list(bands).index(k[0]), k[1])):
    es, r = expected[key], by.get(key)
    if not r: continue
    best = min(es, key=lambda e: e["score_min"]) if es else None
    expect("%s %s: entries %d" % (key + (len(es),)), r["entries"] == len(es))
    if best:
        expect("%s %s: best %s %.6f (got %s %s)" % (key + (best["system"], best["score_min"], r["system"], r["score_min"])),
               near(r["score_min"], best["score_min"]) and r["system"] == best["system"]
               and r["accelerators"] == best["accelerators"])
        expect("%s %s: median" % key, near(r["median_min"], median([e["score_min"] for e in es])))
    p = prev.get(key[0])
    if p and best and p["score_min"] is not None:
        expect("%s %s: speedup %.4f / %.4f" % (key + (p["score_min"], best["score_min"])),
               near(r["speedup"], p["score_min"] / best["score_min"], 1e-9))
    elif key[1] != "v0.5":
        expect("%s %s: no speedup without a previous best" % key, r["speedup"] is None)
    prev[key[0]] = r
print("ok %d" % n_ok)
PY

# The resnet trend in a line per round, for the log.
python3 -c 'import json, sys
for r in json.load(open(sys.argv[1])):
    if r["band"] == "all":
        print("resnet %s: best %.3f min (%s %s, %s acc), median %.3f, speedup %s" % (r["round"], r["score_min"],
              r["submitter"], r["system"], r["accelerators"], r["median_min"], r["speedup"]))' "$work/trend.json"

# The corpus's v0.7 closed division has entries of SIAT only in the open division for this system.
out=$("$TTA" --db "$cdb" report trend --submitter SIAT --system modelarts_1024_tensorflow_open --format json 2>"$work/err")
check "closed by default: an open-only selection gives [] (got '$out')" test "$out" = "[]"
check "and says --division open ($(cat "$work/err"))" grep -q -- '--division open' "$work/err"
n=$("$TTA" --db "$cdb" report trend --submitter SIAT --system modelarts_1024_tensorflow_open --division open --format csv | tail -n +2 | wc -l)
check "--division open gives its rows (got $n)" test "$n" -ge 1

"$TTA" --db "$cdb" report trend --benchmark resnet --svg "$work/resnet.svg" >/dev/null 2>&1
svg_check "$work/resnet.svg" "v0.5 v0.6 v0.7" 3

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
