#!/bin/bash
# bench/cpu_limit on the build under test, one short round (no timing is checked: the figures
# depend on the machine): the JSON names each instruction set the host offers, with roofs and a
# step measured in the same round, the step's share of the peak consistent with them, every
# memory-bound layer's ratio consistent with its bytes and the triad, and verdicts that follow
# from the bars; the text report says the same; usage errors exit 2, a missing build exits 1.
set -uo pipefail
TTA=${TTA:-build/tta}
build=$(cd "$(dirname "$TTA")" && pwd)
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib/fmnist.sh"
skip_without_fmnist
work=$(mktemp -d /tmp/tta-cpu-limit.XXXXXX)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/lib/check.sh"

"$here/bench/cpu_limit" --build "$build" --reps 1 --steps 2 --json >"$work/out.json" 2>"$work/err"
rc=$?
check "one round runs (exit $rc: $(tail -2 "$work/err" | tr '\n' ' '))" test $rc -eq 0
check "the JSON is consistent" /usr/bin/python3 - "$work/out.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
flags = set(d["flags"])
want = ["native", "avx2"] if "avx512f" in flags else ["native"]
assert sorted(d["isas"]) == sorted(want), (d["isas"].keys(), want)
assert d["host"] and d["threads"] == 2 and d["reps"] == 1 and d["recipe"] == "fmnist-cnn.json"
for isa, s in d["isas"].items():
    assert s["rounds"] == 1 and len(s["per_round"]) == 1
    r = s["per_round"][0]
    assert r["sgemm_gflops"] > 0 and r["triad_gbs"] > 0 and r["step_ms"] > 0 and r["gflops"] > 0
    # the share is the step's GFLOP/s over the same round's roof
    assert abs(r["pct_of_peak"] - 100 * r["gflops"] / r["sgemm_gflops"]) < 1e-6
    assert (s["pct_of_peak"] >= d["bar_peak"]) == s["peak_met"]
    assert s["rounds_over_bar"] == (1 if s["peak_met"] else 0)
    # the avx2 cap is named in the environment it ran under; native runs without one
    assert (s["env"] == {"ONEDNN_MAX_CPU_ISA": "AVX2", "OPENBLAS_CORETYPE": "Haswell"}) == (isa == "avx2")
    names = [l["name"] for l in s["memory_bound"]]
    # fmnist-cnn's memory-bound layers: its batch norms (ReLU, pools and the residual adds fused in
    # on the cpu backend) and the global pool
    assert "prep.bn" in names and "res1.res2.bn" in names and "pool" in names, names
    assert not any(n.endswith(".conv") or n == "fc" for n in names), names
    for l in s["memory_bound"]:
        # ratio = time / (bytes / triad)
        expect = (l["ms"] / 1e3) / (l["mb"] * 1e6 / (r["triad_gbs"] * 1e9))
        assert abs(l["ratio"] - expect) < 1e-6 * max(1, expect), (l, expect)
        assert l["met"] == (l["ratio"] <= d["bar_memory"])
    assert s["memory_met"] == all(l["met"] for l in s["memory_bound"])
PY
"$here/bench/cpu_limit" --build "$build" --reps 1 --steps 2 --isa native >"$work/out.txt" 2>/dev/null
check "the text report runs" test $? -eq 0
check "it names the host and its flags" grep -Eq '^host: .*, flags .*avx2' "$work/out.txt"
check "it gives the step's share of the peak and the verdict" \
    grep -Eq '^  the step: median [0-9.]+ % of the round.s SGEMM peak .*: bar (met|NOT met)$' "$work/out.txt"
check "it gives each memory-bound layer's ratio" grep -Eq '^    prep\.bn +bn +[0-9.]+ MB +[0-9.]+ ms +[0-9.]+ \(max' "$work/out.txt"
check "only the instruction set asked for" test "$(grep -c '^as an AVX2 host' "$work/out.txt")" -eq 0

"$here/bench/cpu_limit" --isa sse >/dev/null 2>"$work/err"
check "an unknown --isa exits 2" test $? -eq 2
check "and says what is accepted" grep -q "native or avx2" "$work/err"
"$here/bench/cpu_limit" --reps 0 >/dev/null 2>"$work/err"
check "--reps 0 exits 2" test $? -eq 2
"$here/bench/cpu_limit" --build "$work/nowhere" --reps 1 >/dev/null 2>"$work/err"
check "a build without tta exits 1" test $? -eq 1
check "and names it" grep -q "no tta in $work/nowhere" "$work/err"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
