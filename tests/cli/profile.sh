#!/bin/bash
# `tta profile` and `tta report profile` on real Fashion-MNIST (skips without it): the JSON
# contract; memory by category sums to the total and the model's categories to the allocator's
# total; per-layer FLOPs of the MLP against hand-computed values; per-layer times plus data
# loading and the optimizer sum to the step time within 10%; a batch sweep grows feature maps in
# proportion to the batch; peaks and profiles are stored and reported with a roofline; bad input
# is refused with the file and the reason; the threading line says OpenMP's wait (tta's own, or the
# user's).
set -uo pipefail
TTA=${TTA:-build/tta}
data=/usr/share/datasets/fashion-mnist
if [ ! -f "$data/train-images-idx3-ubyte.gz" ]; then
    echo "SKIPPED: Fashion-MNIST is not installed (Debian package dataset-fashion-mnist)"
    exit 77
fi
command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed to read the JSON"; exit 77; }
work=$(mktemp -d /tmp/tta-profile.XXXXXX)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/lib/check.sh"
db="$work/db"
cat > "$work/mlp.json" <<JSON
{"benchmark": "fashion-mnist", "dataset": {"kind": "fashion-mnist", "path": "$data"},
 "model": "mlp", "model_params": "hidden1=256,hidden2=128",
 "optimizer": {"kind": "sgd", "momentum": 0.9, "nesterov": true, "weight_decay": 0.0005},
 "schedule": {"type": "piecewiseLinear", "epochs": [0, 1, 4], "values": [0.02, 0.1, 0]},
 "batch_size": 64, "target": {"metric": "top1", "value": 0.80}, "max_epochs": 2, "seeds": [0]}
JSON
"$TTA" --db "$db" profile "$work/mlp.json" --steps 8 --format json > "$work/p.json" 2> "$work/err"
rc=$?; check "profile exits 0 ($(head -2 "$work/err"))" test $rc -eq 0
check "and says where it stored the profile" grep -q "stored as profile 1" "$work/err"
# Everything numeric below is checked in one Python pass that prints one line per failed claim.
py_check() { # name, python expression over d (the profile JSON)
    /usr/bin/python3 - "$work/p.json" "$2" <<'PY' >/dev/null 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
    check "$1" test $? -eq 0
}
for key in step_s samples_per_s memory layers; do
    py_check "profile JSON has \"$key\"" "'$key' in d"
done
for key in weights weight_grads optimizer_state feature_maps workspace data total; do
    py_check "memory has \"$key\" in bytes" "isinstance(d['memory']['$key'], int)"
done
py_check "every layer has name, flops, bytes, time_s, gflops" \
    "all(all(k in l for k in ('name','flops','bytes','time_s','gflops')) for l in d['layers'])"
py_check "memory total is the sum of its categories" \
    "d['memory']['total'] == sum(d['memory'][k] for k in ('weights','buffers','weight_grads','optimizer_state','feature_maps','workspace','eval','data','host_copies'))"
py_check "the model's categories sum to the allocator's total" \
    "d['memory']['allocator_total'] == sum(d['memory'][k] for k in ('weights','buffers','weight_grads','feature_maps','workspace','eval'))"
py_check "feature maps = activations + their gradients + saved state" \
    "d['memory']['feature_maps'] == d['memory']['activations'] + d['memory']['activation_grads'] + d['memory']['saved']"
# MLP 784-256-128-10, batch 64: weights are the 6 tensors' floats, each tensor padded to 16 floats
# (64 bytes) so that every tensor starts aligned for SIMD
py_check "weights are the parameters' bytes" \
    "d['memory']['weights'] == 4 * sum((c + 15) // 16 * 16 for c in (784*256, 256, 256*128, 128, 128*10, 10))"
py_check "SGD with momentum keeps one velocity per parameter" "d['memory']['optimizer_state'] == d['memory']['weights']"
# fc1: forward 2*B*784*256 + B*256 (bias); backward the weight gradient and the bias (its input,
# the flattened images, needs no gradient); fc2 also computes its input gradient.
py_check "fc1 FLOPs by hand" \
    "[l['flops'] for l in d['layers'] if l['name']=='fc1'] == [2*(2*64*784*256 + 64*256)]"
