#!/usr/bin/python3
"""Compares `tta check --package --format csv` on a round's tree with MLCommons' package checker's verdicts kept in
tests/expected/package-<round>.tsv (tests/official/package_tsv.py).

Per organisation and folder, for the checks both make (system_desc, benchmark, result_count, file_names, compliance,
seeds): the checker's verdict and key must be tta's (the checker's `skip` of a benchmark is tta's `warn`; a pass's key
is not compared: tta names a bypass). A folder the checker gives no row for must have no tta row that does not pass,
unless the checker stopped (crash) in that organisation: there tta must fail the folder the checker stopped in (or,
where the checker names none, some folder of the organisation), unless it stopped in its RCP step (the folder's seed
check had run: the RCP checker comes after it, and is not among these checks). The RCP rows (rcp, scaling_write) are not tta check's
package section (its score section has the RCP verdict) and are skipped here.

Usage: compare_package.py EXPECTED.tsv TTA.csv TREE ROUND   (prints each difference and a summary; exit 1 on any)"""
import csv, os, sys

expected_path, tta_csv, tree, rnd = sys.argv[1:5]
COMPARED = ('system_desc', 'benchmark', 'result_count', 'file_names', 'compliance', 'seeds')
exp, crashed = {}, {}
for line in open(expected_path):
    if line.startswith('#') or line.startswith('org\t'):
        continue
    org, check, path, verdict, key = (line.rstrip('\n').split('\t') + [''] * 5)[:5]
    if check == 'crash':
        crashed[org] = (path, key)
    elif check in COMPARED:
        exp[(org, check, path)] = ('warn' if verdict == 'skip' else verdict, key)

got = {}
with open(tta_csv, newline='') as f:
    for row in csv.DictReader(f):
        org = os.path.relpath(row['org'], tree)
        got[(org, row['check'], row['path'])] = (row['verdict'], row['key'])

bad = agree = 0
orgs = sorted({k[0] for k in exp} | set(crashed))
for key, (verdict, k) in sorted(exp.items()):
    t = got.get(key)
    if t is None and key[1] == 'file_names':
        t = ('pass', '')
    if t is None:
        print(f'{rnd}: {key[0]} {key[2]} {key[1]}: checker {verdict} [{k}], tta has no such check'); bad += 1
    elif t[0] != verdict or (verdict != 'pass' and t[1] != k):
        print(f'{rnd}: {key[0]} {key[2]} {key[1]}: checker {verdict} [{k}], tta {t[0]} [{t[1]}]'); bad += 1
    else:
        agree += 1
for key, (verdict, k) in sorted(got.items()):
    if key[1] not in COMPARED or key in exp or verdict == 'pass' or key[0] in crashed:
        continue
    if key[1] == 'file_names' and verdict == 'warn':
        print(f'{rnd}: {key[0]} {key[2]} file_names: tta warns [{k}], the checker does not'); bad += 1
    else:
        print(f'{rnd}: {key[0]} {key[2]} {key[1]}: tta {verdict} [{k}], the checker has no such row'); bad += 1
rcp_stops = 0
for org, (path, why) in sorted(crashed.items()):
    if (org, 'seeds', path) in exp and 'unhashable' not in why:
        rcp_stops += 1  # it stopped after the seed checker: in the RCP step, which is not a package check here
        continue
    fails = [k for k, v in got.items() if k[0] == org and v[0] == 'fail']
    at = [k for k in fails if path != '-' and (k[2] == path or path.startswith(k[2] + '/'))]
    if not (at if path != '-' else fails):
        print(f'{rnd}: {org}: the checker stops at {path} ({why}); tta fails nothing there '
              f'({len(fails)} failures elsewhere in the org)'); bad += 1
    else:
        agree += 1
print(f'{rnd}: {len(orgs)} organisations, {len(crashed)} where the checker stops ({rcp_stops} in its RCP step); '
      f'{agree} checks agree, {bad} differ')
sys.exit(1 if bad else 0)
