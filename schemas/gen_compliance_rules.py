#!/usr/bin/python3
"""Writes schemas/compliance_rules.json: MLCommons' compliance checker rules for MLPerf Training, transcribed from
the YAML files of a checkout of github:mlcommons/logging (mlperf_logging/compliance_checker/training_<ruleset>/).

Usage: gen_compliance_rules.py LOGGING_DIR COMMIT [GIT_DIR RULESET=COMMIT...] > schemas/compliance_rules.json
  e.g. /usr/bin/python3 schemas/gen_compliance_rules.py /tmp/mlperf_logging 7bbf792 \
           /work/.mirror/mlcommons+logging/repo 2.1.0=35004c4 > schemas/compliance_rules.json

RULESET=COMMIT pairs name, for a round whose rules changed after it was published, the logging commit current
when it was published (the last before its publication date): the files of training_<ruleset>/ that differ there
are kept under "published" ("as published": what the summarizer ran on the round; tta check --as-published and
tta ingest use them). Read from the git repository GIT_DIR.

Each YAML file becomes one "config" (named as the checker names it, e.g. "training_5.1.0/closed_bert.yaml"), holding
its BEGIN code, its KEY records in the order the checker visits them (a later record of the same NAME replaces an
earlier one but keeps its place, as a Python dict does) and its END record. The expressions are copied as text;
tta's own evaluator (check/expr.c) reads them. Needs python3-yaml."""
import glob, json, os, sys, yaml

RULESETS = ['0.7.0', '1.0.0', '1.1.0', '2.0.0', '2.1.0', '3.0.0', '3.1.0', '4.0.0', '4.1.0', '5.0.0', '5.1.0',
            '6.0.0', '6.1.0']


def as_list(x):
    return x if isinstance(x, list) else [x]


def config(path, text=None):
    if text is None:
        with open(path) as f:
            text = f.read()
    recs = yaml.load(text, Loader=yaml.BaseLoader) or []
    out = {'keys': []}
    keys = {}
    for rec in recs:
        (kind, body), = rec.items()
        if kind == 'BEGIN':
            out['begin'] = body['CODE'].strip()
        elif kind == 'END':
            end = {}
            if 'PRE' in body: end['pre'] = body['PRE'].strip()
            if 'CHECK' in body: end['check'] = [c.strip() for c in as_list(body['CHECK'])]
            out['end'] = end
        elif kind == 'KEY':
            k = {'name': body['NAME']}
            for yk, jk in (('REQ', 'req'), ('PRE', 'pre'), ('POST', 'post'), ('ATLEAST_ONE_CHECK', 'atleast_one_check')):
                if yk in body: k[jk] = body[yk].strip()
            for yk, jk in (('CHECK', 'check'), ('FIRST_CHECK', 'first_check')):
                if yk in body: k[jk] = [c.strip() for c in as_list(body[yk])]
            keys[k['name']] = k
        else:
            raise SystemExit(f'{path}: unknown record {kind}')
    out['keys'] = list(keys.values())
    return out


def main():
    root, commit = sys.argv[1], sys.argv[2]
    cc = os.path.join(root, 'mlperf_logging', 'compliance_checker')
    configs = {}
    for rs in RULESETS:
        for path in sorted(glob.glob(os.path.join(cc, f'training_{rs}', '*.yaml'))):
            configs[os.path.relpath(path, cc)] = config(path)
    published = {}
    if len(sys.argv) > 3:
        import subprocess
        git = sys.argv[3]
        for pair in sys.argv[4:]:
            rs, c = pair.split('=')
            files = {}
            prefix = f'mlperf_logging/compliance_checker/training_{rs}/'
            names = subprocess.run(['git', '-C', git, 'ls-tree', '--name-only', c, prefix], capture_output=True,
                                   text=True, check=True).stdout.split()
            for n in sorted(names):
                text = subprocess.run(['git', '-C', git, 'show', f'{c}:{n}'], capture_output=True, text=True,
                                      check=True).stdout
                name = n[len('mlperf_logging/compliance_checker/'):]
                cfg = config(n, text)
                if configs.get(name) != cfg:
                    files[name] = cfg
            date = subprocess.run(['git', '-C', git, 'log', '-1', '--format=%ad', '--date=short', c],
                                  capture_output=True, text=True, check=True).stdout.strip()
            published[rs] = {'commit': c, 'date': date, 'configs': files}
    doc = {
        'source': f'github:mlcommons/logging {commit}, mlperf_logging/compliance_checker/training_<ruleset>/*.yaml',
        'generated_by': 'schemas/gen_compliance_rules.py',
        'rulesets': RULESETS,
        'configs': configs,
        'published': published,
    }
    json.dump(doc, sys.stdout, indent=1)
    sys.stdout.write('\n')


main()
