#!/bin/sh
# test.sh: sets up (./setup.sh --test), builds and runs the whole test suite through ctest:
#   1. the normal build (build/),
#   2. the same tests under AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/),
#   3. every parser's libFuzzer target for a bounded time (build-fuzz/, clang).
# Tests that need ../shared (the real corpus) skip with a message where it is absent.
set -eu
cd "$(dirname "$0")"
./setup.sh --test
jobs="$(nproc)"
status=0

echo "== tests (build/)"
ctest --test-dir build --output-on-failure -j"$jobs" || status=1

echo "== tests under ASan+UBSan (build-asan/)"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DTTA_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$jobs" >/dev/null
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan --output-on-failure -j"$jobs" -LE slow || status=1

echo "== fuzz targets (build-fuzz/, bounded time each)"
CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTTA_FUZZ=ON >/dev/null
cmake --build build-fuzz -j"$jobs" --target fuzz_all >/dev/null
ctest --test-dir build-fuzz --output-on-failure -L fuzz || status=1

exit $status