py_check "fc2 FLOPs by hand" \
    "[l['flops'] for l in d['layers'] if l['name']=='fc2'] == [3*2*64*256*128 + 2*64*128]"
py_check "relu1 is fused into fc1 and carries no time of its own" \
    "[(l['fused_into'], l['time_s']) for l in d['layers'] if l['name']=='relu1'] == [('fc1', 0)]"
# (within 10%: the loss and the glue between the layers' clocks are no layer's, 2.2-3.3 % of this
# step on every build measured, the ASan one included; with 5 % one descheduled thread in the glue
# of 8 measured steps failed it once in a `./test.sh` of 255 tests. A layer missing from the
# accounting or counted twice moves the sum by far more: fc1 alone is three quarters of the step.)
py_check "per-layer times + data loading sum to the step time within 10%" \
    "abs(sum(l['time_s'] for l in d['layers']) + d['phases']['data_s'] - d['step_s']) <= 0.10 * d['step_s']"
py_check "samples/s = batch / step time" "abs(d['samples_per_s'] - 64 / d['step_s']) < 1e-6 * d['samples_per_s']"
# (within 5%, as the layers above: the phases are read from the session's own clocks inside the step,
# the step from the clock around it; a thread descheduled between two reads on a busy machine moved
# the sum by more than 0.1% in CI-like runs)
py_check "the step's phases add up to the step" \
    "abs(d['phases']['data_s'] + d['phases']['forward_s'] + d['phases']['backward_s'] + d['phases']['optimizer_s'] - d['step_s']) <= 0.05 * d['step_s']"
py_check "warm-up steps were discarded before measuring" "d['warmup_steps'] >= 10 and d['measured_steps'] == 8"
py_check "achieved GFLOP/s = FLOPs per step / step time" \
    "abs(d['gflops'] - d['flops_per_step'] / d['step_s'] * 1e-9) < 1e-6 * d['gflops']"
# OpenMP's wait, as libgomp read it at load: tta's own (passive after a short spin, the value of
# replay/replay.h's TTA_OMP_SPINCOUNT) where the environment sets none, and a user's
# OMP_WAIT_POLICY left alone (no spin added).
spin=$(grep -o '#define TTA_OMP_SPINCOUNT "[0-9]*"' "${TTA_SOURCE_DIR:-.}/replay/replay.h" | grep -o '[0-9][0-9]*')
check "TTA_OMP_SPINCOUNT is in replay/replay.h" test -n "$spin"
if [ -z "${OMP_WAIT_POLICY:-}" ] && [ -z "${GOMP_SPINCOUNT:-}" ]; then
    py_check "threading: passive after tta's spin by default" \
        "d['threading'].endswith('OMP_WAIT_POLICY=PASSIVE GOMP_SPINCOUNT=$spin') and 'onednn=gnu-openmp(' in d['threading']"
fi
env -u GOMP_SPINCOUNT OMP_WAIT_POLICY=ACTIVE "$TTA" profile "$work/mlp.json" --steps 2 --no-store --format json \
    > "$work/pa.json" 2>/dev/null
