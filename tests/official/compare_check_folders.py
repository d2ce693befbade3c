#!/usr/bin/python3
"""Compares `tta check --folders --format json`'s per-folder rows over a whole round with MLCommons' own figures.

For every <org>/results/<system>/<benchmark> folder of the round: the score the result summarizer publishes
(tests/expected/official/scores-ROUND.tsv: minutes to the recorded 6 decimals (2e-6), or none) and the RCP checker's verdict and message
(tests/expected/rcp-ROUND.tsv, where the round has one; its column `tta` says what tta must say where the checker
stops with an exception). Both were recorded with MLCommons' code (the files' headers say the command and the
logging commit). Folders of tests/official/known-differences.tsv are not excused: `tta check` judges each log with
today's rules, as that summarizer did. Prints one line per difference, the folders where the summarizer drops
runs (compliance, runs that did not succeed) and a summary line; exits 1 when anything differs.

Usage: compare_check_folders.py CHECK.json TREE ROUND"""
import json, os, sys

here = os.path.dirname(os.path.abspath(__file__))
check_json, tree, rnd = sys.argv[1:4]
rows = json.load(open(check_json))
rows = rows['rows'] if isinstance(rows, dict) else rows
tree = os.path.realpath(tree)


def rel(folder):
    p = os.path.realpath(folder)
    return os.path.relpath(p, tree) if p.startswith(tree + '/') else None


def read_tsv(path):
    out = []
    if not os.path.exists(path):
        return out
    for line in open(path):
        if line.startswith('#') or line.startswith('folder\t') or not line.strip():
            continue
        out.append(line.rstrip('\n').split('\t'))
    return out


mine = {}
for r in rows:
    k = rel(r['folder'])
    if k in mine:
        print('DIFF %s: two folder rows' % k)
    mine[k] = r

diffs, scored, unscored, dropping, rcp_agree, rcp_checked = [], 0, 0, [], 0, 0
expected_scores = read_tsv(os.path.join(here, '..', 'expected', 'official', 'scores-%s.tsv' % rnd))
for folder, files, score, scaling, err in expected_scores:
    m = mine.get(folder)
    if m is None:
        diffs.append('%s: no tta check row (official: %s)' % (folder, score))
        continue
    got = m.get('score_min')
    if score == '-':
        unscored += 1
        if got is not None:
            diffs.append('%s: official gives no score, tta check %.4f' % (folder, got))
    else:
        scored += 1
        if got is None or abs(got - float(score)) > 2e-6:
            diffs.append('%s: official score %s, tta check %s (%s)' % (folder, score, got, m.get('no_score_reason')))
    if m.get('dropped'):
        dropping.append('%s: %s of %s runs dropped, score %s (official %s): %s' % (
            folder, m['dropped'], m['runs'], got if got is None else '%.2f' % got, score, m.get('dropped_runs')))

for folder, ok, msg, norm, tta, reason in read_tsv(os.path.join(here, '..', 'expected', 'rcp-%s.tsv' % rnd)):
    m = mine.get(folder)
    if m is None:
        diffs.append('%s: no tta check row for the RCP verdict' % folder)
        continue
    rcp_checked += 1
    said = '%s: %s' % (m['rcp'], m['rcp_message'])
    if ok == 'error':
        if tta == 'none':
            want_ok = m['rcp'] == 'none'
        elif tta == '*':
            want_ok = True
        else:
            want_ok = said == tta
        if not want_ok:
            diffs.append('%s: the checker stops (%s); tta should say %s (%s), says %r' % (folder, msg, tta, reason, said))
        else:
            rcp_agree += 1
        continue
    want = '%s: %s' % ('pass' if ok == 'true' else 'fail', msg)
    if said != want:
        diffs.append('%s: RCP checker %r, tta check %r' % (folder, want, said))
    else:
        rcp_agree += 1

extra = sorted(k for k in mine if k not in {e[0] for e in expected_scores})
for k in extra:
    # logs right under results/<system>/ (v0.7 Alibaba): the summarizer reads no such folder, tta gives no score
    if mine[k].get('score_min') is None and 'not in a benchmark folder' in (mine[k].get('no_score_reason') or ''):
        continue
    diffs.append('%s: a tta check row the official figures do not have' % k)
for d in diffs:
    print('DIFF ' + d)
for d in dropping:
    print('drops ' + d)
print('%s: %d folders compared (%d scored, %d without a score, as the summarizer); %d RCP verdicts of %d agree; '
      '%d folders where runs are dropped; %d differ' % (rnd, len(expected_scores), scored, unscored, rcp_agree,
                                                          rcp_checked, len(dropping), len(diffs)))
sys.exit(1 if diffs else 0)
