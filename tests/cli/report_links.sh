#!/bin/bash
# Where each entry is published: `ls entries` (logs_url, description_url), the leaderboard's best
# entries (the same two) and the variance table (logs_url) give the addresses that the round's
# "published" rule (schemas/benchmark_rules.json) builds from the files as ingested; the HTML page
# links each entry's system to them.
#  - on the fixtures (real excerpts of v0.5, v0.6, v0.7 and DAWNBench): exact addresses, written
#    here by hand from the repositories' layouts; no address where the rules name none (the
#    replays' round and a round of unknown logs, a DAWNBench-style claim of tta's own); every address's path
#    within its repository is the tail of a file or folder the ingest read; the page's links;
#  - on ../shared/corpus (skipped without it): v0.5, v0.7 and DAWNBench whole: every entry has its
#    logs' address, every address's path exists in the unpacked archive below the folder the rule
#    names, and the entries without a description's address are the ones whose description is
#    missing (`ls entries` says "no system description").
set -uo pipefail
TTA=${TTA:-build/tta}
cd "${TTA_SOURCE_DIR:-.}"
shared=${TTA_SHARED_DIR:-../shared}
command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed to read the CSV"; exit 77; }
case "$TTA" in /*) ;; *) TTA="$PWD/$TTA" ;; esac
work=$(mktemp -d /tmp/tta-links.XXXXXX)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/lib/check.sh"
# Runs python3 with the arguments; the program prints "FAIL: ..." lines and "ok N".
pycheck() {
    local out n_ok
    out=$(python3 - "$@" 2>&1)
    n_ok=$(sed -n 's/^ok \([0-9]*\)$/\1/p' <<<"$out" | tail -1)
    passed=$((passed + ${n_ok:-0}))
    failed=$((failed + $(grep -c '^FAIL' <<<"$out")))
    grep '^FAIL' <<<"$out"
    if [ -z "$n_ok" ]; then echo "FAIL: python check did not finish: $out"; failed=$((failed + 1)); fi
}

# ---- fixtures ----
db="$work/fx.db"
"$TTA" --db "$db" ingest --quiet fixtures >/dev/null 2>&1
"$TTA" --db "$db" ls entries --format csv >"$work/entries.csv"
check "ls entries gives logs_url and description_url" grep -q '^entry,.*,logs_url,description_url,note' "$work/entries.csv"
"$TTA" --db "$db" ls runs --format csv >"$work/runs.csv"
# MLPerf HPC: the summarizer's _ruleset_url_prefix with usage hpc, strong/ and weak/ kept in the path
hpc=$("$TTA" --db "$db" ls entries --round hpc-v2.0 --format csv)
check "an HPC weak-scaling entry links its folder in hpc_results_v2.0" grep -q \
    ',https://github.com/mlcommons/hpc_results_v2.0/tree/HEAD/HelmholtzAI/results/horeka_gpu_n64_pytorch1.13/weak/deepcam,https://github.com/mlcommons/hpc_results_v2.0/blob/HEAD/HelmholtzAI/systems/horeka_gpu_n64_pytorch1.13.json,' <<<"$hpc"
check "an HPC strong-scaling entry too" grep -q \
    ',https://github.com/mlcommons/hpc_results_v2.0/tree/HEAD/NVIDIA/results/dgxa100_n64_pytorch/strong/oc20,' <<<"$hpc"
pycheck "$work/entries.csv" "$work/runs.csv" <<'PY'
import csv, sys
n_ok = 0
def expect(what, cond):
    global n_ok
    if cond: n_ok += 1
    else: print("FAIL:", what)
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
files = [r["file"] for r in csv.DictReader(open(sys.argv[2], newline=""))]
def entry(rnd, sub, system, bench):
    m = [r for r in rows if (r["round"], r["submitter"], r["system"], r["benchmark"]) == (rnd, sub, system, bench)]
    expect("an entry %s/%s/%s/%s" % (rnd, sub, system, bench), len(m) == 1)
    return m[0] if m else {"logs_url": None, "description_url": None}
T = "https://github.com/mlcommons/training_results_"
D = "https://github.com/stanford-futuredata/dawn-bench-entries/blob/HEAD/"
cases = [
    # MLPerf from v0.6: <submitter>/results/<system>/<benchmark>, <submitter>/systems/<system>.json
    (("v0.6", "NVIDIA", "dgx1_ngc19.05_mxnet", "resnet"),
     T + "v0.6/tree/HEAD/NVIDIA/results/dgx1_ngc19.05_mxnet/resnet",
     T + "v0.6/blob/HEAD/NVIDIA/systems/dgx1_ngc19.05_mxnet.json"),
    # the folder as published ("mask"), not the canonical name
    (("v0.6", "Google", "tpu-v3-32", "maskrcnn"),
     T + "v0.6/tree/HEAD/Google/results/tpu-v3-32/mask", T + "v0.6/blob/HEAD/Google/systems/tpu-v3-32.json"),
    # v0.6 Alibaba: the description is an entry.json beside the logs
    (("v0.6", "Alibaba", "sinian", "resnet"),
     T + "v0.6/tree/HEAD/Alibaba/results/sinian/resnet", T + "v0.6/blob/HEAD/Alibaba/results/sinian/entry.json"),
    (("v0.7", "NVIDIA", "dgxa100_ngc20.06_pytorch", "bert"),
     T + "v0.7/tree/HEAD/NVIDIA/results/dgxa100_ngc20.06_pytorch/bert",
     T + "v0.7/blob/HEAD/NVIDIA/systems/dgxa100_ngc20.06_pytorch.json"),
    # v0.5: under v0.5.0/, each submission its own folder, its entry.json the description
    (("v0.5", "intel", "skx8180", "ncf"),
     T + "v0.5/tree/HEAD/v0.5.0/intel/intel_ncf_submission/results/skx8180/ncf",
     T + "v0.5/blob/HEAD/v0.5.0/intel/intel_ncf_submission/results/skx8180/entry.json"),
    # DAWNBench: the TSV and the JSON of the entry
    (("dawnbench", "Chen Wang", "KRes34_1GTX1080Ti_pytorch", "cifar10"),
     D + "CIFAR10/train/KRes34_1GTX1080Ti_pytorch.tsv", D + "CIFAR10/train/KRes34_1GTX1080Ti_pytorch.json"),
]
for key, logs, desc in cases:
    r = entry(*key)
    expect("%s: logs_url %s (got %s)" % ("/".join(key), logs, r["logs_url"]), r["logs_url"] == logs)
    expect("%s: description_url %s (got %s)" % ("/".join(key), desc, r["description_url"]), r["description_url"] == desc)
# no address where the rules name no repository or the file lies in none of its folders
for r in rows:
    if r["round"] in ("unknown", "local"):
        expect("%s %s: no address in a round the rules publish nowhere" % (r["round"], r["system"]),
               not r["logs_url"] and not r["description_url"])
claim = [r for r in rows if r["benchmark"] == "fashion-mnist"]
expect("tta's own DAWNBench-style claim has no address", claim and not claim[0]["logs_url"])
# every address's path within the repository is the tail of a file (or its folder) that was read
linked = 0
for r in rows:
    for u in (r["logs_url"], r["description_url"]):
        if not u: continue
        linked += 1
        rel = u.split("/HEAD/", 1)[1]
        expect("%s: its path is where a file was read" % u,
               any(f.endswith("/" + rel) or "/" + rel + "/" in f for f in files) or u == r["description_url"])
expect("addresses given (%d)" % linked, linked >= 20)
print("ok", n_ok)
PY

# the leaderboard: its best entries' addresses; the page: each entry's system linked
"$TTA" --db "$db" report leaderboard --round v0.7 --format json >"$work/lb.json"
check "leaderboard: the best entries' addresses" python3 -c '
import json, sys
rows = [r for r in json.load(open(sys.argv[1])) if r["entry"] is not None and r["submitter"] == "NVIDIA"]
assert rows and all(r["logs_url"].startswith("https://github.com/mlcommons/training_results_v0.7/tree/HEAD/NVIDIA/results/") for r in rows)
assert all(r["description_url"].startswith("https://github.com/mlcommons/training_results_v0.7/blob/HEAD/NVIDIA/systems/") for r in rows)' "$work/lb.json"
"$TTA" --db "$db" report html --quiet "$work/page.html" >/dev/null 2>&1
check "the page links an entry's system to its logs" \
    grep -q '<td><a href="https://github.com/mlcommons/training_results_v0.7/tree/HEAD/NVIDIA/results/dgxa100_ngc20.06_pytorch/bert">dgxa100_<wbr>ngc20.06_<wbr>pytorch</a><td>' "$work/page-v0.7.html"
check "the page's leaderboard links the description too" \
    grep -q '<a class="more" href="https://github.com/mlcommons/training_results_v0.7/blob/HEAD/NVIDIA/systems/' "$work/page-v0.7.html"
check "the page links nowhere but its own files and the repositories the rules name" python3 -c '
import glob, re, sys
for p in glob.glob(sys.argv[1] + "/page*.html"):
    for h in re.findall(r"href=\"([^\"]*)\"", open(p).read()):
        assert h.startswith("#") or "/" not in h and ":" not in h or h.startswith("https://github.com/mlcommons/training_results_v") \
            or h.startswith("https://github.com/mlcommons/hpc_results_v") or h.startswith("https://github.com/stanford-futuredata/dawn-bench-entries/"), h' "$work"

# ---- the corpus ----
corpus="$shared/corpus"
if [ -f "$corpus/mlperf-training-v0.7.tar.zst" ] && [ -f "$corpus/mlperf-training-v0.5.tar.zst" ] && [ -f "$corpus/dawnbench.tar.zst" ]; then
    for r in v0.5 v0.7; do
        mkdir -p "$work/c/$r" && tar --zstd -xf "$corpus/mlperf-training-$r.tar.zst" -C "$work/c/$r" || bad "unpacking $r"
    done
    mkdir -p "$work/c/dawnbench" && tar --zstd -xf "$corpus/dawnbench.tar.zst" -C "$work/c/dawnbench" || bad "unpacking dawnbench"
    "$TTA" --db "$work/c.db" ingest --quiet "$work/c/v0.5" "$work/c/v0.7" "$work/c/dawnbench" >/dev/null 2>&1
    "$TTA" --db "$work/c.db" ls entries --format csv >"$work/c.csv"
    "$TTA" --db "$work/c.db" ls runs --format csv >"$work/cr.csv"
    pycheck "$work/c.csv" "$work/cr.csv" <<'PY'
import csv, os, sys
n_ok = 0
def expect(what, cond):
    global n_ok
    if cond: n_ok += 1
    else: print("FAIL:", what)
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
runs = list(csv.DictReader(open(sys.argv[2], newline="")))
first = {}
for r in runs: first.setdefault(r["entry"], r["file"])
count = {}
for r in rows:
    rnd = r["round"]
    count[rnd] = count.get(rnd, 0) + 1
    expect("%s: a logs address" % r["entry"], bool(r["logs_url"]))
    if not r["logs_url"]: continue
    # the path within the repository exists in the unpacked archive, under the rule's folder
    rel = r["logs_url"].split("/HEAD/", 1)[1]
    f = first[r["entry"]]
    root = f[: f.rfind("/" + rel + "/")] if "/" + rel + "/" in f else None
    if rnd != "dawnbench":
        expect("%s: the logs' folder %s holds its first run's log" % (r["entry"], rel), root is not None)
    else:
        expect("%s: the log file is its run's" % r["entry"], f.endswith("/" + rel))
        root = f[: -len(rel) - 1]
    if r["description_url"]:
        d = r["description_url"].split("/HEAD/", 1)[1]
        expect("%s: the description %s exists" % (r["entry"], d), root is not None and os.path.isfile(os.path.join(root, d)))
    else:
        expect("%s: no description's address only without a description (%s)" % (r["entry"], r["note"]),
               "no system description" in r["note"])
expect("v0.5: 16 entries (%s)" % count.get("v0.5"), count.get("v0.5") == 16)
expect("v0.7: 130 entries (%s)" % count.get("v0.7"), count.get("v0.7") == 130)
expect("dawnbench: 58 entries (%s)" % count.get("dawnbench"), count.get("dawnbench") == 58)
with_desc = sum(1 for r in rows if r["description_url"])
expect("all but v0.7's 4 entries without a description have one (%d of %d)" % (with_desc, len(rows)),
       with_desc == len(rows) - 4)
print("ok", n_ok)
PY
else
    echo "NOTE: no corpus at $corpus: the fixtures only"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