check "a user's OMP_WAIT_POLICY is kept, no spin added" /usr/bin/python3 -c "
import json, sys
t = json.load(open('$work/pa.json'))['threading']
sys.exit(0 if t.endswith('OMP_WAIT_POLICY=ACTIVE') and 'GOMP_SPINCOUNT' not in t else 1)"
"$TTA" profile "$work/mlp.json" --steps 2 --no-store > "$work/pt.txt" 2>/dev/null
check "the text says the threading too" grep -q "^threading: openblas=.* OMP_WAIT_POLICY=" "$work/pt.txt"
# The pages of the large buffers (common/check.h, mallocLarge): huge by default, small under
# TTA_HUGE_PAGES=0, with the kernel's mode and the resident MiB on 2 MiB pages read back. Where the
# kernel offers transparent huge pages (mode always or madvise), the default run holds some.
thp=$(grep -o '\[[a-z]*\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null | tr -d '[]')
py_check "pages: huge by default, with the kernel's mode" \
    "__import__('re').fullmatch(r'huge \(THP ${thp:-unknown}\): \d+ of \d+ MiB resident on 2 MiB pages', d['pages'])"
if [ "$thp" = madvise ] || [ "$thp" = always ]; then
    py_check "pages: some of the trainer's memory is on 2 MiB pages" \
        "int(d['pages'].split(': ')[1].split()[0]) > 0"
fi
TTA_HUGE_PAGES=0 "$TTA" profile "$work/mlp.json" --steps 2 --no-store --format json > "$work/ph.json" 2>/dev/null
check "TTA_HUGE_PAGES=0: small pages, said so" /usr/bin/python3 -c "
import json, sys
p = json.load(open('$work/ph.json'))['pages']
sys.exit(0 if p.startswith('small (TTA_HUGE_PAGES=0; THP ') else 1)"
check "the text says the pages too" \
    grep -q "^pages: huge (THP [a-z]*): [0-9]* of [0-9]* MiB resident on 2 MiB pages\$" "$work/pt.txt"

# A batch sweep: feature maps grow in proportion to the batch, weights do not.
"$TTA" --db "$db" profile "$work/mlp.json" --steps 3 --batch-sweep 32,128 --format json > "$work/s.json" 2>"$work/err"
rc=$?; check "batch sweep exits 0 ($(head -2 "$work/err"))" test $rc -eq 0
/usr/bin/python3 - "$work/s.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))['sweep']
a, b = s[0]['memory'], s[1]['memory']
ok = [s[0]['batch'] == 32, s[1]['batch'] == 128, a['weights'] == b['weights'],
      b['feature_maps'] == 4 * a['feature_maps'], b['total'] > a['total']]
sys.exit(0 if all(ok) else 1)
PY
check "sweep: feature maps x4 from batch 32 to 128, weights unchanged" test $? -eq 0

# Peaks, stored per host; then the report with its roofline.
"$TTA" --db "$db" profile --peaks --threads 1 > "$work/peaks.txt" 2>"$work/err"
check "peaks exit 0" test $? -eq 0
check "peaks print SGEMM (the better library, the other's figure) and memory bandwidth" \
    grep -Eq "SGEMM [0-9.]+ GFLOP/s \((oneDNN; OpenBLAS|OpenBLAS; oneDNN) [0-9.]+\), memory [0-9.]+ GB/s" "$work/peaks.txt"
# the roof is the better of the two libraries the trainer calls (the convolutions, on oneDNN, ran
# above OpenBLAS's peak alone), and the line's two figures are the JSON's
"$TTA" --db "$work/peaks.db" profile --peaks --threads 1 --format json > "$work/peaks.json" 2>/dev/null
check "peaks JSON: sgemm_gflops is the better of OpenBLAS's and oneDNN's, both > 0" python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
p = p[0] if isinstance(p, list) else p
a, b = p["sgemm_openblas_gflops"], p["sgemm_onednn_gflops"]
sys.exit(0 if a > 0 and b > 0 and p["sgemm_gflops"] == max(a, b) else 1)' "$work/peaks.json"
if command -v sqlite3 >/dev/null; then
    check "peaks stored for this host" test "$(sqlite3 "$db" "SELECT count(*) FROM host_peaks WHERE host = '$(hostname)' AND threads = 1")" = 1
    check "three profiles stored with their layers" test "$(sqlite3 "$db" "SELECT count(*) FROM profiles")" = 3
    check "layers stored (7 rows: 6 of the MLP + the optimizer)" \
        test "$(sqlite3 "$db" "SELECT count(*) FROM profile_layers WHERE profile_id = 1")" = 7
    check "the sweep's profiles share a sweep id" \
        test "$(sqlite3 "$db" "SELECT count(DISTINCT sweep) || '/' || count(*) FROM profiles WHERE sweep IS NOT NULL")" = 1/2
fi
"$TTA" --db "$db" report profile --profile 1 --format json > "$work/r.json" 2>"$work/err"
rc=$?; check "report profile exits 0 ($(head -1 "$work/err"))" test $rc -eq 0
/usr/bin/python3 - "$work/r.json" "$work/p.json" <<'PY'
import json, sys
r, p = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
fc1 = [l for l in r['layers'] if l['name'] == 'fc1'][0]
pf = [l for l in p['layers'] if l['name'] == 'fc1'][0]
ok = [len(r['profiles']) == 1, r['profiles'][0]['batch'] == 64,
      abs(fc1['time_s'] - pf['time_s']) < 1e-12,
      abs(fc1['roof_gflops'] - min(fc1['roof_gflops'], 1e12)) < 1e-9,
      fc1['bound'] in ('memory', 'compute'),
      0 < r['profiles'][0]['sgemm_peak_share'] < 5]
sys.exit(0 if all(ok) else 1)
PY
check "report profile JSON: the stored figures, a roof per layer and the share of the SGEMM peak" test $? -eq 0
"$TTA" --db "$db" report profile --svg "$work/roof.svg" --memory-svg "$work/mem.svg" > "$work/r.txt" 2>"$work/err"
check "report profile (latest: the sweep) exits 0" test $? -eq 0
# (a row's id may carry a note's superscript: a busy machine can leave a profile with a note)
check "the table shows both batch sizes of the sweep" test "$(grep -Ec '^ +[0-9]+[^ ]* +[0-9]+ +(32|128) ' "$work/r.txt")" = 2
check "and the roofs" grep -q "roofs (1 thread): SGEMM" "$work/r.txt"
# a fused layer (relu1, inside fc1) has FLOPs but no bytes of its own: every cell it lacks, its
# intensity and roof included, points at the one footnote that says why ("fused: runs inside fc1")
/usr/bin/python3 - "$work/r.txt" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
notes = {l[0]: l[2:] for l in lines if l[:1] in '¹²³⁴⁵⁶⁷⁸⁹' and l[1:2] == ' '}
rows = [l for l in lines if re.match(r' *relu1 ', l)]
marks = [set(re.findall(r'n/a([¹²³⁴⁵⁶⁷⁸⁹])', l)) for l in rows]
sys.exit(0 if rows and all(len(m) == 1 and notes.get(next(iter(m))) == 'fused: runs inside fc1' for m in marks) else 1)
PY
check "a fused layer's missing cells, roof included, all say it runs inside its host" test $? -eq 0
# a layer faster than its roof (fc1's rate raised in a copy of the database) is explained, not hidden
cp "$db" "$work/over.db"
sqlite3 "$work/over.db" "UPDATE profile_layers SET gflops = 1e9 WHERE profile_id = 1 AND name = 'fc1'" 2>/dev/null ||
    /usr/bin/python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(\"UPDATE profile_layers SET gflops = 1e9 WHERE profile_id = 1 AND name = 'fc1'\"); c.commit()" "$work/over.db"
"$TTA" --db "$work/over.db" report profile --profile 1 > "$work/over.txt" 2>/dev/null
check "a layer above its roof gets a note saying why" grep -q "above its roof: the memory roof is STREAM triad" "$work/over.txt"
# (the MLP's timed layers: fc1, fc2, fc3; the flatten is the batch's upload and the SGD update runs
# inside the linear layers' backward, so neither has a time of its own)
check "the roofline is an SVG with a point per timed layer" test "$(grep -c 'class="point"' "$work/roof.svg")" -ge 3
check "the memory plot is an SVG with two bars' totals" grep -q "<svg" "$work/mem.svg"
if command -v xmllint >/dev/null; then
    check "both SVGs are well-formed XML" xmllint --noout "$work/roof.svg" "$work/mem.svg"
fi
"$TTA" --db "$db" report html "$work/page.html" 2>/dev/null
check "the HTML report has the profile section" grep -q "Profile of a training step" "$work/page.html"

# A convolution's algorithm (docs/replay.md "Winograd convolutions"): fmnist-cnn at batch 16 on
# the cpu backend. Where oneDNN runs AVX-512 kernels (the host has them and ONEDNN_MAX_CPU_ISA does
# not cap them) its 3x3 convolutions run Winograd by cpu_dnnl.c's rule for the CPU (intel, amd or
# zen4; TTA_CONV_RULE overrides it; under zen4, tta's own where ic*oc/(ic+oc) < 24); on an AVX2 host (or capped to AVX2) tta's own Winograd runs every
# pass of them (cpu_conv_wino.c); TTA_CONV_RULE=direct runs every pass direct.
# JSON, the stored rows (plain SQL), the text and the report say the same.
cnn_db="$work/cnn.db"
"$TTA" --db "$cnn_db" profile bench/recipes/fmnist-cnn.json --batch 16 --steps 3 --threads 2 --format json \
    > "$work/cnn.json" 2>"$work/err"
check "profile of fmnist-cnn exits 0 ($(head -1 "$work/err"))" test $? -eq 0
avx512=0
if grep -qw avx512f /proc/cpuinfo && grep -qw avx512bw /proc/cpuinfo && grep -qw avx512vl /proc/cpuinfo &&
   grep -qw avx512dq /proc/cpuinfo && [[ ! "${ONEDNN_MAX_CPU_ISA:-}" =~ ^(AVX2|avx2|SSE|sse|AVX$|avx$) ]]; then
    avx512=1
fi
avx2=0
if grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo; then avx2=1; fi
host_rule=intel
if grep -qm1 'vendor_id.*AuthenticAMD' /proc/cpuinfo; then
    host_rule=amd
    if [ "$(grep -m1 '^cpu family' /proc/cpuinfo | tr -dc 0-9)" = 25 ]; then host_rule=zen4; fi
fi
rule=${TTA_CONV_RULE:-$host_rule}
/usr/bin/python3 - "$work/cnn.json" "$avx512" "$rule" "$avx2" <<'PY'
import json, sys
d, avx512, amd = json.load(open(sys.argv[1])), sys.argv[2] == '1', sys.argv[3] == 'amd'
direct, avx2, zen4 = sys.argv[3] == 'direct', sys.argv[4] == '1', sys.argv[3] == 'zen4'
alg = {l['name']: l.get('algorithm') for l in d['layers']}
small, big = ('direct', 'winograd forward+data') if amd else ('winograd backward', 'winograd')
if zen4:  # tta's own Winograd where ic*oc/(ic+oc) < 24 (every shape but res2's 64 -> 64)
    small = 'winograd'
want = {'prep.conv': 'direct', 'layer1.conv': small, 'res1.res1.conv': small, 'res1.res2.conv': small,
        'layer2.conv': big, 'res2.res1.conv': big, 'res2.res2.conv': big}
if not avx512:  # tta's own Winograd: every pass of every 3x3 convolution but the stem
    want = {k: 'winograd' if avx2 and k != 'prep.conv' else 'direct' for k in want}
if direct: want = {k: 'direct' for k in want}
others = [n for n, a in alg.items() if n not in want and a is not None]
sys.exit(0 if all(alg.get(k) == v for k, v in want.items()) and not others else 1)
PY
check "each convolution's algorithm in the JSON (AVX-512: $avx512, rule $rule), none on other layers" test $? -eq 0
TTA_CONV_RULE=amd "$TTA" --db "$cnn_db" profile bench/recipes/fmnist-cnn.json --batch 16 --steps 3 --threads 2 \
    --format json --no-store > "$work/cnn_amd.json" 2>/dev/null
TTA_CONV_RULE=intel "$TTA" --db "$cnn_db" profile bench/recipes/fmnist-cnn.json --batch 16 --steps 3 --threads 2 \
    --format json --no-store > "$work/cnn_intel.json" 2>/dev/null
TTA_CONV_RULE=zen4 "$TTA" --db "$cnn_db" profile bench/recipes/fmnist-cnn.json --batch 16 --steps 3 --threads 2 \
    --format json --no-store > "$work/cnn_zen4.json" 2>/dev/null
/usr/bin/python3 - "$work/cnn_amd.json" "$work/cnn_intel.json" "$work/cnn_zen4.json" "$avx512" "$avx2" <<'PY'
import json, sys
a, i, z = ({l['name']: l.get('algorithm') for l in json.load(open(f))['layers']} for f in sys.argv[1:4])
got = tuple(r[k] for r in (a, i, z) for k in ('res1.res1.conv', 'layer2.conv', 'res2.res1.conv'))
want = (('direct', 'winograd forward+data', 'winograd forward+data', 'winograd backward', 'winograd', 'winograd',
         'winograd', 'winograd', 'winograd') if sys.argv[4] == '1' else
        ('winograd',) * 9 if sys.argv[5] == '1' else ('direct',) * 9)
sys.exit(0 if got == want else 1)
PY
check "TTA_CONV_RULE=amd, =intel and =zen4 pick each rule's algorithms (AVX-512: $avx512, AVX2: $avx2)" test $? -eq 0
TTA_CONV_RULE=direct "$TTA" --db "$cnn_db" profile bench/recipes/fmnist-cnn.json --batch 16 --steps 3 --threads 2 \
    --format json --no-store > "$work/cnn_direct.json" 2>/dev/null
check "TTA_CONV_RULE=direct runs every convolution direct" /usr/bin/python3 -c "
import json, sys
a = [l['algorithm'] for l in json.load(open(sys.argv[1]))['layers'] if l['type'] == 'conv']
sys.exit(0 if len(a) == 7 and set(a) == {'direct'} else 1)" "$work/cnn_direct.json"
TTA_CONV_RULE=arm "$TTA" --db "$cnn_db" profile bench/recipes/fmnist-cnn.json --batch 16 --steps 3 --no-store \
    >/dev/null 2>"$work/err"
rc=$?
check "TTA_CONV_RULE=arm is refused with exit 1 and the expected values (rc $rc)" \
    test $rc -eq 1 -a "$(cat "$work/err")" = "tta profile: TTA_CONV_RULE=arm: expected intel, amd, zen4 or direct"
if command -v sqlite3 >/dev/null; then
    check "the stored algorithms are the JSON's (plain SQL)" test \
        "$(sqlite3 "$cnn_db" "SELECT group_concat(name || '=' || algorithm, ',') FROM (SELECT name, algorithm FROM profile_layers WHERE algorithm IS NOT NULL ORDER BY idx)")" = \
        "$(/usr/bin/python3 -c "import json,sys; print(','.join(l['name']+'='+l['algorithm'] for l in json.load(open(sys.argv[1]))['layers'] if 'algorithm' in l))" "$work/cnn.json")"
fi
"$TTA" --db "$cnn_db" report profile --format csv > "$work/cnn.csv" 2>/dev/null
check "report profile's layer table has the algorithm column" grep -q "layer2.conv,conv,$([ $avx512 = 1 -o $avx2 = 1 ] && [ "$rule" != direct ] && echo winograd || echo direct,)" "$work/cnn.csv"
"$TTA" --db "$cnn_db" profile bench/recipes/fmnist-cnn.json --batch 16 --steps 3 --threads 2 --no-store \
    > "$work/cnn.txt" 2>/dev/null
check "the text lists the convolutions by algorithm" grep -q "^  direct  *prep.conv" "$work/cnn.txt"
if [ "$avx512" = 1 ]; then
    check "and says why a Winograd layer's GFLOP/s can pass the peak" grep -q "a Winograd layer's MFLOP and GFLOP/s" "$work/cnn.txt"
    "$TTA" --db "$cnn_db" report profile --svg "$work/cnn_roof.svg" >/dev/null 2>&1
    check "the roofline plots the Winograd layers as their own series" grep -q "Winograd conv (direct FLOPs)" "$work/cnn_roof.svg"
    "$TTA" --db "$cnn_db" profile --peaks --threads 1 >/dev/null 2>&1
    /usr/bin/python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(\"UPDATE profile_layers SET gflops = 1e9 WHERE name = 'layer2.conv'\"); c.commit()" "$cnn_db"
    "$TTA" --db "$cnn_db" report profile > "$work/cnn_over.txt" 2>/dev/null
    check "a Winograd layer above its roof gets its own note" grep -q "above its roof: a Winograd convolution's FLOPs" "$work/cnn_over.txt"
fi

# Errors
"$TTA" --db "$db" profile "$work/none.json" 2>"$work/err" >/dev/null
check "a missing SPEC fails (1)" test $? -eq 1
check "naming it" grep -q "none.json" "$work/err"
"$TTA" --db "$db" profile "$work/mlp.json" --batch 0 2>/dev/null
check "--batch 0 is a usage error (2)" test $? -eq 2
"$TTA" --db "$db" profile 2>/dev/null
check "profile without SPEC is a usage error (2)" test $? -eq 2
"$TTA" --db "$db" report profile --profile 99 2>"$work/err" >/dev/null
check "an unknown profile id fails (1)" test $? -eq 1
check "saying so" grep -q "no profile 99" "$work/err"
"$TTA" --db "$work/empty.db" ingest fixtures/mlperf >/dev/null 2>&1
"$TTA" --db "$work/empty.db" report profile > "$work/out" 2>"$work/err"
check "no profile stored: exit 0" test $? -eq 0
check "with a hint on stderr" grep -q "tta profile SPEC" "$work/err"
echo "$passed passed, $failed failed"
test "$failed" -eq 0
