#!/usr/bin/python3
"""Records the official MLCommons figures of one MLPerf HPC round (or of the HPC fixtures) as tta's expected values.

Input: the JSON a driver of MLCommons' own code wrote for an HPC results tree, folder by folder (the approach of
../shared/tools/official_rounds.py, with usage 'hpc'): per <org>/results/<system>/[strong|weak/]<benchmark> folder
  strong: result_summarizer._compute_strong_score_standalone(bench, system, has_power, folder, 'hpc', ruleset)
  weak:   result_summarizer._compute_weak_score_standalone(bench, system, has_power, folder, 'hpc', ruleset)
  both:   rcp_checker.check_directory(folder, 'hpc', ruleset, False, False, rcp_pass='pruned_rcps') (the
          summarizer's own call, which it makes for strong folders only), and per result file
          rcp_checker.read_submission_file(file, ruleset, False)
  ruleset 0.7.0: mlperf_logging has no compliance_checker/hpc_0.7.0, so the summarizer's _read_result_file stops
          on every log (FileNotFoundError); it is replaced by its parse step (mlp_parser.parse_file; a parse error
          still drops the run), and the RCP checker refuses 0.7.0 (no verdict, no progress).
Output, under tests/expected/official/:
  hpc-scores-<name>.tsv    folder, scaling (strong/weak), result files, strong score (min), weak score: time_to_train_all
                           (min), number_of_models, instance_scale; RCP verdict (1/0), message, normalization ('-': none)
  hpc-progress-<name>.tsv  folder/result file, converged (1/0), the RCP checker's convergence point (not where the
                           checker gives no folder a verdict: ruleset 0.7.0)
Each file starts with '#' lines naming the command and the mlcommons/logging commit.

Usage: record_hpc.py OFFICIAL.json NAME LOGGING_COMMIT COMMAND...
"""
import json, os, sys

src, name, commit = sys.argv[1], sys.argv[2], sys.argv[3]
command = ' '.join(sys.argv[4:])
d = json.load(open(src))
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'expected', 'official')
head = ('# Official MLCommons figures for MLPerf HPC %s, recorded once by tests/official/record_hpc.py (its docstring says\n'
        '# which official functions the driver called, with which arguments)\n# from: %s\n'
        '# mlcommons/logging commit %s\n' % (name, command, commit))


def num(x, fmt):
    return '-' if x is None else fmt % x


with open(os.path.join(out, 'hpc-scores-%s.tsv' % name), 'w') as f:
    f.write(head + '# folder\tscaling\tfiles\tscore_min\ttime_to_train_all_min\tnumber_of_models\tinstance_scale'
                   '\trcp_pass\trcp_msg\trcp_normalization\terror\n')
    for k in sorted(d):
        v = d[k]
        rcp = v.get('rcp', {})
        f.write('\t'.join([k, v['scaling_kind'], str(v['files']), num(v.get('score_min'), '%.6f'),
                           num(v.get('time_to_train_all'), '%.6f'), num(v.get('number_of_models'), '%d'),
                           num(v.get('instance_scale'), '%d'),
                           '-' if 'pass' not in rcp else str(int(rcp['pass'])), rcp.get('msg', '-'),
                           num(rcp.get('normalization'), '%.12g'),
                           (v.get('score_error') or rcp.get('error') or '-')[:120].replace('\t', ' ')]) + '\n')
runs = [(k, fn, r) for k in sorted(d) for fn, r in sorted(d[k]['runs'].items())]
# A ruleset the RCP checker refuses (0.7.0: every folder's check stops) has no convergence points to record.
if not all('error' in d[k].get('rcp', {}) for k in d):
    with open(os.path.join(out, 'hpc-progress-%s.tsv' % name), 'w') as f:
        f.write(head + '# folder/file\tconverged\tprogress\terror\n')
        for k, fn, r in runs:
            if 'error' in r:
                f.write('%s/%s\t-\t-\t%s\n' % (k, fn, r['error'][:120].replace('\t', ' ')))
            else:
                f.write('%s/%s\t%d\t%s\t-\n' % (k, fn, 1 if r['converged'] else 0, num(r['progress'], '%.10g')))
print('recorded', name, len(d), 'folders')
