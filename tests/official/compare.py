#!/usr/bin/python3
"""Compares tta's per-folder figures with the official MLCommons ones recorded in tests/expected/official/.

For every <org>/results/<system>/<benchmark> folder of the round: the official score (minutes, to the 6 decimals recorded: 2e-6),
and for every result file whether the RCP checker counts it as converged and its convergence point
(relative 1e-9). Folders listed in tests/official/known-differences.tsv for the round differ on purpose, for
the reason given there; where its fifth column says official*F, tta's score must equal the official one times F. Prints one line per difference and a summary line;
exits 1 when anything differs.

Usage: compare.py TTA DB ROUND [--verbose]
"""
import json, os, subprocess, sys

here = os.path.dirname(os.path.abspath(__file__))
tta, db, rnd = sys.argv[1], sys.argv[2], sys.argv[3]
verbose = '--verbose' in sys.argv


def tta_json(*args):
    out = subprocess.run([tta, '--db', db] + list(args) + ['--format', 'json'], check=True,
                         stdout=subprocess.PIPE).stdout
    return json.loads(out)


def read_tsv(name):
    rows = []
    with open(os.path.join(here, '..', 'expected', 'official', name)) as f:
        for line in f:
            if line.startswith('#') or not line.strip():
                continue
            rows.append(line.rstrip('\n').split('\t'))
    return rows


def folder_of(path):
    parts = path.split('/')
    for i in range(len(parts) - 4, -1, -1):
        if parts[i + 1] == 'results' and i + 4 < len(parts):
            return '/'.join(parts[i:i + 4]), parts[i + 4]
    return None, None


known = {}
factor_of = {}  # folders whose tta score is the official one times a factor (the official tool's unit error)
kd = os.path.join(here, 'known-differences.tsv')
if os.path.exists(kd):
    for line in open(kd):
        if line.startswith('#') or not line.strip():
            continue
        cols = line.rstrip('\n').split('\t')
        r, what, key, reason = cols[:4]
        if r == rnd:
            known[(what, key)] = reason
            if len(cols) > 4 and cols[4].startswith('official*'):
                factor_of[key] = float(cols[4][len('official*'):])

runs = tta_json('ls', 'runs', '--round', rnd)
rows = tta_json('report', 'variance', '--round', rnd)
entry_of_folder, run_of_file = {}, {}
for r in runs:
    folder, fn = folder_of(r['file'])
    if folder is None:
        continue
    entry_of_folder[folder] = (r['division'], r['submitter'], r['system'], r['benchmark'])
    run_of_file[folder + '/' + fn] = r
score_of_entry = {(x['division'], x['submitter'], x['system'], x['benchmark']): x for x in rows}

diffs, checked, excused = [], 0, 0


def differ(what, key, msg):
    global excused
    if (what, key) in known:
        excused += 1
        if verbose:
            print('known  %s %s: %s (%s)' % (what, key, msg, known[(what, key)]))
        return
    diffs.append('%s %s: %s' % (what, key, msg))


for folder, files, score, scaling, err in read_tsv('scores-%s.tsv' % rnd):
    checked += 1
    e = entry_of_folder.get(folder)
    if e is None:
        differ('score', folder, 'no tta entry for this folder')
        continue
    row = score_of_entry.get(e)
    mine = row.get('score_min') if row else None
    if score == '-':
        if mine is not None:
            differ('score', folder, 'official gives no score, tta %.4f' % mine)
        continue
    if folder in factor_of:
        want = float(score) * factor_of[folder]
        if mine is None or abs(mine - want) > 2e-6 * factor_of[folder]:
            diffs.append('score %s: official %s x %g = %.6f, tta %s' % (folder, score, factor_of[folder], want, mine))
        else:
            excused += 1
        continue
    if mine is None or abs(mine - float(score)) > 2e-6:
        differ('score', folder, 'official %s, tta %s' % (score, mine))
    elif abs(row.get('scaling_factor', 1.0) - float(scaling)) > 1e-9:
        differ('score', folder, 'scaling official %s, tta %s' % (scaling, row.get('scaling_factor')))

progress_rows = read_tsv('progress-%s.tsv' % rnd) if rnd >= 'v1.0' else []
for key, converged, progress, err in progress_rows:
    checked += 1
    r = run_of_file.get(key)
    if r is None:
        # A file tta refuses (no run_start: a truncated log) is a failed source, not a run; the
        # checker counts it as not converged, the summarizer drops it: the same outcome.
        if converged != '0':
            differ('progress', key, 'no tta run for this file')
        continue
    if converged == '-':
        continue  # the checker could not read the file (its error is recorded)
    mine = r.get('progress')
    if converged == '0':
        if mine is not None:
            differ('progress', key, 'official: not converged, tta progress %s' % mine)
        continue
    if mine is None or abs(mine - float(progress)) > 1e-9 * max(1.0, abs(float(progress))):
        differ('progress', key, 'official %s, tta %s' % (progress, mine))

for d in diffs:
    print(d)
print('%s: %d checked, %d differ, %d known differences' % (rnd, checked, len(diffs), excused))
sys.exit(1 if diffs else 0)
