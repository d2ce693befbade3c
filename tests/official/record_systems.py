#!/usr/bin/python3
"""Records MLCommons' result summarizer's node and accelerator counts for every system of a round.

For each <org>/results/<system>/ folder of TREE, the official summarize_results (mlcommons/logging, a
checkout at $MLPERF_LOGGING, default /tmp/mlperf_logging) runs on a one-system package: a temporary
<org>/systems/<system>.json (a link to the real description) and an empty <org>/results/<system>/. Its scoring
(_compute_strong_scaling_scores) is replaced by one that fills every benchmark with nothing, so that the
summarizer builds the row for the system, with its own code for every column, without reading any log; the
row's number_of_nodes and accelerators_count are what the summarizer publishes for the system. One system
at a time because the summarizer stops at an organisation's first system whose description lacks a field
(a NameError in its error path) or holds a count that int() refuses ("N/A"): such a system gets "-" and the
error instead.

Output (stdout), one line per system folder, sorted:
  <org>/<system>  nodes  accelerators  error
("-" where the summarizer gives no row; error "-" where it gives one).

Usage: record_systems.py TREE RULESET > tests/expected/official/systems-<round>.tsv
   e.g. record_systems.py /tmp/corpus/v4.1/v4.1 4.1.0
"""
import contextlib, glob, io, json, logging, os, shutil, sys, tempfile

sys.path.insert(0, os.environ.get('MLPERF_LOGGING', '/tmp/mlperf_logging'))
logging.disable(logging.CRITICAL)
from mlperf_logging.result_summarizer import result_summarizer as rs


def no_scores(desc, system_folder, usage, ruleset, division, rcp_bypass=False):
    """Every allowed benchmark without a score: the summarizer's own empty row (no log is read)."""
    scores = {}
    rs._fill_empty_benchmark_scores(scores, usage, ruleset)
    return scores, {}


rs._compute_strong_scaling_scores = no_scores

tree, ruleset = sys.argv[1], sys.argv[2]
rows = []
for sysdir in sorted(glob.glob(os.path.join(tree, '*', 'results', '*'))):
    if not os.path.isdir(sysdir):
        continue
    org = os.path.basename(os.path.dirname(os.path.dirname(sysdir)))
    system = os.path.basename(sysdir)
    key = '%s/%s' % (org, system)
    desc = os.path.join(tree, org, 'systems', system + '.json')
    tmp = tempfile.mkdtemp(prefix='tta-systems.')
    try:
        os.makedirs(os.path.join(tmp, 'systems'))
        os.makedirs(os.path.join(tmp, 'results', system))
        if os.path.exists(desc):
            os.symlink(os.path.abspath(desc), os.path.join(tmp, 'systems', system + '.json'))
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            summary = rs.summarize_results(tmp, 'training', ruleset)[0]
        if len(summary) == 1:
            row = summary.iloc[0]
            rows.append((key, str(int(row['number_of_nodes'])), str(int(row['accelerators_count'])), '-'))
        else:
            why = ' '.join(out.getvalue().split())[:160] or 'no row'
            rows.append((key, '-', '-', why.replace(tmp, '')))
    except Exception as e:
        rows.append((key, '-', '-', ('%s: %s' % (type(e).__name__, e))[:160].replace('\t', ' ')))
    finally:
        shutil.rmtree(tmp)
for r in rows:
    print('\t'.join(r))
print('%d systems, %d with a row' % (len(rows), sum(1 for r in rows if r[1] != '-')), file=sys.stderr)
