#!/bin/bash
# tta check's package checks on a small organisation folder in the official layout, made here from the
# fixtures' two compliant v2.1 Intel dlrm logs (always runs): five result files (the copies log other
# seeds), a system description, scaling.json. Intact, every package check passes (the package checker
# warns about scaling.json's name, as tta does) and tta check exits 0; then each breakage gives its named
# failure and exit 1: a repeated seed (and its bypass), a missing system-description field, an invalid
# status (4.1.0), too few result files, a bad file name, a benchmark outside the ruleset, a system folder
# without its description, power logs missing or misnamed, a malformed scaling.json, a malformed or
# unreadable system JSON (named with its line, never a crash), an organisation whose logs are not under
# results/.
set -euo pipefail
TTA=${TTA:-build/tta}
here=$(cd "$(dirname "$0")/.." && pwd)
root=$(cd "$here/.." && pwd)
work=$(mktemp -d /tmp/tta-check-package.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
src="$root/fixtures/mlperf/v2.1/Intel/results/1-node-SPR-pytorch/dlrm"

# make ORG [ROUND]: an intact package under $work/ROUND/ORG (default v2.1)
make() {
    local org="$work/${2:-v2.1}/$1" d
    d="$org/results/box/dlrm"
    mkdir -p "$org/systems" "$d"
    cp "$root/fixtures/mlperf/v2.1/NVIDIA/systems/dgxh100_preview.json" "$org/systems/box.json"
    for i in 0 1 2 3 4; do
        sed -e "s/\"value\": 1665765957,/\"value\": 10$i,/" -e "s/\"value\": 1665765967,/\"value\": 20$i,/" \
            "$src/result_$((i % 2)).txt" > "$d/result_$i.txt"
    done
    cp "$src/scaling.json" "$d/scaling.json"
    echo "$org"
}
# expect ORG CHECK PATH VERDICT [KEY]: the package CSV of ORG has that row
expect() {
    local csv="$work/$(basename "$1").csv"
    "$TTA" check --package --format csv "$1" > "$csv" 2>/dev/null || true
    python3 - "$csv" "$2" "$3" "$4" "${5-}" <<'EOF' || fail "$(basename "$1"): no $2 $3 $4 [${5-}]: $(cut -c1-400 "$csv")"
import csv, sys
path, check, rel, verdict, key = sys.argv[1:6]
rows = list(csv.DictReader(open(path)))
sys.exit(0 if any(r['check'] == check and r['path'] == rel and r['verdict'] == verdict and (not key or r['key'] == key)
                  for r in rows) else 1)
EOF
}
status_of() { local s=0; "$TTA" check "$@" > "$work/out.txt" 2>&1 || s=$?; echo $s; }

# 1. intact: exit 0, every check passes but the name warning, and the summary counts the package checks
ok=$(make Intact)
[ "$(status_of "$ok")" -eq 0 ] || fail "an intact package must exit 0: $(tail -5 "$work/out.txt")"
grep -q "; package: 7 checks of 1 organisation, 6 pass, 1 warn, 0 fail, 0 cannot be evaluated (rules: github:mlcommons/logging 7bbf792" \
    "$work/out.txt" || fail "summary: $(tail -1 "$work/out.txt")"
for c in "system_desc systems/box.json" "layout results/box" "result_count results/box/dlrm" "compliance results/box/dlrm" \
         "seeds results/box/dlrm" "scaling results/box/dlrm"; do
    expect "$ok" $c pass
done
expect "$ok" file_names results/box/dlrm warn
grep -q "this one also has scaling.json" "$work/out.txt" || fail "the name warning names the file"
"$TTA" check --no-package "$ok" > "$work/nopkg.txt" || fail "--no-package must exit 0"
grep -q "package:" "$work/nopkg.txt" && fail "--no-package prints no package checks"
# a benchmark folder alone: its checks only
"$TTA" check --package --format csv "$ok/results/box/dlrm" > "$work/one.csv" 2>/dev/null || fail "a benchmark folder alone must exit 0"
[ "$(grep -c ',systems/' "$work/one.csv")" -eq 1 ] && grep -q ',seeds,' "$work/one.csv" || fail "a benchmark folder: $(cat "$work/one.csv")"
"$TTA" check --package --format csv "$ok/results/" > "$work/res.csv" 2>/dev/null || fail "<org>/results must exit 0"
cmp -s "$work/res.csv" <("$TTA" check --package --format csv "$ok" 2>/dev/null) || fail "<org>/results checks the organisation"

# 2. a repeated seed, then bypassed
d=$(make Seed)
sed -i 's/"value": 102,/"value": 100,/' "$d/results/box/dlrm/result_2.txt"
[ "$(status_of "$d")" -eq 1 ] || fail "a repeated seed must exit 1"
expect "$d" seeds results/box/dlrm fail repeated
grep -q "result_2.txt logs seed 100 (line 25) from the same source line as result_0.txt" "$work/Seed.csv" || fail "seed message: $(grep seeds "$work/Seed.csv")"
printf 'seed-checker-bypass' > "$d/results/box/dlrm/package_checker_params"
expect "$d" seeds results/box/dlrm pass bypass
printf 'seed-checker-bypass\n' > "$d/results/box/dlrm/package_checker_params" # the checker compares lines with their newline
expect "$d" seeds results/box/dlrm fail repeated
# a log without a seed, one whose seed line is not JSON
d=$(make NoSeed)
sed -i '/"key": "seed"/d' "$d/results/box/dlrm/result_3.txt"
sed -i 's/"key": "seed", "value": 104,/"key": "seed", "value": 104,,/' "$d/results/box/dlrm/result_4.txt"
expect "$d" seeds results/box/dlrm fail no_seed,parse_error
# an open division: no seed check
d=$(make Open)
sed -i 's/"division": "closed"/"division": "open"/' "$d/systems/box.json"
sed -i 's/"key": "submission_division", "value": "closed"/"key": "submission_division", "value": "open"/' "$d"/results/box/dlrm/result_*.txt
sed -i 's/"value": 102,/"value": 100,/' "$d/results/box/dlrm/result_2.txt"
[ "$(status_of "$d")" -eq 0 ] || fail "the seed checker runs on closed folders only: $(tail -3 "$work/out.txt")"
# logs that name another division than their system description: the description decides (as the
# summarizer files the folder), whatever order the parser threads finish in (one entry, every time)
d=$(make Mixed)
sed -i 's/"division": "closed"/"division": "open"/' "$d/systems/box.json"
for i in 1 2 3 4 5 6; do
    "$TTA" check --no-package --folders --format json "$d" > "$work/mixed.json" 2>/dev/null || true
    python3 -c "import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if len(r) == 1 and r[0]['division'] == 'open' and r[0]['runs'] == 5 else 1)" \
        "$work/mixed.json" || fail "logs saying closed, description open: one open folder (try $i): $(cat "$work/mixed.json")"
done
expect "$d" scaling results/box/dlrm warn no_rcp

# 3. the system description: a missing field; a status outside the options (4.1.0 asks); malformed; unreadable
d=$(make Field)
python3 -c "import json,sys; p=sys.argv[1]; d=json.load(open(p)); del d['cooling']; json.dump(d, open(p,'w'))" "$d/systems/box.json"
[ "$(status_of "$d")" -eq 1 ] || fail "a missing field must exit 1"
expect "$d" system_desc systems/box.json fail missing:cooling
grep -q "lacks 1: cooling" "$work/Field.csv" || fail "the message names the field"
d=$(make Status v4.1)
python3 -c "import json,sys; p=sys.argv[1]; d=json.load(open(p)); d['status']='available'; json.dump(d, open(p,'w'))" "$d/systems/box.json"
expect "$d" system_desc systems/box.json fail status
grep -q "status must be one of 'Available on-premise', 'Available cloud'" "$work/Status.csv" || fail "status message"
expect "$d" benchmark results/box/dlrm warn skipped # dlrm is no benchmark of 4.1.0
d=$(make Layout)
mv "$d/results" "$d/logs"
[ "$(status_of "$d")" -eq 1 ] || fail "an organisation without results/ must exit 1"
d=$(make Json)
printf '{\n "division": "closed",\n "submitter": "x",\n}\n' > "$d/systems/box.json"
[ "$(status_of "$d")" -eq 1 ] || fail "a malformed system JSON must exit 1, never crash"
expect "$d" system_desc systems/box.json fail json
expect "$d" layout results/box fail system_desc_json
grep -q "this one is not, at line 4 column 1: Expecting property name enclosed in double quotes" "$work/Json.csv" \
    || fail "a malformed system JSON names its line and reason: $(grep system_desc "$work/Json.csv")"
mkdir "$d/systems/odd.json"
expect "$d" system_desc systems/odd.json fail unreadable
printf '\xef\xbb\xbf{}' > "$d/systems/bom.json"
expect "$d" system_desc systems/bom.json fail json
printf '[1, 2]' > "$d/systems/list.json"
expect "$d" system_desc systems/list.json fail not_object
printf '{"submitter": 7}' > "$d/systems/num.json"
expect "$d" system_desc systems/num.json fail crash

# 4. result files: too few, a bad name, a benchmark outside the ruleset, a system folder without its description
d=$(make Few)
rm "$d/results/box/dlrm/result_4.txt"
[ "$(status_of "$d")" -eq 1 ] || fail "too few result files must exit 1"
expect "$d" result_count results/box/dlrm fail "found=4 expected=5"
grep -q "dlrm needs exactly 5 result files (result_\*.txt) in ruleset 2.1.0; this folder has 4" "$work/Few.csv" || fail "count message"
d=$(make Name)
mv "$d/results/box/dlrm/result_4.txt" "$d/results/box/dlrm/result4.txt"
expect "$d" result_count results/box/dlrm fail "found=4 expected=5"
expect "$d" file_names results/box/dlrm warn
grep -q "also has result4.txt, scaling.json" "$work/Name.csv" || fail "the name warning lists result4.txt"
d=$(make Bench)
mkdir -p "$d/results/box/gpt3"
expect "$d" benchmark results/box/gpt3 warn skipped
mkdir -p "$d/results/nodesc/dlrm"
[ "$(status_of "$d")" -eq 1 ] || fail "a system folder without its description must exit 1"
expect "$d" layout results/nodesc fail no_system_desc

# 5. power logs (the power checker's errors count with the non-compliant logs): intact, one run without its
# power logs (accepted: one), two, a misnumbered node file, a node count unlike the others', none at all
d=$(make Power)
for i in 0 1 2 3 4; do mkdir -p "$d/results/box/dlrm/power/result_$i"; : > "$d/results/box/dlrm/power/result_$i/node_0.txt"; : > "$d/results/box/dlrm/power/result_$i/sw_0.txt"; done
expect "$d" compliance results/box/dlrm pass
grep -q "compliant and has its power logs" "$work/Power.csv" || fail "power logs named"
rm -r "$d/results/box/dlrm/power/result_4"
expect "$d" compliance results/box/dlrm warn noncompliant=1
mv "$d/results/box/dlrm/power/result_3/node_0.txt" "$d/results/box/dlrm/power/result_3/node_1.txt"
expect "$d" compliance results/box/dlrm fail noncompliant=2
mv "$d/results/box/dlrm/power/result_3/node_1.txt" "$d/results/box/dlrm/power/result_3/node_0.txt"
: > "$d/results/box/dlrm/power/result_2/node_1.txt"
expect "$d" compliance results/box/dlrm fail noncompliant=2
rm -r "$d/results/box/dlrm/power/"result_*
expect "$d" compliance results/box/dlrm fail crash

# 6. scaling.json: malformed, without its factor, below 1
d=$(make Scaling)
printf '{"scaling_factor": }' > "$d/results/box/dlrm/scaling.json"
[ "$(status_of "$d")" -eq 1 ] || fail "a malformed scaling.json must exit 1"
expect "$d" scaling results/box/dlrm fail json
printf '{"factor": 1.5}' > "$d/results/box/dlrm/scaling.json"
expect "$d" scaling results/box/dlrm fail no_factor
printf '{"scaling_factor": 0.5}' > "$d/results/box/dlrm/scaling.json"
expect "$d" scaling results/box/dlrm fail range

# 7. a round folder holding the organisations: every one checked; JSON and Markdown render
"$TTA" check --package --format json "$work/v2.1" > "$work/round.json" 2>/dev/null || true
python3 -c "import json,sys; rows=json.load(open(sys.argv[1])); orgs={r['org'].rsplit('/',1)[-1] for r in rows}; sys.exit(0 if len(orgs) >= 11 else 1)" \
    "$work/round.json" || fail "a round folder: every organisation"
"$TTA" check --format markdown "$ok" > "$work/ok.md" || true
grep -q "^| organisation " "$work/ok.md" || fail "markdown package table"
echo "check_package: intact package passes; every breakage fails by name, exit statuses as expected"
