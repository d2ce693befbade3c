#!/usr/bin/python3
"""Records the official MLCommons figures of one round as tta's expected values.

Input: the JSON that ../shared/tools/official_rounds.py wrote for a results tree (MLCommons' own result
summarizer and RCP checker, run folder by folder). Output, under tests/expected/official/:
  scores-<round>.tsv    folder, result files, official score in minutes (the olympic mean times the
                        scaling.json factor; "-" when the summarizer gives none), scaling factor
  progress-<round>.tsv  folder/result file, converged (1/0), the RCP checker's convergence point
                        ("-" when the run did not converge or the checker could not read the file)
Each file starts with '#' lines naming the command and the mlcommons/logging commit.

Rounds before v1.0 have no RCP checker: only their scores are recorded.

Usage: record_expected.py OFFICIAL.json ROUND LOGGING_COMMIT COMMAND...
"""
import json, os, sys

src, rnd, commit = sys.argv[1], sys.argv[2], sys.argv[3]
command = ' '.join(sys.argv[4:])
d = json.load(open(src))
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'expected', 'official')
os.makedirs(out, exist_ok=True)
head = ('# Official MLCommons figures for MLPerf Training %s, recorded once by tests/official/record_expected.py\n'
        '# from: %s\n# mlcommons/logging commit %s\n' % (rnd, command, commit))

def num(x, fmt):
    return '-' if x is None else fmt % x

with open(os.path.join(out, 'scores-%s.tsv' % rnd), 'w') as f:
    f.write(head + '# folder\tfiles\tscore_min\tscaling\tscore_error\n')
    for k in sorted(d):
        v = d[k]
        f.write('%s\t%d\t%s\t%s\t%s\n' % (k, v['files'], num(v.get('score_min'), '%.6f'),
                                         num(v.get('scaling'), '%.10g'), (v.get('score_error') or '-')[:120]))
if rnd < 'v1.0':
    print('recorded', rnd, len(d), 'folders (scores only: no RCP checker before v1.0)')
    sys.exit(0)
with open(os.path.join(out, 'progress-%s.tsv' % rnd), 'w') as f:
    f.write(head + '# folder/file\tconverged\tprogress\terror\n')
    for k in sorted(d):
        for fn, r in sorted(d[k]['runs'].items()):
            if 'error' in r:
                f.write('%s/%s\t-\t-\t%s\n' % (k, fn, r['error'][:120].replace('\t', ' ')))
            else:
                f.write('%s/%s\t%d\t%s\t-\n' % (k, fn, 1 if r['converged'] else 0, num(r['progress'], '%.10g')))
print('recorded', rnd, len(d), 'folders')
