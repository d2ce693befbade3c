#!/bin/bash
# tta against MLCommons' own tools on every later round in ../shared/corpus: for each folder, the
# official score (summarizer: olympic mean x scaling.json factor) to 0.01 min, and for each result
# file the RCP checker's convergence point and whether it converged. Expected values were recorded
# once from the official tools (tests/expected/official/, with the command and commit in each file);
# differences tta makes on purpose are listed with their reason in tests/official/known-differences.tsv.
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
work=$(mktemp -d /tmp/tta-official.XXXXXX)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
for expected in "$here"/expected/official/scores-v*.tsv; do
    r=$(basename "$expected" .tsv); r=${r#scores-}
    archive="$corpus/mlperf-training-$r.tar.zst"
    [ -f "$archive" ] || { echo "$r: no $archive, skipped"; continue; }
    mkdir -p "$work/$r"
    tar --zstd -xf "$archive" -C "$work/$r"
    "$TTA" --db "$work/$r.db" ingest --quiet "$work/$r/$r" 2>/dev/null || true
    if python3 "$here/official/compare.py" "$TTA" "$work/$r.db" "$r"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
    fi
    rm -rf "${work:?}/$r"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
