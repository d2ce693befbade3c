#!/bin/bash
# ctest label: slow
# A run's facts read the same way by plain SQL and by the command line, over every run of every
# round in ../shared/corpus (training rounds, MLPerf HPC rounds, DAWNBench and AlgoPerf's studies):
# `SELECT ... FROM run_tta` equals `tta ls runs --format json`, field by field (tests/cli/run_facts.py),
# and the flags are where real runs need them (the v0.7 Google ssd run whose run_start precedes its
# initialisation by 15 h is flagged and named by report variance, ...). Needs ../shared/corpus (skips without it).
set -euo pipefail
TTA=${TTA:-build/tta}
shared=${TTA_SHARED_DIR:-../shared}
corpus="$shared/corpus"
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -f "$corpus/mlperf-training-v0.7.tar.zst" ]; then
    echo "SKIPPED: no corpus at $corpus (the real logs live in ../shared, absent in a user's clone)"
    exit 77
fi
command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed to compare the outputs"; exit 77; }
work=$(mktemp -d /tmp/tta-facts.XXXXXX)
trap 'rm -rf "$work"' EXIT
db="$work/all.db"
# One round at a time: unpacked, ingested, removed (the database keeps what the reports need).
for archive in "$corpus"/mlperf-training-v*.tar.zst "$corpus"/mlperf-hpc-v*.tar.zst "$corpus"/dawnbench.tar.zst \
    "$corpus"/algoperf-v*.tar.zst; do
    [ -f "$archive" ] || continue
    name=$(basename "$archive" .tar.zst)
    mkdir -p "$work/tree/$name"
    tar --zstd -xf "$archive" -C "$work/tree/$name"
    "$TTA" --db "$db" ingest --quiet "$work/tree/$name" >/dev/null 2>"$work/ingest.err" || true
    rm -rf "${work:?}/tree/$name"
done
python3 "$here/run_facts.py" "$TTA" "$db" --corpus
