#!/bin/bash
# The command line catches mistakes, on the bundled fixtures (real excerpts) and, where
# ../shared/corpus is present, on v0.5 and DAWNBench's whole published results:
# - a filter value its column does not hold (round, division, submitter, system, benchmark) or an
#   --entry that is no entry is an error (exit 1) naming the nearest values the database holds;
#   values that exist but select nothing together stay "(no rows)" (exit 0), as does a /RE/ that
#   matches nothing (with a note saying so); exact values are case-insensitive;
# - `--format xml` names the value and the choices; `tta help [COMMAND]`, and `--help` on every
#   command, list every option the command's source accepts (data-driven: read from cli/cmd_*.c
#   and cli/options.c) and every report kind of the registry; global options follow the command;
# - a SQLite database another program made is refused and left byte for byte as it was (with or
#   without a table named like one of tta's; with another application_id); an older tta database
#   (no application_id) keeps working; read-only commands and `tta verify` create no database;
# - ingest says why each file was skipped (named files always, every file with --verbose, counts
#   by reason), and files gone from a folder ingested again lose their runs, and it says so.
set -uo pipefail
TTA=${TTA:-build/tta}
cd "${TTA_SOURCE_DIR:-.}"
case $TTA in /*) ;; *) TTA=$PWD/$TTA ;; esac
command -v sqlite3 >/dev/null || { echo "SKIPPED: sqlite3 (Debian's sqlite3) is needed to make foreign databases"; exit 77; }
work=$(mktemp -d /tmp/tta-mistakes.XXXXXX)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/lib/check.sh"
db="$work/f.db"
"$TTA" --db "$db" ingest --quiet fixtures/mlperf fixtures/dawnbench fixtures/claims >/dev/null 2>&1
check "fixtures ingested" test -s "$db"

# expect_error CMD-ARGS... -- EXIT TEXT: the command exits EXIT and its stderr holds TEXT
expect() {
    local args=() want text
    while [ "$1" != "--" ]; do args+=("$1"); shift; done
    want=$2 text=$3
    "$TTA" --db "$db" "${args[@]}" >"$work/out" 2>"$work/err"
    local rc=$?
    check "tta ${args[*]}: exit $rc, want $want ($(head -1 "$work/err"))" test "$rc" -eq "$want"
    check "tta ${args[*]}: says '$text' (got: $(head -1 "$work/err"))" grep -qF -- "$text" "$work/err"
}
# every filter's mistake, in ls and in a report
expect ls entries --benchmark resent -- 1 "no benchmark 'resent'; did you mean resnet?"
expect ls entries --round v07 -- 1 "no round 'v07'; did you mean v0.7?"
expect ls runs --round 0.7 -- 1 "no round '0.7'; did you mean v0.7?"
expect ls entries --submitter nvidea -- 1 "no submitter 'nvidea'; did you mean NVIDIA?"
expect ls entries --division closd -- 1 "no division 'closd'; did you mean closed?"
expect ls systems --system dgxa100_ngc20.06_mxnt -- 1 "did you mean dgxa100_ngc20.06_mxnet?"
expect ls entries --entry 99999 -- 1 "no entry 99999 (entries are numbered 1 to"
expect report variance --benchmark resent -- 1 "tta report: no benchmark 'resent'; did you mean resnet?"
expect report summary --round v07 -- 1 "no round 'v07'; did you mean v0.7?"
expect report variance --entry 99999 -- 1 "no entry 99999"
expect ls entries --system qqqqqqqqqqqqqq -- 1 "no system 'qqqqqqqqqqqqqq' (the database holds none like it"
expect ls entries --format xml -- 2 "--format 'xml': not table, csv, json or markdown"
expect report variance --format xml -- 2 "--format 'xml': not table, csv, json or markdown"
expect ls entries --entry x -- 2 "--entry needs an entry id"
# no mistakes: case-insensitive values, values that select nothing together, patterns
"$TTA" --db "$db" ls entries --benchmark RESNET --round V0.7 --format csv >"$work/out" 2>"$work/err"
check "RESNET / V0.7 are resnet / v0.7 (exit 0)" test $? -eq 0
check "and select rows" test "$(wc -l <"$work/out")" -gt 1
"$TTA" --db "$db" ls entries --round v0.5 --benchmark bert >"$work/out" 2>"$work/err"
check "existing values that select nothing together: exit 0" test $? -eq 0
check "and (no rows)" grep -q '(no rows)' "$work/out"
check "and no error" test ! -s "$work/err"
"$TTA" --db "$db" ls entries --system '/^zzz/' >"$work/out" 2>"$work/err"
check "a pattern matching nothing: exit 0" test $? -eq 0
check "a pattern matching nothing: says no entry matches" grep -qF "no system matches /^zzz/: no entry matches" "$work/err"
check "a pattern matching nothing: (no rows)" grep -q '(no rows)' "$work/out"

# help: every command's options, read from its source, are in its --help and `tta help COMMAND`
for cmd in ingest ls report replay verify profile; do
    "$TTA" "$cmd" --help >"$work/help" 2>&1
    check "tta $cmd --help exits 0" test $? -eq 0
    "$TTA" help "$cmd" >"$work/help2" 2>&1
    check "tta help $cmd is tta $cmd --help" cmp -s "$work/help" "$work/help2"
    srcs="cli/cmd_$cmd.c"
    case $cmd in ls | report) srcs="$srcs cli/options.c" ;; verify) srcs="$srcs cli/options.c" ;; esac
    for opt in $(grep -ho 'strcmp([a-z]*, *"--[a-z-]*")\|strcmp(argv\[[a-z]*\], *"--[a-z-]*")\|"--[a-z-]*"' $srcs |
        grep -o -- '--[a-z][a-z-]*' | sort -u); do
        [ "$opt" = "--help" ] && continue
        case $cmd:$opt in verify:--round | verify:--division | verify:--submitter | verify:--system | verify:--benchmark | verify:--entry | verify:--accelerator | verify:--accelerators | verify:--availability | verify:--framework) continue ;; esac
        check "tta $cmd --help names $opt" grep -qF -- "$opt" "$work/help"
    done
done
"$TTA" report --help >"$work/help"
"$TTA" help >"$work/top"
check "tta help exits 0 and is tta --help" cmp -s "$work/top" <("$TTA" --help)
for kind in $(sed -n 's/^    {\.name = "\([a-z]*\)".*/\1/p' reports/report_run.c); do
    check "tta report --help lists kind $kind" grep -q "^  $kind\b" "$work/help"
    check "tta help lists kind $kind" grep -qw "$kind" "$work/top"
