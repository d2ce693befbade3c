# tests/cli/lib/check.sh, sourced by the CLI tests: their counters and checks.
#   check WHAT CMD...   runs CMD; counts a pass, or prints "FAIL: WHAT" and counts a failure
#   ok / bad WHAT       count a pass / print "FAIL: WHAT" and count a failure, for checks that
#                       decide themselves
# passed and failed are the counts; a test ends with `echo "$passed passed, $failed failed"` and
# `[ $failed -eq 0 ]`.
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { echo "FAIL: $*"; failed=$((failed + 1)); }
check() { local what="$1"; shift; if "$@"; then ok; else bad "$what"; fi; }
