#!/usr/bin/python3
"""Writes the energy to train that MLCommons' result summarizer computes for every
<org>/results/<system>/<benchmark> folder with power logs of a results tree, as JSON on stdout:

    /usr/bin/python3 tests/expected/energy_expected.py TREE RULESET COMMIT [OFFICIAL.json] > tests/expected/energy-X.json

It runs the summarizer's own code (a checkout of mlcommons/logging at $MLPERF_LOGGING, default
/tmp/mlperf_logging, at COMMIT): _compute_strong_score_standalone(..., return_full_scores=True) per
folder, which gives the energy score (energy_j: the olympic mean of the runs' energies, times the
scaling.json factor), the factor, the score in minutes and each successful run's energy
(_compute_total_power) and time to train. OFFICIAL.json, an output of ../shared/tools/official_rounds.py
for the same tree, is checked against (the same energy_j for every folder). A folder the summarizer
stops on is kept with the exception it raised. tests/cli/report_energy.sh compares `tta report energy`
with these files."""
import contextlib
import glob
import io
import json
import os
import sys

sys.path.insert(0, os.environ.get('MLPERF_LOGGING', '/tmp/mlperf_logging'))
from mlperf_logging.result_summarizer import result_summarizer as rs  # noqa: E402


def folder_values(d, ruleset):
    bench = rs._benchmark_alias(os.path.basename(d))
    system = os.path.basename(os.path.dirname(d))
    row = {'benchmark': bench}
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            times, energies, score, energy, factor = rs._compute_strong_score_standalone(
                bench, system, True, d, 'training', ruleset, return_full_scores=True)
    except Exception as e:  # the summarizer stops: keep what it raised
        row['error'] = repr(e)[:200]
        return row
    row.update(energy_j=energy, scaling=factor, score_min=score, runs={})
    for f, e in energies.items():
        name = os.path.basename(f).split('.')[0]
        row['runs'][name] = {'energy_j': e, 'tta_s': times[f] * 60}
    return row


def main():
    tree, ruleset, commit = sys.argv[1:4]
    official = json.load(open(sys.argv[4])) if len(sys.argv) > 4 else None
    folders = {}
    for d in sorted(glob.glob(os.path.join(tree, '*', 'results', '*', '*'))):
        if os.path.isdir(d) and rs._has_power(d):
            folders[os.path.relpath(d, tree)] = folder_values(d, ruleset)
    if official is not None:
        for key, row in folders.items():
            assert official[key].get('energy_j') == row.get('energy_j'), key
    out = {
        'produced_by': '/usr/bin/python3 tests/expected/energy_expected.py %s %s %s%s' % (
            tree, ruleset, commit, ' ' + sys.argv[4] if official is not None else ''),
        'logging_commit': commit,
        'ruleset': ruleset,
        'what': 'per <org>/results/<system>/<benchmark> folder with power logs: the result summarizer\'s '
                'energy score energy_j (J, x scaling), scaling, score_min, and per result file the run\'s '
                'energy_j (_compute_total_power) and tta_s; error: what the summarizer raised',
        'folders': folders,
    }
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write('\n')


main()