done
"$TTA" help nosuch >/dev/null 2>"$work/err"
check "tta help nosuch: exit 2" test $? -eq 2
check "tta help nosuch: names it" grep -q "no command 'nosuch'" "$work/err"
# global options after the command
n1=$("$TTA" --db "$db" ls entries --format csv | wc -l)
n2=$("$TTA" ls entries --format csv --db "$db" | wc -l)
n3=$("$TTA" ls entries --db="$db" --format csv | wc -l)
check "--db after the command ($n1, $n2, $n3 lines)" test "$n1" -gt 1 -a "$n1" = "$n2" -a "$n1" = "$n3"

# databases made by other programs: refused, untouched
sqlite3 "$work/clash.db" "CREATE TABLE entries(x); INSERT INTO entries VALUES (1);"
sqlite3 "$work/other.db" "CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes(body) VALUES ('mine');"
sqlite3 "$work/appid.db" "PRAGMA application_id = 42; CREATE TABLE t(x);"
for f in clash other appid; do
    before=$(md5sum <"$work/$f.db")
    "$TTA" --db "$work/$f.db" ingest fixtures/claims >/dev/null 2>"$work/err"
    check "ingest into $f.db: exit 1" test $? -eq 1
    check "ingest into $f.db: not a tta database ($(head -1 "$work/err"))" grep -q "not a tta database.*leaves it untouched" "$work/err"
    "$TTA" --db "$work/$f.db" ls entries >/dev/null 2>"$work/err"
    check "ls of $f.db: not a tta database" grep -q "not a tta database" "$work/err"
    check "$f.db byte for byte as it was" test "$before" = "$(md5sum <"$work/$f.db")"
    check "$f.db: no journal left beside it" test ! -e "$work/$f.db-wal"
