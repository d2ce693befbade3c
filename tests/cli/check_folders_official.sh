#!/bin/bash
# ctest label: slow
# `tta check --rcp-dir ../shared/rcp` over whole training rounds in ../shared/corpus, per benchmark folder,
# against MLCommons' own figures: the score the result summarizer publishes (tests/expected/official/
# scores-<round>.tsv: to 0.01 min, or no score) and the RCP checker's verdict and message (tests/expected/
# rcp-<round>.tsv), both recorded once with MLCommons' code (the command and logging commit in each file's
# header). tta check drops the runs whose logs fail its compliance checks (today's rules, as that
# summarizer ran) and the runs that did not succeed: this includes v3.0 Lenovo SR670v2 BERT (every log
# lacks opt_lamb_epsilon: no score) and every folder where the checker drops one run and the olympic
# mean is taken over the others. Needs ../shared (skips without it).
set -euo pipefail
TTA=${TTA:-build/tta}
cd "${TTA_SOURCE_DIR:-.}"
shared=${TTA_SHARED_DIR:-../shared}
corpus="$shared/corpus"
rounds=${TTA_CHECK_ROUNDS:-"v0.7 v2.0 v2.1 v3.0 v3.1 v4.1 v5.1"}
if [ ! -f "$corpus/mlperf-training-v3.0.tar.zst" ] || [ ! -d "$shared/rcp" ]; then
    echo "SKIPPED: no corpus or reference convergence points in $shared (the real logs live in ../shared, absent in a user's clone)"
    exit 77
fi
command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed to read the expected values"; exit 77; }
work=$(mktemp -d /tmp/tta-check-folders.XXXXXX)
trap 'rm -rf "$work"' EXIT
failed=0 checked=""
for r in $rounds; do
    archive="$corpus/mlperf-training-$r.tar.zst"
    [ -f "$archive" ] && [ -f "tests/expected/official/scores-$r.tsv" ] || { echo "$r: no logs or no expected scores, not checked"; continue; }
    mkdir -p "$work/$r"
    tar --zstd -xf "$archive" -C "$work/$r"
    tree="$work/$r/$r"
    [ -d "$tree" ] || tree="$work/$r"
    status=0
    "$TTA" check --rcp-dir "$shared/rcp" --folders --format json "$tree" >"$work/$r.json" 2>"$work/$r.err" || status=$?
    [ "$status" -le 1 ] || { echo "FAIL $r: tta check exit $status: $(tail -2 "$work/$r.err")"; failed=$((failed + 1)); }
    grep "^tta check:" "$work/$r.err" || true
    python3 tests/official/compare_check_folders.py "$work/$r.json" "$tree" "$r" | grep -v "^drops " || failed=$((failed + 1))
    # the folder the issue names: compliance drops every run, and the score is gone
    if [ "$r" = v3.0 ]; then
        python3 - "$work/$r.json" <<'PY' || failed=$((failed + 1))
import json, sys
rows = [r for r in json.load(open(sys.argv[1])) if r['folder'].endswith('Lenovo/results/SR670v2-4xA100_SXM4_40GB_400W/bert')]
assert len(rows) == 1, rows
r = rows[0]
assert r['runs'] == 10 and r['dropped'] == 10 and r['score_min'] is None, r
assert r['dropped_runs'].startswith('not compliant (opt_lamb_epsilon: EXACTLY_ONE)'), r['dropped_runs']
assert r['rcp'] == 'pass', r
print('v3.0 Lenovo SR670v2 BERT: 10 of 10 runs dropped (opt_lamb_epsilon), no score; RCP pass')
PY
    fi
    rm -rf "${work:?}/$r"
    checked="$checked $r"
done
[ -n "$checked" ] || { echo "SKIPPED: no round to check"; exit 77; }
echo "rounds:$checked; $failed failed"
[ "$failed" -eq 0 ]
