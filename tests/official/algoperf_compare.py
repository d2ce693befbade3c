#!/usr/bin/env python3
"""algoperf_compare.py: tta's AlgoPerf scoring against the official scoring code's output and the published
leaderboard.

    algoperf_compare.py TTA DB EXPECTED_DIR [README.md]

EXPECTED_DIR/<ruleset>/ holds what tests/expected/algoperf/official_scores.sh wrote with the official code
(scores.csv, time_to_targets.csv, performance_profile_score.csv). Checks, for both rulesets: every
submission's score (to 1e-9) and profile (each of the 100 values, exactly); every workload's time to target
(the median over studies, to 1e-9 relative; inf = the target missed, tta's note says so; empty = no trial);
with README.md (the published leaderboard), every score printed there equals tta's rounded to 4 decimals.
Exit 0 when all agree, else 1 with each difference on stdout.
"""
import csv
import io
import math
import re
import subprocess
import sys

RULESETS = ('external_tuning', 'self_tuning')


def tta_csv(tta, db, *args):
    out = subprocess.run([tta, '--db', db, 'report', 'algoperf', '--format', 'csv', *args], check=True,
                         capture_output=True, text=True).stdout
    return list(csv.DictReader(io.StringIO(out)))


def published(readme):
    """{ruleset: {submission: score text}} from the README's two leaderboard tables."""
    text = open(readme, encoding='utf-8').read()
    out = {}
    for ruleset, tag in (('external_tuning', 'EXTERNAL TUNING'), ('self_tuning', 'SELF-TUNING')):
        block = text.split(f'<!-- BEGIN {tag} LEADERBOARD -->')[1].split(f'<!-- END {tag} LEADERBOARD -->')[0]
        out[ruleset] = {}
        for line in block.splitlines():
            m = re.search(r'\(submissions/' + ruleset + r'/([^/)]+)/?\).*\*\*([0-9.]+)\*\*\s*\|\s*$', line)
            if m:
                out[ruleset][m.group(1)] = m.group(2)
    return out


def main():
    tta, db, expected = sys.argv[1:4]
    readme = sys.argv[4] if len(sys.argv) > 4 else None
    board = {(r['ruleset'], r['submission']): r for r in tta_csv(tta, db)}
    runs = {(r['ruleset'], r['submission'], r['workload']): r for r in tta_csv(tta, db, '--runs')}
    bad = checked = 0

    def fail(msg):
        nonlocal bad
        bad += 1
        print('DIFF', msg)

    for rs in RULESETS:
        for r in csv.DictReader(open(f'{expected}/{rs}/scores.csv')):
            checked += 1
            t = board.get((rs, r['submission']))
            if t is None or abs(float(t['score']) - float(r['score'])) > 1e-9:
                fail(f"{rs} {r['submission']} score: official {r['score']}, tta {t and t['score']}")
        for r in csv.DictReader(open(f'{expected}/{rs}/performance_profile_score.csv')):
            checked += 1
            sub = r.pop('submission')
            want = [float(v) for v in r.values()]
            t = board.get((rs, sub))
            got = [float(v) for v in t['profile'].split()] if t else []
            if got != want:
                fail(f'{rs} {sub} profile: official {want}, tta {got}')
        for r in csv.DictReader(open(f'{expected}/{rs}/time_to_targets.csv')):
            sub = r.pop('submission')
            for w, v in r.items():
                checked += 1
                t = runs.get((rs, sub, w))
                if t is None:
                    fail(f'{rs} {sub} {w}: no row in tta report algoperf --runs')
                    continue
                got = t['time_to_target_s']
                if v == '':
                    ok = got == '' and 'no trial' in t['note']
                elif math.isinf(float(v)):
                    ok = got == '' and 'missed' in t['note']
                else:
                    ok = got != '' and abs(float(got) - float(v)) <= 1e-9 * float(v)
                if not ok:
                    fail(f'{rs} {sub} {w} time to target: official {v!r}, tta {got!r} ({t["note"]})')
    if readme:
        for rs, subs in published(readme).items():
            if not subs:
                fail(f'{rs}: no score read from {readme}')
            for sub, score in subs.items():
                checked += 1
                t = board.get((rs, sub))
                if t is None or f"{float(t['score']):.4f}" != score:
                    fail(f'{rs} {sub}: published {score}, tta {t and t["score"]}')
    print(f'{checked} values checked, {bad} differ')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
