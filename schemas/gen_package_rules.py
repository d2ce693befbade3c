#!/usr/bin/python3
"""Writes schemas/package_rules.json: what MLCommons' package checker (mlperf_logging/package_checker/) checks per
training ruleset beyond each log's compliance, read from a checkout of github:mlcommons/logging:

- which rulesets have their system descriptions checked, their seeds checked, the RCP checker run: the ruleset sets
  of package_checker.py's `if ruleset in {...}` tests (found by what their body calls: check_systems, check_seeds,
  rcp_checker.check_directory);
- the system description's required fields (system_desc_checker.py's `required_fields` list) and, per ruleset,
  whether its `status` must be one of the availability options (`availability_options`): found by running the
  checker's own check_system_desc on a description with every field and an unknown status, for each ruleset;
- the fields the checker joins into its summary line (a value that is not a string there stops it: TypeError);
- the names of the things the checker treats specially: the params file, its bypass lines, the seed key.

The result files each benchmark needs and a ruleset's benchmarks are not here: they are schemas/benchmark_rules.json's
(runs_required, summary_columns, from the same checkout's benchmark_meta.py); this script checks that they agree.

Usage: gen_package_rules.py LOGGING_DIR COMMIT > schemas/package_rules.json
  e.g. /usr/bin/python3 schemas/gen_package_rules.py /tmp/mlperf_logging 7bbf792 > schemas/package_rules.json"""
import ast, json, logging, os, sys, tempfile

logging_dir, commit = sys.argv[1:3]
sys.path.insert(0, logging_dir)
logging.disable(logging.CRITICAL)
from mlperf_logging import benchmark_meta  # noqa: E402
from mlperf_logging.system_desc_checker import system_desc_checker  # noqa: E402

RULESETS = ['0.6.0', '0.7.0', '1.0.0', '1.1.0', '2.0.0', '2.1.0', '3.0.0', '3.1.0', '4.0.0', '4.1.0', '5.0.0', '5.1.0',
            '6.0.0', '6.1.0']
pkg_path = os.path.join(logging_dir, 'mlperf_logging/package_checker/package_checker.py')
sd_path = os.path.join(logging_dir, 'mlperf_logging/system_desc_checker/system_desc_checker.py')


def ruleset_sets(path):
    """{what the body calls: set of rulesets} for each `if ruleset in {...}` of the file."""
    found = {}
    for node in ast.walk(ast.parse(open(path).read())):
        if not isinstance(node, ast.If):
            continue
        sets = [n for n in ast.walk(node.test) if isinstance(n, ast.Set)]
        if not sets:
            continue
        body = ast.unparse(ast.Module(body=node.body, type_ignores=[]))
        for call in ('check_systems', 'check_seeds', 'check_directory'):
            if call in body:
                found[call] = sorted(ast.literal_eval(sets[0]))
    return found


def literal_list(path, name):
    for node in ast.walk(ast.parse(open(path).read())):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return ast.literal_eval(node.value)
    sys.exit(f'{path}: no list {name}')


def joined_fields(path, name):
    """The fields a `name = ",".join([_get_or_default(contents, "f", ""), ...])` joins: the join raises
    TypeError when one of them is not a string, and the checker stops."""
    for node in ast.walk(ast.parse(open(path).read())):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return [c.args[1].value for c in ast.walk(node.value)
                    if isinstance(c, ast.Call) and getattr(c.func, 'id', '') == '_get_or_default']
    sys.exit(f'{path}: no {name}')


sets = ruleset_sets(pkg_path)
for call in ('check_systems', 'check_seeds', 'check_directory'):
    if call not in sets:
        sys.exit(f'{pkg_path}: no `if ruleset in {{...}}` around {call}')
required = literal_list(sd_path, 'required_fields')
options = literal_list(sd_path, 'availability_options')
joined = joined_fields(sd_path, 'table_csv_prefix')


def status_checked(ruleset):
    desc = {f: '' for f in required}
    desc['status'] = 'not an availability option'
    with tempfile.NamedTemporaryFile('w', suffix='.json', delete=False) as f:
        json.dump(desc, f)
    try:
        valid = system_desc_checker.check_system_desc(f.name, 'training', ruleset)[0]
        desc['status'] = options[0]
        with open(f.name, 'w') as g:
            json.dump(desc, g)
        if not system_desc_checker.check_system_desc(f.name, 'training', ruleset)[0]:
            sys.exit(f'{sd_path}: a description with every field fails for {ruleset}')
    finally:
        os.unlink(f.name)
    return not valid


# benchmark_rules.json must agree with benchmark_meta.py on the counts and benchmarks the package checker uses
here = os.path.dirname(os.path.abspath(__file__))
brules = json.load(open(os.path.join(here, 'benchmark_rules.json')))
columns = {c['ruleset']: c['benchmarks'] for c in brules['summary_columns']}
aliases = {a['name']: a['benchmark'] for a in brules['aliases']}
counts = benchmark_meta.get_result_file_counts('training')
for rs in RULESETS:
    allowed = list(dict.fromkeys(benchmark_meta.get_allowed_benchmarks('training', rs)))  # 4.0 lists one twice
    if columns.get(rs) != allowed:
        sys.exit(f'benchmark_rules.json summary_columns {rs} {columns.get(rs)} != benchmark_meta {allowed}')
    for b in allowed:
        canon = aliases.get(b, b)
        rule = [r for r in brules['benchmarks'] if r['ruleset'] == rs and r['benchmark'] in (b, canon)]
        if not rule:  # tta then cannot count this benchmark's files (`cannot evaluate`)
            print(f'note: benchmark_rules.json has no rule for {rs} {b} (benchmark_meta: {counts[b]} files)',
                  file=sys.stderr)
        elif rule[0]['runs_required'] != counts[b]:
            sys.exit(f'benchmark_rules.json {rs} {b}: runs_required {rule[0]["runs_required"]} '
                     f'!= benchmark_meta {counts[b]}')

out = {
    'source': f'github:mlcommons/logging {commit} (mlperf_logging/package_checker/package_checker.py, '
              'seed_checker.py, system_desc_checker/system_desc_checker.py), written by schemas/gen_package_rules.py',
    'required_fields': required,
    'availability_options': options,
    'string_fields': joined,
    'params_file': 'package_checker_params',
    'params_lines': ['rcp-bypass', 'seed-checker-bypass'],
    'seed_key': 'seed',
    'rulesets': {},
}
for rs in RULESETS:
    out['rulesets'][rs] = {
        'system_desc': rs in sets['check_systems'],
        'status_checked': rs in sets['check_systems'] and status_checked(rs),
        'seeds_closed': rs in sets['check_seeds'],
        'rcp_closed': rs in sets['check_directory'],
    }
json.dump(out, sys.stdout, indent=1)
sys.stdout.write('\n')
