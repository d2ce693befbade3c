#!/bin/bash
# `tta report rcp --rcp-dir ../shared/rcp` gives MLCommons' RCP checker's verdict, message and
# normalization (to 1e-4) for every folder the checker judges, in every round with reference points
# that ../shared/corpus holds: the checker's outputs are kept in tests/expected/rcp-<round>.tsv
# (how they were made: the header of each file). Folders where tta cannot say what the checker says
# (it stops with an exception) are listed there with what tta says instead and why. Entries of rounds
# without reference points (the v0.7 fixtures) get a note and no verdict. Needs ../shared (skips
# without it).
set -euo pipefail
TTA=${TTA:-build/tta}
cd "${TTA_SOURCE_DIR:-.}"
shared=${TTA_SHARED_DIR:-../shared}
corpus="$shared/corpus"
rounds="v2.0 v2.1 v3.0 v3.1 v4.1 v5.1"
if [ ! -d "$corpus" ] || [ ! -d "$shared/rcp" ]; then
    echo "SKIPPED: no corpus or reference convergence points in $shared (absent in a user's clone)"
    exit 77
fi
command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed to read the expected verdicts"; exit 77; }
work=$(mktemp -d /tmp/tta-rcp.XXXXXX)
trap 'rm -rf "$work"' EXIT
checked=""
for r in $rounds; do
    tarball="$corpus/mlperf-training-$r.tar.zst"
    if [ ! -f "tests/expected/rcp-$r.tsv" ] || [ ! -f "$tarball" ]; then
        echo "round $r: no expected verdicts or no logs, not checked"
        continue
    fi
    tar --zstd -xf "$tarball" -C "$work" # one round at a time: unpacked, ingested, removed
    "$TTA" --db "$work/db" ingest --quiet "$work/$r" 2>"$work/ingest.err" || true
    rm -rf "${work:?}/$r"
    checked="$checked $r"
done
[ -n "$checked" ] || { echo "SKIPPED: no round to check"; exit 77; }
# the fixtures of rounds without reference points only: a later round's fixture is a run of a
# folder ingested above, and would join its entry a second time
"$TTA" --db "$work/db" ingest --quiet fixtures/mlperf/v0.5 fixtures/mlperf/v0.6 fixtures/mlperf/v0.7 2>/dev/null || true
"$TTA" --db "$work/db" ls runs --format json >"$work/runs.json"
"$TTA" --db "$work/db" report rcp --rcp-dir "$shared/rcp" --format json >"$work/rcp.json"
python3 - "$work" "$checked" <<'PY'
import json, math, os, sys
work, rounds = sys.argv[1], sys.argv[2].split()
runs = json.load(open(os.path.join(work, "runs.json")))
rows = json.load(open(os.path.join(work, "rcp.json")))
key = lambda r: (r["round"], r["division"], r["submitter"], r["system"], r["benchmark"])
# entry -> the folders of its result files, relative to the round's tree
folders = {}
for r in runs:
    prefix = os.path.join(work, r["round"]) + "/"
    if r["file"].startswith(prefix):
        folders.setdefault(key(r), set()).add(os.path.dirname(r["file"][len(prefix):]))
by_folder = {}
for row in rows:
    for f in folders.get(key(row), ()):
        by_folder.setdefault((row["round"], f), []).append(row)
failed = 0
def bad(msg):
    global failed
    failed += 1
    print("MISMATCH " + msg)
for rnd in rounds:
    agree = verdicts = other = 0
    for line in open("tests/expected/rcp-%s.tsv" % rnd):
        if line.startswith("#") or line.startswith("folder\t"):
            continue
        folder, ok, msg, norm, tta, reason = line.rstrip("\n").split("\t")
        mine = by_folder.get((rnd, folder), [])
        if len(mine) != 1:
            bad("%s %s: %d tta entries hold its result files" % (rnd, folder, len(mine)))
            continue
        m = mine[0]
        said = "%s: %s" % (m["verdict"], m["message"]) if m["verdict"] else "none (%s)" % m.get("note")
        if ok == "error":
            other += 1
            if tta == "none" and m["verdict"] is not None:
                bad("%s %s: the checker stops (%s); tta should give no verdict, says %s" % (rnd, folder, msg, said))
            elif tta.startswith(("pass: ", "fail: ")) and said != tta:
                bad("%s %s: tta should say %r (%s), says %r" % (rnd, folder, tta, reason, said))
            continue
        verdicts += 1
        want = "%s: %s" % ("pass" if ok == "true" else "fail", msg)
        n = float(norm)
        mine_n = m["normalization"]
        same_n = (math.isnan(n) and mine_n is None) or (mine_n is not None and abs(mine_n - n) <= 1e-4)
        if said != want or not same_n:
            bad("%s %s: checker %r normalization %s; tta %r normalization %s" % (rnd, folder, want, norm, said, mine_n))
        else:
            agree += 1
    print("%s: %d of %d checker verdicts agree; %d folders where the checker stops" % (rnd, agree, verdicts, other))
# rounds without reference points: a note, never a verdict
old = [r for r in rows if r["round"] in ("v0.5", "v0.6", "v0.7")]
if not old or any(r["verdict"] is not None or not r.get("note") for r in old):
    bad("v0.x fixture entries: expected a note and no verdict in each of %d rows" % len(old))
print("%d problems" % failed)
sys.exit(1 if failed else 0)
PY
