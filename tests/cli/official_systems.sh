#!/bin/bash
# tta's node and accelerator counts against MLCommons' result summarizer's (number_of_nodes,
# accelerators_count) for every system of every round in ../shared/corpus, and against the published
# entry descriptions for v0.5 (which the summarizer does not read). Expected values recorded once:
# tests/expected/official/systems-<round>.tsv (command and mlcommons/logging commit in each file).
# Only the descriptions are ingested (*.json of each archive). Needs ../shared/corpus (skips without it).
set -euo pipefail
TTA=${TTA:-build/tta}
shared=${TTA_SHARED_DIR:-../shared}
corpus="$shared/corpus"
here=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -f "$corpus/mlperf-training-v0.5.tar.zst" ]; then
    echo "SKIPPED: no corpus at $corpus (the real logs live in ../shared, absent in a user's clone)"
    exit 77
fi
command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed to read the expected values"; exit 77; }
work=$(mktemp -d /tmp/tta-systems.XXXXXX)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0 rounds=0
for expected in "$here"/expected/official/systems-v*.tsv; do
    r=$(basename "$expected" .tsv); r=${r#systems-}
    archive="$corpus/mlperf-training-$r.tar.zst"
    [ -f "$archive" ] || { echo "$r: no $archive, skipped"; continue; }
    mkdir -p "$work/$r"
    tar --zstd -xf "$archive" -C "$work/$r" --wildcards '*.json'
    "$TTA" --db "$work/$r.db" ingest --quiet "$work/$r" 2>/dev/null || true
    rounds=$((rounds + 1))
    if python3 "$here/official/compare_systems.py" "$TTA" "$work/$r.db" "$r"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
    fi
    rm -rf "${work:?}/$r"
done
echo "$passed passed, $failed failed"
[ "$rounds" -gt 0 ] || { echo "no round compared"; exit 1; }
[ "$failed" -eq 0 ]
