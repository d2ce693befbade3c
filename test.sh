#!/bin/sh
# test.sh: sets up (./setup.sh --test), builds and runs the whole test suite through ctest:
#   1. the normal build (build/),
#   2. the same tests under AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/),
#   3. every parser's libFuzzer target for a bounded time (build-fuzz/, clang).
# Tests that need ../shared (the real corpus) skip with a message where it is absent.
# The last line sums the three runs: "N passed, N failed".
set -eu
cd "$(dirname "$0")"
./setup.sh --test
jobs="$(nproc)"
status=0
log=$(mktemp /tmp/tta-test.XXXXXX)
trap 'rm -f "$log"' EXIT

echo "== tests (build/)"
ctest --test-dir build --output-on-failure -j"$jobs" 2>&1 | tee -a "$log"

echo "== tests under ASan+UBSan (build-asan/)"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DTTA_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$jobs" >/dev/null
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan --output-on-failure -j"$jobs" -LE slow 2>&1 | tee -a "$log"

echo "== fuzz targets (build-fuzz/, bounded time each)"
CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTTA_FUZZ=ON >/dev/null
cmake --build build-fuzz -j"$jobs" --target fuzz_all >/dev/null
ctest --test-dir build-fuzz --output-on-failure -L fuzz 2>&1 | tee -a "$log"

# ctest prints "NN% tests passed, F tests failed out of T" per run (the pipes above hide its exit
# status): sum them, and fail when any test failed or a run printed no summary.
runs=$(grep -c "tests failed out of" "$log" || true)
[ "$runs" -eq 3 ] || status=1
summary=$(awk '/tests passed, .* tests failed out of/ { failed += $4; total += $NF }
               END { printf "%d passed, %d failed\n", total - failed, failed }' "$log")
case "$summary" in *" 0 failed") ;; *) status=1 ;; esac
echo "$summary"
exit $status
