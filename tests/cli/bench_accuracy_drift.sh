#!/bin/bash
# bench/accuracy_drift on the build under test against itself, on Fashion-MNIST (fmnist-mlp, 2 seeds,
# 1 epoch): at 2 threads and at 1 (--after-threads), and with a variable that changes no bit
# (--after-env), every seed's accuracy and the mean are unchanged to the last digit (the trainer's
# bits do not depend on its thread count) and the exit status is 0; --after-env reaches the after
# side only (a bad TTA_CONV_RULE there fails that side, named, after the before side ran); usage
# errors exit 2 and a build without tta exits 1.
set -uo pipefail
TTA=${TTA:-build/tta}
build=$(cd "$(dirname "$TTA")" && pwd)
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib/fmnist.sh"
skip_without_fmnist
if ! /usr/bin/python3 -c 'import scipy' 2>/dev/null; then
    echo "SKIPPED: bench/accuracy_drift needs Debian's python3-scipy (./setup.sh --test installs it)"
    exit 77
fi
work=$(mktemp -d /tmp/tta-accuracy-drift-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/lib/check.sh"
drift() { "$here/bench/accuracy_drift" --before "$build" --after "$build" --recipe mlp --epochs 1 --seeds 2 "$@"; }

drift --after-threads 1 --after-env "GOMP_SPINCOUNT=0" >"$work/out" 2>"$work/err"
rc=$?
check "one build against itself at 2 and 1 threads exits 0 (exit $rc: $(tail -2 "$work/err" | tr '\n' ' '))" \
    test $rc -eq 0
check "the header names both thread counts and the after side's environment" \
    grep -q '^fmnist-mlp: validation accuracy (%) per epoch, before | after, 2 | 1 threads; after with GOMP_SPINCOUNT=0$' \
    "$work/out"
check "the after side ran with that environment" \
    grep -q "after ($build/tta), mlp, 2 seeds, 1 epochs, 1 threads, GOMP_SPINCOUNT=0" "$work/err"
check "a line per seed, each unchanged" \
    test "$(grep -cE '^  seed [01]: e1: [0-9]+\.[0-9]{2} \| [0-9]+\.[0-9]{2}   change at epoch 1: \+0\.00 points$' "$work/out")" -eq 2
check "each seed's two accuracies are the same figure" /usr/bin/python3 - "$work/out" <<'PY'
import re, sys
rows = re.findall(r'^  seed (\d): e1: ([0-9.]+) \| ([0-9.]+)', open(sys.argv[1]).read(), re.M)
assert len(rows) == 2 and all(b == a and 50 < float(a) < 100 for _, b, a in rows), rows
PY
check "the mean does not move" grep -qE '^epoch 1: before .* change of the mean \+0\.00 points \(bar ±0\.3\), largest per-seed change 0\.00' "$work/out"
check "nor the training loss" grep -qE '^training loss of epoch 1 .* \(\+0\.00 %\); largest per-seed change 0\.00 %' "$work/out"

drift --after-env "TTA_CONV_RULE=arm" >"$work/out" 2>"$work/err"
rc=$?
check "a bad variable on the after side fails the run (exit $rc)" test $rc -ne 0
check "after the before side ran without it" grep -q "before ($build/tta), mlp, 2 seeds, 1 epochs, 2 threads$" "$work/err"
check "and got through (the after side started)" \
    grep -q "after ($build/tta), mlp, 2 seeds, 1 epochs, 2 threads, TTA_CONV_RULE=arm$" "$work/err"
check "and tta names the variable" grep -q "TTA_CONV_RULE=arm: expected intel, amd, zen4 or direct" "$work/err"

"$here/bench/accuracy_drift" --before "$build" --after-env "FOO" >/dev/null 2>"$work/err"
check "an --after-env word without = exits 2" test $? -eq 2
check "and names it" grep -q "\-\-after-env: 'FOO' is not VAR=VALUE" "$work/err"
"$here/bench/accuracy_drift" --after "$build" >/dev/null 2>"$work/err"
check "no --before exits 2" test $? -eq 2
check "with the usage line" grep -q "usage: bench/accuracy_drift --before DIR" "$work/err"
"$here/bench/accuracy_drift" --before "$build" --recipe resnet >/dev/null 2>"$work/err"
check "an unknown recipe exits 2" test $? -eq 2
"$here/bench/accuracy_drift" --before "$work/nowhere" >/dev/null 2>"$work/err"
check "a build without tta exits 1" test $? -eq 1
check "and names it" grep -q "no tta in $work/nowhere" "$work/err"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
