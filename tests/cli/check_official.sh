#!/bin/bash
# ctest label: slow
# tta check against MLCommons' compliance checker on every result log of every training round in
# ../shared/corpus that has a ruleset: per log, the verdict and the first failing rule must equal the
# checker's, recorded once with ../shared/tools/official_compliance.py (logging 7bbf792) in
# tests/expected/compliance-<round>.tsv (the command in each file's header); logs where tta differs on
# purpose are listed with the reason in tests/official/compliance-known-differences.tsv.
# Needs ../shared/corpus (skips without it).
set -euo pipefail
TTA=${TTA:-build/tta}
shared=${TTA_SHARED_DIR:-../shared}
corpus="$shared/corpus"
here=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -f "$corpus/mlperf-training-v2.0.tar.zst" ]; then
    echo "SKIPPED: no corpus at $corpus (the real logs live in ../shared, absent in a user's clone)"
    exit 77
fi
command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed to read the expected values"; exit 77; }
work=$(mktemp -d /tmp/tta-check-official.XXXXXX)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
for expected in "$here"/expected/compliance-v*.tsv; do
    r=$(basename "$expected" .tsv); r=${r#compliance-}
    archive="$corpus/mlperf-training-$r.tar.zst"
    [ -f "$archive" ] || { echo "$r: no $archive, skipped"; continue; }
    mkdir -p "$work/$r"
    tar --zstd -xf "$archive" -C "$work/$r"
    status=0
    "$TTA" check --logs-only --ruleset "${r#v}.0" --format csv "$work/$r/$r" > "$work/$r.csv" 2> "$work/$r.err" || status=$?
    "$TTA" check --logs-only --as-published --ruleset "${r#v}.0" --format csv "$work/$r/$r" > "$work/$r-published.csv" 2>/dev/null || true
    [ "$status" -le 1 ] || { echo "$r: tta check exited $status: $(head -3 "$work/$r.err")"; failed=$((failed + 1)); continue; }
    if python3 "$here/official/compare_compliance.py" "$expected" "$work/$r.csv" "$work/$r/$r" "$r" "$work/$r-published.csv"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
    fi
    rm -rf "${work:?}/$r"
done
echo "$passed rounds agree, $failed differ"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
