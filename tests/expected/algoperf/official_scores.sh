#!/bin/sh
# Runs AlgoPerf's official scoring (scoring/score_submissions.py of github:mlcommons/submissions_algorithms)
# on a leaderboard's logs, both rulesets, and writes into OUT its time_to_targets.csv and scores.csv per
# ruleset (OUT/<ruleset>/). Usage: official_scores.sh SCORING_CHECKOUT LOGS_DIR TARGETS_JSON OUT
# SCORING_CHECKOUT holds the repository's scoring/ folder (git archive HEAD scoring | tar -x -C DIR).
# Needs Debian's python3-numpy, python3-pandas, python3-matplotlib, python3-absl, python3-tabulate.
# Two shims, neither changing a number: numpy < 2.0 calls np.trapezoid np.trapz (the same function), and
# os.listdir is sorted, because the scoring code takes, among the trials of a study that reach the target
# at the same evaluation index, the first in the file system's listing order (pandas idxmin): sorted,
# that is trial number order, what tta takes (docs/algoperf.md).
set -eu
SCORING=$1 LOGS=$2 TARGETS=$3 OUT=$4
for r in external_tuning self_tuning; do
  mkdir -p "$OUT/$r"
  flag=""
  [ "$r" = self_tuning ] && flag=--self_tuning_ruleset
  (cd "$SCORING" && /usr/bin/python3 -c "
import os, sys, runpy, numpy
numpy.trapezoid = numpy.trapz
_listdir = os.listdir
os.listdir = lambda p='.': sorted(_listdir(p))
sys.argv = ['score_submissions', '--submission_directory=$LOGS/$r', '--workload_targets=$TARGETS',
            '--compute_performance_profiles', '--output_dir=$OUT/$r'] + ('$flag'.split())
runpy.run_module('scoring.score_submissions', run_name='__main__')
" > "$OUT/$r/log.txt" 2>&1)
  rm -f "$OUT/$r"/*_summary.csv "$OUT/$r"/*.pdf "$OUT/$r/log.txt"
done
