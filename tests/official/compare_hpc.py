#!/usr/bin/python3
"""Compares tta's MLPerf HPC figures with the official MLCommons ones recorded in tests/expected/official/
(tests/official/record_hpc.py): for every <org>/results/<system>/[strong|weak/]<benchmark> folder of the round,
  strong folders: the summarizer's score to 0.01 min (tta report variance: score_min)
  weak folders:   time_to_train_all to 0.01 min (score_min), number_of_models and instance_scale exactly, and
                  the throughput (models_per_min) to 0.1 % of number_of_models / time_to_train_all
  every folder:   the RCP checker's verdict, message and normalization (tta report rcp --rcp-dir RCP_DIR)
and, where the round has an RCP checker, each result file's convergence point (tta ls runs: progress, relative
1e-9) and whether it converged. Prints one line per difference and a summary line; exits 1 when anything differs.

Usage: compare_hpc.py TTA DB NAME ROUND RCP_DIR
"""
import json, os, subprocess, sys

here = os.path.dirname(os.path.abspath(__file__))
tta, db, name, rnd, rcp_dir = sys.argv[1:6]


def tta_json(*args):
    out = subprocess.run([tta, '--db', db] + list(args) + ['--format', 'json'], check=True,
                         stdout=subprocess.PIPE).stdout
    return json.loads(out)


def read_tsv(fname):
    path = os.path.join(here, '..', 'expected', 'official', fname)
    if not os.path.exists(path):
        return []
    return [l.rstrip('\n').split('\t') for l in open(path) if not l.startswith('#') and l.strip()]


def folder_of(path):
    parts = path.split('/')
    for i in range(len(parts) - 1, 0, -1):
        if parts[i] == 'results':
            rest = parts[i + 1:-1]
            return '/'.join(parts[i - 1:i + 1] + rest), parts[-1]
    return None, None


runs = tta_json('ls', 'runs', '--round', rnd)
variance = tta_json('report', 'variance', '--round', rnd)
rcp = tta_json('report', 'rcp', '--rcp-dir', rcp_dir, '--round', rnd)
entry_of_folder, run_of_file = {}, {}
for r in runs:
    folder, fn = folder_of(r['file'])
    if folder:
        entry_of_folder[folder] = r['entry']
        run_of_file[folder + '/' + fn] = r
score_of = {x['entry']: x for x in variance}
rcp_of = {x['entry']: x for x in rcp}
diffs, checked = [], 0


def close(a, b, tol):
    return a is not None and b is not None and abs(a - b) <= tol


for (folder, scaling, files, score, tta_all, models, scale, rcp_pass, rcp_msg, rcp_norm,
     err) in read_tsv('hpc-scores-%s.tsv' % name):
    checked += 1
    e = entry_of_folder.get(folder)
    if e is None:
        diffs.append('%s: no tta entry for this folder' % folder)
        continue
    row, verdict = score_of.get(e, {}), rcp_of.get(e, {})
    mine = row.get('score_min')
    if row.get('scaling') != (scaling if '/%s/' % scaling in folder else None):
        diffs.append('%s: scaling %s, tta %s' % (folder, scaling, row.get('scaling')))
    if scaling == 'strong':
        if score == '-' and mine is not None:
            diffs.append('%s: official gives no score, tta %.4f' % (folder, mine))
        elif score != '-' and not close(mine, float(score), 0.01):
            diffs.append('%s: strong score official %s min, tta %s' % (folder, score, mine))
    else:
        if tta_all == '-':
            if mine is not None:
                diffs.append('%s: official gives no weak score, tta %.4f' % (folder, mine))
        else:
            t, m = float(tta_all), int(models)
            if not close(mine, t, 0.01):
                diffs.append('%s: time_to_train_all official %s min, tta %s' % (folder, tta_all, mine))
            if row.get('number_of_models') != m:
                diffs.append('%s: number_of_models official %s, tta %s' % (folder, models, row.get('number_of_models')))
            if row.get('instance_scale') != (None if scale == '-' else int(scale)):
                diffs.append('%s: instance_scale official %s, tta %s' % (folder, scale, row.get('instance_scale')))
            rate = row.get('models_per_min')
            if rate is None or abs(rate - m / t) > 0.001 * (m / t):
                diffs.append('%s: models per minute official %.6f, tta %s' % (folder, m / t, rate))
    if rcp_pass == '-':
        if verdict.get('verdict') in ('pass', 'fail'):
            diffs.append('%s: the RCP checker gives no verdict (%s), tta %s' % (folder, err, verdict.get('verdict')))
    else:
        want = 'pass' if rcp_pass == '1' else 'fail'
        if verdict.get('verdict') != want or verdict.get('message') != rcp_msg or \
                not close(verdict.get('normalization'), float(rcp_norm), 1e-9 * float(rcp_norm)):
            diffs.append('%s: RCP official %s "%s" %s, tta %s "%s" %s' % (
                folder, want, rcp_msg, rcp_norm, verdict.get('verdict'), verdict.get('message'),
                verdict.get('normalization')))

for key, converged, progress, err in read_tsv('hpc-progress-%s.tsv' % name):
    checked += 1
    r = run_of_file.get(key)
    if r is None:
        if converged != '0':
            diffs.append('%s: no tta run for this file' % key)
        continue
    if converged == '-':
        continue
    mine = r.get('progress')
    if converged == '0':
        if mine is not None:
            diffs.append('%s: official not converged, tta progress %s' % (key, mine))
    elif mine is None or abs(mine - float(progress)) > 1e-9 * max(1.0, abs(float(progress))):
        diffs.append('%s: progress official %s, tta %s' % (key, progress, mine))

for d in diffs:
    print(d)
print('%s: %d checked, %d differ' % (name, checked, len(diffs)))
sys.exit(1 if diffs else 0)
