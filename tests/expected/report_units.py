#!/usr/bin/env python3
"""report_units.py: the expected values of tests/cli/report_units.sh, computed from the fixture logs without tta.

    /usr/bin/python3 tests/expected/report_units.py /tmp/mlperf_logging

Each run's convergence point is read by MLCommons' own rcp_checker.read_submission_file (mlcommons/logging at
7bbf792, ruleset 3.1.0: metadata.epoch_num of the last eval_accuracy before run_stop; for BERT a sample count),
its time to train is run_stop - run_start (time_ms). The decomposition follows docs/statistics.md section 4 with
numpy-free arithmetic: population moments, progress in epochs (ResNet) or millions of samples (BERT: the 3.1.0
rules give no training-set size), time per unit = TTA / progress. Scores are the summarizer's olympic slice
(one fastest dropped; a failed run stands for a slowest one).
"""
import json, math, os, sys

sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else '/tmp/mlperf_logging')
from mlperf_logging.rcp_checker.rcp_checker import read_submission_file

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'fixtures', 'units', 'v3.1', 'NVIDIA',
                    'results')
ENTRIES = [('eos_ngc23.04_pytorch', 'bert', 3, 1e6), ('eos_n8_ngc23.04_pytorch', 'bert', 3, 1e6),
           ('eos_ngc23.09_mxnet', 'resnet', 4, 1)]


def tta_of(path):
    start = stop = None
    for line in open(path, encoding='latin-1'):
        if ':::MLLOG' not in line:
            continue
        rec = json.loads(line[line.index(':::MLLOG') + 8:])
        if rec['key'] == 'run_start':
            start = rec['time_ms']
        if rec['key'] == 'run_stop':
            stop, status = rec['time_ms'], rec['metadata']['status']
    return (stop - start) / 1000.0, status


def mean(x):
    return sum(x) / len(x)


def pstd(x):
    m = mean(x)
    return math.sqrt(sum((v - m) ** 2 for v in x) / len(x))


def cov(x, y):
    mx, my = mean(x), mean(y)
    return sum((a - mx) * (b - my) for a, b in zip(x, y)) / len(x)


out = {}
for system, bench, n, divisor in ENTRIES:
    ttas, progress, ok = [], [], []
    for i in range(n):
        path = os.path.join(HERE, system, bench, 'result_%d.txt' % i)
        not_converged, subm, bs, _ = read_submission_file(path, '3.1.0', False)
        tta, status = tta_of(path)
        ok.append(status == 'success')
        if status == 'success' and not not_converged:
            ttas.append(tta)
            progress.append(subm / divisor)
    tpu = [t / p for t, p in zip(ttas, progress)]
    lp, lt = [math.log(p) for p in progress], [math.log(t) for t in tpu]
    var_p, var_t, c = pstd(lp) ** 2, pstd(lt) ** 2, cov(lp, lt)
    total = var_p + var_t + 2 * c
    succ = sorted(tta_of(os.path.join(HERE, system, bench, 'result_%d.txt' % i))[0] for i in range(n) if ok[i])
    d = n - len(succ)
    score = mean(succ[1:len(succ) - (1 - d)])
    e = dict(progress_mean=mean(progress), progress_std=pstd(progress), time_per_unit_mean_s=mean(tpu),
             time_per_unit_std_s=pstd(tpu), score_s=score)
    if total > 1e-12 * (var_p + var_t):
        e.update(log_var_share_progress=var_p / total, log_var_share_time_per_unit=var_t / total,
                 log_var_share_cov=2 * c / total)
    if pstd(tpu) > 0:
        e['cv_ratio'] = (pstd(progress) / mean(progress)) / (pstd(tpu) / mean(tpu))
    out['%s/%s' % (system, bench)] = e
base, other = out['eos_ngc23.04_pytorch/bert'], out['eos_n8_ngc23.04_pytorch/bert']
out['speedup'] = dict(throughput_speedup=base['time_per_unit_mean_s'] / other['time_per_unit_mean_s'],
                      tta_speedup=base['score_s'] / other['score_s'])
for k, v in out.items():
    print(k)
    for name, x in v.items():
        print('    %s %.17g' % (name, x))