done
# an older tta database (before application_id): still read, and marked on the next ingest
cp "$db" "$work/old.db"
sqlite3 "$work/old.db" "PRAGMA application_id = 0"
check "an older tta database is listed" test "$("$TTA" --db "$work/old.db" ls entries --format csv | wc -l)" = "$n1"
"$TTA" --db "$work/old.db" ingest --quiet fixtures/claims >/dev/null 2>&1
check "and ingested into" test $? -eq 0
check "and then carries tta's application_id" test "$(sqlite3 "$work/old.db" 'PRAGMA application_id')" = 1953784113
check "a new database carries tta's application_id" test "$(sqlite3 "$db" 'PRAGMA application_id')" = 1953784113
# read-only commands and verify create no database
mkdir "$work/empty"
for args in "ls entries" "report variance" "verify 1"; do
    (cd "$work/empty" && TTA_DB= "$TTA" $args >/dev/null 2>"$work/err")
    check "tta $args without a database: exit 1" test $? -eq 1
    check "tta $args without a database: says so" grep -q "tta.db: no such database" "$work/err"
    check "tta $args creates no tta.db" test -z "$(ls "$work/empty")"
done

# ingest: why files were skipped
printf 'just some notes\n' >"$work/notalog.txt"
: >"$work/empty.log"
printf '\0\1\2binary' >"$work/blob.bin"
"$TTA" --db "$work/s.db" ingest "$work/notalog.txt" "$work/empty.log" "$work/blob.bin" >/dev/null 2>"$work/err"
check "ingest of files that are no logs: exit 0" test $? -eq 0
check "a named text file: named with why" grep -q "notalog.txt: skipped: no log tta reads" "$work/err"
check "a named empty file: named with why" grep -q "empty.log: skipped: empty" "$work/err"
check "a named binary file: named with why" grep -q "blob.bin: skipped: binary" "$work/err"
check "counts by reason" grep -q "skipped 3 files that are no logs tta reads: 1 empty, 1 binary, 1 text" "$work/err"
mkdir -p "$work/tree"
cp -r fixtures/mlperf/v0.7 "$work/tree/"
cp "$work/notalog.txt" "$work/tree/v0.7/README.txt"
"$TTA" --db "$work/t.db" ingest "$work/tree" >/dev/null 2>"$work/err"
check "files in a folder: not named without --verbose" bash -c "! grep -q 'README.txt: skipped' '$work/err'"
check "but counted" grep -q "skipped 1 files that are no logs tta reads: 0 empty, 0 binary, 1 text" "$work/err"
runs_before=$("$TTA" --db "$work/t.db" ls runs --format csv | wc -l)
gone=$(find "$work/tree" -name 'result_*.txt' | sort | head -1)
rm "$gone"
"$TTA" --db "$work/t.db" ingest --verbose "$work/tree/" >/dev/null 2>"$work/err"
check "ingest again: exit 0" test $? -eq 0
check "--verbose names a file skipped" grep -q "README.txt: skipped: no log tta reads" "$work/err"
check "--verbose names the file gone" grep -qF "$gone: removed: no longer there" "$work/err"
check "and says runs were removed" grep -q "removed 1 files that are no longer in the folders ingested" "$work/err"
runs_after=$("$TTA" --db "$work/t.db" ls runs --format csv | wc -l)
check "the gone file's run is gone ($runs_before -> $runs_after lines)" test "$runs_after" -eq $((runs_before - 1))
"$TTA" --db "$work/t.db" ingest --format json "$work/tree" >"$work/json" 2>/dev/null
check "JSON: not_logs and vanished" grep -q '"not_logs": {"empty": 0, "binary": 0, "text": 1}, "vanished": 0' "$work/json"

# the corpus: v0.5 and DAWNBench as published
shared=${TTA_SHARED_DIR:-../shared}
if [ -f "$shared/corpus/mlperf-training-v0.5.tar.zst" ] && [ -f "$shared/corpus/dawnbench.tar.zst" ]; then
    mkdir -p "$work/corpus"
    tar --zstd -xf "$shared/corpus/mlperf-training-v0.5.tar.zst" -C "$work/corpus"
    tar --zstd -xf "$shared/corpus/dawnbench.tar.zst" -C "$work/corpus"
    db="$work/c.db"
    "$TTA" --db "$db" ingest --quiet "$work/corpus" >/dev/null 2>&1
    expect ls entries --submitter gogle -- 1 "no submitter 'gogle'; did you mean Google?"
    expect ls entries --round v0.55 -- 1 "did you mean v0.5?"
    expect report variance --benchmark ssdd -- 1 "no benchmark 'ssdd'; did you mean ssd?"
    expect ls runs --round dawnbnch -- 1 "no round 'dawnbnch'; did you mean dawnbench?"
else
    echo "corpus part skipped: no $shared/corpus (the real logs live in ../shared, absent in a user's clone)"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
