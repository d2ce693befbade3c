#!/usr/bin/python3
"""Compares `tta check --format csv` on a round's tree with MLCommons' compliance checker's verdicts kept in
tests/expected/compliance-<round>.tsv (tests/official/compliance_tsv.py): for every log of the TSV, tta's verdict
and first failing rule must equal the checker's, except the logs listed with a reason in
tests/official/compliance-known-differences.tsv. The order of several AT_LEAST_ONE_OR failures is the
checker's set order (it varies from run to run), so there tta's first rule need only be among the checker's.

Usage: compare_compliance.py EXPECTED.tsv TTA.csv TREE ROUND"""
import csv, os, sys

expected_path, tta_csv, tree, rnd = sys.argv[1:5]
here = os.path.dirname(os.path.abspath(__file__))
known = {}
for line in open(os.path.join(here, 'compliance-known-differences.tsv')):
    if line.startswith('#') or not line.strip():
        continue
    r, log, reason = line.rstrip('\n').split('\t')[:3]
    if r == rnd:
        known[log] = reason
exp = {}
for line in open(expected_path):
    if line.startswith('#') or line.startswith('log\t'):
        continue
    log, verdict, first, rules = (line.rstrip('\n').split('\t') + [''] * 4)[:4]
    exp[log] = (verdict, first, [x for x in rules.split(' ; ') if x])
got = {}
with open(tta_csv, newline='') as f:
    for row in csv.DictReader(f):
        got[os.path.relpath(row['log'], tree)] = row
bad = 0
same_verdict = 0
for log, (verdict, first, rules) in sorted(exp.items()):
    row = got.get(log)
    if row is None:
        print(f'{rnd}: {log}: tta did not check it'); bad += 1; continue
    tv = {'pass': 'pass', 'fail': 'fail'}.get(row['verdict'], row['verdict'])
    tfirst = row['rule'] or ''
    ok = tv == verdict and (tfirst == first or (first.endswith('AT_LEAST_ONE_OR') and tfirst in rules))
    if ok:
        same_verdict += 1
        if log in known:
            print(f'{rnd}: {log}: listed as a known difference but tta now agrees; remove it from the list')
            bad += 1
        continue
    if log in known:
        continue
    print(f'{rnd}: {log}: checker {verdict} [{first}], tta {tv} [{tfirst}] ({row["message"][:160]})')
    bad += 1
n_fail = sum(1 for v in exp.values() if v[0] == 'fail')
print(f'{rnd}: {len(exp)} logs ({n_fail} not compliant by the checker): {same_verdict} agree, {len(known)} known '
      f'differences, {bad} wrong')
sys.exit(1 if bad else 0)
