#!/bin/bash
# tta check on the project's own fixtures (always runs): per log, the verdict and the first failing rule
# equal MLCommons' compliance checker's (recorded once with ../shared/tools/official_compliance.py,
# logging 7bbf792, in tests/expected/compliance-fixtures/<round>.tsv); the command's exit statuses
# (0 all pass, 1 one fails, 2 usage), its formats, file:line of a failure, the summary line, and
# hand-made logs for the rules the issue names (initialisation over 30 minutes, no epoch_stop/block_stop,
# a line that is not JSON, a rule tta cannot evaluate is never a silent pass).
set -euo pipefail
TTA=${TTA:-build/tta}
here=$(cd "$(dirname "$0")/.." && pwd)
root=$(cd "$here/.." && pwd)
work=$(mktemp -d /tmp/tta-check.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# 1. fixtures against the official checker's verdicts
for expected in "$here"/expected/compliance-fixtures/v*.tsv; do
    r=$(basename "$expected" .tsv)
    status=0
    "$TTA" check --ruleset "${r#v}.0" --format csv "$root/fixtures/mlperf/$r" > "$work/$r.csv" 2>/dev/null || status=$?
    [ "$status" -le 1 ] || fail "$r: exit $status"
    python3 "$here/official/compare_compliance.py" "$expected" "$work/$r.csv" "$root/fixtures/mlperf/$r" "$r" || fail "$r differs"
done

# 2. exit statuses, summary line, the ruleset from the path
ok="$root/fixtures/mlperf/v0.7/NVIDIA/results/dgxa100_n2_ngc20.06_mxnet/resnet"
"$TTA" check "$ok" > "$work/ok.txt" || fail "a compliant folder must exit 0"
grep -q "^tta check: 5 logs, 5 compliant, 0 not compliant, 0 cannot be evaluated (rules: github:mlcommons/logging 7bbf792" "$work/ok.txt" \
    || fail "summary line: $(tail -1 "$work/ok.txt")"
grep -q "0.7.0" "$work/ok.txt" || fail "the ruleset 0.7.0 comes from the path's v0.7"
status=0; "$TTA" check "$root/fixtures/mlperf/v4.1" > "$work/bad.txt" || status=$?
[ "$status" -eq 1 ] || fail "a folder with a failing log must exit 1, got $status"
status=0; "$TTA" check --ruleset 9.9.0 "$ok" 2> "$work/usage.txt" >/dev/null || status=$?
[ "$status" -eq 2 ] || fail "an unknown ruleset is a usage error (2), got $status"
grep -q "tta has 0.7.0,1.0.0,1.1.0,2.0.0,2.1.0,3.0.0,3.1.0,4.0.0,4.1.0,5.0.0,5.1.0,6.0.0,6.1.0" "$work/usage.txt" || fail "usage names the rulesets: $(cat "$work/usage.txt")"
status=0; "$TTA" check 2>/dev/null || status=$?
[ "$status" -eq 2 ] || fail "no path is a usage error"
status=0; "$TTA" check "$work/none" 2>/dev/null || status=$?
[ "$status" -eq 1 ] || fail "a missing path exits 1, got $status"
cp "$ok/result_0.txt" "$work/result_0.txt"
status=0; "$TTA" check "$work/result_0.txt" 2> "$work/noround.txt" >/dev/null || status=$?
[ "$status" -eq 2 ] && grep -q -- "--ruleset" "$work/noround.txt" || fail "a log outside a round folder asks for --ruleset"
"$TTA" check --ruleset 0.7.0 --format json "$work/result_0.txt" > "$work/one.json" 2>/dev/null
python3 - "$work/one.json" <<'PY' || fail "JSON output"
import json, sys
rows = json.load(open(sys.argv[1]))
rows = rows['rows'] if isinstance(rows, dict) else rows
assert len(rows) == 1 and rows[0]['verdict'] == 'pass' and rows[0]['failures'] == 0, rows
PY

# 3. hand-made logs: each line a real v4.1 BERT record, changed where the rule is
base="$root/fixtures/mlperf/v4.1/tinycorp/results/tinybox_red/bert/result_9.txt"
mk() { mkdir -p "$work/v4.1/x/results/s/bert"; cp "$1" "$work/v4.1/x/results/s/bert/result_0.txt"; echo "$work/v4.1/x/results/s/bert/result_0.txt"; }
"$TTA" check --format csv "$(mk "$base")" > "$work/base.csv" 2>/dev/null || true
# initialisation over 30 minutes: init_start moved 31 minutes earlier
python3 - "$base" "$work/late.txt" <<'PY'
import json, sys
out = []
for line in open(sys.argv[1], encoding='latin-1'):
    if ':::MLLOG' in line:
        pre, rec = line.split(':::MLLOG ', 1)
        m = json.loads(rec)
        if m['key'] == 'init_start':
            m['time_ms'] -= 31 * 60 * 1000
        line = pre + ':::MLLOG ' + json.dumps(m) + '\n'
    out.append(line)
open(sys.argv[2], 'w', encoding='latin-1').writelines(out)
PY
log=$(mk "$work/late.txt")
status=0; "$TTA" check --format csv "$log" > "$work/late.csv" 2>/dev/null || status=$?
[ "$status" -eq 1 ] || fail "init over 30 min must fail"
grep -q "init_stop: ll.timestamp - s\['first_init_start'\] < (s\['compile_time_mins'\]\*60\*1e3)" "$work/late.csv" || fail "late init rule: $(cat "$work/late.csv")"
grep -q "initialisation took [0-9.]* min" "$work/late.csv" || fail "late init message says the minutes"
line=$(grep -n '"key": "init_stop"' "$log" | head -1 | cut -d: -f1)
python3 -c "import csv,sys; r=list(csv.DictReader(open('$work/late.csv'))); assert r[0]['line']=='$line', (r[0]['line'], '$line')" || fail "file line of init_stop"
# no epoch_stop or block_stop
grep -v '"key": "\(epoch_stop\|block_stop\)"' "$base" > "$work/noepoch.txt"
log=$(mk "$work/noepoch.txt")
status=0; "$TTA" check --format csv "$log" > "$work/noepoch.csv" 2>/dev/null || status=$?
[ "$status" -eq 1 ] && grep -q "block_stop|epoch_stop: AT_LEAST_ONE_OR" "$work/noepoch.csv" || fail "missing epoch_stop/block_stop: $(cat "$work/noepoch.csv")"
# a line that is not JSON
sed '5s/$/\n:::MLLOG {"key": "broken"/' "$base" > "$work/broken.txt"
log=$(mk "$work/broken.txt")
status=0; "$TTA" check --format csv "$log" > "$work/broken.csv" 2>/dev/null || status=$?
[ "$status" -eq 1 ] && grep -q "parse errors" "$work/broken.csv" || fail "a broken line: $(cat "$work/broken.csv")"
# a rule using Python outside tta's subset says so (cannot evaluate, exit 1), never a silent pass
python3 - "$here/../schemas/compliance_rules.json" "$work/rules.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for k in d['configs']['training_0.7.0/common.yaml']['keys']:
    if k['name'] == 'submission_org':
        k['check'] = ['[x for x in [v] if x]']
json.dump(d, open(sys.argv[2], 'w'))
PY
status=0; "$TTA" check --rules "$work/rules.json" --format csv "$ok" > "$work/unsup.csv" 2>/dev/null || status=$?
[ "$status" -eq 1 ] && [ "$(grep -c ',cannot evaluate,1,submission_org: ' "$work/unsup.csv")" -eq 5 ] \
    && grep -q "comprehensions are not supported" "$work/unsup.csv" \
    || fail "an unsupported rule: status $status $(cat "$work/unsup.csv")"
# 4. at ingest: each run's verdict (rules as published) and the flag not_compliant, as tta check gives them
"$TTA" --db "$work/fx.db" ingest --quiet "$root/fixtures/mlperf/v4.1" "$root/fixtures/mlperf/v2.1" 2>/dev/null || true
"$TTA" check --as-published --format csv "$root/fixtures/mlperf/v4.1" "$root/fixtures/mlperf/v2.1" > "$work/pub.csv" 2>/dev/null || true
python3 - "$work/fx.db" "$work/pub.csv" <<'PY' || fail "ingest's compliance verdicts"
import csv, os, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
want = {os.path.realpath(r['log']): r for r in csv.DictReader(open(sys.argv[2]))}
rows = db.execute("SELECT s.path, r.compliance, r.compliance_reason, (SELECT reason FROM run_flags g"
                  " WHERE g.run_id = r.id AND g.flag = 'not_compliant') FROM runs r JOIN sources s ON s.id = r.source_id").fetchall()
assert len(rows) == len(want) and len(rows) >= 10, (len(rows), len(want))
n_flag = 0
for path, verdict, reason, flag in rows:
    w = want[os.path.realpath(path)]
    assert verdict == w['verdict'], (path, verdict, w['verdict'])
    assert (flag is not None) == (verdict == 'fail'), (path, flag)
    if flag:
        n_flag += 1
        assert reason.startswith(w['rule']) and w['rule'] in flag and "summarizer drops the run" in flag, (reason, flag)
assert n_flag >= 5, n_flag
PY

echo "check: fixtures agree with the official checker; exit statuses, formats and hand-made logs as expected"
