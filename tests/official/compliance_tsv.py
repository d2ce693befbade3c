#!/usr/bin/python3
"""Turns the JSON that ../shared/tools/official_compliance.py writes (MLCommons' compliance checker, one log at a
time) into tests/expected/compliance-<round>.tsv: per log its verdict and the rules it fails, each named the way
`tta check --format csv` names a rule (column `rule`), so that a test can compare them line by line.

Usage: compliance_tsv.py OFFICIAL.json ROUND RULESET COMMAND > tests/expected/compliance-ROUND.tsv

Rule names (one per failed rule, in the checker's order; warnings, which never fail a log, left out):
  KEY: TEST            a CHECK of KEY failed (TEST: the expression's first line)
  error: CHECK|PRE|POST  the checker's Python raised an exception in such code
  KEY: EXACTLY_ONE | AT_LEAST_ONE | AT_LEAST(n)   the count of KEY's lines is wrong
  A|B: AT_LEAST_ONE_OR  neither A nor B logged (names sorted)
  KEY: ATLEAST_ONE_CHECK  no line of KEY passed the rule's ATLEAST_ONE_CHECK
  END: TEST            a check at the end of the log failed
  parse errors | no log lines | checker error"""
import json, re, sys


def norm(text):
    return re.sub(r'\s+', ' ', text.strip())[:120]


def rule_of(msg):
    parts = [p.strip() for p in msg.split(' | ')]
    first = parts[0]
    test = next((p[len('failed test:'):] for p in parts if p.startswith('failed test:')), None)
    m = re.match(r"CHECK for '(.*)' failed in line \d+:", first)
    if m:
        return f'{m.group(1)}: {norm(test or "")}'
    if first.startswith('Failed executing CHECK code'):
        return 'error: CHECK'
    m = re.match(r'Failed executing code (PRE|POST) code', first)
    if m:
        return f'error: {m.group(1)}'
    m = re.match(r"Required EXACTLY_ONE occurrence of '(.*)' but found (\d+)(.*)", first)
    if m:
        n, rest = int(m.group(2)), m.group(3)
        if n >= 2 and 'with different values' not in rest:
            return None  # a warning: the same value logged more than once
        return f'{m.group(1)}: EXACTLY_ONE'
    m = re.match(r"Required (AT_LEAST_ONE|AT_LEAST\(\d+\)) occurrence of '([^']*)' but found", first)
    if m:
        return f'{m.group(2)}: {m.group(1)}'
    m = re.match(r"Required AT_LEAST_ONE occurrence of (.*)$", first)
    if m:
        names = sorted(re.findall(r"'([^']*)'", m.group(1)))
        return '|'.join(names) + ': AT_LEAST_ONE_OR'
    m = re.match(r'Failed checks for (\S+) :', first)
    if m:
        return f'{m.group(1)}: ATLEAST_ONE_CHECK'
    if first.startswith('failed test:'):
        return 'END: ' + norm(first[len('failed test:'):])
    if first.startswith('Log lines had parsing errors'):
        return 'parse errors'
    if first.startswith('No log lines detected'):
        return 'no log lines'
    if first.startswith('Found parsing errors') or first.startswith(':::MLLOG') or first.startswith('^^'):
        return None
    if first.startswith('Could not find config file'):
        return None  # followed by the checker's own exception (checker error)
    return 'unknown: ' + norm(first)


def main():
    src, rnd, ruleset, command = sys.argv[1:5]
    d = json.load(open(src))
    print(f'# MLCommons compliance checker verdicts for MLPerf Training {rnd} (ruleset {ruleset}), one row per result log.')
    print(f'# Recorded with: {command}')
    print('# then: /usr/bin/python3 tests/official/compliance_tsv.py OUT.json ' + rnd + ' ' + ruleset + ' "<that command>"')
    print('# mlperf_logging: github:mlcommons/logging at commit 7bbf792')
    print('log\tverdict\tfirst_rule\trules')
    for log, row in sorted(d.items()):
        rules = [r for r in (rule_of(m) for m in row['messages']) if r]
        if 'error' in row:
            rules.append('checker error')
        if row['valid']:
            verdict = 'pass'
        else:
            verdict = 'fail'
        assert row['valid'] == (not rules), (log, row)
        print(f'{log}\t{verdict}\t{rules[0] if rules else ""}\t{" ; ".join(rules)}')


main()
