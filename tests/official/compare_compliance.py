#!/usr/bin/python3
"""Compares `tta check --format csv` on a round's tree with MLCommons' compliance checker's verdicts kept in
tests/expected/compliance-<round>.tsv (tests/official/compliance_tsv.py): for every log of the TSV, tta's verdict
and first failing rule must equal the checker's. The order of several AT_LEAST_ONE_OR failures is the checker's set
order (it varies from run to run), so there tta's first rule need only be among the checker's.

With PUBLISHED.csv (`tta check --as-published --format csv` on the same tree), every log must have the checker's
rules less the rule tests/official/compliance-known-differences.tsv says changed after the round (for the logs its
pattern matches that fail it today), and the same verdict as the checker elsewhere; every line of that file must
change some log's verdict.

Usage: compare_compliance.py EXPECTED.tsv TTA.csv TREE ROUND [PUBLISHED.csv]"""
import csv, fnmatch, os, sys

expected_path, tta_csv, tree, rnd = sys.argv[1:5]
published_csv = sys.argv[5] if len(sys.argv) > 5 else None
here = os.path.dirname(os.path.abspath(__file__))
known = []
for line in open(os.path.join(here, 'compliance-known-differences.tsv')):
    if line.startswith('#') or not line.strip():
        continue
    r, pattern, rule, reason = line.rstrip('\n').split('\t')[:4]
    if r == rnd:
        known.append((pattern, rule))
exp = {}
for line in open(expected_path):
    if line.startswith('#') or line.startswith('log\t'):
        continue
    log, verdict, first, rules = (line.rstrip('\n').split('\t') + [''] * 4)[:4]
    exp[log] = (verdict, first, [x for x in rules.split(' ; ') if x])


def read(path):
    with open(path, newline='') as f:
        return {os.path.relpath(row['log'], tree): row for row in csv.DictReader(f)}


def agrees(row, verdict, first, rules):
    tfirst = row['rule'] or ''
    return row['verdict'] == verdict and (tfirst == first or (first.endswith('AT_LEAST_ONE_OR') and tfirst in rules))


got = read(tta_csv)
bad = 0
for log, (verdict, first, rules) in sorted(exp.items()):
    row = got.get(log)
    if row is None:
        print(f'{rnd}: {log}: tta did not check it'); bad += 1; continue
    if not agrees(row, verdict, first, rules):
        print(f'{rnd}: {log}: checker {verdict} [{first}], tta {row["verdict"]} [{row["rule"]}] ({row["message"][:160]})')
        bad += 1
n_fail = sum(1 for v in exp.values() if v[0] == 'fail')
print(f'{rnd}: {len(exp)} logs ({n_fail} not compliant by the checker): {len(exp) - bad} agree, {bad} differ')
if published_csv:
    pub = read(published_csv)
    n_changed = pbad = 0
    for log, (verdict, first, rules) in sorted(exp.items()):
        drop = [rule for pattern, rule in known if fnmatch.fnmatch(log, pattern) and rule in rules]
        left = [x for x in rules if x not in drop]
        row = pub.get(log)
        if row is None:
            print(f'{rnd}: {log}: not checked as published'); pbad += 1; continue
        want = 'fail' if left else 'pass'
        mine = [x for x in row['rules'].split(' ; ') if x]
        if row['verdict'] != want or sorted(mine) != sorted(left):
            print(f'{rnd}: {log}: as published, want {want} {left}, tta {row["verdict"]} {mine}'); pbad += 1
        n_changed += bool(drop) and verdict != want
    if known and n_changed == 0:
        print(f'{rnd}: the known differences change no verdict: remove them'); pbad += 1
    print(f'{rnd}: as published: {n_changed} logs pass that fail today (known differences), {pbad} wrong')
    bad += pbad
sys.exit(1 if bad else 0)
