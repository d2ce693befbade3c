#!/bin/bash
# ctest label: slow
# tta against MLCommons' own code on every MLPerf HPC round in ../shared/corpus (v0.7, v1.0, v2.0): for each
# <org>/results/<system>/[strong|weak/]<benchmark> folder, the summarizer's strong score (--usage hpc) to 0.01 min,
# its weak-scaling score (time_to_train_all to 0.01 min, number_of_models, instance_scale; the throughput
# number_of_models / time_to_train_all to 0.1 %), the RCP checker's verdict with ../shared/rcp/hpc_*, and each
# result file's convergence point. Expected values were recorded once with the official code
# (tests/expected/official/hpc-*-hpc-v*.tsv, with the command and the logging commit in each; how:
# tests/official/record_hpc.py). Needs ../shared/corpus and ../shared/rcp (skips without them).
set -euo pipefail
TTA=${TTA:-build/tta}
shared=${TTA_SHARED_DIR:-../shared}
corpus="$shared/corpus"
here=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -f "$corpus/mlperf-hpc-v2.0.tar.zst" ] || [ ! -d "$shared/rcp/hpc_2.0.0" ]; then
    echo "SKIPPED: no MLPerf HPC corpus or RCPs under $shared (the real logs live in ../shared, absent in a user's clone)"
    exit 77
fi
command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed to read the expected values"; exit 77; }
work=$(mktemp -d /tmp/tta-official-hpc.XXXXXX)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
for expected in "$here"/expected/official/hpc-scores-hpc-v*.tsv; do
    r=$(basename "$expected" .tsv); r=${r#hpc-scores-}
    archive="$corpus/mlperf-$r.tar.zst"
    [ -f "$archive" ] || { echo "$r: no $archive, skipped"; continue; }
    mkdir -p "$work/$r"
    tar --zstd -xf "$archive" -C "$work/$r"
    "$TTA" --db "$work/$r.db" ingest --quiet "$work/$r/$r"
    if python3 "$here/official/compare_hpc.py" "$TTA" "$work/$r.db" "$r" "$r" "$shared/rcp"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
    fi
    rm -rf "${work:?}/$r" "$work/$r.db"*
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -ge 2 ]
