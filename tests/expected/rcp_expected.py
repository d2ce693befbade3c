#!/usr/bin/python3
"""Writes tests/expected/rcp-<round>.tsv from the official outputs of ../shared/tools/official_rounds.py.

    /usr/bin/python3 ../shared/tools/official_rounds.py TREE RULESET ROUND.json   # MLCommons' own code
    /usr/bin/python3 tests/expected/rcp_expected.py ROUND.json ROUND RULESET COMMIT [TREE] > tests/expected/rcp-ROUND.tsv

Run once per round; tests/cli/rcp_official.sh compares `tta report rcp` with the files. One line per
<org>/results/<system>/<benchmark> folder: the checker's pass, message and normalization (its
check_directory with rcp_pass='pruned_rcps', BERT from train_samples), or the exception it stopped
with, and where tta cannot say the same, what tta says instead and why (column `tta`: "=" the same;
"none" no verdict; "fail: MESSAGE" that verdict; "*" any). With TREE (the round's results tree), the
folders where the checker stops for want of dlrm in its run-count table are checked again by the
same checker with dlrm's 5 runs put back (the table before 2023), and tta must say that."""
import json
import sys


def expectation(row):
    """(tta, reason) for a folder whose checker run stopped with an exception."""
    err = row['rcp']['error']
    bench = row['benchmark']
    batches = {r.get('batch') for r in row['runs'].values()}
    if err == 'KeyError(None)' and len(batches) > 1:
        return ('fail: Batch sizes in files do not match',
                'batch sizes %s: the checker warns "Batch sizes in files do not match", then stops (no benchmark '
                'name for RCP_Checker) before its own failure' % ', '.join(str(b) for b in sorted(batches)))
    if err == "KeyError('dlrm')":
        why = 'dlrm left the checker\'s run-count table in 2023; tta judges it with the 5 runs it had'
        if row.get('tree'):
            ok, msg, _ = dlrm_check(row['tree'], row['folder'], row['ruleset'])
            return ('%s: %s' % ('pass' if ok else 'fail', msg), why + ' (and so does the checker given them)')
        return ('*', why)
    if err.startswith('KeyError('):
        return ('none', 'no reference convergence points for %s (the checker stops)' % bench)
    return ('*', 'the checker stops: %s' % err)


def dlrm_check(tree, folder, ruleset):
    """check_directory as official_rounds.py calls it, with dlrm's 5 runs back in the checker's table."""
    import logging
    import os
    sys.path.insert(0, os.environ.get('MLPERF_LOGGING', '/tmp/mlperf_logging'))
    from mlperf_logging.rcp_checker import rcp_checker as rc
    logging.disable(logging.CRITICAL)
    rc.submission_runs['training'].setdefault('dlrm', 5)
    return rc.check_directory(os.path.join(tree, folder), 'training', ruleset, False, False, rcp_file=None,
                              rcp_pass='pruned_rcps')


def main():
    path, rnd, ruleset, commit = sys.argv[1:5]
    tree = sys.argv[5] if len(sys.argv) > 5 else None
    data = json.load(open(path))
    print('# RCP checker verdicts for MLPerf Training %s (rules %s), one line per <org>/results/<system>/<benchmark>'
          % (rnd, ruleset))
    print('# produced by: /usr/bin/python3 ../shared/tools/official_rounds.py <%s tree> %s %s.json '
          '(mlcommons/logging %s: rcp_checker.check_directory, rcp_pass=\'pruned_rcps\', bert_train_samples '
          'for bert), then /usr/bin/python3 tests/expected/rcp_expected.py %s.json %s %s %s%s'
          % (rnd, ruleset, rnd, commit, rnd, rnd, ruleset, commit, ' <%s tree>' % rnd if tree else ''))
    print('# columns: folder, pass (true/false; error: the checker stopped), message (or its exception), '
          'normalization, tta ("=" says the same; else what tta says), reason')
    print('folder\tpass\tmessage\tnormalization\ttta\treason')
    for folder in sorted(data):
        row = data[folder]
        row.update(ruleset=ruleset, tree=tree, folder=folder)
        r = row['rcp']
        if 'error' in r:
            tta, reason = expectation(row)
            print('%s\terror\t%s\t\t%s\t%s' % (folder, r['error'], tta, reason))
        else:
            print('%s\t%s\t%s\t%r\t=\t' % (folder, 'true' if r['pass'] else 'false', r['msg'], r['normalization']))


if __name__ == '__main__':
    main()
