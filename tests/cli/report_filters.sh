#!/bin/bash
# Filters written /RE/ (a PCRE2 regular expression, db/filter.c) on the bundled fixtures: a pattern
# selects exactly the entries whose value it matches (checked against Python's re over the whole
# listing), case-insensitively as a plain value does (and case-sensitively with (?-i)), in every
# filter option and every report that takes filters; a pattern that matches nothing gives the
# empty answer (exit 0); a pattern PCRE2 cannot compile is a usage error (2) naming the option,
# PCRE2's message and the offset, before the database is opened. A value with one slash is plain.
set -uo pipefail
TTA=${TTA:-build/tta}
cd "${TTA_SOURCE_DIR:-.}"
command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed to read the outputs"; exit 77; }
work=$(mktemp -d /tmp/tta-filters.XXXXXX)
trap 'rm -rf "$work"' EXIT
db="$work/db"
. "$(dirname "$0")/lib/check.sh"

"$TTA" --db "$db" ingest --quiet fixtures/mlperf fixtures/dawnbench fixtures/claims fixtures/power >/dev/null 2>&1
check "fixtures ingested" test -s "$db"
"$TTA" --db "$db" ls entries --format json >"$work/all.json"

# Sorted entry ids of a JSON array (the "entry" of each row, or of each row's name given as $2).
ids_of() { python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))
key = sys.argv[2] if len(sys.argv) > 2 else "entry"
print(" ".join(str(i) for i in sorted({r[key] for r in rows if r.get(key) is not None})))' "$@"; }
# Entry ids of `tta ls entries` with the options given.
ls_ids() { "$TTA" --db "$db" ls entries --format json "$@" >"$work/ls.json" && ids_of "$work/ls.json"; }
# Entry ids of the whole listing whose column $1 matches Python's re $2 (flags: $3, "i" by default).
expect_ids() { python3 -c '
import json, re, sys
rows = json.load(open(sys.argv[1]))
flags = re.I if sys.argv[4] == "i" else 0
print(" ".join(str(r["entry"]) for r in sorted(rows, key=lambda r: r["entry"])
               if r[sys.argv[2]] is not None and re.search(sys.argv[3], r[sys.argv[2]], flags)))' \
    "$work/all.json" "$1" "$2" "${3:-i}"; }
n_all=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' "$work/all.json")
count() { wc -w <<<"$1"; }

# ---- a pattern selects what it matches, in each filter option ----------------------------------
got=$(ls_ids --system '/^dgxa100/'); want=$(expect_ids system '^dgxa100')
check "--system '/^dgxa100/' selects the dgxa100 entries ($got; want $want)" test "$got" = "$want"
check "... some of them, not all ($(count "$got") of $n_all)" test "$(count "$got")" -ge 2 -a "$(count "$got")" -lt "$n_all"
got=$(ls_ids --submitter '/^nvidia$/'); plain=$(ls_ids --submitter nvidia)
check "a pattern is case-insensitive as a plain value is ($got; plain: $plain)" test "$got" = "$plain" -a -n "$got"
got=$(ls_ids --submitter '/(?-i)^nvidia$/')
check "(?-i) makes it case-sensitive: no submitter is 'nvidia' in lower case (got '$got')" test -z "$got"
got=$(ls_ids --submitter '/(?-i)^NVIDIA$/')
check "(?-i)^NVIDIA$ selects NVIDIA's entries" test "$got" = "$plain"
got=$(ls_ids --round '/^v0\.[67]$/'); want=$(echo $(ls_ids --round v0.6) $(ls_ids --round v0.7) | tr ' ' '\n' | sort -n | tr '\n' ' ' | sed 's/ $//')
check "--round '/^v0\\.[67]\$/' is v0.6 and v0.7 together ($got; want $want)" test "$got" = "$want"
got=$(ls_ids --benchmark '/^(bert|resnet)$/'); want=$(expect_ids benchmark '^(bert|resnet)$')
check "--benchmark '/^(bert|resnet)\$/' ($got; want $want)" test "$got" = "$want" -a -n "$got"
got=$(ls_ids --division '/^clo/'); want=$(expect_ids division '^clo')
check "--division '/^clo/' ($(count "$got") entries)" test "$got" = "$want" -a -n "$got"
got=$(ls_ids --system '/_ngc\d+\.\d+_/' --benchmark resnet); want=$(python3 -c '
import json, re, sys
rows = json.load(open(sys.argv[1]))
print(" ".join(str(r["entry"]) for r in sorted(rows, key=lambda r: r["entry"])
               if re.search(r"_ngc\d+\.\d+_", r["system"], re.I) and r["benchmark"] == "resnet"))' "$work/all.json")
check "a pattern and a plain value together ($got; want $want)" test "$got" = "$want" -a -n "$got"
got=$(ls_ids --system /dgxa100)
check "a value with one slash is plain text (no system is '/dgxa100': got '$got')" test -z "$got"

# ---- a pattern that matches nothing -------------------------------------------------------------
for cmd in "ls entries" "ls runs" "ls systems" "report variance" "report curves" "report speedup" "report scaling" \
    "report energy" "report comm"; do
    out=$("$TTA" --db "$db" $cmd --system '/^no-such-system$/' --format json 2>"$work/err")
    rc=$?
    check "$cmd with a pattern matching nothing exits 0 (got $rc: $(head -2 "$work/err"))" test $rc -eq 0
    check "$cmd with a pattern matching nothing gives no row" test "$(tr -d ' \n' <<<"$out")" = "[]"
done

# ---- every report applies it ----------------------------------------------------------------------
sel=$(expect_ids system '^dgxa100')
for kind in variance curves; do
    "$TTA" --db "$db" report $kind --system '/^dgxa100/' --format json >"$work/$kind.json" 2>/dev/null
    got=$(ids_of "$work/$kind.json")
    check "report $kind --system '/^dgxa100/' lists the selected entries ($got; want $sel)" test "$got" = "$sel"
done
"$TTA" --db "$db" report rcp --rcp-dir fixtures/rcp --system '/^dgxa100/' --format json >"$work/rcp.json" 2>/dev/null
got=$(ids_of "$work/rcp.json")
check "report rcp --system '/^dgxa100/' judges the selected entries ($got; want $sel)" test "$got" = "$sel"
"$TTA" --db "$db" ls runs --system '/^dgxa100/' --format json >"$work/runs.json"
got=$(ids_of "$work/runs.json")
check "ls runs --system '/^dgxa100/' lists the runs of the selected entries ($got)" test "$got" = "$sel"
"$TTA" --db "$db" ls systems --system '/^dgxa100/' --format json >"$work/systems.json"
check "ls systems --system '/^dgxa100/' lists only dgxa100 descriptions, and some" python3 -c '
import json, re, sys
rows = json.load(open(sys.argv[1]))
sys.exit(not rows or not all(re.match("dgxa100", r["system"], re.I) for r in rows))' "$work/systems.json"
"$TTA" --db "$db" report summary --round v0.7 --system '/^dgxa100_ngc/' --format json >"$work/summary.json" 2>/dev/null
check "report summary --system '/^dgxa100_ngc/': one row per matching folder (2)" python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))
sys.exit(sorted(r["system_folder"] for r in rows) != ["dgxa100_ngc20.06_mxnet", "dgxa100_ngc20.06_pytorch"])' \
    "$work/summary.json"
