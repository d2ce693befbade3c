#!/bin/bash
# bench/gpu_check on a machine without a GPU (CI, this project's hosts): with the build under
# test (--prebuilt) it runs the CUDA kernels' host emulation, checks that `--device cuda` fails
# with a clear error, says that no GPU was available, prints its table and exits 0. Skips where
# the build has no CUDA module, and where a GPU is present (there the script runs the whole
# suite itself: run it by hand, not from ctest).
set -uo pipefail
TTA=${TTA:-build/tta}
build=$(cd "$(dirname "$TTA")" && pwd)
here=$(cd "$(dirname "$0")/../.." && pwd)
if [ ! -f "$build/libtta_cuda.so" ]; then
    echo "SKIPPED: this build has no CUDA module (libtta_cuda.so): CUDA was not found"
    exit 77
fi
if nvidia-smi -L 2>/dev/null | grep -q .; then
    echo "SKIPPED: a GPU is present: run bench/gpu_check by hand there"
    exit 77
fi
work=$(mktemp -d /tmp/tta-gpu-check.XXXXXX)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/lib/check.sh"

"$here/bench/gpu_check" --prebuilt --build "$build" --out "$work/out" >"$work/stdout" 2>"$work/stderr"
rc=$?
check "exits 0 without a GPU ($rc; $(tail -3 "$work/stderr" | tr '\n' ' '))" test $rc -eq 0
check "says no GPU was available" grep -q "no GPU on this machine" "$work/stderr"
check "the host emulation of the kernels passed" grep -q "host emulation of the CUDA kernels: passed" "$work/stderr"
check "--device cuda failed with exit 1 and a message" grep -Eq -- '--device cuda without a GPU: exit 1, ".+"' "$work/stderr"
check "the table says so" grep -Eq '^GPU +none \(host emulation only\)' "$work/stdout"
check "and passed" grep -Eq '^result +passed' "$work/stdout"
check "the log is kept in --out" test -s "$work/out/gpu_check.log"
# a usage error is refused with the usage line, exit 2
"$here/bench/gpu_check" --bogus >/dev/null 2>"$work/err"
check "an unknown option exits 2" test $? -eq 2
check "with the usage line" grep -q "usage: bench/gpu_check" "$work/err"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
