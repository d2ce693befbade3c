#!/bin/bash
# A run's facts read the same way by plain SQL and by the command line, over the project's fixtures
# (no corpus needed): `SELECT ... FROM run_tta` equals `tta ls runs --format json` field by field,
# DAWNBench's published times to the threshold, and the flags of named fixture runs
# (tests/cli/run_facts.py; the whole corpus: tests/cli/run_facts.sh).
set -euo pipefail
TTA=${TTA:-build/tta}
here=$(cd "$(dirname "$0")" && pwd)
command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed to compare the outputs"; exit 77; }
work=$(mktemp -d /tmp/tta-facts-fx.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$TTA" --db "$work/db" ingest --quiet fixtures >/dev/null 2>&1 || true
python3 "$here/run_facts.py" "$TTA" "$work/db"
