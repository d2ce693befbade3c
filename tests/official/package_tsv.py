#!/usr/bin/python3
"""Runs MLCommons' package checker (mlperf_logging.package_checker, as `python3 -m mlperf_logging.package_checker
ORG training RULESET` runs it: its own main(), same arguments) on every organisation folder of a round and writes
one TSV row per check it makes: org, check, path (relative to the org), verdict, key.

The checker only logs; a logging handler reads each record's folder from the checker's own frame (the
check_training_result_files loop's benchmark_folder, check_systems' json_file), so every record is tied to
the folder it is about. The checker's RCP step writes or removes scaling.json in the folder it checks: that
is replaced here by recording what it would write (check scaling_write), so the corpus is never changed.

checks: system_desc (systems/X.json: pass, or fail with key missing:f1,f2 / status), benchmark (skip: not a
benchmark of the ruleset), result_count (pass/fail, key found=N expected=M), file_names (warn), compliance
(pass/warn/fail, key noncompliant=N), seeds (pass/fail, key: the sorted kinds of the seed checker's errors:
no_seed, repeated, parse_error), rcp (pass/fail with the checker's message; not compared by tta's test: the RCP
verdict is `tta check`'s score section), scaling_write (the factor the RCP checker would write), crash (the
checker stopped with an exception: key the exception, path the folder it was in).

Usage: package_tsv.py [--logging DIR] ROUND_TREE RULESET OUT.tsv   (ROUND_TREE holds the organisation folders)"""
import logging, os, re, sys

args = sys.argv[1:]
logging_dir = os.environ.get('MLPERF_LOGGING', '/tmp/mlperf_logging')
if args and args[0] == '--logging':
    logging_dir = args[1]
    args = args[2:]
tree, ruleset, out_path = args
sys.path.insert(0, logging_dir)
from mlperf_logging.package_checker import package_checker  # noqa: E402
from mlperf_logging.rcp_checker import rcp_checker  # noqa: E402

rows = []
org = None
org_dir = None


def rel(p):
    return os.path.relpath(p, org_dir) if p else '-'


def context():
    f = sys._getframe()
    while f:
        name = f.f_code.co_name
        if name == 'check_training_result_files':
            return f.f_locals.get('benchmark_folder') or f.f_locals.get('system_folder')
        if name == 'check_systems':
            return f.f_locals.get('json_file')
        f = f.f_back
    return None


def seed_kinds(text):
    kinds = set()
    if 'logs no seed' in text:
        kinds.add('no_seed')
    if 'already logs the same seed' in text:
        kinds.add('repeated')
    if 'Error found when querying seeds' in text:
        kinds.add('parse_error')
    return ','.join(sorted(kinds))


class Handler(logging.Handler):
    def __init__(self):
        super().__init__()
        self.seed_text = {}

    def emit(self, record):
        msg = record.getMessage()
        where = context()
        path = rel(where)
        lvl = record.levelname
        m = re.match(r'\s*System description checker (passed|failed) for', msg)
        if m:
            if m.group(1) == 'passed':
                rows.append((org, 'system_desc', path, 'pass', ''))
            else:
                reasons = msg.split(' : ', 1)[1] if ' : ' in msg else ''
                if 'Field status contains a non valid value' in reasons:
                    key = 'status'
                else:
                    key = 'missing:' + ','.join(sorted(re.findall(r'Missing field ([^\'",\]]+)', reasons)))
                rows.append((org, 'system_desc', path, 'fail', key))
            return
        if msg.strip().startswith('Skipping benchmark:'):
            rows.append((org, 'benchmark', path, 'skip', msg.split(':', 1)[1].strip()))
            return
        m = re.match(r'Incorrect number of files in dir, or wrong file names in directory .*, found (\d+), expected (\d+)', msg)
        if m:
            rows.append((org, 'result_count', path, 'fail', f'found={m.group(1)} expected={m.group(2)}'))
            return
        if 'do not conform' in msg and 'naming convention' in msg:
            rows.append((org, 'file_names', path, 'warn', ''))
            return
        m = re.match(r'\s*(\d+) files? do(?:es)? not comply, (accepting|directory cannot)', msg)
        if m:
            rows.append((org, 'compliance', path, 'warn' if m.group(2) == 'accepting' else 'fail', f'noncompliant={m.group(1)}'))
            return
        if 'Seed checker failed and found the following errors' in msg:
            self.seed_text[path] = msg
            return
        if msg == 'Seed checker failed':
            rows.append((org, 'seeds', path, 'fail', seed_kinds(self.seed_text.get(path, ''))))
            return
        if msg.startswith('RCP Test Failed:') or msg.startswith('RCP Test Passed:'):
            rows.append((org, 'rcp', path, 'fail' if 'Failed' in msg else 'pass', msg.split(':', 1)[1].strip()))
            return
        if msg.strip() == 'Running Seed Checker':
            rows.append((org, 'seeds_run', path, '', ''))
        if msg.strip().startswith('Running compliance checks in dir'):
            rows.append((org, 'folder', path, '', ''))
        _ = lvl


