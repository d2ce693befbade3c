#!/bin/bash
# The score of every v0.7 entry equals the MLCommons result summarizer's official score to
# 0.01 minute (../shared/corpus/official-scores-v0.7.json), and v0.5 / v0.6 entries get scores by
# the same rules without failing. Needs ../shared/corpus (skips without it).
set -euo pipefail
TTA=${TTA:-build/tta}
shared=${TTA_SHARED_DIR:-../shared}
corpus="$shared/corpus"
if [ ! -f "$corpus/official-scores-v0.7.json" ]; then
    echo "SKIPPED: no corpus at $corpus (the real logs live in ../shared, absent in a user's clone)"
    exit 77
fi
command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed to read the official scores"; exit 77; }
work=$(mktemp -d /tmp/tta-scores.XXXXXX)
trap 'rm -rf "$work"' EXIT
for r in v0.5 v0.6 v0.7; do
    mkdir -p "$work/$r"
    tar --zstd -xf "$corpus/mlperf-training-$r.tar.zst" -C "$work/$r"
done
"$TTA" --db "$work/db" ingest --quiet "$work" 2>/dev/null
"$TTA" --db "$work/db" report variance --format json > "$work/variance.json"
python3 - "$corpus/official-scores-v0.7.json" "$work/variance.json" <<'PY'
import json, sys
official = json.load(open(sys.argv[1]))["scores_min"]
rows = json.load(open(sys.argv[2]))
ours = {}
for r in rows:
    if r["round"] == "v0.7":
        ours["%s/results/%s/%s" % (r["submitter"], r["system"], r["benchmark"])] = r["score_min"]
passed = failed = 0
for key, score in sorted(official.items()):
    mine = ours.get(key)
    if mine is None or abs(mine - score) > 0.01:
        print("MISMATCH %s: official %.6f, tta %s" % (key, score, mine))
        failed += 1
    else:
        passed += 1
scored = [r for r in rows if r["round"] in ("v0.5", "v0.6") and r["score_min"] is not None]
print("v0.5/v0.6 entries with a score: %d" % len(scored))
if len(scored) < 40:
    print("too few v0.5/v0.6 entries scored"); failed += 1
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
PY