"$TTA" --db "$db" report trend --system '/^dgxa100/' --format json >"$work/trend.json" 2>/dev/null
check "report trend --system '/^dgxa100/': only the selection's benchmarks and systems" python3 -c '
import json, re, sys
rows = json.load(open(sys.argv[1]))
ok = rows and all(r["benchmark"] in ("resnet", "bert", "gnmt", "maskrcnn") for r in rows) \
    and all(r["system"] is None or re.match("dgxa100", r["system"]) for r in rows)
sys.exit(not ok)' "$work/trend.json"
"$TTA" --db "$db" report energy --system '/-POWER$/' --format json >"$work/energy.json" 2>/dev/null
got=$(ids_of "$work/energy.json"); want=$(expect_ids system '-POWER$')
check "report energy --system '/-POWER\$/' ($got; want $want)" test "$got" = "$want" -a -n "$got"
"$TTA" --db "$db" report threshold --at 0.7 --system '/^dgxa100/' --format json >"$work/threshold.json" 2>/dev/null
check "report threshold --system '/^dgxa100/': runs of dgxa100 systems only" python3 -c '
import json, re, sys
rows = json.load(open(sys.argv[1]))
sys.exit(not rows or not all(re.match("dgxa100", r["system"]) for r in rows))' "$work/threshold.json"
"$TTA" --db "$db" report html "$work/page.html" --quiet --system '/^dgxa100/' 2>/dev/null
check "report html --system '/^dgxa100/' writes a page of the selection" \
    bash -c "grep -q 'dgxa100_ngc20.06_mxnet' '$work/page.html' && ! grep -q 'dgx1_ngc19.05' '$work/page.html'"

# ---- a pattern PCRE2 cannot compile ----------------------------------------------------------------
# --db names no file: the pattern is refused before the database is opened.
for cmd in "ls entries" "report variance" "report rcp --rcp-dir fixtures/rcp" "report html $work/bad.html"; do
    "$TTA" --db "$work/none.db" $cmd --system '/dgx(/' >/dev/null 2>"$work/err"
    rc=$?
    check "$cmd --system '/dgx(/' is a usage error (2; got $rc)" test $rc -eq 2
    check "$cmd: the error names the option, PCRE2's message and the offset ($(head -1 "$work/err"))" \
        grep -q -- "--system: bad regular expression /dgx(/: missing closing parenthesis at offset 4" "$work/err"
done
"$TTA" --db "$db" report variance --benchmark '/[z-a]/' >/dev/null 2>"$work/err"
check "--benchmark '/[z-a]/' is a usage error (2)" test $? -eq 2
check "... naming --benchmark and PCRE2's reason ($(head -1 "$work/err"))" \
    grep -q -- "--benchmark: bad regular expression /\[z-a\]/: range out of order in character class at offset 3" \
    "$work/err"
"$TTA" --db "$db" ls runs --round '/(?<n/' >/dev/null 2>"$work/err"
check "--round '/(?<n/' is a usage error (2)" test $? -eq 2
check "... naming --round ($(head -1 "$work/err"))" grep -q -- "^tta ls: --round: bad regular expression" "$work/err"

echo "report_filters: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
