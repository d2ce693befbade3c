#!/bin/bash
# ctest label: slow
# tta check's package checks against MLCommons' package checker on every organisation folder of the
# training rounds in ../shared/corpus whose verdicts were recorded once with tests/official/package_tsv.py
# (logging 7bbf792; the command in each tests/expected/package-<round>.tsv's header): per organisation and
# folder, the system descriptions, skipped benchmarks, result-file counts, file-name warnings, compliance
# under olympic scoring and seeds must agree (tests/official/compare_package.py says how; the RCP rows are
# the score section's). Needs ../shared/corpus (skips without it).
set -euo pipefail
TTA=${TTA:-build/tta}
shared=${TTA_SHARED_DIR:-../shared}
corpus="$shared/corpus"
here=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -f "$corpus/mlperf-training-v4.1.tar.zst" ]; then
    echo "SKIPPED: no corpus at $corpus (the real logs live in ../shared, absent in a user's clone)"
    exit 77
fi
command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed to read the expected values"; exit 77; }
work=$(mktemp -d /tmp/tta-check-package-official.XXXXXX)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
for expected in "$here"/expected/package-v*.tsv; do
    r=$(basename "$expected" .tsv); r=${r#package-}
    archive="$corpus/mlperf-training-$r.tar.zst"
    [ -f "$archive" ] || { echo "$r: no $archive, skipped"; continue; }
    mkdir -p "$work/$r"
    tar --zstd -xf "$archive" -C "$work/$r"
    status=0
    "$TTA" check --package --ruleset "${r#v}.0" --format csv "$work/$r/$r" > "$work/$r.csv" 2> "$work/$r.err" || status=$?
    [ "$status" -le 1 ] || { echo "$r: tta check exited $status: $(head -3 "$work/$r.err")"; failed=$((failed + 1)); continue; }
    if python3 "$here/official/compare_package.py" "$expected" "$work/$r.csv" "$work/$r/$r" "$r"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
    fi
    rm -rf "${work:?}/$r"
done
echo "$passed rounds agree, $failed differ"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
