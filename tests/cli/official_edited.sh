#!/bin/bash
# Real folders of ../shared/corpus edited into two forms the corpus lacks, scored against MLCommons'
# own figures for them (tests/expected/official/, tests/expected/rcp-v2.0.tsv):
#  - a failed system-description script: every :::SYSJSON line of two v4.1 folders (Dell's
#    llama2_70b_lora, Lenovo's stable_diffusion; their logs already carry the script's shell trace)
#    replaced by what the script leaves when it prints nothing (`+ echo ':::SYSJSON '`, `:::SYSJSON `).
#    The summarizer reads only :::MLLOG records: run on the edited folders (mlcommons/logging 7bbf792,
#    _compute_strong_score_standalone) it gives the recorded scores unchanged (61.870462, 29.363896
#    min). tta must read every run (no unreadable record) and give the same scores.
#  - a count written as a one-element list: every train_samples of Graphcore's v2.0 BERT folder
#    written `[N]`. The RCP checker's read_submission_file returns the lists and check_directory gives
#    the verdict recorded for the folder as published (pass, "RCP found", 1.0; checked once on the
#    edited folder with the same commit). tta must read each run's convergence point as the number.
# Needs ../shared/corpus and ../shared/rcp (skips without them).
set -euo pipefail
TTA=${TTA:-build/tta}
shared=${TTA_SHARED_DIR:-../shared}
corpus="$shared/corpus"
here=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -f "$corpus/mlperf-training-v4.1.tar.zst" ] || [ ! -f "$corpus/mlperf-training-v2.0.tar.zst" ] || [ ! -d "$shared/rcp" ]; then
    echo "SKIPPED: no corpus or reference convergence points in $shared (the real logs live in ../shared, absent in a user's clone)"
    exit 77
fi
command -v python3 >/dev/null || { echo "SKIPPED: python3 is needed to read the expected values"; exit 77; }
work=$(mktemp -d /tmp/tta-edited.XXXXXX)
trap 'rm -rf "$work"' EXIT
sysjson_folders="v4.1/Dell/results/XE9640x4H100-SXM-80GB/llama2_70b_lora v4.1/Lenovo/results/SR680aV3-8xH200_SXM_141GB_700W/stable_diffusion"
list_folder="v2.0/Graphcore/results/ipu-pod64-POPART-closed/bert"
mkdir -p "$work/logs"
# shellcheck disable=SC2086
tar --zstd -xf "$corpus/mlperf-training-v4.1.tar.zst" -C "$work/logs" $(for d in $sysjson_folders; do echo "$d/"; done)
tar --zstd -xf "$corpus/mlperf-training-v2.0.tar.zst" -C "$work/logs" "$list_folder/"
for d in $sysjson_folders; do
    sed -i -e "s/^+ echo ':::SYSJSON .*/+ echo ':::SYSJSON '/" -e 's/^:::SYSJSON .*/:::SYSJSON /' "$work/logs/$d"/result_*.txt
done
sed -i -E 's/("key": "train_samples", "value": )([0-9]+)/\1[\2]/' "$work/logs/$list_folder"/result_*.txt
"$TTA" --db "$work/db" ingest --quiet "$work/logs"
"$TTA" --db "$work/db" ls runs --format json >"$work/runs.json"
"$TTA" --db "$work/db" report variance --format json >"$work/variance.json"
"$TTA" --db "$work/db" report rcp --rcp-dir "$shared/rcp" --format json >"$work/rcp.json"
python3 - "$work" "$here" "$sysjson_folders" "$list_folder" <<'PY'
import glob, json, os, sqlite3, sys
work, here, sysjson_folders, list_folder = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4]
fails = []
def check(what, ok):
    print(('ok   ' if ok else 'FAIL ') + what)
    if not ok:
        fails.append(what)
def expected(name, key):
    for line in open(os.path.join(here, 'expected', name)):
        cols = line.rstrip('\n').split('\t')
        if cols[0] == key:
            return cols
runs = json.load(open(os.path.join(work, 'runs.json')))
db = sqlite3.connect(os.path.join(work, 'db'))
for d in sysjson_folders:
    rnd, folder = d.split('/', 1)
    files = sorted(glob.glob(os.path.join(work, 'logs', d, 'result_*.txt')))
    edited = sum(1 for f in files for l in open(f, encoding='latin-1') if l in ("+ echo ':::SYSJSON '\n", ':::SYSJSON \n'))
    check('%s: %d logs, each with the two emptied SYSJSON lines (%d)' % (folder, len(files), edited),
          len(files) == 10 and edited == 2 * len(files))
    bad = db.execute("SELECT count(*), sum(r.unreadable_records > 0) FROM runs r JOIN sources s ON s.id = r.source_id"
                     " WHERE s.path LIKE ?", ('%/' + folder + '/%',)).fetchone()
    check('%s: %s runs, none with an unreadable record (%s)' % (folder, bad[0], bad[1]), bad[0] == 10 and bad[1] == 0)
    system, bench = folder.split('/')[2], folder.split('/')[3]
    want = float(expected('official/scores-%s.tsv' % rnd, folder)[2])
    rows = [e for e in json.load(open(os.path.join(work, 'variance.json'))) if e['system'] == system and e['benchmark'] == bench]
    got = rows[0]['score_min'] if rows else None
    check('%s: score %s min, official %.6f' % (folder, got, want), got is not None and abs(got - want) <= 0.01)
rnd, folder = list_folder.split('/', 1)
files = sorted(glob.glob(os.path.join(work, 'logs', list_folder, 'result_*.txt')))
lists = sum(1 for f in files if '"key": "train_samples", "value": [' in open(f, encoding='latin-1').read())
check('%s: train_samples written as a list in %d of %d logs' % (folder, lists, len(files)), lists == len(files) == 10)
for f in files:
    key = folder + '/' + os.path.basename(f)
    want = expected('official/progress-%s.tsv' % rnd, key)
    mine = [r for r in runs if r['file'].endswith(key)]
    got = mine[0]['progress'] if mine else None
    check('%s: progress %s, official %s' % (key, got, want[2]), got is not None and abs(got - float(want[2])) < 1e-6)
want = expected('rcp-%s.tsv' % rnd, folder)
verdict = [e for e in json.load(open(os.path.join(work, 'rcp.json'))) if e['system'] == folder.split('/')[2] and e['benchmark'] == 'bert']
got = (verdict[0]['verdict'], verdict[0]['message'], verdict[0]['normalization']) if verdict else None
check('%s: RCP %s, official %s' % (folder, got, want[1:4]),
      got is not None and got[0] == ('pass' if want[1] == 'true' else 'fail') and got[1] == want[2] and abs(got[2] - float(want[3])) < 1e-4)
print('%d checks failed' % len(fails))
sys.exit(1 if fails else 0)
PY
