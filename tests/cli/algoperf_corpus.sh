#!/bin/bash
# ctest label: slow
# The AlgoPerf v0.5 leaderboard from ../shared/corpus/algoperf-v0.5.tar.zst, ingested whole (logs/ and
# workload_targets_v05.json): every submission's benchmark score equals the published leaderboard's
# (its README.md, printed to 4 decimals) for both rulesets, and equals the official scoring code's output
# (tests/expected/algoperf/v0.5, recorded with tests/expected/algoperf/official_scores.sh), as does every
# profile value and every workload's time to target (median over studies), also as the median of the
# studies' runs that the general reports read (tests/cli/algoperf_runs.py). Needs ../shared/corpus and
# python3 (skips without them).
set -uo pipefail
TTA=${TTA:-build/tta}
cd "${TTA_SOURCE_DIR:-.}"
shared=${TTA_SHARED_DIR:-../shared}
archive="$shared/corpus/algoperf-v0.5.tar.zst"
if [ ! -f "$archive" ]; then
    echo "SKIPPED: no $archive (the real logs live in ../shared, absent in a user's clone)"
    exit 77
fi
command -v python3 >/dev/null || { echo "SKIPPED: python3 reads the expected values"; exit 77; }
work=$(mktemp -d /tmp/tta-algoperf-corpus.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
. "$(dirname "$0")/lib/check.sh"
tar --zstd -xf "$archive" -C "$work"
lb="$work/algoperf-v0.5"
"$TTA" --db "$work/db" ingest --quiet "$lb/logs" "$lb/workload_targets_v05.json" >"$work/ingest.out" 2>&1
check "the leaderboard ingests without a failed file" test $? -eq 0
check "4,099 trials with evaluations (the 18 files of stray trial folders straight under study_<N> skipped)" \
    test "$(sqlite3 "$work/db" "SELECT count(*) FROM algoperf_files WHERE kind = 'eval_measurements'")" = 4099
check "scores = published README.md and official code; profiles and times to target = official code" \
    python3 tests/official/algoperf_compare.py "$TTA" "$work/db" tests/expected/algoperf/v0.5 "$lb/README.md"
check "the studies as runs (tta ls runs): per workload the median of their times = official time_to_targets.csv" \
    python3 tests/cli/algoperf_runs.py "$TTA" "$work/db" tests/expected/algoperf/v0.5
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
