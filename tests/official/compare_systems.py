#!/usr/bin/python3
"""Compares tta's node and accelerator counts with the official ones in tests/expected/official/systems-ROUND.tsv.

For every system the expected file gives counts for (the result summarizer's number_of_nodes and
accelerators_count; for v0.5, the published entry descriptions), every system record tta stored under that
submitter and name (`tta ls systems --round ROUND --format json`) must carry the same nodes and accelerators.
Systems the summarizer gives no row for ("-") are not checked. Systems listed in
tests/official/known-differences.tsv with kind "system" for the round differ on purpose, for the reason given
there. Prints one line per difference and a summary line; exits 1 when anything differs.

Usage: compare_systems.py TTA DB ROUND
"""
import json, os, subprocess, sys

here = os.path.dirname(os.path.abspath(__file__))
tta, db, rnd = sys.argv[1], sys.argv[2], sys.argv[3]

known = {}
for line in open(os.path.join(here, 'known-differences.tsv')):
    if line.startswith('#') or not line.strip():
        continue
    cols = line.rstrip('\n').split('\t')
    if cols[0] == rnd and cols[1] == 'system':
        known[cols[2]] = cols[3]

out = subprocess.run([tta, '--db', db, 'ls', 'systems', '--round', rnd, '--format', 'json'], check=True,
                     stdout=subprocess.PIPE).stdout
mine = {}
for s in json.loads(out):
    mine.setdefault('%s/%s' % (s['submitter'], s['system']), []).append((s['nodes'], s['accelerators']))

diffs, checked, excused = [], 0, 0
for line in open(os.path.join(here, '..', 'expected', 'official', 'systems-%s.tsv' % rnd)):
    if line.startswith('#') or not line.strip():
        continue
    key, nodes, accs, _ = line.rstrip('\n').split('\t')
    if nodes == '-':
        continue
    checked += 1
    want = (int(nodes), int(accs))
    got = mine.get(key)
    if got and all(g == want for g in got):
        continue
    msg = 'system %s: official %d nodes, %d accelerators; tta %s' % (
        key, want[0], want[1], ', '.join('%s nodes, %s accelerators' % g for g in got) if got else 'no system record')
    if key in known:
        excused += 1
    else:
        diffs.append(msg)
for d in diffs:
    print(d)
print('%s: %d systems checked, %d differ, %d known differences' % (rnd, checked, len(diffs), excused))
sys.exit(1 if diffs else 0)
