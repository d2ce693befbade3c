#!/bin/bash
# The database content that the fixtures give is what tests/expected/db-fixtures.txt records: per
# table, its row count and a hash of its rows (tests/arch/db_fingerprint.py; ids as stored, *_at
# columns left out). `tta ingest --jobs 1 fixtures` from the source root (paths are stored as given;
# with more parser threads, surrogate ids follow the threads' order), into a fresh database. A
# refactor keeps this file as it is; a change of what tta stores, or a new fixture, records it again:
#   TTA=build/tta tests/cli/db_content.sh --record     (from the source root; then review the diff)
set -uo pipefail
TTA=${TTA:-build/tta}
cd "${TTA_SOURCE_DIR:-.}"
expected=tests/expected/db-fixtures.txt
command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed for tests/arch/db_fingerprint.py"; exit 77; }
work=$(mktemp -d /tmp/tta-dbcontent.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$TTA" --db "$work/db" ingest --jobs 1 --quiet fixtures >"$work/out" 2>"$work/err"
rc=$?
# fixtures/ holds a malformed file on purpose: exit status 1 (some file failed), never more
if [ $rc -gt 1 ]; then
    echo "FAIL: tta ingest --jobs 1 fixtures exited $rc"; cat "$work/err"; exit 1
fi
python3 tests/arch/db_fingerprint.py "$work/db" >"$work/fingerprint" || { echo "FAIL: db_fingerprint.py"; exit 1; }
if [ "${1:-}" = "--record" ]; then
    { sed -n '/^#/p' "$expected" 2>/dev/null; cat "$work/fingerprint"; } >"$work/new" && mv "$work/new" "$expected"
    echo "recorded $expected ($(wc -l <"$work/fingerprint") tables)"
    exit 0
fi
if ! grep -v '^#' "$expected" | diff - "$work/fingerprint" >"$work/diff"; then
    echo "FAIL: the database content of the fixtures differs from $expected (< expected, > now):"
    cat "$work/diff"
    exit 1
fi
echo "db content: $(wc -l <"$work/fingerprint") tables as recorded"