def record_scaling(self, scale_factor, results_dir):
    rows.append((org, 'scaling_write', rel(results_dir), 'write', repr(float(scale_factor))))


rcp_checker.RCP_Checker._set_results_scaling = record_scaling
rcp_checker.RCP_Checker._reset_results_scaling = lambda self, results_dir: None

root = logging.getLogger()
root.setLevel(logging.INFO)
for h in list(root.handlers):
    root.removeHandler(h)
handler = Handler()
root.addHandler(handler)
logging.captureWarnings(False)
import warnings  # noqa: E402
warnings.simplefilter('ignore')

orgs = sorted(d for d in os.listdir(tree) if os.path.isdir(os.path.join(tree, d)))
for org in orgs:
    org_dir = os.path.join(tree, org)
    start = len(rows)
    try:
        package_checker.check_training_package(org_dir, 'training', ruleset, False, False, False, False, False,
                                               os.devnull)
    except Exception as e:  # the checker stops: record the folder it was in and why
        where, tb = None, e.__traceback__
        while tb:
            f = tb.tb_frame
            if f.f_code.co_name == 'check_training_result_files':
                where = f.f_locals.get('benchmark_folder') or f.f_locals.get('system_folder') or where
            elif f.f_code.co_name == 'check_systems':
                where = f.f_locals.get('json_file') or where
            tb = tb.tb_next
        rows.append((org, 'crash', rel(where), 'crash',
                     f'{type(e).__name__}: {str(e)[:160]}'.replace('\t', ' ').replace('\n', ' ')))
    # folders the checker reached: the rows that have no verdict become passes of the checks it ran there
    run_rows = rows[start:]
    verdicts = {(r[1], r[2]) for r in run_rows}
    extra = []
    for r in run_rows:
        if r[1] == 'folder':
            for check in ('result_count', 'compliance'):
                if (check, r[2]) not in verdicts:
                    extra.append((org, check, r[2], 'pass', ''))
        if r[1] == 'seeds_run' and ('seeds', r[2]) not in verdicts:
            extra.append((org, 'seeds', r[2], 'pass', ''))
    rows[start:] = [r for r in run_rows if r[1] not in ('folder', 'seeds_run')] + extra
    print(f'{org}: {len(rows) - start} checks', file=sys.stderr)

# A result_count pass is not logged: fill its key from the folder's files
with open(out_path, 'w') as out:
    out.write(f'# MLCommons package checker verdicts for MLPerf Training {os.path.basename(tree.rstrip("/"))} (ruleset {ruleset}), '
              'one row per check of each organisation folder.\n')
    out.write(f'# Recorded with: /usr/bin/python3 tests/official/package_tsv.py {tree} {ruleset} OUT.tsv '
              '(runs mlperf_logging.package_checker check_training_package per org, as `python3 -m mlperf_logging.package_checker ORG training RULESET`)\n')
    out.write('# mlperf_logging: github:mlcommons/logging at commit 7bbf792\n')
    out.write('org\tcheck\tpath\tverdict\tkey\n')
    for r in sorted(set(rows)):
        out.write('\t'.join(r) + '\n')
